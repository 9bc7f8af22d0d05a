// tools/info.cpp - `onnxview info`: a summary of a model from its metadata.
//
// Reads only what describes the model: tags and lengths of every message are
// walked (verify(), then the views), but tensor payloads are skipped by their
// lengths, so pages holding weights are never touched and a multi-GB model is
// summarized in the time it takes to walk its graph. Sizes of initializers
// come from dims x element size, not from the payload.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "onnxview/data_types.hpp"
#include "onnxview/enums.hpp"
#include "onnxview/external_data.hpp"
#include "onnxview/model.hpp"
#include "onnxview/tensor_data.hpp"
#include "onnxview/traverse.hpp"
#include "options.hpp"
#include "output.hpp"
#include "subcommand.hpp"
#include "tensor_census.hpp"

namespace onnxview_cli {
namespace {

using namespace onnxview;

struct arguments {
    const char* model = nullptr;
    bool json = false;
};

command_line make_command_line(arguments& a) {
    return {"info",
            "summary: versions, opsets, inputs/outputs, ops,\n"
            "initializers, external data, functions",
            "Summarizes an ONNX model without reading its weights: IR version, producer,\n"
            "opset imports, graph inputs and outputs (element types, shapes, symbolic\n"
            "dimensions by name), node counts by operator and domain, subgraphs,\n"
            "initializers by data type, parameters and bytes wherever they are stored\n"
            "(initializers, Constant nodes, tensor attributes) by data type, external data\n"
            "files, model-local functions and metadata. The file is memory-mapped; tensor\n"
            "payloads are skipped.\n",
            "exit status: 0 ok, 1 the file is not a valid ModelProto, 2 usage or I/O error\n",
            {flag("json", 0, a.json, "one JSON object on stdout, for scripts")},
            {{"MODEL", &a.model}}};
}

std::string str(std::string_view s) { return std::string(s); }



struct external_file {
    std::uint64_t tensors = 0;
    std::uint64_t bytes = 0;      // sum of the tensors' lengths
    std::int64_t file_size = -1;  // -1: not opened
    std::string problem;
};

struct by_type {
    std::uint64_t count = 0;
    std::uint64_t bytes = 0;
};

struct summary {
    std::uint64_t nodes_main = 0;
    std::uint64_t nodes_total = 0;
    std::map<std::string, std::uint64_t> ops;      // "domain::op" or "op"
    std::map<std::string, std::uint64_t> domains;  // "ai.onnx" for ""
    std::uint64_t subgraphs = 0;
    std::uint32_t max_depth = 0;
    std::uint64_t initializers = 0;
    std::uint64_t initializer_bytes = 0;
    std::uint64_t sparse_initializers = 0;
    std::uint64_t constants = 0;
    std::map<std::string, by_type> init_types;
    std::map<std::string, external_file> external;
    std::uint64_t bad_sizes = 0;
};

void add_tensor(summary& s, const tensor_view& t) {
    ++s.initializers;
    std::uint64_t elements = 0, bytes = 0;
    if (!tensor_size(t, elements, bytes)) ++s.bad_sizes;
    s.initializer_bytes += bytes;
    by_type& bt = s.init_types[data_type_name(t.data_type())];
    ++bt.count;
    bt.bytes += bytes;
    if (t.data_location() == location_kind::external) {
        std::string_view loc;
        std::uint64_t length = 0;
        bool has_length = false;
        for (const string_entry_view& e : t.external_data()) {
            if (e.key() == "location") loc = e.value();
            if (e.key() == "length") has_length = parse_u64(e.value(), length);
        }
        external_file& f = s.external[str(loc)];
        ++f.tensors;
        f.bytes += has_length ? length : bytes;
    }
}

// One walk for the whole summary: the census of every tensor (tensor_census.hpp)
// and, in the main graph and the subgraphs it holds, the graphs, nodes and
// initializers (training graphs and functions are not part of the inference
// graph info describes). Two walks, one for each, took a quarter longer.
struct info_walk : tensor_scope_visitor<census_adder> {
    summary& s;
    // Whether the top scope being walked (depth 0) is the main graph: its
    // subgraphs are walked before the next top scope is entered.
    bool in_main_graph = false;
    info_walk(census_adder& adder, summary& out) : tensor_scope_visitor<census_adder>(adder), s(out) {}

