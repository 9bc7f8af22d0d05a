// onnxview/traverse.hpp - every graph, every node and every stored tensor of
// a model, in one walk that every tool shares.
//
// A model's nodes live in scopes: the main graph, the graphs held by node
// attributes (`g`, `graphs`) at any depth, the initialization and algorithm
// graphs of its training_info, and its model-local functions (node lists
// without a graph). walk_scopes() visits them all, depth-first in model order
// (ModelProto field order: graph, training_info, functions), and each scope
// knows its parent, so its place in the model can be written as a field path
// ("graph.node[3].attribute[0].g") without the walk allocating anything.
//
//   struct counter : onnxview::scope_visitor {
//       std::size_t nodes = 0;
//       bool enter(const onnxview::model_scope& s) { nodes += s.nodes().size(); return true; }
//   };
//   counter c;
//   if (onnxview::error e = onnxview::walk_scopes(model, c)) { /* nested deeper than the limit */ }
//
// for_each_tensor() builds on it: every TensorProto a model stores, wherever
// it is (initializers, sparse initializers, Constant values, other tensor
// attributes), with where it is. for_each_declared_name() lists the names a
// scope declares (its inputs, initializers, node outputs).
//
// Cost: linear in the graph metadata (payloads are never read); no
// allocation; recursion depth bounded by the `max_depth` argument. Every view
// handed to a callback is valid while the model's bytes are; a model_scope
// only during the callback.
#ifndef ONNXVIEW_TRAVERSE_HPP
#define ONNXVIEW_TRAVERSE_HPP

#include <cstdint>
#include <string>
#include <string_view>

#include "onnxview/model.hpp"

namespace onnxview {

// What a scope is, and where it sits in the model.
enum class scope_kind : std::uint8_t {
    main_graph,               // ModelProto.graph
    subgraph,                 // AttributeProto.g or .graphs[i] of a node of the parent scope
    function,                 // ModelProto.functions[i]: nodes without a graph
    training_initialization,  // ModelProto.training_info[i].initialization
    training_algorithm,       // ModelProto.training_info[i].algorithm
};

// An attribute of a node of a scope, with their positions in the scope's
// nodes() and in node.attribute(): what holds a subgraph or a tensor.
struct attribute_place {
    node_view node;
    attribute_view attribute;
    std::uint32_t node_index = 0;
    std::uint32_t attribute_index = 0;
};

// One scope: a graph, or a model-local function's node list. Made by
// walk_scopes() on its stack; valid during the callback it is passed to (the
// parent chain too).
struct model_scope {
    scope_kind kind = scope_kind::main_graph;
    // 0 for the scopes that stand in the model itself; one more for each
    // subgraph level.
    std::uint32_t depth = 0;
    graph_view graph;        // every kind but function
    function_view function;  // function only
    // The enclosing scope of a subgraph; null for the others.
    const model_scope* parent = nullptr;
    // A subgraph: the attribute of a node of `parent` holding it.
    attribute_place holder;
    // functions[index], training_info[index], or attribute.graphs[index]
    // (0 for attribute.g; see in_graphs).
    std::uint32_t index = 0;
    bool in_graphs = false;  // a subgraph held by `graphs`, not `g`

