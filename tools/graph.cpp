// tools/graph.cpp - `onnxview graph`: a picture of the model's graph, folded
// by scope and repeats (onnxview/graph.hpp), as DOT, SVG, JSON, Mermaid or a
// self-contained HTML page.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "onnxview/graph.hpp"
#include "options.hpp"
#include "output.hpp"
#include "subcommand.hpp"

namespace onnxview_cli {
namespace {

using namespace onnxview;

struct arguments {
    const char* model = nullptr;
    const char* format = "dot";
    const char* fold = "auto";
    std::uint64_t depth = 0;
    std::uint64_t max_boxes = 400;
    bool initializers = false;
    bool expand_functions = false;
    const char* around = nullptr;
    std::uint64_t radius = 2;
    const char* within = nullptr;
    const char* shapes = "auto";
    const char* output = nullptr;
};

command_line make_command_line(arguments& a) {
    return {"graph",
            "a picture of the graph (DOT, SVG, JSON, Mermaid, an\n"
            "HTML page), folded by scope and repeated blocks",
            "Draws the model's main graph without reading a weight: a box per node (op type\n"
            "and name), per graph input and output, the bodies of If, Loop and Scan as\n"
            "clusters, an edge per value labelled with its name and type (declared, or\n"
            "inferred by the profile's shape rules). A large model is folded to what a\n"
            "person can read: by the scopes exporters write in node names\n"
            "(`/model/layers.3/self_attn/...`) or in the torch exporter's node metadata, with\n"
            "runs of scopes of one structure drawn once (`layers.0 - layers.31 x32`); nodes\n"
            "without scopes fold by structure alone. SVG and the HTML page (pan, zoom,\n"
            "search, a box's details, a folded box's inside on a click; nothing loaded from\n"
            "the network) are laid out by Graphviz's library; docs/graph.md describes the\n"
            "JSON.\n",
            "exit status: 0 success, 1 the model does not parse or has no graph, 2 usage or\n"
            "I/O error\n",
            {text("format", 0, "FORMAT", a.format, "a format", "dot (default), svg, json, mermaid or html"),
             text("fold", 0, "MODE", a.fold, "a fold mode",
                  "auto (default: every node up to --max-boxes, else the\n"
                  "deepest scopes that fit, repeats once), scope, repeat or none"),
             number("depth", 0, "N", a.depth, 1, 1000, "with --fold scope or repeat: scopes N levels deep as boxes"),
             number("max-boxes", 0, "N", a.max_boxes, 1, 100000000,
                    "with --fold auto: at most N boxes (default 400)"),
             flag("initializers", 0, a.initializers, "draw the initializers as boxes"),
             flag("expand-functions", 0, a.expand_functions,
                  "draw each call of a model-local function as its body"),
             text("around", 0, "NAME", a.around, "a node or value name",
                  "only the boxes within --radius edges of the node NAME\n"
                  "(or of the maker and readers of the value NAME), unfolded"),
             number("radius", 0, "K", a.radius, 0, 1000, "with --around: K edges (default 2)"),
             text("shapes", 0, "WHICH", a.shapes, "declared, inferred or auto",
                  "the types on the edges: declared only, or inferred where\n"
                  "none is declared (the profile's shape rules; node MACs too);\n"
                  "auto (default) infers for models of at most 20,000 nodes"),
             text("within", 0, "SCOPE", a.within, "a scope path",
                  "only the nodes in SCOPE (\"model/layers.3\", as boxes name\n"
                  "it), folded from the next level; what crosses its border\n"
                  "drawn as inputs and outputs"),
             text("output", 'o', "FILE", a.output, "a file", "write to FILE instead of stdout")},
            {{"MODEL", &a.model}}};
}

// The page's title: the model's file name, without its directories.
std::string base_name(std::string_view path) {
    const std::size_t slash = path.find_last_of("/\\");
    return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

int run(arguments& a) {
    const std::string format = a.format;
    if (format != "dot" && format != "svg" && format != "json" && format != "mermaid" && format != "html") {
        print_error("graph", "--format must be dot, svg, json, mermaid or html, not '" + format + "'");
        return exit_usage;
    }
    if ((format == "svg" || format == "html") && !graph_layout_available()) {
        std::string why;
        (void)graph_svg(graph_picture(), &why);
        print_error("graph", "--format " + format + ": " + why);
        return exit_usage;
    }
    graph_options opts;
    if (!parse_graph_fold(a.fold, opts.fold)) {
        print_error("graph", "--fold must be auto, scope, repeat or none, not '" + std::string(a.fold) + "'");
        return exit_usage;
    }
    opts.depth = static_cast<std::uint32_t>(a.depth);
    opts.max_boxes = a.max_boxes;
    opts.initializers = a.initializers;
    opts.expand_functions = a.expand_functions;
    if (a.around != nullptr) opts.around = a.around;
    opts.radius = static_cast<std::uint32_t>(a.radius);
    if (a.within != nullptr) opts.within = a.within;
    const std::string shapes = a.shapes;
    if (shapes == "declared") opts.shapes = graph_options::inference::declared;
    else if (shapes == "inferred") opts.shapes = graph_options::inference::inferred;
    else if (shapes != "auto") {
        print_error("graph", "--shapes must be declared, inferred or auto, not '" + shapes + "'");
        return exit_usage;
    }
    int code = exit_ok;
    options open_opts;
    open_opts.reads = model_reads::metadata;
    open_opts.verify = true;
    model_file mf;
    if (!open_model("graph", a.model, open_opts, mf, code)) return code;
    std::string why;
    result<graph_picture> p = format == "html" ? result<graph_picture>(graph_picture()) : draw_graph(mf.model(), opts);
    result<std::string> laid = std::string();
    if (p && format == "html") laid = graph_html(mf.model(), opts, base_name(shown_path(a.model)), &why);
    if (p && format == "svg") laid = graph_svg(*p, &why);
    if (!laid && laid.err().code != errc::not_found) {
        print_error("graph", why);
        return exit_findings;
    }
    if (!laid) p = laid.err();
    if (!p) {
        const bool no_graph = !mf.model().has_graph();
        print_error("graph", p.err().code != errc::not_found ? describe(p.err(), mf.bytes().data(), mf.bytes().size())
                             : no_graph ? "'" + shown_path(a.model) + "' has no graph to draw"
                             : !opts.around.empty() ? "no node or value named " + quoted(opts.around) + " in '" + shown_path(a.model) + "'"
                                                    : "no node in the scope " + quoted(opts.within) + " of '" + shown_path(a.model) + "'");
        if (!no_graph && p.err().code == errc::not_found) return exit_usage;
        return exit_findings;
    }
    const std::string text = format == "dot"       ? graph_dot(*p)
                             : format == "json"    ? graph_json(*p)
                             : format == "mermaid" ? graph_mermaid(*p)
                                                   : *laid;
    std::FILE* out = a.output != nullptr ? std::fopen(a.output, "wb") : stdout;
    if (out == nullptr) {
        print_error("graph", "cannot write '" + std::string(a.output) + "': " + std::strerror(errno));
        return exit_usage;
    }
    const bool written = std::fwrite(text.data(), 1, text.size(), out) == text.size();
    if ((out != stdout && std::fclose(out) != 0) || !written) {
        print_error("graph", "cannot write '" + std::string(a.output != nullptr ? a.output : "stdout") + "'");
        return exit_usage;
    }
    return exit_ok;
}

}  // namespace

const subcommand graph_subcommand = make_subcommand<arguments, make_command_line, run>();

}  // namespace onnxview_cli
