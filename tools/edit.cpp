// tools/edit.cpp - `onnxview edit`: a model's own fields changed while its
// bytes stream through (onnxview/write.hpp's edit_options), tensors copied
// as they are; written atomically as `pack` writes.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "onnxview/model_file.hpp"
#include "onnxview/output_file.hpp"
#include "onnxview/write.hpp"
#include "options.hpp"
#include "output.hpp"
#include "subcommand.hpp"
#include "write_output.hpp"

namespace onnxview_cli {
namespace {

using namespace onnxview;

struct arguments {
    const char* in = nullptr;
    const char* out = nullptr;
    std::vector<const char*> metadata;
    std::vector<const char*> dims;
    std::vector<const char*> renames;
    const char* producer = nullptr;
    const char* extract = nullptr;
    const char* prefix = nullptr;
    bool strip_doc_strings = false;
    bool toposort = false;
    bool allow_over_2gib = false;
};

command_line make_command_line(arguments& a) {
    return {"edit",
            "change a model's metadata, producer, doc strings, dims or value names,\n"
            "or cut out a subgraph, its weights streamed through untouched",
            "Writes IN to OUT with the changes asked for; everything else, tensor payloads\n"
            "included, is copied byte for byte, streamed in bounded memory whatever the\n"
            "model's size. OUT is written to a temporary file and renamed into place when\n"
            "complete. A changed metadata entry or producer field comes after the model's\n"
            "other fields (field order carries no meaning in protobuf); a renamed name stays\n"
            "where it was. A --rename that cannot be made is refused (exit 2), nothing\n"
            "written: OLD empty or not a value name of the main graph, NEW empty or in use,\n"
            "two renames of one name or to one name, chains and swaps.\n",
            "exit status: 0 written, 1 IN is not a valid model, 2 usage or I/O error\n",
            {text_list("metadata", 0, "KEY=VALUE", a.metadata, "KEY=VALUE, or KEY to remove it",
                       "set metadata_props KEY to VALUE (replacing an entry with that key);\n"
                       "KEY alone removes it; may repeat"),
             text("producer", 0, "NAME[:VERSION]", a.producer, "NAME or NAME:VERSION",
                  "set producer_name (and producer_version)"),
             text_list("set-dim", 0, "NAME:AXIS=VALUE", a.dims, "NAME:AXIS=VALUE (a number or a name)",
                       "set dim AXIS of the main graph's input or output NAME to VALUE:\n"
                       "digits give dim_value, anything else dim_param; may repeat"),
             text_list("rename", 0, "OLD=NEW", a.renames, "OLD=NEW",
                       "rename the main graph's value OLD to NEW everywhere it is referenced:\n"
                       "inputs, outputs, value_info, initializers, node inputs and outputs,\n"
                       "quantization annotations, training bindings, and subgraphs and\n"
                       "training graphs that do not declare OLD themselves (functions keep\n"
                       "their own names); may repeat: all apply at once, and NEW may not be\n"
                       "a name already used where the rename reaches"),
             text("prefix", 0, "P", a.prefix, "a prefix",
                  "prefix P to every name onnx.compose.add_prefix prefixes: the main\n"
                  "graph's value names (and their references in subgraphs that do not\n"
                  "declare them), its node names, model-local function names and the\n"
                  "op_type of their calls. Not with --rename or --extract"),
             text("extract", 0, "INPUTS:OUTPUTS", a.extract, "INPUTS:OUTPUTS (comma-separated names)",
                  "keep only the subgraph computing OUTPUTS from INPUTS (as\n"
                  "onnx.utils.extract_model cuts it): the nodes, initializers,\n"
                  "value_info, functions and opset imports it needs; the graph's\n"
                  "inputs and outputs become the names given, in that order. Nodes\n"
                  "whose subgraphs use outer values keep those values' producers.\n"
                  "INPUTS may be empty; '\\' before ':' or ',' makes it part of a name.\n"
                  "Each name needs a complete type (graph input, output or value_info,\n"
                  "as onnx.checker requires): run onnx.shape_inference.infer_shapes\n"
                  "first to cut at intermediates without value_info. Not with --rename:\n"
                  "extract first, then rename in a second edit"),
             flag("strip-doc-strings", 0, a.strip_doc_strings, "leave out every doc_string, in every message"),
             flag("toposort", 0, a.toposort,
                  "put the nodes of every graph, subgraph and function in a topological order:\n"
                  "each after the nodes making what it reads (inputs, or outer values its\n"
                  "subgraphs read); of the nodes ready, the earliest first, so a sorted\n"
                  "graph keeps its order. A cycle is refused (exit 1), naming a node on it.\n"
                  "Not with --extract: extract first, then sort in a second edit"),
             flag("allow-over-2gib", 0, a.allow_over_2gib,
                  "write OUT even when it exceeds 2 GiB, which libprotobuf cannot read")},
            {{"IN", &a.in}, {"OUT", &a.out}}};
}

// Splits s at its unescaped ':' and each side at its unescaped ','s; a '\'
// makes the next character part of a name. False: not one ':', or an empty
// name (INPUTS alone may be empty).
bool split_extract(std::string_view s, std::vector<std::string>& inputs, std::vector<std::string>& outputs) {
    std::vector<std::string>* side = &inputs;
    std::string name;
    bool escaped = false, named = false;
    const auto flush = [&]() {
        if (name.empty() && !escaped) return false;
        side->push_back(name);
        name.clear();
        escaped = false;
        return true;
    };
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (c == '\\' && i + 1 < s.size()) {
            name += s[++i];
            escaped = true;
        } else if (c == ',') {
            if (!flush()) return false;
            named = true;
        } else if (c == ':') {
            if (side == &outputs) return false;
            if ((named || !name.empty() || escaped) && !flush()) return false;
            side = &outputs;
            named = false;
        } else {
            name += c;
        }
    }
    return side == &outputs && flush();
}

void print_extract_report(const extract_report& r) {
    std::printf("extracted %llu of %llu nodes, %llu initializers, %llu functions, %llu opset imports\n",
                static_cast<unsigned long long>(r.nodes), static_cast<unsigned long long>(r.nodes_before),
                static_cast<unsigned long long>(r.initializers), static_cast<unsigned long long>(r.functions),
                static_cast<unsigned long long>(r.opsets));
}

}  // namespace

