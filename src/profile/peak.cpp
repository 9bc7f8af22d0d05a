// src/profile/peak.cpp - the peak of live activation memory: the main
// graph's nodes swept in file order, symbolic sizes compared for every value
// of their dims.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "values.hpp"

namespace onnxview {
namespace profile_detail {

// Sweeps the nodes in file order: after node i its outputs are live, and
// every value whose last reader is node i dies. Graph inputs are live
// from the start, graph outputs to the end; stored tensors are weights,
// not activations.
void sweep_peak(model_profile& out, value_map& values,
                const std::vector<std::string_view>& graph_inputs) {
    const std::size_t n = out.nodes.size();
    out.peak_node = n;
    std::vector<std::vector<const value_entry*>> dying(n);
    quantity live(0);
    auto end_of = [n](const value_entry& e, std::size_t born) {
        if (e.graph_output) return n;  // never dies
        return e.last_use == value_entry::no_node || e.last_use < born ? born : e.last_use;
    };
    // A value a node made has its shape in the node's output (profiler::finish moved it there).
    auto bytes_of = [&out](const value_entry& e) {
        return e.producer == value_entry::no_node ? fact_bytes(e.fact)
                                                  : out.nodes[e.producer].outputs[e.output].bytes;
    };
    std::string unknown;
    for (std::string_view in : graph_inputs) {
        const value_entry& e = values[in];
        if (e.stored) continue;
        const quantity b = bytes_of(e);
        if (!b.known && unknown.empty()) unknown = "size of graph input '" + std::string(in) + "' unknown";
        live = plus(live, b);
        const std::size_t end = end_of(e, 0);
        if (end < n) dying[end].push_back(&e);
    }
    // The live bytes after each node no other candidate dominates.
    std::vector<model_profile::peak_candidate>& best = out.peak_candidates;
    for (std::size_t i = 0; i < n; ++i) {
        // A body's or function's own values are not in the sweep (docs/profile.md).
        if (!out.nodes[i].in_main_graph()) continue;
        for (const profiled_output& o : out.nodes[i].outputs) {
            if (o.name.empty()) continue;
            const value_entry& e = *values.find(o.name);
            if (e.producer != i || e.stored) continue;  // a name made twice counts once, where it was last made
            if (!o.bytes.known && unknown.empty()) unknown = "size of '" + std::string(o.name) + "' unknown";
            live = plus(live, o.bytes);
            const std::size_t end = end_of(e, i);
            if (end < n) dying[end].push_back(&e);
        }
        if (!unknown.empty()) break;
        if (!live.known) {
            unknown = "live bytes overflow";
            break;
        }
        bool dominated = false;
        for (const model_profile::peak_candidate& b : best)
            dominated = dominated || compare(b.bytes, live.value) == dim_order::greater_or_equal;
        if (!dominated) {
            best.erase(std::remove_if(best.begin(), best.end(),
                                      [&](const model_profile::peak_candidate& b) {
                                          return compare(live.value, b.bytes) == dim_order::greater_or_equal;
                                      }),
                       best.end());
            best.push_back({live.value, i});
            if (best.size() > model_profile::max_peak_candidates) {
                unknown = "the peak depends on the dims' values in too many ways (give them with --dim)";
                break;
            }
        }
        for (const value_entry* d : dying[i]) live = minus(live, bytes_of(*d));
    }
    if (!unknown.empty() || best.empty()) {
        best.clear();
        out.peak_reason = unknown.empty() ? "no nodes" : unknown;
        return;
    }
    if (best.size() > 1) {
        out.peak_reason = "the peak depends on the dims' values: the largest of " + std::to_string(best.size()) +
                           " candidates";
        return;
    }
    out.totals.peak_activation_bytes = quantity(best[0].bytes);
    out.peak_node = best[0].node;
    best.clear();
}


}  // namespace profile_detail
}  // namespace onnxview