    bool is_graph() const noexcept { return kind != scope_kind::function; }
    // The scope's nodes: graph.node(), or function.node(). O(1).
    message_range<node_view> nodes() const noexcept { return is_graph() ? graph.node() : function.node(); }
};

// Appends where the scope sits to `out`: "graph", "functions[1]",
// "training_info[0].algorithm", "graph.node[3].attribute[0].graphs[1]".
// Field names come from the schema tables. Part of the text layer
// (src/text/scope_path.cpp): absent with ONNXVIEW_NO_TEXT.
void append_scope_path(const model_scope& s, std::string& out);

// The walk's hooks. Derive from this and hide the ones you need (the walk
// calls the derived class's, no virtual dispatch).
struct scope_visitor {
    // Entering a scope, before its nodes. Return false to skip the scope's
    // nodes and the scopes nested in it (leave() is still called).
    bool enter(const model_scope&) { return true; }
    // Each node of an entered scope, in order, before the scopes it holds.
    void node(const model_scope&, const node_view&, std::uint32_t /*node_index*/) {}
    // The same node after the scopes it holds (what a node defines is not
    // seen by its own subgraphs).
    void node_done(const model_scope&, const node_view&, std::uint32_t /*node_index*/) {}
    // Leaving a scope, after its nodes and nested scopes.
    void leave(const model_scope&) {}
};

template <class Visitor>
error walk_scope(const model_scope& s, Visitor& v, std::uint32_t max_depth = 100);

// Visits the subgraphs node `n` (node `node_index` of scope `s`) holds, each
// with the scopes nested in it, as walk_scope() does: for the scopes under
// one node, e.g. the bodies of an If or a Loop.
template <class Visitor>
error walk_node_scopes(const model_scope& s, const node_view& n, std::uint32_t node_index, Visitor& v,
                       std::uint32_t max_depth = 100) {
    std::uint32_t ai = 0;
    for (const attribute_view& a : n.attribute()) {
        model_scope sub;
        sub.kind = scope_kind::subgraph;
        sub.depth = s.depth + 1;
        sub.parent = &s;
        sub.holder = {n, a, node_index, ai++};
        if (a.has_g()) {
            sub.graph = a.g();
            if (error e = walk_scope(sub, v, max_depth)) return e;
        }
        sub.in_graphs = true;
        for (const graph_view& g : a.graphs()) {
            sub.graph = g;
            if (error e = walk_scope(sub, v, max_depth)) return e;
            ++sub.index;
        }
    }
    return error();
}

// Visits scope `s` and the scopes nested in it: enter(s), then for each of
// its nodes node(), the scopes that node holds and node_done(), then leave(s). Fails with
// depth_exceeded (at the graph's offset) on a scope whose depth is above
// max_depth, after visiting what lies above it.
template <class Visitor>
error walk_scope(const model_scope& s, Visitor& v, std::uint32_t max_depth) {
    if (s.depth > max_depth)
        return error(errc::depth_exceeded, s.graph.wire_message().offset_of(s.graph.wire_message().begin()));
    if (v.enter(s)) {
        std::uint32_t ni = 0;
        for (const node_view& n : s.nodes()) {
            v.node(s, n, ni);
            if (error e = walk_node_scopes(s, n, ni, v, max_depth)) return e;
            v.node_done(s, n, ni);
            ++ni;
        }
    }
    v.leave(s);
    return error();
}

// Visits every scope of `m`: the main graph (when present), the graphs of
// each training_info (initialization, then algorithm, when present), then
// each function; subgraphs right after the node holding them, depth-first.
// Fails as walk_scope() does when subgraphs nest deeper than max_depth
// levels below a top scope (verify() refuses such models with the default
// limits).
template <class Visitor>
error walk_scopes(const model_view& m, Visitor& v, std::uint32_t max_depth = 100) {
    if (m.has_graph()) {
        model_scope s;
        s.graph = m.graph();
        if (error e = walk_scope(s, v, max_depth)) return e;
    }
    std::uint32_t i = 0;
    for (const training_info_view& t : m.training_info()) {
        model_scope s;
        s.index = i++;
        if (t.has_initialization()) {
            s.kind = scope_kind::training_initialization;
            s.graph = t.initialization();
            if (error e = walk_scope(s, v, max_depth)) return e;
        }
        if (t.has_algorithm()) {
            s.kind = scope_kind::training_algorithm;
            s.graph = t.algorithm();
            if (error e = walk_scope(s, v, max_depth)) return e;
        }
    }
    i = 0;
    for (const function_view& f : m.functions()) {
        model_scope s;
        s.kind = scope_kind::function;
        s.function = f;
        s.index = i++;
        if (error e = walk_scope(s, v, max_depth)) return e;
    }
    return error();
}

// Whether a node is the standard operator `op` (domain "" or "ai.onnx").
inline bool is_standard_operator(const node_view& n, std::string_view op) noexcept {
    return n.op_type() == op && (n.domain().empty() || n.domain() == "ai.onnx");
}

// Whether a node is the standard Constant operator, whose `value` and
// `sparse_value` attributes hold the tensor it produces.
inline bool is_constant_node(const node_view& n) noexcept { return is_standard_operator(n, "Constant"); }

// Where a stored tensor sits.
enum class tensor_origin : std::uint8_t {
    initializer,         // GraphProto.initializer
    sparse_initializer,  // GraphProto.sparse_initializer (its values and indices)
    constant,            // a Constant node's tensor attribute (value, sparse_value)
    attribute,           // any other node's tensor attribute (t, tensors, sparse_tensor(s))
};
constexpr std::size_t tensor_origin_count = 4;
// "initializer", "sparse_initializer", "constant", "attribute".
inline const char* tensor_origin_name(tensor_origin o) noexcept {
    switch (o) {
        case tensor_origin::initializer: return "initializer";
        case tensor_origin::sparse_initializer: return "sparse_initializer";
        case tensor_origin::constant: return "constant";
        case tensor_origin::attribute: return "attribute";
    }
    return "?";
}

// Which field of its holder a stored tensor is.
enum class tensor_field : std::uint8_t {
    initializer,         // GraphProto.initializer[index]
    sparse_initializer,  // GraphProto.sparse_initializer[index]
    t,                   // AttributeProto.t
    tensors,             // AttributeProto.tensors[index]
    sparse_tensor,       // AttributeProto.sparse_tensor
    sparse_tensors,      // AttributeProto.sparse_tensors[index]
};

// One TensorProto a model stores. A sparse tensor gives two, its values then
// its indices (sparse_part set; their `sparse` is the SparseTensorProto).
struct stored_tensor {
    tensor_view tensor;
    tensor_origin origin = tensor_origin::initializer;
    tensor_field field = tensor_field::initializer;
    bool sparse_part = false;
    bool sparse_indices = false;  // the indices of a sparse tensor (positions, not parameters)
    sparse_tensor_view sparse;    // when sparse_part
    const model_scope* scope = nullptr;
    attribute_place holder;   // constant and attribute: where the tensor is
    std::uint32_t index = 0;  // in the repeated field `field` (0 for t, sparse_tensor)
};

// Appends where the tensor sits: "graph.initializer[2]",
// "functions[0].node[1].attribute[0].t", "graph.sparse_initializer[0].indices".
// Text layer, like append_scope_path.
void append_tensor_path(const stored_tensor& t, std::string& out);

// for_each_tensor()'s visitor: calls fn(const stored_tensor&) from its
// enter() (a graph's initializers) and node() (a node's tensor attributes).
// Public so that a walk which does more than list tensors makes one pass:
// derive from it and call its enter() and node() from yours.
template <class Fn>
struct tensor_scope_visitor : scope_visitor {
    Fn& fn;
    explicit tensor_scope_visitor(Fn& f) : fn(f) {}

