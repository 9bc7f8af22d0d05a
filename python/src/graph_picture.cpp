// python/src/graph_picture.cpp - onnxview.graph(): the picture of a model's
// graph (onnxview/graph.hpp) as `onnxview graph` writes it: DOT, SVG,
// Mermaid or HTML text, or the JSON as a dict; and the SVG that Jupyter
// shows for a Model or a Graph.
#include <string>

#include "binding.hpp"
#include "onnxview/graph.hpp"

namespace onnxview_py {

using namespace onnxview;

py::object svg_picture(const model_view& model, const graph_view& g) {
    std::string svg;
    {
        py::gil_scoped_release unlocked;
        const bool main = model.has_graph() && model.graph().wire_message().begin() == g.wire_message().begin();
        const result<graph_picture> p = main ? draw_graph(model, graph_options()) : draw_graph(g, graph_options());
        if (!p) return py::none();
        result<std::string> laid = graph_svg(*p);
        if (!laid) return py::none();
        svg = std::move(*laid);
    }
    return py::str(svg);
}

void register_graph_picture(py::module_& m) {
    m.def("graph", [](const py::object& path, const std::string& format, const std::string& fold, std::uint32_t depth,
                      std::uint64_t max_boxes, bool initializers, const std::string& around,
                      std::uint32_t radius, const std::string& within, bool expand_functions,
                      const std::string& shapes) -> py::object {
        if (format != "dot" && format != "json" && format != "mermaid" && format != "svg" && format != "html")
            throw py::value_error("format must be 'dot', 'svg', 'json', 'mermaid' or 'html', not '" + format + "'");
        if ((format == "svg" || format == "html") && !graph_layout_available())
            throw py::value_error("format='" + format + "' needs Graphviz's library (libgvc), which this build lacks");
        graph_options opts;
        if (!parse_graph_fold(fold, opts.fold))
            throw py::value_error("fold must be 'auto', 'scope', 'repeat' or 'none', not '" + fold + "'");
        if (max_boxes == 0) throw py::value_error("max_boxes must be at least 1");
        opts.depth = depth;
        opts.max_boxes = max_boxes;
        opts.initializers = initializers;
        opts.around = around;
        opts.radius = radius;
        opts.within = within;
        opts.expand_functions = expand_functions;
        if (shapes == "declared") opts.shapes = graph_options::inference::declared;
        else if (shapes == "inferred") opts.shapes = graph_options::inference::inferred;
        else if (shapes != "auto") throw py::value_error("shapes must be 'declared', 'inferred' or 'auto', not '" + shapes + "'");
        const source_ptr src = open_model(file_path(path), true, model_reads::metadata);
        std::string text;
        {
            py::gil_scoped_release unlocked;
            const model_view model = src->model.model();
            std::string why;
            result<graph_picture> p = draw_graph(model, opts);
            result<std::string> laid = std::string();
            if (p && format == "svg") laid = graph_svg(*p, &why);
            if (p && format == "html") {
                const std::size_t slash = src->path.find_last_of("/\\");
                laid = graph_html(model, opts, slash == std::string::npos ? src->path : src->path.substr(slash + 1), &why);
            }
            if (!laid) {
                py::gil_scoped_acquire locked;
                throw py::value_error("cannot lay out '" + src->path + "': " + why);
            }
            if (!p) {
                py::gil_scoped_acquire locked;
                if (p.err().code == errc::not_found && model.has_graph()) {
                    if (!around.empty()) throw py::key_error("no node or value named '" + around + "' in '" + src->path + "'");
                    throw py::key_error("no node in the scope '" + within + "' of '" + src->path + "'");
                }
                raise_error(p.err(), src.get(), "cannot draw '" + src->path + "'");
            }
            text = format == "dot"       ? graph_dot(*p)
                   : format == "json"    ? graph_json(*p)
                   : format == "mermaid" ? graph_mermaid(*p)
                                         : std::move(*laid);
        }
        if (format == "json") return py::module_::import("json").attr("loads")(text);
        return py::str(text);
    }, py::arg("path"), py::kw_only(), py::arg("format") = "dot", py::arg("fold") = "auto", py::arg("depth") = 0u,
       py::arg("max_boxes") = 400u, py::arg("initializers") = false, py::arg("around") = "", py::arg("radius") = 2u,
       py::arg("within") = "", py::arg("expand_functions") = false, py::arg("shapes") = "auto",
       "The picture of the model's main graph, as `onnxview graph` draws it (docs/graph.md): DOT\n"
       "(format='dot', for Graphviz), SVG, Mermaid or a self-contained HTML page as text, or the\n"
       "JSON as a dict (SVG and HTML need Graphviz's library at build time). fold: 'auto' (every\n"
       "node up to max_boxes boxes, else by the scopes of the node names with repeated layers drawn\n"
       "once), 'scope', 'repeat' or 'none'; depth: the scope levels shown; around: only the boxes\n"
       "within `radius` edges of that node or value (KeyError when none has that name); within:\n"
       "one scope alone ('model/layers.3'); expand_functions: each call of a model-local function\n"
       "drawn as its body; shapes: 'declared', 'inferred' (types the shape rules give values\n"
       "declared nowhere, and MACs) or 'auto' (inferred up to 20,000 nodes). Weights are not read.");
}

}  // namespace onnxview_py
