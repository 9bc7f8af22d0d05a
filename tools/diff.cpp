// tools/diff.cpp - `onnxview diff A B`: the command (--git too). The
// comparison is diff_models() (onnxview/compare/model_diff.hpp), the
// report its text or JSON (onnxview/compare/diff_report.hpp).
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "diff.hpp"
#include "onnxview/compare/diff_report.hpp"
#include "onnxview/compare/model_diff.hpp"
#include "options.hpp"
#include "output.hpp"
#include "subcommand.hpp"

namespace onnxview_cli {
namespace {

using namespace onnxview;

struct arguments {
    const char* a = nullptr;
    const char* b = nullptr;
    const char* weights = "exact";
    const char* ignore = "";
    const char* match = "name";
    const char* fail_on = "";
    std::uint64_t max_changes = std::numeric_limits<std::uint64_t>::max();
    bool json = false;
    bool git = false;
    std::vector<const char*> more;  // --git: the five arguments after A and B
    std::string git_a, git_b;       // --git: "a/PATH", "b/PATH", for messages
};

command_line make_command_line(arguments& a) {
    command_line cl{"diff",
            "what differs between two models, and whether they compute the same",
            "Compares model A (old) with model B (new) and prints what differs, in\n"
            "sections: model (ir_version, opsets, producer, model version, metadata),\n"
            "signature (inputs and outputs: added, removed, element type, shape), graph\n"
            "(nodes paired by name, unnamed ones by structure, in every graph,\n"
            "subgraph and function: added, removed, op_type, domain, inputs, outputs,\n"
            "attributes old -> new), weights (initializers and Constant tensors: added,\n"
            "removed, type, shape, and how far their values are: differing count, first\n"
            "index, max abs, max rel, mean abs, RMS, cosine), layout (where payloads are\n"
            "stored; not counted), names (--match=auto: renames; not counted). The\n"
            "last line is `identical`, `same computation, layout differs`, `same\n"
            "computation, names differ`, `same computation, weights within tolerance`,\n"
            "or `N signature, M graph, K weight changes`. Whether the models compute\n"
            "the same is decided by their `onnxview hash` digests (made without names\n"
            "or values when only those differ, and are explained).\n",
            "exit status: 0 same computation, 1 the models differ (with --fail-on: a\n"
            "listed section changed), 2 usage error or a model that cannot be read\n",
            {text("weights", 0, "MODE", a.weights, "exact, none or allclose:rtol=R,atol=A",
                  "exact (default): compare every weight's values; none: read no\n"
                  "payload, compare weights by type and shape only (and decide\n"
                  "`same computation` without their values); allclose:rtol=R,atol=A:\n"
                  "a weight is unchanged when numpy.allclose(A, B, R, A,\n"
                  "equal_nan=True) holds (defaults rtol=1e-05, atol=1e-08)"),
             text("ignore", 0, "LIST", a.ignore, "a list of doc_string, producer, metadata, names, value_info",
                  "comma-separated: doc_string, producer, metadata leave these\n"
                  "model-section lines out (never counted); names pairs as\n"
                  "--match=auto and lists no renames (graph inputs and outputs\n"
                  "stay signature changes); value_info is never compared (a no-op)"),
             text("match", 0, "MODE", a.match, "name or auto",
                  "name (default): pair nodes by name, unnamed ones by structure;\n"
                  "auto: by structure too when names differ, and values (inputs,\n"
                  "outputs, initializers) through the nodes: renames are listed,\n"
                  "not counted, except those of graph inputs and outputs"),
             text("fail-on", 0, "LIST", a.fail_on, "a list of signature, graph, weights",
                  "exit 1 only when one of these sections changed\n"
                  "(comma-separated: signature, graph, weights)"),
             number("max-changes", 0, "N", a.max_changes, 0, std::numeric_limits<std::uint64_t>::max(),
                    "list at most N lines per section, then how many were left\n"
                    "out (the counts stay whole; --json lists everything)"),
             flag("json", 0, a.json, "one JSON object, each change a structured entry (docs/diff.md:\n\"version\": 2)"),
             flag("git", 0, a.git,
                  "as git's diff.<driver>.command: the operands are git's seven\n"
                  "(PATH OLD-FILE OLD-HEX OLD-MODE NEW-FILE NEW-HEX NEW-MODE); prints\n"
                  "a header line, `model added` or `removed` for /dev/null, weights\n"
                  "by type and shape when git gave no external data, and\n"
                  "exits 0 when the models differ (git stops at a non-zero exit)")},
            {{"A", &a.a}, {"B", &a.b}}};
    cl.more_operands = &a.more;
    return cl;
}

// Opens a model for diff: any failure is exit 2, with one line.
bool open_for_diff(const char* path, model_file& mf) {
    onnxview::options opts = onnxview::digest_open_options();
    opts.verify = true;
    int code = exit_ok;
    return open_model("diff", path, opts, mf, code);
}

int fail(const char* path, error e, const model_file& mf) {
    print_error("diff", "cannot compare '" + shown_path(path) + "': " + describe(e, mf.bytes().data(), mf.bytes().size()));
    return exit_usage;
}

int compare(arguments& args) {
    diff_options options;
    failing fail_on;
    const std::string_view match = args.match;
    std::string usage;
    if (!parse_diff_weights(args.weights, options))
        usage = "--weights is exact, none or allclose:rtol=R,atol=A, not '" + std::string(args.weights) + "'";
    else if (!parse_diff_ignore(args.ignore, options.ignore))
        usage = "--ignore takes doc_string, producer, metadata, names, value_info, not '" + std::string(args.ignore) + "'";
    else if (!parse_fail_on(args.fail_on, fail_on))
        usage = "--fail-on takes signature, graph, weights, not '" + std::string(args.fail_on) + "'";
    else if (match != "name" && match != "auto")
        usage = "--match is name or auto, not '" + std::string(match) + "'";
    if (!usage.empty()) {
        print_error("diff", usage);
        return exit_usage;
    }
    options.matching = match == "auto" ? node_matching::automatic : node_matching::name;
    // git hands --git a copy of an old blob alone, without its external data
    // file: then the weights are compared by type and shape, and said so.
    options.weights_by_shape_when_missing = args.git;
    model_file fa, fb;
    if (!open_for_diff(args.a, fa) || !open_for_diff(args.b, fb)) return exit_usage;
    model_diff d;
    if (error e = diff_models(fa, fb, options, d)) return d.failed_in_b ? fail(args.b, e, fb) : fail(args.a, e, fa);
    const diff_report_names names{shown_path(args.a), shown_path(args.b), args.git_a, args.git_b};
    const std::string report =
        args.json ? diff_report_json(d, options, names) : diff_report_text(d, options, names, args.max_changes);
    std::fwrite(report.data(), 1, report.size(), stdout);
    if (std::fflush(stdout) != 0) {
        print_error("diff", "cannot write to standard output");
        return exit_usage;
    }
    if (fail_on.signature || fail_on.graph || fail_on.weights) {
        const bool failed = (fail_on.signature && d.counts.signature != 0) || (fail_on.graph && d.counts.graph != 0) ||
                            (fail_on.weights && d.counts.weights != 0);
        return failed ? exit_findings : exit_ok;
    }
    return d.same_computation() ? exit_ok : exit_findings;
}

// --git: git's seven external-diff arguments; a side that is /dev/null is a
// model added or removed.
int run_for_git(arguments& args) {
    // Nine when git found a rename: then the new path and a message follow.
    if (args.more.size() != 5 && args.more.size() != 7) {
        print_error("diff", "--git takes git's seven arguments: PATH OLD-FILE OLD-HEX OLD-MODE NEW-FILE NEW-HEX "
                            "NEW-MODE (or nine with a rename; " + std::to_string(args.more.size() + 2) + " given)");
        return exit_usage;
    }
    const std::string path = args.a;
    const std::string new_path = args.more.size() == 7 ? args.more[5] : args.a;
    args.a = args.b;
    args.b = args.more[2];
    args.git_a = "a/" + path;
    args.git_b = "b/" + new_path;
    std::printf("onnxview diff a/%s b/%s\n", path.c_str(), new_path.c_str());
    const std::string_view none = "/dev/null";
    if (args.a == none || args.b == none) {
        std::printf("model %s: %s\n", args.a == none ? "added" : "removed", path.c_str());
        return std::fflush(stdout) == 0 ? exit_ok : exit_usage;
    }
    std::fflush(stdout);
    const int code = compare(args);
    return code == exit_findings ? exit_ok : code;
}

int run(arguments& args) {
    if (args.git) return run_for_git(args);
    if (!args.more.empty()) {
        print_error("diff", "too many arguments (try onnxview diff --help)");
        return exit_usage;
    }
    return compare(args);
}

}  // namespace

const subcommand diff_subcommand = make_subcommand<arguments, make_command_line, run>();

}  // namespace onnxview_cli