std::string describe_extract_problem(const onnxview::extract_report& r) {
    using onnxview::extract_problem;
    const std::string name = "'" + std::string(r.name) + "'";
    const std::string node = "node '" + std::string(r.node) + "'";
    switch (r.problem) {
    case extract_problem::no_outputs: return "no OUTPUTS given";
    case extract_problem::no_graph: return "the model has no graph, or its graph field occurs more than once";
    case extract_problem::unknown_name:
        return name + " is no graph input, output, value_info, initializer or node output of the main graph";
    case extract_problem::repeated_name: return name + " is given twice";
    case extract_problem::missing_input:
        return name + ", a graph input, is needed" + (r.node.empty() ? std::string() : " by " + node) +
               " but is not among INPUTS";
    case extract_problem::undefined_value:
        return name + " is needed" + (r.node.empty() ? std::string() : " by " + node) +
               " but nothing in the main graph defines it";
    case extract_problem::input_computed:
        return name + " is one of INPUTS, yet " + node +
               ", needed for OUTPUTS, computes it: give the node's other outputs as INPUTS too";
    case extract_problem::no_type:
        return name + " has no complete type in the model (a graph input, output or value_info whose type has "
                      "elem_type and shape), which onnx.checker requires of a graph input or output: add its value_info "
                      "first (onnx.shape_inference.infer_shapes infers them), or cut at another value";
    case extract_problem::none: break;
    }
    return "refused";
}

