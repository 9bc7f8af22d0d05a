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

// The size of a tensor stored in the model (initializer, sparse
// initializer's values, Constant output): a parameter when a node reads it.
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

// Everything known of one value name of the main graph: one hash lookup per
// use (a 100k-node model has as many names).
struct value_entry {
    value_fact fact;
    bool has_fact = false;
    // The TypeProto of its value_info or graph output, as its bytes (a
    // type_view is 200 bytes, this 40: a 100k-node model declares 300k
    // values); viewed again and converted when the value is made.
    wire::message declared;
    bool has_declared = false;
    bool graph_input = false;
    bool graph_output = false;
    bool stored = false;  // initializer or Constant output: a parameter, not an activation
    stored_size size;     // when stored
    std::size_t producer = no_node;
    std::size_t last_use = no_node;
    std::vector<std::size_t> readers;  // stored tensors: the nodes reading them (each once)
    quantity bytes;  // when produced by a node
    static constexpr std::size_t no_node = static_cast<std::size_t>(-1);
};

class profiler : public scope_visitor {
public:
    profiler(const model_view& m, const profile_options& opts, model_profile& out)
        : opts_(opts), out_(out) {
        for (const function_view& f : m.functions()) functions_.insert(std::string(f.domain()) + "::" + std::string(f.name()));
    }

    bool enter(const model_scope& s) {
        // The bodies of the main graph's If, Loop and Scan nodes are walked
        // only for the outer values they read (node() below).
        if (s.kind == scope_kind::subgraph) return true;
        if (s.kind != scope_kind::main_graph) return false;
        const graph_view& g = s.graph;
        values_.reserve(2 * static_cast<std::size_t>(g.node().size()) + g.input().size() + g.initializer().size());
        out_.nodes.reserve(g.node().size());
        for (const value_info_view& v : g.input()) {
            value_entry& e = values_[v.name()];
            e.fact = profile_detail::declared_fact(v.type(), opts_.dims);
            e.has_fact = true;
            // An input bound whole: its axes without a name take their values too.
            for (const input_binding& b : opts_.inputs) {
                if (b.name != v.name()) continue;
                e.fact.shape.rank_known = true;
                e.fact.shape.dims.clear();
                for (std::int64_t d : b.dims) e.fact.shape.dims.emplace_back(d);
            }
            if (!e.graph_input) graph_inputs_.push_back(v.name());
            e.graph_input = true;
        }
        for (const tensor_view& t : g.initializer()) add_stored(t.name(), t);
        for (const sparse_tensor_view& sp : g.sparse_initializer()) add_stored(sp.values().name(), sp.values());
        for (const value_info_view& v : g.value_info()) declare(v);
        for (const value_info_view& v : g.output()) {
            declare(v);
            values_[v.name()].graph_output = true;
        }
        return true;
    }

