// tools/profile.cpp - `onnxview profile`: parameters, MACs, FLOPs and
// activation memory of every node (onnxview/profile.hpp), as a table, CSV
// or JSON, by node or by operator.
//
// The JSON is write_profile_json's (the profile library; docs/profile.md
// describes every field).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "onnxview/enums.hpp"
#include "onnxview/model.hpp"
#include "onnxview/profile.hpp"
#include "options.hpp"
#include "output.hpp"
#include "subcommand.hpp"

namespace onnxview_cli {
namespace {

using namespace onnxview;

struct arguments {
    const char* model = nullptr;
    const char* by = "node";
    std::vector<const char*> dims;
    std::vector<const char*> inputs;
    bool json = false;
    bool csv = false;
    bool full = false;
};

command_line make_command_line(arguments& a) {
    return {"profile",
            "parameters, MACs, FLOPs and activation memory\n"
            "of every node, with symbolic shapes",
            "Profiles the main graph of an ONNX model without reading its weights (the\n"
            "bodies of If, Loop and Scan and the model-local functions nodes call too): the\n"
            "output shapes of every node (from the model's value_info, inputs and outputs,\n"
            "then the shape rules of the standard operators), the parameters each node\n"
            "reads (initializers and Constant tensors, a shared tensor counted once in the\n"
            "totals), MACs and FLOPs, output bytes, and the peak of live activation\n"
            "memory in file order. Dimensions named by dim_params stay symbolic (totals\n"
            "are polynomials in their names) unless --dim gives them values. Every node\n"
            "whose shape or cost is unknown is listed with the reason, and the totals say\n"
            "how many nodes they cover. Conventions: docs/profile.md.\n",
            "exit status: 0 ok, 1 the file is not a valid ModelProto, 2 usage or I/O error\n",
            {text("by", 0, "VIEW", a.by, "node, op, scope or scope:DEPTH",
                  "node: one row per node (default); op: one per operator type;\n"
                  "scope: one per scope of the node names (/encoder/layer.0/MatMul:\n"
                  "encoder/layer.0), scope:2 its first 2 parts"),
             text_list("dim", 0, "NAME=VALUE", a.dims, "NAME=VALUE",
                       "give the dim_param NAME the value VALUE (repeatable)"),
             text_list("input", 0, "NAME=SHAPE", a.inputs, "NAME=SHAPE (sizes joined by x: 1x1024, or scalar)",
                       "give the graph input NAME the shape SHAPE, e.g. 1x3x224x224,\n"
                       "or `scalar` for rank 0; the dim_params it declares take\n"
                       "those values (repeatable)"),
             flag("full", 0, a.full,
                  "the summary's totals exact: whole polynomials and exact counts\n"
                  "(default: the leading terms, in units of 1000 and 1024)"),
             flag("json", 0, a.json, "one JSON object on stdout (version 2, docs/profile.md)"),
             flag("csv", 0, a.csv, "comma-separated values on stdout, a header line first")},
            {{"MODEL", &a.model}}};
}

std::string node_label(const node_profile& n, std::size_t index) {
    std::string label = "#" + std::to_string(index) + " ";
    if (!n.scope.empty()) {
        label += "[";
        text_quote(label, n.scope);
        label += "] ";
    }
    if (!n.name.empty()) {
        label += "'";
        text_quote(label, n.name);
        label += "' ";
    }
    label += "(";
    text_quote(label, n.op_type);
    return label + ")";
}

std::string shapes_text(const node_profile& n, const dim_legend& legend) {
    std::string s;
    for (const profiled_output& o : n.outputs) {
        if (!s.empty()) s += ' ';
        s += readable_shape(o.shape, legend);
    }
    return s;
}

// A group's key as the table shows it: a scope left empty by names without one is "(root)".
std::string group_key_text(const profile_view& v, const std::string& key) {
    if (v.by == profile_grouping::scope && key.empty()) return "(root)";
    std::string out;
    text_quote(out, key);
    return out;
}

// Writes out what `o` holds once it passes 1 MiB: a 100k-node table built
// whole would double its string while growing (two copies live at once).
constexpr std::size_t flush_size = std::size_t{1} << 20;
void flush_some(std::string& o) {
    if (o.size() < flush_size) return;
    std::fwrite(o.data(), 1, o.size(), stdout);
    o.clear();
}

std::string percent(std::size_t part, std::size_t whole) {
    if (whole == 0) return "100%";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
    return buf;
}

// The summary's peak line: the bytes and the node after which they peak,
// or "max(a, b)" and the candidates' nodes when it depends on the dims'
// values.
std::string peak_text(const model_profile& p, const dim_legend& legend, bool full) {
    if (!p.peak_candidates.empty()) {
        std::string s = "max(";
        for (std::size_t i = 0; i < p.peak_candidates.size(); ++i)
            s += (i ? ", " : "") + readable_expr(p.peak_candidates[i].bytes, legend, full, true);
        s += full ? ") bytes, after" : "), after";
        for (const model_profile::peak_candidate& c : p.peak_candidates) s += " " + node_label(p.nodes[c.node], c.node);
        return s;
    }
    if (!p.totals.peak_activation_bytes.known) return "unknown: " + p.peak_reason;
    return readable_quantity(p.totals.peak_activation_bytes, legend, full, true) + (full ? " bytes" : "") +
           ", after " + node_label(p.nodes[p.peak_node], p.peak_node);
}

// The operator types with the most MACs, fastest growing first (at most 5),
// with their share when every total is a number.
std::string top_ops_text(const model_profile& p, const dim_legend& legend, bool full) {
    std::vector<profile_group> ops = group_nodes(p, profile_grouping::op);
    ops.erase(std::remove_if(ops.begin(), ops.end(),
                             [](const profile_group& g) { return !g.macs.known || g.macs.value == dim_expr(0); }),
              ops.end());
    std::stable_sort(ops.begin(), ops.end(),
                     [](const profile_group& a, const profile_group& b) { return grows_faster(a.macs, b.macs); });
    if (ops.size() > 5) ops.resize(5);
    std::string s;
    for (const profile_group& g : ops) {
        s += "  ";
        text_quote(s, g.key);
        s += "\t" + std::to_string(g.nodes) + (g.nodes == 1 ? " node\t" : " nodes\t") +
             readable_quantity(g.macs, legend, full);
        if (g.macs.concrete() && p.totals.macs.concrete() && p.totals.macs.value.constant_term() > 0) {
            char share[32];
            std::snprintf(share, sizeof share, "\t%.1f%%",
                          100.0 * static_cast<double>(g.macs.value.constant_term()) /
                              static_cast<double>(p.totals.macs.value.constant_term()));
            s += share;
        }
        s += "\n";
    }
    return s.empty() ? s : "top ops by MACs:\n" + s;
}

// The first screen: coverage, dims, parameters, costs, peak, top ops.
std::string summary_text(const model_profile& p, const dim_legend& legend, bool full) {
    std::string o;
    o += "nodes: " + std::to_string(p.main_graph_nodes) + ", covered " + std::to_string(p.main_graph_covered) + " (" +
         percent(p.main_graph_covered, p.main_graph_nodes) + ")" +
         (p.main_graph_covered == p.main_graph_nodes ? "" : "; totals of MACs and FLOPs over the covered nodes") + "\n";
    if (const std::size_t inner = p.nodes.size() - p.main_graph_nodes; inner != 0)
        o += "in bodies and functions: " + std::to_string(inner) + " nodes, covered " +
             std::to_string(p.covered_nodes - p.main_graph_covered) + " (counted in their holders)\n";
    if (!legend.aliases().empty()) {
        o += "dims:";
        for (std::size_t i = 0; i < legend.aliases().size(); ++i) {
            o += i ? ", " : " ";
            o += legend.aliases()[i].first + " = ";
            text_quote(o, legend.described(legend.aliases()[i].second));
        }
        o += "\n";
    }
    if (full)
        o += "params: " + std::to_string(p.totals.params) + " (" + std::to_string(p.totals.param_bytes) + " bytes)\n";
    else
        o += "params: " + readable_count(p.totals.params) + " (" + readable_bytes(p.totals.param_bytes) + ")\n";
    o += "MACs: " + readable_quantity(p.totals.macs, legend, full) + "\n";
    o += "FLOPs: " + readable_quantity(p.totals.flops, legend, full) + "\n";
    o += "peak activations: " + peak_text(p, legend, full) + "\n";
    o += top_ops_text(p, legend, full);
    return o;
}

void print_table(const model_profile& p, const profile_view& v, bool full) {
    const dim_legend legend(p);
    std::string o = summary_text(p, legend, full) + "\n";
    if (v.grouped) {
        o += std::string(group_key_name(v.by)) + "\tnodes\tMACs\tFLOPs\tparams\n";
        for (const profile_group& g : group_nodes(p, v.by, v.scope_depth)) {
            o += group_key_text(v, g.key) + "\t" + std::to_string(g.nodes) + "\t" +
                 readable_quantity(g.macs, legend, true) + "\t" + readable_quantity(g.flops, legend, true) + "\t" +
                 std::to_string(g.params);
            if (g.not_covered) o += "\t(" + std::to_string(g.not_covered) + " not covered)";
            o += "\n";
        }
    } else {
        o += "node\toutput shapes\tMACs\tFLOPs\tparams\n";
        for (std::size_t i = 0; i < p.nodes.size(); ++i) {
            const node_profile& n = p.nodes[i];
            o += node_label(n, i) + "\t" + shapes_text(n, legend) + "\t" + readable_quantity(n.macs, legend, true) +
                 "\t" + readable_quantity(n.flops, legend, true) + "\t" + std::to_string(n.params) + "\n";
            flush_some(o);
        }
    }
    const std::size_t unknown = p.nodes.size() - p.covered_nodes;
    if (unknown != 0) {
        o += "\nnot covered (" + std::to_string(unknown) + "):\n";
        for (std::size_t i = 0; i < p.nodes.size(); ++i)
            if (!p.nodes[i].covered()) {
                o.append("  ").append(node_label(p.nodes[i], i)).append(": ").append(p.nodes[i].reason) += '\n';
                flush_some(o);
            }
    }
    std::string bases;
    for (std::size_t i = 0; i < p.nodes.size(); ++i)
        if (!p.nodes[i].cost_basis.empty())
            bases.append("  ").append(node_label(p.nodes[i], i)).append(": ").append(p.nodes[i].cost_basis) += '\n';
    if (!bases.empty()) o += "\ncontrol flow:\n" + bases;
    if (!p.shared.empty()) {
        o += "\nshared tensors (" + std::to_string(p.shared.size()) + ", counted once in params):\n";
        for (const model_profile::shared_tensor& t : p.shared) {
            o += "  '";
            text_quote(o, t.name);
            o += "' " + std::to_string(t.elements) + " read by";
            for (std::size_t r : t.readers) o += " #" + std::to_string(r);
            o += "\n";
        }
    }
    for (const std::string& note : p.notes) o += "note: " + note + "\n";
    std::fwrite(o.data(), 1, o.size(), stdout);
}

// CSV field: quoted when it holds a comma, a quote or a line break.
std::string csv_field(std::string_view s) {
    if (s.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(s);
    std::string out = "\"";
    for (char ch : s) {
        if (ch == '"') out += '"';
        out += ch;
    }
    return out + "\"";
}

void print_csv(const model_profile& p, const profile_view& v) {
    std::string o;
    if (v.grouped) {
        o += std::string(group_key_name(v.by)) + ",nodes,not_covered,macs,flops,params\n";
        for (const profile_group& g : group_nodes(p, v.by, v.scope_depth))
            o += csv_field(g.key) + "," + std::to_string(g.nodes) + "," + std::to_string(g.not_covered) + "," +
                 csv_field(g.macs.str()) + "," + csv_field(g.flops.str()) + "," + std::to_string(g.params) + "\n";
    } else {
        o += "index,name,op_type,output_shapes,macs,flops,params,param_bytes,reason,scope,parent,cost_basis\n";
        for (std::size_t i = 0; i < p.nodes.size(); ++i) {
            const node_profile& n = p.nodes[i];
            o += std::to_string(i) + "," + csv_field(n.name) + "," + csv_field(n.op_type) + "," +
                 csv_field(shapes_text(n, dim_legend())) + "," + csv_field(n.macs.str()) + "," + csv_field(n.flops.str()) + "," +
                 std::to_string(n.params) + "," + std::to_string(n.param_bytes) + "," + csv_field(n.reason) + "," +
                 csv_field(n.scope) + "," + (n.in_main_graph() ? std::string() : std::to_string(n.parent)) + "," +
                 csv_field(n.cost_basis) + "\n";
            flush_some(o);
        }
    }
    std::fwrite(o.data(), 1, o.size(), stdout);
}

// A write error stops the writing; run() then reports it.
void print_json(const model_profile& p, const profile_view& v) {
    const write_sink out{stdout, [](void* f, const char* data, std::size_t size) noexcept {
                             return std::fwrite(data, 1, size, static_cast<std::FILE*>(f)) == size
                                        ? error()
                                        : error(errc::io_write_failed);
                         }};
    (void)write_profile_json(p, v, out);
}

bool parse_dims(const arguments& a, profile_options& opts) {
    for (const char* d : a.dims) {
        const std::string_view s(d);
        const std::size_t eq = s.find('=');
        std::uint64_t v = 0;
        if (eq == std::string_view::npos || eq == 0 || !parse_u64(s.substr(eq + 1), v) ||
            v > static_cast<std::uint64_t>(INT64_MAX)) {
            print_error("profile", "--dim needs NAME=VALUE with a non-negative VALUE, not '" + std::string(s) + "'");
            return false;
        }
        opts.dims.push_back({std::string(s.substr(0, eq)), static_cast<std::int64_t>(v)});
    }
    for (const char* in : a.inputs) {
        const std::string_view s(in);
        const std::size_t eq = s.rfind('=');
        input_binding b;
        bool ok = eq != std::string_view::npos && eq != 0 && eq + 1 < s.size();
        if (ok) b.name = std::string(s.substr(0, eq));
        // Rank 0 has no sizes to join: it is spelled `scalar`.
        const bool scalar = ok && s.substr(eq + 1) == "scalar";
        for (std::string_view rest = ok && !scalar ? s.substr(eq + 1) : std::string_view(); ok && !rest.empty();) {
            const std::size_t x = rest.find('x');
            std::uint64_t v = 0;
            ok = parse_u64(rest.substr(0, x), v) && v <= static_cast<std::uint64_t>(INT64_MAX);
            b.dims.push_back(static_cast<std::int64_t>(v));
            rest = x == std::string_view::npos ? std::string_view() : rest.substr(x + 1);
            ok = ok && !(x != std::string_view::npos && rest.empty());
        }
        if (!ok) {
            print_error("profile", "--input needs NAME=SHAPE with sizes joined by x (1x1024) or NAME=scalar, not '" +
                                       std::string(s) + "'");
            return false;
        }
        opts.inputs.push_back(std::move(b));
    }
    return true;
}

int run(arguments& a) {
    profile_view v;
    if (!parse_profile_view(a.by, v)) {
        print_error("profile", "--by takes node, op, scope or scope:DEPTH (DEPTH >= 1), not '" + std::string(a.by) + "'");
        return exit_usage;
    }
    if (a.json && a.csv) {
        print_error("profile", "--json and --csv exclude each other");
        return exit_usage;
    }
    profile_options popts;
    if (!parse_dims(a, popts)) return exit_usage;
    int code = exit_ok;
    options opts;
    opts.verify = true;
    opts.reads = model_reads::metadata;
    model_file mf;
    if (!open_model("profile", a.model, opts, mf, code)) return code;
    const result<model_profile> p = profile_model(mf.model(), popts);
    if (!p) {
        // The bindings are checked against the model there: name their errors.
        if (!popts.inputs.empty() && (p.err().code == errc::not_found || p.err().code == errc::invalid_argument) &&
            mf.model().has_graph()) {
            print_error("profile", p.err().code == errc::not_found
                                       ? "an --input names no graph input of '" + shown_path(a.model) + "'"
                                       : "an --input or --dim contradicts the shapes '" + shown_path(a.model) +
                                             "' declares (rank, a dim_value, or two values for one dim_param)");
            return exit_usage;
        }
        print_error("profile", "'" + shown_path(a.model) + "': " +
                                   (p.err().code == errc::not_found ? std::string("not an ONNX model: it has no graph")
                                                                    : describe(p.err())));
        return exit_findings;
    }
    if (a.json) print_json(*p, v);
    else if (a.csv) print_csv(*p, v);
    else print_table(*p, v, a.full);
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
        print_error("profile", "cannot write to standard output");
        return exit_usage;
    }
    return exit_ok;
}

}  // namespace

const subcommand profile_subcommand = make_subcommand<arguments, make_command_line, run>();

}  // namespace onnxview_cli