namespace {

int run(arguments& a) {
    std::vector<metadata_change> changes;
    for (const char* m : a.metadata) {
        const std::string_view s(m);
        const std::size_t eq = s.find('=');
        metadata_change c;
        c.key = s.substr(0, eq);
        if (eq == std::string_view::npos) c.remove = true;
        else c.value = s.substr(eq + 1);
        if (c.key.empty()) return write_failure("edit", "--metadata needs a key: '" + std::string(m) + "'", exit_usage);
        changes.push_back(c);
    }
    edit_options edits{};
    edits.strip_doc_strings = a.strip_doc_strings;
    edits.toposort = a.toposort;
    toposort_report cycle;
    edits.cycle = &cycle;
    if (a.producer != nullptr) {
        const std::string_view p(a.producer);
        const std::size_t colon = p.find(':');
        edits.set_producer_name = true;
        edits.producer_name = p.substr(0, colon);
        if (colon != std::string_view::npos) {
            edits.set_producer_version = true;
            edits.producer_version = p.substr(colon + 1);
        }
    }
    edits.metadata = changes.data();
    edits.metadata_count = changes.size();
    std::vector<dim_change> dims;
    for (const char* d : a.dims) {
        const std::string_view s(d);
        const std::size_t eq = s.find('=');
        const std::size_t colon = eq == std::string_view::npos ? eq : s.rfind(':', eq);
        dim_change c;
        std::uint64_t axis = 0;
        if (colon == std::string_view::npos || colon == 0 || !parse_u64(s.substr(colon + 1, eq - colon - 1), axis) ||
            eq + 1 == s.size())
            return write_failure("edit", "--set-dim needs NAME:AXIS=VALUE, not '" + std::string(d) + "'", exit_usage);
        c.value_name = s.substr(0, colon);
        c.axis = axis;
        const std::string_view value = s.substr(eq + 1);
        std::uint64_t number = 0;
        if (parse_u64(value, number) && number <= static_cast<std::uint64_t>(INT64_MAX)) {
            c.value = static_cast<std::int64_t>(number);
        } else {
            c.is_param = true;
            c.param = value;
        }
        dims.push_back(c);
    }
    edits.dims = dims.data();
    edits.dim_count = dims.size();
    std::vector<name_change> renames;
    for (const char* r : a.renames) {
        const std::string_view s(r);
        const std::size_t eq = s.find('=');
        if (eq == std::string_view::npos)
            return write_failure("edit", "--rename needs OLD=NEW, not '" + std::string(r) + "'", exit_usage);
        renames.push_back({s.substr(0, eq), s.substr(eq + 1)});
    }
    edits.renames = renames.data();
    edits.rename_count = renames.size();
    std::vector<std::string> extract_inputs, extract_outputs;
    std::vector<std::string_view> extract_names;
    extract_request extract{};
    extract_report report;
    if (a.extract != nullptr) {
        if (!split_extract(a.extract, extract_inputs, extract_outputs))
            return write_failure("edit", "--extract needs INPUTS:OUTPUTS (names separated by ','), not '" +
                                             std::string(a.extract) + "'",
                                 exit_usage);
        for (const std::string& n : extract_inputs) extract_names.push_back(n);
        for (const std::string& n : extract_outputs) extract_names.push_back(n);
        extract.inputs = extract_names.data();
        extract.input_count = extract_inputs.size();
        extract.outputs = extract_names.data() + extract_inputs.size();
        extract.output_count = extract_outputs.size();
        extract.report = &report;
        edits.extract = &extract;
    }
    if (a.prefix != nullptr) {
        if (*a.prefix == '\0') return write_failure("edit", "--prefix needs a non-empty prefix", exit_usage);
        if (!renames.empty() || a.extract != nullptr)
            return write_failure("edit", "--prefix excludes --rename and --extract: make them in two edits", exit_usage);
        edits.prefix = a.prefix;
    }
    if (!renames.empty() && a.extract != nullptr)
        return write_failure("edit", "--rename and --extract are made in two edits: extract first, then rename",
                             exit_usage);
    if (a.toposort && a.extract != nullptr)
        return write_failure("edit", "--toposort and --extract are made in two edits: extract first, then sort",
                             exit_usage);
    if (!edits.strip_doc_strings && a.producer == nullptr && changes.empty() && dims.empty() && renames.empty() &&
        a.extract == nullptr && !a.toposort && a.prefix == nullptr)
        return write_failure("edit",
                             "nothing to change: give --metadata, --producer, --set-dim, --rename, --extract, "
                             "--prefix, --strip-doc-strings or --toposort",
                             exit_usage);

    pack_options po{};
    po.inline_align = 1;  // tensors stay where they are
    po.keep_typed = true;
    po.allow_over_2gib = a.allow_over_2gib;
    po.edits = &edits;
    // Every --set-dim must name a dim that exists (distinct changes; a
    // repeated one counts once).
    std::uint64_t distinct = 0;
    for (std::size_t i = 0; i < dims.size(); ++i) {
        bool later = false;
        for (std::size_t j = i + 1; j < dims.size(); ++j)
            later |= dims[j].value_name == dims[i].value_name && dims[j].axis == dims[i].axis;
        distinct += !later;
    }
    const int written = write_model("edit", a.in, a.out, po, nullptr, false, distinct);
    if (written == exit_ok && a.extract != nullptr) print_extract_report(report);
    return written;
}

}  // namespace

const subcommand edit_subcommand = make_subcommand<arguments, make_command_line, run>();

}  // namespace onnxview_cli