    void sparse(stored_tensor& st, const sparse_tensor_view& s) {
        st.sparse_part = true;
        st.sparse = s;
        if (s.has_values()) {
            st.tensor = s.values();
            st.sparse_indices = false;
            fn(static_cast<const stored_tensor&>(st));
        }
        if (s.has_indices()) {
            st.tensor = s.indices();
            st.sparse_indices = true;
            fn(static_cast<const stored_tensor&>(st));
        }
    }

    bool enter(const model_scope& s) {
        if (!s.is_graph()) return true;
        stored_tensor st;
        st.scope = &s;
        for (const tensor_view& t : s.graph.initializer()) {
            st.tensor = t;
            fn(static_cast<const stored_tensor&>(st));
            ++st.index;
        }
        st = stored_tensor();
        st.scope = &s;
        st.origin = tensor_origin::sparse_initializer;
        st.field = tensor_field::sparse_initializer;
        for (const sparse_tensor_view& sp : s.graph.sparse_initializer()) {
            sparse(st, sp);
            ++st.index;
        }
        return true;
    }

    void node(const model_scope& s, const node_view& n, std::uint32_t node_index) {
        stored_tensor st;
        st.scope = &s;
        st.origin = is_constant_node(n) ? tensor_origin::constant : tensor_origin::attribute;
        st.holder.node = n;
        st.holder.node_index = node_index;
        for (const attribute_view& a : n.attribute()) {
            st.holder.attribute = a;
            st.sparse_part = st.sparse_indices = false;
            st.sparse = sparse_tensor_view();
            st.index = 0;
            if (a.has_t()) {
                st.field = tensor_field::t;
                st.tensor = a.t();
                fn(static_cast<const stored_tensor&>(st));
            }
            st.field = tensor_field::tensors;
            for (const tensor_view& t : a.tensors()) {
                st.tensor = t;
                fn(static_cast<const stored_tensor&>(st));
                ++st.index;
            }
            st.index = 0;
            if (a.has_sparse_tensor()) {
                st.field = tensor_field::sparse_tensor;
                sparse(st, a.sparse_tensor());
            }
            st.field = tensor_field::sparse_tensors;
            for (const sparse_tensor_view& sp : a.sparse_tensors()) {
                sparse(st, sp);
                ++st.index;
            }
            ++st.holder.attribute_index;
        }
    }
};

// Calls fn(const stored_tensor&) for every TensorProto `m` stores, in
// walk_scopes() order: in each graph its initializers, then its sparse
// initializers, then the tensor attributes of each node (attribute by
// attribute: t, tensors, sparse_tensor, sparse_tensors) before the scopes
// the node holds. Payloads are not read. Fails as walk_scopes() does.
template <class Fn>
error for_each_tensor(const model_view& m, Fn&& fn, std::uint32_t max_depth = 100) {
    tensor_scope_visitor<Fn> v(fn);
    return walk_scopes(m, v, max_depth);
}

// Calls fn(std::string_view) for each name the scope declares, in this
// order: a graph's inputs, initializers, sparse initializers (their values'
// names) and node outputs; a function's inputs and node outputs. Empty names
// (absent optional values) are skipped; a name declared twice is given twice.
// Names of enclosing scopes are not included: a subgraph also sees those.
template <class Fn>
void for_each_declared_name(const model_scope& s, Fn&& fn) {
    if (s.is_graph()) {
        for (const value_info_view& v : s.graph.input())
            if (!v.name().empty()) fn(v.name());
        for (const tensor_view& t : s.graph.initializer())
            if (!t.name().empty()) fn(t.name());
        for (const sparse_tensor_view& sp : s.graph.sparse_initializer())
            if (!sp.values().name().empty()) fn(sp.values().name());
    } else {
        for (std::string_view name : s.function.input())
            if (!name.empty()) fn(name);
    }
    for (const node_view& n : s.nodes())
        for (std::string_view name : n.output())
            if (!name.empty()) fn(name);
}

}  // namespace onnxview

#endif  // ONNXVIEW_TRAVERSE_HPP
