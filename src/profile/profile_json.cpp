// src/profile/profile_json.cpp - a profile as one JSON object ("version":
// 2, docs/profile.md; write_profile_json in onnxview/profile.hpp), for
// `onnxview profile --json` and Python's onnxview.profile(), and the view
// (--by, by=) as words. A count is a JSON number when concrete, a string
// (a polynomial in the dim names) when symbolic, null when unknown.
#include <cstdint>
#include <string>

#include "onnxview/decimal.hpp"
#include "onnxview/enums.hpp"
#include "onnxview/json_writer.hpp"
#include "onnxview/profile.hpp"

namespace onnxview {
namespace {

// What the writer holds before it is handed on: a 100k-node profile is ~60
// MB of JSON, never held whole.
constexpr std::size_t piece_size = std::size_t{1} << 20;

// A count for JSON: a number when concrete, the polynomial as a string when
// symbolic, null when unknown.
void json_quantity(json_writer& w, const quantity& q) {
    if (!q.known) w.null();
    else if (q.value.is_constant()) w.value(q.value.constant_term());
    else w.value(q.value.str());
}

void json_shape(json_writer& w, const value_shape& s) {
    if (!s.rank_known) {
        w.null();
        return;
    }
    w.begin_array();
    for (const quantity& d : s.dims) json_quantity(w, d);
    w.end_array();
}

}  // namespace

bool parse_profile_view(std::string_view by, profile_view& out) {
    profile_view v;
    if (by == "node") return out = v, true;
    v.grouped = true;
    if (by == "op" || by == "scope") {
        v.by = by == "op" ? profile_grouping::op : profile_grouping::scope;
        return out = v, true;
    }
    const std::string_view prefix = "scope:";
    if (by.substr(0, prefix.size()) != prefix) return false;
    const result<std::uint64_t> depth = parse_decimal(by.substr(prefix.size()));
    if (!depth || *depth < 1 || *depth > UINT32_MAX) return false;
    v.by = profile_grouping::scope;
    v.scope_depth = static_cast<std::uint32_t>(*depth);
    out = v;
    return true;
}

std::string peak_maximum_text(const model_profile& p) {
    std::string s = "max(";
    for (std::size_t i = 0; i < p.peak_candidates.size(); ++i)
        s += (i ? ", " : "") + p.peak_candidates[i].bytes.str();
    return s + ")";
}

error write_profile_json(const model_profile& p, const profile_view& v, const write_sink& out) {
    json_writer w;
    error failed;
    // Hands what is written to `out` once it passes `at_least` bytes.
    auto pass_on = [&](std::size_t at_least) {
        if (failed || w.str().size() < at_least) return;
        failed = out.write(out.user, w.str().data(), w.str().size());
        w.clear();
    };
    w.begin_object();
    w.field("version", 2);
    w.key("totals");
    w.begin_object();
    w.field("params", p.totals.params);
    w.field("param_bytes", p.totals.param_bytes);
    w.key("macs");
    json_quantity(w, p.totals.macs);
    w.key("flops");
    json_quantity(w, p.totals.flops);
    w.key("peak_activation_bytes");
    if (!p.peak_candidates.empty()) w.value(peak_maximum_text(p));
    else json_quantity(w, p.totals.peak_activation_bytes);
    w.end_object();
    w.key("coverage");
    w.begin_object();
    w.field("nodes", static_cast<std::uint64_t>(p.main_graph_nodes));
    w.field("covered", static_cast<std::uint64_t>(p.main_graph_covered));
    w.field("fraction", p.main_graph_nodes == 0 ? 1.0
                                                : static_cast<double>(p.main_graph_covered) /
                                                      static_cast<double>(p.main_graph_nodes));
    w.field("inner_nodes", static_cast<std::uint64_t>(p.nodes.size() - p.main_graph_nodes));
    w.field("inner_covered", static_cast<std::uint64_t>(p.covered_nodes - p.main_graph_covered));
    w.end_object();
    w.key("peak");
    w.begin_object();
    w.key("node");
    if (p.peak_node < p.nodes.size()) w.value(static_cast<std::uint64_t>(p.peak_node));
    else w.null();
    if (!p.peak_reason.empty()) w.field("reason", p.peak_reason);
    w.key("candidates");
    w.begin_array();
    for (const model_profile::peak_candidate& c : p.peak_candidates) {
        w.begin_object();
        w.field("bytes", c.bytes.str());
        w.field("node", static_cast<std::uint64_t>(c.node));
        w.end_object();
    }
    w.end_array();
    w.end_object();
    if (v.grouped) {
        w.key(v.by == profile_grouping::op ? "ops" : "scopes");
        w.begin_array();
        for (const profile_group& g : group_nodes(p, v.by, v.scope_depth)) {
            w.begin_object();
            w.field(group_key_name(v.by), g.key);
            w.field("nodes", g.nodes);
            w.field("not_covered", g.not_covered);
            w.key("macs");
            json_quantity(w, g.macs);
            w.key("flops");
            json_quantity(w, g.flops);
            w.field("params", g.params);
            w.end_object();
        }
        w.end_array();
    }
    w.key("nodes");
    w.begin_array();
    for (const node_profile& n : p.nodes) {
        w.begin_object();
        w.field("name", n.name);
        w.field("op_type", n.op_type);
        w.field("domain", n.domain);
        w.field("scope", n.scope);
        w.key("parent");
        if (n.in_main_graph()) w.null();
        else w.value(static_cast<std::uint64_t>(n.parent));
        w.key("macs");
        json_quantity(w, n.macs);
        w.key("flops");
        json_quantity(w, n.flops);
        w.field("params", n.params);
        w.field("param_bytes", n.param_bytes);
        w.key("outputs");
        w.begin_array();
        for (const profiled_output& o : n.outputs) w.value(o.name);
        w.end_array();
        w.key("output_types");
        w.begin_array();
        for (const profiled_output& o : n.outputs) w.value(o.elem_type != 0 ? data_type_name(o.elem_type) : "?");
        w.end_array();
        w.key("output_shapes");
        w.begin_array();
        for (const profiled_output& o : n.outputs) json_shape(w, o.shape);
        w.end_array();
        w.key("output_bytes");
        w.begin_array();
        for (const profiled_output& o : n.outputs) json_quantity(w, o.bytes);
        w.end_array();
        if (!n.covered()) w.field("reason", n.reason);
        if (!n.cost_basis.empty()) w.field("cost_basis", n.cost_basis);
        w.end_object();
        pass_on(piece_size);
    }
    w.end_array();
    w.key("unknown");
    w.begin_array();
    for (std::size_t i = 0; i < p.nodes.size(); ++i) {
        if (p.nodes[i].covered()) continue;
        w.begin_object();
        w.field("index", static_cast<std::uint64_t>(i));
        w.field("node", p.nodes[i].name);
        w.field("op_type", p.nodes[i].op_type);
        w.field("reason", p.nodes[i].reason);
        w.end_object();
        pass_on(piece_size);
    }
    w.end_array();
    w.key("shared");
    w.begin_array();
    for (const model_profile::shared_tensor& t : p.shared) {
        w.begin_object();
        w.field("name", t.name);
        w.field("params", t.elements);
        w.key("nodes");
        w.begin_array();
        for (std::size_t r : t.readers) w.value(static_cast<std::uint64_t>(r));
        w.end_array();
        w.end_object();
    }
    w.end_array();
    w.key("notes");
    w.begin_array();
    for (const std::string& note : p.notes) w.value(note);
    w.end_array();
    w.end_object();
    pass_on(0);
    return failed;
}

}  // namespace onnxview