    void node(const model_scope& s, const node_view& n, std::uint32_t) {
        if (s.kind != scope_kind::main_graph) {
            // A value of the main graph a body reads stays live until the
            // node holding the body has run (names a body declares itself
            // only make that longer, never shorter).
            if (s.kind != scope_kind::subgraph || out_.nodes.empty()) return;
            for (std::string_view in : n.input()) {
                const auto e = values_.find(in);
                if (e != values_.end()) e->second.last_use = out_.nodes.size() - 1;
            }
            return;
        }
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
            if (in.empty()) {
                c.inputs.push_back(nullptr);
                continue;
            }
            value_entry& e = values_[in];
            c.inputs.push_back(e.has_fact ? &e.fact : nullptr);
            e.last_use = index;
            // A node reading one tensor twice (Mul(w, w)) reads it once.
            if (e.stored && (e.readers.empty() || e.readers.back() != index)) {
                np.params += e.size.elements;
                np.param_bytes += e.size.bytes;
                e.size.read = true;
                e.readers.push_back(index);
            }
        }
        std::vector<value_fact> outputs(n.output().size());
        const std::string function = std::string(n.domain()) + "::" + std::string(n.op_type());
        if (!functions_.empty() && functions_.count(function) != 0)
            np.reason = "model-local function " + function + " not expanded";
        else np.reason = profile_detail::infer_outputs(c, outputs);
        if (np.reason.empty()) {
            profile_detail::node_cost cost;
            np.reason = profile_detail::node_costs(c, outputs, cost);
            np.macs = std::move(cost.macs);
            np.flops = std::move(cost.flops);
        }
        std::size_t k = 0;
        np.outputs.reserve(outputs.size());
        for (std::string_view name : n.output()) {
            value_fact& f = outputs[k++];
            value_entry* e = name.empty() ? nullptr : &values_[name];
            if (e && e->has_declared)
                f = merge(profile_detail::declared_fact(type_view(e->declared), opts_.dims), std::move(f));
            profiled_output po;
            po.name = std::string(name);
            po.elem_type = f.elem_type;
            po.shape = f.shape;
            po.bytes = profile_detail::value_bytes(f.shape.element_count(), f.elem_type);
            if (e) {
                e->producer = index;
                e->bytes = po.bytes;
                e->fact = std::move(f);
                e->has_fact = true;
            }
            np.outputs.push_back(std::move(po));
        }
        if (is_constant_node(n) && n.output().size() == 1) add_constant(n);
        out_.nodes.push_back(std::move(np));
    }

    void finish() {
        for (const auto& kv : values_) {
            if (!kv.second.stored || !kv.second.size.read) continue;
            out_.totals.params += kv.second.size.elements;
            out_.totals.param_bytes += kv.second.size.bytes;
            if (kv.second.readers.size() > 1)
                out_.shared.push_back({std::string(kv.first), kv.second.size.elements, kv.second.readers});
        }
        // The table's order is the hash's: list them in file order of their first reader.
        std::sort(out_.shared.begin(), out_.shared.end(),
                  [](const model_profile::shared_tensor& a, const model_profile::shared_tensor& b) {
                      return a.readers < b.readers || (a.readers == b.readers && a.name < b.name);
                  });
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
    void declare(const value_info_view& v) {
        value_entry& e = values_[v.name()];
        e.declared = v.type().wire_message();
        e.has_declared = v.has_type();
    }

    // Records the size of a stored tensor; `with_fact` also makes it the value's fact.
    void add_stored(std::string_view name, const tensor_view& t, bool with_fact = true) {
        value_entry& e = values_[name];
        if (with_fact) {
            e.fact = profile_detail::stored_tensor_fact(t, opts_.max_value_elements);
            e.has_fact = true;
        }
        e.stored = true;
        e.size = stored_size();
        const result<std::uint64_t> n = element_count(t);
        bool ok = n.ok();
        e.size.elements = ok ? *n : 0;
        if (!ok) out_.notes.push_back("stored tensor '" + std::string(name) + "': invalid dims, not counted");
        else e.size.bytes = tensor_bytes(t, e.size.elements, ok);
        if (n.ok() && !ok)
            out_.notes.push_back("stored tensor '" + std::string(name) + "': bytes not counted (" +
                                 data_type_name(t.data_type()) + " has no fixed width)");
    }

    // A Constant's output is a stored tensor; its fact is the one the node's
    // rule made and the model's declaration merged.
    void add_constant(const node_view& n) {
        const std::string_view name = *n.output().begin();
        if (name.empty()) return;
        for (const attribute_view& a : n.attribute())
            if (a.name() == "value" && a.has_t()) return add_stored(name, a.t(), false);
    }

    // Sweeps the nodes in file order: after node i its outputs are live, and
    // every value whose last reader is node i dies. Graph inputs are live
    // from the start, graph outputs to the end; stored tensors are weights,
    // not activations.
    void peak() {
        const std::size_t n = out_.nodes.size();
        out_.peak_node = n;
        std::vector<std::vector<const value_entry*>> dying(n);
        quantity live(0);
        auto end_of = [n](const value_entry& e, std::size_t born) {
            if (e.graph_output) return n;  // never dies
            return e.last_use == value_entry::no_node || e.last_use < born ? born : e.last_use;
        };
        std::string unknown;
        for (std::string_view in : graph_inputs_) {
            const value_entry& e = values_[in];
            if (e.stored) continue;
            const quantity b = profile_detail::value_bytes(e.fact.shape.element_count(), e.fact.elem_type);
            if (!b.known && unknown.empty()) unknown = "size of graph input '" + std::string(in) + "' unknown";
            live = plus(live, b);
            const std::size_t end = end_of(e, 0);
            if (end < n) dying[end].push_back(&e);
        }
        // The live bytes after each node no other candidate dominates.
        std::vector<model_profile::peak_candidate>& best = out_.peak_candidates;
        for (std::size_t i = 0; i < n; ++i) {
            for (const profiled_output& o : out_.nodes[i].outputs) {
                if (o.name.empty()) continue;
                const auto found = values_.find(o.name);
                const value_entry& e = found->second;
                if (e.producer != i || e.stored) continue;  // a name made twice counts once, where it was last made
                if (!o.bytes.known && unknown.empty()) unknown = "size of '" + o.name + "' unknown";
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
            for (const value_entry* d : dying[i]) live = minus(live, d->producer == value_entry::no_node
                                                                         ? profile_detail::value_bytes(d->fact.shape.element_count(), d->fact.elem_type)
                                                                         : d->bytes);
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

    const profile_options& opts_;
    model_profile& out_;
    std::set<std::string> functions_;
    std::unordered_map<std::string_view, value_entry> values_;
    std::vector<std::string_view> graph_inputs_;
};

}  // namespace

// The input bindings as dim bindings: each dim_param an input declares takes
// the value given at its axis; a dim_value must be the value given.
error bind_inputs(const graph_view& g, profile_options& opts) {
    for (const input_binding& b : opts.inputs) {
        bool found = false;
        for (const value_info_view& v : g.input()) {
            if (v.name() != b.name) continue;
            found = true;
            const tensor_type_view tt = v.type().tensor_type();
            if (tt.has_shape() && tt.shape().dim().size() != b.dims.size()) return error(errc::invalid_argument);
            std::size_t axis = 0;
            for (const dimension_view& d : tt.shape().dim()) {
                const std::int64_t value = b.dims[axis++];
                if (value < 0) return error(errc::invalid_argument);
                if (d.has_dim_value() && d.dim_value() != value) return error(errc::invalid_argument);
                if (!d.has_dim_param() || d.dim_param().empty()) continue;
                for (const dim_binding& known : opts.dims)
                    if (known.name == d.dim_param() && known.value != value) return error(errc::invalid_argument);
                opts.dims.push_back({std::string(d.dim_param()), value});
            }
        }
        if (!found) return error(errc::not_found);
    }
    return error();
}

result<model_profile> profile_model(const model_view& m, const profile_options& given) {
    if (!m.ok()) return m.err();
    if (!m.has_graph()) return error(errc::not_found);
    for (const dim_binding& b : given.dims)
        if (b.name.empty()) return error(errc::invalid_argument);
    profile_options opts = given;
    if (error e = bind_inputs(m.graph(), opts)) return e;
    model_profile out;
    profiler p(m, opts, out);
    if (error e = walk_scopes(m, p, opts.max_depth)) return e;
    p.finish();
    return out;
}

}  // namespace onnxview