    bool enter(const model_scope& scope) {
        tensor_scope_visitor<census_adder>::enter(scope);
        if (scope.depth == 0) in_main_graph = scope.kind == scope_kind::main_graph;
        if (!in_main_graph) return true;
        if (scope.depth > 0) ++s.subgraphs;
        s.max_depth = std::max(s.max_depth, scope.depth);
        for (const tensor_view& t : scope.graph.initializer()) add_tensor(s, t);
        s.sparse_initializers += scope.graph.sparse_initializer().size();
        return true;
    }
    void node(const model_scope& scope, const node_view& n, std::uint32_t node_index) {
        tensor_scope_visitor<census_adder>::node(scope, n, node_index);
        if (!in_main_graph) return;
        if (scope.depth == 0) ++s.nodes_main;
        ++s.nodes_total;
        std::string op;
        if (!n.domain().empty() && n.domain() != "ai.onnx") op = str(n.domain()) + "::";
        op += str(n.op_type());
        ++s.ops[op];
        ++s.domains[n.domain().empty() ? std::string("ai.onnx") : str(n.domain())];
        if (n.op_type() == "Constant" && n.domain().empty()) ++s.constants;
    }
};

void resolve_external(summary& s, const char* model_path) {
    if (s.external.empty()) return;
    options opts{};
    set_external_source(model_path, opts);
    auto r = external_data_resolver::create(opts);
    if (!r) {
        for (auto& kv : s.external) kv.second.problem = errc_message(r.err().code);
        return;
    }
    for (auto& kv : s.external) {
        external_entry e{"location", kv.first};
        auto span = r.value().resolve(&e, 1, unknown_size);
        if (!span) {
            kv.second.problem = errc_name(span.err().code);
            continue;
        }
        kv.second.file_size = static_cast<std::int64_t>(span->file->size());
    }
}

template <class Map>
std::vector<std::pair<std::string, std::uint64_t>> by_count(const Map& m) {
    std::vector<std::pair<std::string, std::uint64_t>> v(m.begin(), m.end());
    std::stable_sort(v.begin(), v.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    return v;
}

std::string q(std::string_view s) {
    std::string out;
    text_quote(out, s);
    return out;
}

std::string parameter_line(const totals& t) {
    return std::to_string(t.elements) + " in " + std::to_string(t.tensors) + (t.tensors == 1 ? " tensor, " : " tensors, ") +
           std::to_string(t.bytes) + " bytes";
}

void print_text(const char* path, std::size_t file_size, const model_view& m, const summary& s,
                const tensor_census& c) {
    std::string o;
    auto line = [&](const std::string& k, const std::string& v) { o += k + ": " + v + "\n"; };
    line("file", q(shown_path(path)) + " (" + std::to_string(file_size) + " bytes)");
    line("ir_version", std::to_string(m.ir_version()));
    std::string prod = q(m.producer_name());
    if (m.has_producer_version()) prod += " " + q(m.producer_version());
    line("producer", prod.empty() ? "(none)" : prod);
    if (m.has_domain()) line("domain", q(m.domain()));
    if (m.has_model_version()) line("model_version", std::to_string(m.model_version()));
    std::string ops;
    for (const opset_id_view& op : m.opset_import()) {
        if (!ops.empty()) ops += ", ";
        ops += (op.domain().empty() ? std::string("ai.onnx") : q(op.domain())) + " " +
               std::to_string(op.version());
    }
    line("opset_import", ops.empty() ? "(none)" : ops);
    const graph_view g = m.graph();
    line("graph", "'" + q(g.name()) + "'");
    o += "inputs (" + std::to_string(g.input().size()) + "):\n";
    for (const value_info_view& v : g.input()) o += "  " + q(v.name()) + ": " + type_string(v.type()) + "\n";
    o += "outputs (" + std::to_string(g.output().size()) + "):\n";
    for (const value_info_view& v : g.output()) o += "  " + q(v.name()) + ": " + type_string(v.type()) + "\n";
    o += "nodes: " + std::to_string(s.nodes_main) + " in the main graph, " +
         std::to_string(s.nodes_total) + " in all\n";
    for (const auto& kv : by_count(s.ops)) o += "  " + q(kv.first) + " " + std::to_string(kv.second) + "\n";
    o += "domains:\n";
    for (const auto& kv : by_count(s.domains)) o += "  " + q(kv.first) + " " + std::to_string(kv.second) + "\n";
    line("subgraphs", std::to_string(s.subgraphs) + " (max depth " + std::to_string(s.max_depth) + ")");
    o += "initializers: " + std::to_string(s.initializers) + ", " + std::to_string(s.initializer_bytes) +
         " bytes";
    if (s.sparse_initializers) o += ", " + std::to_string(s.sparse_initializers) + " sparse";
    o += "\n";
    for (const auto& kv : s.init_types)
        o += "  " + kv.first + " " + std::to_string(kv.second.count) + " tensors, " +
             std::to_string(kv.second.bytes) + " bytes\n";
    if (s.bad_sizes) o += "  (" + std::to_string(s.bad_sizes) + " with invalid dims, not counted)\n";
    // Weights kept in Constant nodes or other tensor attributes count too.
    o += "parameters: " + parameter_line(c.all) + " (initializers, Constant nodes, tensor attributes)\n";
    static const char* const origin_titles[] = {"initializers", "sparse initializers", "Constant nodes",
                                                "other tensor attributes"};
    for (std::size_t i = 0; i < tensor_origin_count; ++i)
        if (c.by_origin[i].tensors != 0) o += std::string("  ") + origin_titles[i] + ": " + parameter_line(c.by_origin[i]) + "\n";
    for (const auto& kv : c.by_data_type) o += "  " + kv.first + ": " + parameter_line(kv.second) + "\n";
    if (!s.external.empty()) {
        o += "external data files (" + std::to_string(s.external.size()) + "):\n";
        for (const auto& kv : s.external) {
            o += "  " + q(kv.first) + ": " + std::to_string(kv.second.tensors) + " tensors, " +
                 std::to_string(kv.second.bytes) + " bytes used";
            if (kv.second.file_size >= 0) o += ", file " + std::to_string(kv.second.file_size) + " bytes";
            else o += ", not readable: " + kv.second.problem;
            o += "\n";
        }
    }
    o += "functions (" + std::to_string(m.functions().size()) + "):\n";
    for (const function_view& f : m.functions())
        o += "  " + q(f.domain()) + "::" + q(f.name()) + " (" + std::to_string(f.input().size()) +
             " inputs, " + std::to_string(f.output().size()) + " outputs, " +
             std::to_string(f.node().size()) + " nodes)\n";
    o += "metadata_props (" + std::to_string(m.metadata_props().size()) + "):\n";
    for (const string_entry_view& e : m.metadata_props()) o += "  " + q(e.key()) + " = " + q(e.value()) + "\n";
    std::fwrite(o.data(), 1, o.size(), stdout);
}

void json_type(json_writer& w, const type_view& t) { w.value(type_string(t)); }

void json_value_infos(json_writer& w, const message_range<value_info_view>& vs) {
    w.begin_array();
    for (const value_info_view& v : vs) {
        w.begin_object();
        w.field("name", v.name());
        w.key("type");
        json_type(w, v.type());
        if (v.has_type() && v.type().has_tensor_type()) {
            const auto tt = v.type().tensor_type();
            w.field("elem_type", data_type_name(tt.elem_type()));
            w.key("shape");
            if (!tt.has_shape()) {
                w.null();
            } else {
                w.begin_array();
                for (const dimension_view& d : tt.shape().dim()) {
                    if (d.has_dim_value()) w.value(d.dim_value());
                    else if (d.has_dim_param()) w.value(d.dim_param());
                    else w.null();
                }
                w.end_array();
            }
        }
        w.end_object();
    }
    w.end_array();
}

void print_json(const char* path, std::size_t file_size, const model_view& m, const summary& s,
                const tensor_census& c) {
    json_writer w;
    w.begin_object();
    w.field("file", shown_path(path));
    w.field("file_size", static_cast<std::uint64_t>(file_size));
    w.field("ir_version", m.ir_version());
    w.field("producer_name", m.producer_name());
    w.field("producer_version", m.producer_version());
    w.field("domain", m.domain());
    w.field("model_version", m.model_version());
    w.key("opset_import");
    w.begin_array();
    for (const opset_id_view& op : m.opset_import()) {
        w.begin_object();
        w.field("domain", op.domain());
        w.field("version", op.version());
        w.end_object();
    }
    w.end_array();
    const graph_view g = m.graph();
    w.field("graph_name", g.name());
    w.key("inputs");
    json_value_infos(w, g.input());
    w.key("outputs");
    json_value_infos(w, g.output());
    w.key("nodes");
    w.begin_object();
    w.field("main_graph", s.nodes_main);
    w.field("total", s.nodes_total);
    w.key("by_op_type");
    w.begin_object();
    for (const auto& kv : by_count(s.ops)) w.field(kv.first, kv.second);
    w.end_object();
    w.key("by_domain");
    w.begin_object();
    for (const auto& kv : by_count(s.domains)) w.field(kv.first, kv.second);
    w.end_object();
    w.end_object();
    w.key("subgraphs");
    w.begin_object();
    w.field("count", s.subgraphs);
    w.field("max_depth", static_cast<std::uint64_t>(s.max_depth));
    w.end_object();
    w.key("initializers");
    w.begin_object();
    w.field("count", s.initializers);
    w.field("bytes", s.initializer_bytes);
    w.field("sparse_count", s.sparse_initializers);
    w.key("by_data_type");
    w.begin_object();
    for (const auto& kv : s.init_types) {
        w.key(kv.first);
        w.begin_object();
        w.field("count", kv.second.count);
        w.field("bytes", kv.second.bytes);
        w.end_object();
    }
    w.end_object();
    w.end_object();
    w.key("parameters");
    w.begin_object();
    w.key("all");
    json_totals(w, c.all);
    w.key("by_origin");
    w.begin_object();
    for (std::size_t i = 0; i < tensor_origin_count; ++i) {
        w.key(tensor_origin_name(static_cast<tensor_origin>(i)));
        json_totals(w, c.by_origin[i]);
    }
    w.end_object();
    w.key("by_data_type");
    w.begin_object();
    for (const auto& kv : c.by_data_type) {
        w.key(kv.first);
        json_totals(w, kv.second);
    }
    w.end_object();
    w.end_object();
    w.key("external_data");
    w.begin_array();
    for (const auto& kv : s.external) {
        w.begin_object();
        w.field("location", kv.first);
        w.field("tensors", kv.second.tensors);
        w.field("bytes", kv.second.bytes);
        w.key("file_size");
        if (kv.second.file_size >= 0) w.value(kv.second.file_size);
        else w.null();
        if (!kv.second.problem.empty()) w.field("problem", kv.second.problem);
        w.end_object();
    }
    w.end_array();
    w.key("functions");
    w.begin_array();
    for (const function_view& f : m.functions()) {
        w.begin_object();
        w.field("domain", f.domain());
        w.field("name", f.name());
        w.field("inputs", static_cast<std::uint64_t>(f.input().size()));
        w.field("outputs", static_cast<std::uint64_t>(f.output().size()));
        w.field("nodes", static_cast<std::uint64_t>(f.node().size()));
        w.end_object();
    }
    w.end_array();
    w.key("metadata_props");
    w.begin_object();
    for (const string_entry_view& e : m.metadata_props()) w.field(e.key(), e.value());
    w.end_object();
    w.end_object();
    std::fwrite(w.str().data(), 1, w.str().size(), stdout);
}

int run(arguments& a) {
    int code = exit_ok;
    const char* path = a.model;
    options opts;
    opts.verify = true;
    opts.reads = model_reads::metadata;
    model_file mf;
    if (!open_model("info", path, opts, mf, code)) return code;
    const model_view& m = mf.model();
    if (!m.has_graph()) {
        // Any protobuf message whose fields happen to fit parses as a
        // ModelProto (a TensorProto often does); without a graph it is none.
        print_error("info", "'" + str(path) + "' is not an ONNX model: it has no graph" +
                                diagnosis_suffix(mf.bytes(), path));
        return exit_findings;
    }
    summary s;
    tensor_census c;
    census_adder adder{c};
    info_walk walk(adder, s);
    (void)walk_scopes(m, walk);  // verify() refused what nests deeper
    resolve_external(s, path);
    if (a.json) print_json(path, mf.bytes().size(), m, s, c);
    else print_text(path, mf.bytes().size(), m, s, c);
    return exit_ok;
}

}  // namespace

const subcommand info_subcommand = make_subcommand<arguments, make_command_line, run>();

}  // namespace onnxview_cli
