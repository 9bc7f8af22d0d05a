// src/profile/profile.cpp - profile_model(): the main graph's nodes in file
// order, each given the facts of its inputs, its outputs' facts merged with
// what the model declares, its costs and the stored tensors it reads; then
// the live activations at every node.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "facts.hpp"
#include "onnxview/data_types.hpp"
#include "onnxview/enums.hpp"
#include "onnxview/profile.hpp"
#include "onnxview/tensor_storage.hpp"
#include "onnxview/traverse.hpp"

namespace onnxview {
namespace {

using profile_detail::minus;
using profile_detail::plus;
using profile_detail::value_fact;

// A tensor stored in the model (initializer, sparse initializer's values,
// Constant output): a parameter when a node reads it.
struct stored_size {
    std::uint64_t elements = 0;
    std::uint64_t bytes = 0;
    bool read = false;
};

// Declared and inferred facts merged dim by dim, as onnx's inference merges
// them: a concrete dim wins over a symbolic one, a known over an unknown.
value_fact merge(const value_fact& declared, value_fact inferred) {
    if (!declared.shape.rank_known) {
        if (inferred.elem_type == 0) inferred.elem_type = declared.elem_type;
        return inferred;
    }
    if (declared.elem_type != 0) inferred.elem_type = declared.elem_type;
    if (!inferred.shape.rank_known || inferred.shape.dims.size() != declared.shape.dims.size()) {
        inferred.shape = declared.shape;
        return inferred;
    }
    for (std::size_t i = 0; i < declared.shape.dims.size(); ++i) {
        const quantity& d = declared.shape.dims[i];
        quantity& r = inferred.shape.dims[i];
        if (d.concrete() || (d.known && !r.concrete())) r = d;
    }
    return inferred;
}

std::uint64_t tensor_bytes(const tensor_view& t, std::uint64_t elements, bool& ok) {
    const data_type_info* info = find_data_type_info(t.data_type());
    if (info == nullptr) {
        ok = false;
        return 0;
    }
    const result<std::uint64_t> b = payload_bytes(*info, elements);
    ok = b.ok();
    return b ? *b : 0;
}

class profiler : public scope_visitor {
public:
    profiler(const model_view& m, const profile_options& opts, model_profile& out)
        : opts_(opts), out_(out) {
        for (const function_view& f : m.functions()) functions_.insert(std::string(f.domain()) + "::" + std::string(f.name()));
    }

    bool enter(const model_scope& s) {
        if (s.kind != scope_kind::main_graph) return false;
        const graph_view& g = s.graph;
        for (const value_info_view& v : g.input()) {
            facts_[v.name()] = profile_detail::declared_fact(v.type(), opts_.dims);
            graph_inputs_.push_back(v.name());
        }
        for (const tensor_view& t : g.initializer()) add_stored(t.name(), t);
        for (const sparse_tensor_view& sp : g.sparse_initializer()) add_stored(sp.values().name(), sp.values());
        for (const value_info_view& v : g.value_info()) declared_[v.name()] = profile_detail::declared_fact(v.type(), opts_.dims);
        for (const value_info_view& v : g.output()) {
            declared_[v.name()] = profile_detail::declared_fact(v.type(), opts_.dims);
            graph_outputs_.insert(v.name());
        }
        return true;
    }

    void node(const model_scope& s, const node_view& n, std::uint32_t) {
        if (s.kind != scope_kind::main_graph) return;
        const std::size_t index = out_.nodes.size();
        node_profile np;
        np.name = std::string(n.name());
        np.op_type = std::string(n.op_type());
        np.domain = std::string(n.domain());
        profile_detail::node_context c;
        c.node = n;
        c.max_value_elements = opts_.max_value_elements;
        for (std::string_view in : n.input()) {
            c.input_names.push_back(in);
            const auto f = in.empty() ? facts_.end() : facts_.find(in);
            c.inputs.push_back(f == facts_.end() ? nullptr : &f->second);
            if (in.empty()) continue;
            last_use_[in] = index;
            const auto st = stored_.find(in);
            if (st != stored_.end()) {
                np.params += st->second.elements;
                np.param_bytes += st->second.bytes;
                st->second.read = true;
            }
        }
        std::vector<value_fact> outputs(n.output().size());
        const std::string function = std::string(n.domain()) + "::" + std::string(n.op_type());
        if (functions_.count(function) != 0) np.reason = "model-local function " + function + " not expanded";
        else np.reason = profile_detail::infer_outputs(c, outputs);
        if (np.reason.empty()) {
            profile_detail::node_cost cost;
            np.reason = profile_detail::node_costs(c, outputs, cost);
            np.macs = cost.macs;
            np.flops = cost.flops;
        }
        std::size_t k = 0;
        for (std::string_view name : n.output()) {
            value_fact& f = outputs[k++];
            const auto d = declared_.find(name);
            if (d != declared_.end()) f = merge(d->second, std::move(f));
            profiled_output po;
            po.name = std::string(name);
            po.elem_type = f.elem_type;
            po.shape = f.shape;
            po.bytes = profile_detail::value_bytes(f.shape.element_count(), f.elem_type);
            if (!name.empty()) {
                producer_[name] = index;
                bytes_[name] = po.bytes;
                facts_[name] = std::move(f);
            }
            np.outputs.push_back(std::move(po));
        }
        if (is_constant_node(n) && n.output().size() == 1) add_constant(n);
        out_.nodes.push_back(std::move(np));
    }

