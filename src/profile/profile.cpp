// src/profile/profile.cpp - profile_model(): the main graph's nodes in file
// order, each given the facts of its inputs, its outputs' facts merged with
// what the model declares, its costs and the stored tensors it reads; the
// bodies of If, Loop and Scan after their holders and the model-local
// functions nodes call, expanded, each in a frame of its own (one walk,
// traverse.hpp's); then the live activations at every node.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "control_flow.hpp"
#include "facts.hpp"
#include "onnxview/data_types.hpp"
#include "onnxview/enums.hpp"
#include "onnxview/profile.hpp"
#include "onnxview/tensor_storage.hpp"
#include "onnxview/traverse.hpp"
#include "values.hpp"

namespace onnxview {
namespace {

using profile_detail::minus;
using profile_detail::plus;
using profile_detail::stored_size;
using profile_detail::value_entry;
using profile_detail::value_fact;

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

// The values one scope sees: its own, then (for lookups) its enclosing
// scopes'; a function's expansion sees only its own. Frames live until the
// profile is done: the stored tensors they read are counted then.
struct frame {
    profile_detail::value_map values;
    frame* outer = nullptr;
    // The body of a node other than If, Loop and Scan: not profiled, only
    // the outer values it reads matter.
    bool passive = false;
    const profile_detail::function_call* call = nullptr;  // the expansion it is in
    profile_detail::function_call own_call;               // when it is one
    std::string scope;                                     // node_profile::scope of its nodes
    std::string_view interned_scope;                       // the same, in model_profile::texts
    std::size_t holder = node_profile::no_parent;
    // The main graph's node holding it: an outer value it reads is live until then.
    std::size_t main_position = 0;
    profile_detail::body_result sums;  // over its own nodes (not for the main graph)
};

// An If, Loop or Scan whose bodies are being walked.
struct pending_holder {
    const model_scope* scope = nullptr;
    std::uint32_t node_index = 0;
    std::size_t index = 0;  // in model_profile::nodes
    frame* in = nullptr;
    profile_detail::node_context context;
    std::vector<profile_detail::body_result> bodies;
};

// "name", or "#index" for a node without one: a step of a scope path.
std::string node_tag(const node_profile& n, std::size_t index) {
    return n.name.empty() ? "#" + std::to_string(index) : std::string(n.name);
}

std::string join_scope(const std::string& outer, const std::string& step) {
    return outer.empty() ? step : outer + "/" + step;
}

class profiler : public scope_visitor {
public:
    profiler(const model_view& m, const profile_options& opts, model_profile& out) : opts_(opts), out_(out) {
        for (const function_view& f : m.functions()) functions_[f.name()].push_back(f);
        for (const opset_id_view& o : m.opset_import())
            if (o.domain().empty() || o.domain() == "ai.onnx") opset_ = o.version();
    }

    bool enter(const model_scope& s) {
        if (s.kind == scope_kind::main_graph) {
            frame& f = new_frame();
            main_ = &f;
            stack_.emplace_back(&s, &f);
            enter_main(s.graph, f);
            return true;
        }
        if (s.kind == scope_kind::subgraph && !stack_.empty()) {
            enter_body(s);
            return true;
        }
        // A function is profiled where a node calls it (expand()), not on its own.
        if (s.kind != scope_kind::function || expansion_ == nullptr) return false;
        stack_.emplace_back(&s, expansion_);
        expansion_ = nullptr;
        return true;
    }

    void leave(const model_scope& s) {
        if (stack_.empty() || stack_.back().first != &s) return;
        frame& f = *stack_.back().second;
        stack_.pop_back();
        if (s.kind != scope_kind::subgraph || f.passive || pending_.empty()) return;
        profile_detail::body_result& r = pending_.back().bodies.back();
        const std::string_view attribute = r.attribute;
        std::string inputs_reason = std::move(r.reason);
        r = std::move(f.sums);
        r.attribute = attribute;
        if (!inputs_reason.empty()) r.reason = std::move(inputs_reason);
        for (const value_info_view& v : s.graph.output()) {
            frame* owner = nullptr;
            const value_entry* e = find(f, v.name(), owner);
            r.outputs.push_back(e != nullptr && e->has_fact ? e->fact : value_fact());
        }
    }

    void node(const model_scope& s, const node_view& n, std::uint32_t node_index) {
        if (stack_.empty()) return;
        frame& f = *stack_.back().second;
        if (f.passive) mark_outer_reads(f, n);
        else profile_node(s, f, n, node_index);
    }