    void finish() {
        for (const auto& kv : stored_) {
            if (!kv.second.read) continue;
            out_.totals.params += kv.second.elements;
            out_.totals.param_bytes += kv.second.bytes;
        }
        out_.totals.macs = quantity(0);
        out_.totals.flops = quantity(0);
        for (const node_profile& np : out_.nodes) {
            if (!np.covered()) continue;
            ++out_.covered_nodes;
            out_.totals.macs = plus(out_.totals.macs, np.macs);
            out_.totals.flops = plus(out_.totals.flops, np.flops);
        }
        peak();
    }

private:
    void add_stored(std::string_view name, const tensor_view& t) {
        facts_[name] = profile_detail::stored_tensor_fact(t, opts_.max_value_elements);
        stored_size s;
        const result<std::uint64_t> n = element_count(t);
        bool ok = n.ok();
        s.elements = ok ? *n : 0;
        if (!ok) out_.notes.push_back("stored tensor '" + std::string(name) + "': invalid dims, not counted");
        else s.bytes = tensor_bytes(t, s.elements, ok);
        if (n.ok() && !ok)
            out_.notes.push_back("stored tensor '" + std::string(name) + "': bytes not counted (" +
                                 data_type_name(t.data_type()) + " has no fixed width)");
        stored_[name] = s;
    }

    void add_constant(const node_view& n) {
        const std::string_view name = *n.output().begin();
        for (const attribute_view& a : n.attribute()) {
            if (a.name() == "value" && a.has_t()) {
                const value_fact fact = std::move(facts_[name]);
                add_stored(name, a.t());
                facts_[name] = fact;  // keep the merged fact
                return;
            }
        }
    }

    // Sweeps the nodes in file order: after node i its outputs are live, and
    // every value whose last reader is node i dies. Graph inputs are live
    // from the start, graph outputs to the end; stored tensors are weights,
    // not activations.
    void peak() {
        const std::size_t n = out_.nodes.size();
        out_.peak_node = n;
        std::vector<std::vector<std::string_view>> dying(n);
        quantity live(0);
        auto end_of = [&](std::string_view name, std::size_t born) {
            if (graph_outputs_.count(name) != 0) return n;  // never dies
            const auto u = last_use_.find(name);
            return u == last_use_.end() || u->second < born ? born : u->second;
        };
        std::string unknown;
        for (std::string_view in : graph_inputs_) {
            if (stored_.count(in) != 0) continue;
            const value_fact& f = facts_[in];
            const quantity b = profile_detail::value_bytes(f.shape.element_count(), f.elem_type);
            if (!b.known && unknown.empty()) unknown = "size of graph input '" + std::string(in) + "' unknown";
            live = plus(live, b);
            const std::size_t e = end_of(in, 0);
            if (e < n) dying[e].push_back(in);
        }
        // The live bytes after each node no other candidate dominates.
        std::vector<model_profile::peak_candidate>& best = out_.peak_candidates;
        for (std::size_t i = 0; i < n; ++i) {
            for (const profiled_output& o : out_.nodes[i].outputs) {
                const auto p = producer_.find(o.name);
                if (p == producer_.end() || p->second != i || stored_.count(p->first) != 0) continue;
                if (!o.bytes.known && unknown.empty()) unknown = "size of '" + o.name + "' unknown";
                live = plus(live, o.bytes);
                const std::size_t e = end_of(p->first, i);
                if (e < n) dying[e].push_back(p->first);
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
            for (std::string_view d : dying[i]) live = minus(live, bytes_of(d));
        }
        if (!unknown.empty() || best.empty()) {
            best.clear();
            out_.peak_reason = unknown.empty() ? "no nodes" : unknown;
            return;
        }
        if (best.size() > 1) {
            out_.peak_reason = "the peak depends on the dims' values: the largest of " + std::to_string(best.size()) +
                               " candidates";
            return;
        }
        out_.totals.peak_activation_bytes = quantity(best[0].bytes);
        out_.peak_node = best[0].node;
        best.clear();
    }

    quantity bytes_of(std::string_view name) {
        const auto b = bytes_.find(name);
        if (b != bytes_.end()) return b->second;
        const value_fact& f = facts_[name];
        return profile_detail::value_bytes(f.shape.element_count(), f.elem_type);
    }

    const profile_options& opts_;
    model_profile& out_;
    std::set<std::string> functions_;
    std::unordered_map<std::string_view, value_fact> facts_;
    std::unordered_map<std::string_view, value_fact> declared_;
    std::unordered_map<std::string_view, stored_size> stored_;
    std::unordered_map<std::string_view, std::size_t> producer_;
    std::unordered_map<std::string_view, std::size_t> last_use_;
    std::unordered_map<std::string_view, quantity> bytes_;
    std::vector<std::string_view> graph_inputs_;
    std::set<std::string_view> graph_outputs_;
};

}  // namespace

result<model_profile> profile_model(const model_view& m, const profile_options& opts) {
    if (!m.ok()) return m.err();
    if (!m.has_graph()) return error(errc::not_found);
    for (const dim_binding& b : opts.dims)
        if (b.name.empty()) return error(errc::invalid_argument);
    model_profile out;
    profiler p(m, opts, out);
    if (error e = walk_scopes(m, p, opts.max_depth)) return e;
    p.finish();
    return out;
}

}  // namespace onnxview