    void node_done(const model_scope& s, const node_view&, std::uint32_t node_index) {
        if (pending_.empty() || pending_.back().scope != &s || pending_.back().node_index != node_index) return;
        pending_holder h = std::move(pending_.back());
        pending_.pop_back();
        std::vector<value_fact> outputs(h.context.node.output().size());
        profile_detail::node_cost cost;
        std::string basis;
        node_profile& np = out_.nodes[h.index];
        np.reason = out_.texts->intern(profile_detail::combine_bodies(h.context, h.bodies, outputs, cost, basis));
        if (np.reason.empty()) {
            np.macs = std::move(cost.macs);
            np.flops = std::move(cost.flops);
            np.cost_basis = out_.texts->intern(basis);
        }
        // The bodies' weights are stored once, whatever the trip count.
        for (const profile_detail::body_result& b : h.bodies) {
            np.params += b.params;
            np.param_bytes += b.param_bytes;
        }
        finish_node(*h.in, h.index, h.context.node, outputs);
    }

    void finish();

private:
    frame& new_frame() {
        frames_.emplace_back();
        return frames_.back();
    }

    void enter_main(const graph_view& g, frame& f) {
        f.values.reserve(2 * static_cast<std::size_t>(g.node().size()) + g.input().size() + g.initializer().size());
        // Room for the bodies' and functions' nodes too, which are not counted
        // ahead: a reallocation of 100k nodes would hold two copies at once.
        const std::size_t main_nodes = g.node().size();
        out_.nodes.reserve(main_nodes + main_nodes / 16 + 64);
        for (const value_info_view& v : g.input()) {
            value_entry& e = f.values[v.name()];
            e.fact = profile_detail::declared_fact(v.type(), dim_params_);
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
        declare_graph(g, f);
        for (const value_info_view& v : g.output()) f.values[v.name()].graph_output = true;
    }

    // A graph's stored tensors and declared types (its inputs apart).
    void declare_graph(const graph_view& g, frame& f) {
        for (const tensor_view& t : g.initializer()) add_stored(f, t.name(), t);
        for (const sparse_tensor_view& sp : g.sparse_initializer()) add_stored(f, sp.values().name(), sp.values());
        for (const value_info_view& v : g.value_info()) declare(f, v);
        for (const value_info_view& v : g.output()) declare(f, v);
    }

    // A subgraph: profiled when it is a body of an If, Loop or Scan being
    // profiled, its inputs given as the spec defines them.
    void enter_body(const model_scope& s) {
        frame& outer = *stack_.back().second;
        frame& b = new_frame();
        b.outer = &outer;
        b.call = outer.call;
        stack_.emplace_back(&s, &b);
        pending_holder* h = pending_.empty() ? nullptr : &pending_.back();
        if (outer.passive || h == nullptr || h->scope != s.parent || h->node_index != s.holder.node_index) {
            b.passive = true;
            b.main_position = &outer == main_ ? last_main_index_ : outer.main_position;
            return;
        }
        b.holder = h->index;
        b.main_position = &outer == main_ ? h->index : outer.main_position;
        std::string step = node_tag(out_.nodes[h->index], h->index) + "/" + std::string(s.holder.attribute.name());
        if (s.in_graphs) step += "[" + std::to_string(s.index) + "]";
        b.scope = join_scope(outer.scope, step);
        b.interned_scope = out_.texts->intern(b.scope);
        profile_detail::body_result r;
        r.attribute = s.holder.attribute.name();
        std::vector<value_fact> given;
        r.reason = profile_detail::body_inputs(h->context, r.attribute, given);
        std::size_t k = 0;
        for (const value_info_view& v : s.graph.input()) {
            value_entry& e = b.values[v.name()];
            value_fact declared = profile_detail::declared_fact(v.type(), dim_params_);
            e.fact = k < given.size() ? merge(declared, std::move(given[k])) : std::move(declared);
            e.has_fact = true;
            ++k;
        }
        h->bodies.push_back(std::move(r));
        declare_graph(s.graph, b);
    }

    // The entry of `name` as frame `f` sees it (null when none); `owner` the frame holding it.
    value_entry* find(frame& f, std::string_view name, frame*& owner) {
        for (frame* g = &f; g != nullptr; g = g->outer) {
            if (value_entry* e = g->values.find(name)) {
                owner = g;
                return e;
            }
        }
        return nullptr;
    }

    // A value of the main graph a body reads stays live until the node
    // holding the body has run (names a body declares itself only make that
    // longer, never shorter).
    void mark_outer_reads(frame& f, const node_view& n) {
        if (out_.nodes.empty()) return;
        for (std::string_view in : n.input()) {
            frame* owner = nullptr;
            value_entry* e = f.outer != nullptr ? find(*f.outer, in, owner) : nullptr;
            if (e != nullptr && owner == main_) e->last_use = f.main_position;
        }
    }

    const function_view* called_function(const node_view& n) const {
        if (functions_.empty()) return nullptr;
        const auto it = functions_.find(n.op_type());
        if (it == functions_.end()) return nullptr;
        for (const function_view& f : it->second)
            if (f.domain() == n.domain() && f.overload() == n.overload()) return &f;
        return nullptr;
    }

    void profile_node(const model_scope& s, frame& f, const node_view& n, std::uint32_t node_index) {
        const std::size_t index = out_.nodes.size();
        if (&f == main_) last_main_index_ = index;
        else ++inner_nodes_;
        node_profile np;
        np.name = n.name();
        np.op_type = n.op_type();
        np.domain = n.domain();
        np.scope = f.interned_scope;
        np.parent = f.holder;
        profile_detail::node_context c;
        c.node = n;
        c.call = f.call;
        c.opset = opset_;
        c.max_value_elements = opts_.max_value_elements;
        for (std::string_view in : n.input()) {
            c.input_names.push_back(in);
            if (in.empty()) {
                c.inputs.push_back(nullptr);
                continue;
            }
            frame* owner = &f;
            value_entry* found = find(f, in, owner);
            value_entry& e = found != nullptr ? *found : f.values[in];
            c.inputs.push_back(e.has_fact ? &e.fact : nullptr);
            if (owner == main_) e.last_use = &f == main_ ? index : f.main_position;
            // A node reading one tensor twice (Mul(w, w)) reads it once.
            if (e.stored && (e.stored->readers.empty() || e.stored->readers.back() != index)) {
                np.params += e.stored->size.elements;
                np.param_bytes += e.stored->size.bytes;
                e.stored->size.read = true;
                e.stored->readers.push_back(index);
            }
        }
        std::vector<value_fact> outputs(n.output().size());
        const function_view* called = called_function(n);
        if (called == nullptr && profile_detail::is_control_flow(n)) {
            // Finished in node_done(), after its bodies.
            out_.nodes.push_back(std::move(np));
            pending_.push_back({&s, node_index, index, &f, std::move(c), {}});
            return;
        }
        out_.nodes.push_back(std::move(np));
        profile_detail::node_cost cost;
        std::string reason;
        if (called != nullptr) reason = expand(s, f, index, *called, c, outputs, cost);
        else {
            reason = profile_detail::infer_outputs(c, outputs);
            if (reason.empty()) reason = profile_detail::node_costs(c, outputs, cost);
        }
        node_profile& done = out_.nodes[index];
        done.reason = out_.texts->intern(reason);
        done.macs = std::move(cost.macs);
        done.flops = std::move(cost.flops);
        finish_node(f, index, n, outputs);
    }

    // A call of a model-local function: its body profiled with the call's
    // inputs and attributes, as its own frame listed under the call.
    std::string expand(const model_scope& s, frame& f, std::size_t index, const function_view& fn,
                       const profile_detail::node_context& c, std::vector<value_fact>& outputs,
                       profile_detail::node_cost& cost) {
        const std::string name = std::string(fn.domain()) + "::" + std::string(fn.name());
        if (function_depth_ >= opts_.max_function_depth)
            return "model-local function " + name + " not expanded: calls nested deeper than " +
                   std::to_string(opts_.max_function_depth) + " (recursive?)";
        if (inner_nodes_ >= opts_.max_inner_nodes)
            return "model-local function " + name + " not expanded: more than " +
                   std::to_string(opts_.max_inner_nodes) + " nodes in bodies and functions";
        ++inner_nodes_;  // an expansion without nodes still costs a frame
        frame& ff = new_frame();
        ff.holder = index;
        ff.main_position = &f == main_ ? index : f.main_position;
        ff.own_call = {c.node, fn, f.call};
        ff.call = &ff.own_call;
        ff.scope = join_scope(f.scope, node_tag(out_.nodes[index], index) + "/" + name);
        ff.interned_scope = out_.texts->intern(ff.scope);
        std::size_t k = 0;
        for (std::string_view in : fn.input()) {
            if (k < c.inputs.size() && c.inputs[k] != nullptr && !in.empty()) {
                value_entry& e = ff.values[in];
                e.fact = *c.inputs[k];
                e.has_fact = true;
            }
            ++k;
        }
        model_scope body;
        body.kind = scope_kind::function;
        body.function = fn;
        // Each expansion a level deeper: subgraphs inside functions calling
        // functions stay within max_depth altogether (the stack with them).
        body.depth = s.depth + 1;
        expansion_ = &ff;
        ++function_depth_;
        const std::size_t stack_size = stack_.size(), pending_size = pending_.size();
        const error e = walk_scope(body, *this, opts_.max_depth);
        --function_depth_;
        expansion_ = nullptr;
        // A failed walk returns without leaving the scopes it entered, nor
        // finishing the holders whose bodies it was in.
        stack_.resize(stack_size, {nullptr, nullptr});
        while (pending_.size() > pending_size) {
            pending_holder& h = pending_.back();
            std::vector<value_fact> unknown(h.context.node.output().size());
            out_.nodes[h.index].reason =
                out_.texts->intern("subgraphs nested deeper than " + std::to_string(opts_.max_depth) + " levels");
            finish_node(*h.in, h.index, h.context.node, unknown);
            pending_.pop_back();
        }
        if (e) return "model-local function " + name + ": calls and subgraphs nested deeper than " +
                      std::to_string(opts_.max_depth) + " levels";
        k = 0;
        for (std::string_view out : fn.output()) {
            const value_entry* e = ff.values.find(out);
            if (k < outputs.size() && e != nullptr && e->has_fact) outputs[k] = e->fact;
            ++k;
        }
        node_profile& np = out_.nodes[index];
        np.params += ff.sums.params;
        np.param_bytes += ff.sums.param_bytes;
        if (!ff.sums.reason.empty()) return "in " + name + ": " + ff.sums.reason;
        cost.macs = ff.sums.macs;
        cost.flops = ff.sums.flops;
        return std::string();
    }

    // The node's outputs merged with what the model declares, made the
    // frame's values; the frame's sums.
    void finish_node(frame& f, std::size_t index, const node_view& n, std::vector<value_fact>& outputs) {
        node_profile& np = out_.nodes[index];
        std::size_t k = 0;
        np.outputs.reserve(outputs.size());
        for (std::string_view name : n.output()) {
            value_fact& fact = outputs[k++];
            value_entry* e = name.empty() ? nullptr : &f.values[name];
            if (e && e->has_declared)
                fact = merge(profile_detail::declared_fact(type_view(e->declared), dim_params_), std::move(fact));
            profiled_output po;
            po.name = name;
            po.elem_type = fact.elem_type;
            po.bytes = profile_detail::fact_bytes(fact);
            if (e) {
                // The shape stays in the value's entry while later nodes read
                // it and moves to the result in finish(); a name made again
                // leaves the earlier output a copy.
                if (e->producer != value_entry::no_node)
                    out_.nodes[e->producer].outputs[e->output].shape = e->fact.shape;
                e->producer = index;
                e->output = static_cast<std::uint32_t>(k - 1);
                e->fact = std::move(fact);
                e->has_fact = true;
            } else {
                po.shape = std::move(fact.shape);
            }
            np.outputs.push_back(std::move(po));
        }
        if (is_constant_node(n) && n.output().size() == 1) add_constant(f, n);
        if (&f == main_) return;
        profile_detail::body_result& sums = f.sums;
        sums.params += np.params;
        sums.param_bytes += np.param_bytes;
        if (!np.covered()) {
            if (sums.reason.empty())
                sums.reason.append("node '").append(node_tag(np, index)).append("' (").append(np.op_type)
                    .append("): ").append(np.reason);
            return;
        }
        sums.macs = plus(sums.macs, np.macs);
        sums.flops = plus(sums.flops, np.flops);
    }

    void declare(frame& f, const value_info_view& v) {
        value_entry& e = f.values[v.name()];
        e.declared = v.type().wire_message();
        e.has_declared = v.has_type();
    }

    // Records the size of a stored tensor; `with_fact` also makes it the value's fact.
    void add_stored(frame& f, std::string_view name, const tensor_view& t, bool with_fact = true) {
        value_entry& e = f.values[name];
        if (with_fact) {
            e.fact = profile_detail::stored_tensor_fact(t, opts_.max_value_elements);
            e.has_fact = true;
        }
        e.stored = std::make_unique<profile_detail::stored_record>();
        stored_size& size = e.stored->size;
        size.origin = t.wire_message().begin();
        const result<std::uint64_t> n = element_count(t);
        bool ok = n.ok();
        size.elements = ok ? *n : 0;
        // A function's Constant is met once per call: noted once.
        const bool first = noted_.insert(size.origin).second;
        if (!ok && first) out_.notes.push_back("stored tensor '" + std::string(name) + "': invalid dims, not counted");
        else size.bytes = tensor_bytes(t, size.elements, ok);
        if (n.ok() && !ok && first)
            out_.notes.push_back("stored tensor '" + std::string(name) + "': bytes not counted (" +
                                 data_type_name(t.data_type()) + " has no fixed width)");
    }

    // A Constant's output is a stored tensor; its fact is the one the node's
    // rule made and the model's declaration merged.
    void add_constant(frame& f, const node_view& n) {
        const std::string_view name = *n.output().begin();
        if (name.empty()) return;
        for (const attribute_view& a : n.attribute())
            if (a.name() == "value" && a.has_t()) return add_stored(f, name, a.t(), false);
    }


    const profile_options& opts_;
    model_profile& out_;
    profile_detail::dim_params dim_params_{opts_.dims};
    // Model-local functions by name (then domain and overload compared):
    // no string built per node.
    std::unordered_map<std::string_view, std::vector<function_view>> functions_;
    std::deque<frame> frames_;
    frame* main_ = nullptr;
    std::vector<std::pair<const model_scope*, frame*>> stack_;
    std::vector<pending_holder> pending_;
    frame* expansion_ = nullptr;  // the frame of the function walk_scope() is about to enter
    std::uint32_t function_depth_ = 0;
    std::size_t inner_nodes_ = 0;
    std::size_t last_main_index_ = 0;
    std::int64_t opset_ = 0;
    std::set<const char*> noted_;
    std::vector<std::string_view> graph_inputs_;
};

void profiler::finish() {
    for (frame& f : frames_)
        f.values.for_each([&](std::string_view, value_entry& e) {
            if (e.producer != value_entry::no_node)
                out_.nodes[e.producer].outputs[e.output].shape = std::move(e.fact.shape);
        });
    // Each stored tensor once, however many frames met it, with all its readers.
    std::unordered_map<const char*, std::size_t> seen;
    std::vector<model_profile::shared_tensor> tensors;
    std::vector<std::uint64_t> tensor_bytes;
    for (const frame& f : frames_)
        f.values.for_each([&](std::string_view name, const value_entry& e) {
            if (!e.stored || !e.stored->size.read) return;
            const stored_size& size = e.stored->size;
            const auto [it, fresh] = seen.emplace(size.origin, tensors.size());
            if (fresh) {
                tensors.push_back({std::string(name), size.elements, e.stored->readers});
                tensor_bytes.push_back(size.bytes);
                return;
            }
            std::vector<std::size_t>& readers = tensors[it->second].readers;
            readers.insert(readers.end(), e.stored->readers.begin(), e.stored->readers.end());
            std::sort(readers.begin(), readers.end());
            readers.erase(std::unique(readers.begin(), readers.end()), readers.end());
        });
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        out_.totals.params += tensors[i].elements;
        out_.totals.param_bytes += tensor_bytes[i];
        if (tensors[i].readers.size() > 1) out_.shared.push_back(std::move(tensors[i]));
    }
    // Listed in file order of their first reader.
    std::sort(out_.shared.begin(), out_.shared.end(),
              [](const model_profile::shared_tensor& a, const model_profile::shared_tensor& b) {
                  return a.readers < b.readers || (a.readers == b.readers && a.name < b.name);
              });
    out_.totals.macs = quantity(0);
    out_.totals.flops = quantity(0);
    for (const node_profile& np : out_.nodes) {
        if (np.covered()) ++out_.covered_nodes;
        // A holder's cost counts its bodies: only the main graph's nodes add up.
        if (!np.in_main_graph()) continue;
        ++out_.main_graph_nodes;
        if (!np.covered()) continue;
        ++out_.main_graph_covered;
        out_.totals.macs = plus(out_.totals.macs, np.macs);
        out_.totals.flops = plus(out_.totals.flops, np.flops);
    }
    profile_detail::sweep_peak(out_, main_->values, graph_inputs_);
}

}  // namespace

result<model_profile> profile_model(const model_view& m, const profile_options& given) {
    if (!m.ok()) return m.err();
    if (!m.has_graph()) return error(errc::not_found);
    for (const dim_binding& b : given.dims)
        if (b.name.empty()) return error(errc::invalid_argument);
    profile_options opts = given;
    if (error e = profile_detail::bind_inputs(m.graph(), opts)) return e;
    model_profile out;
    profiler p(m, opts, out);
    if (error e = walk_scopes(m, p, opts.max_depth)) return e;
    p.finish();
    return out;
}

}  // namespace onnxview
