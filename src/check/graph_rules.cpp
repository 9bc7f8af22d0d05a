// graph_rules.cpp - graphs, value infos, types, nodes and attributes (onnx 1.12
// check_graph, check_value_info, check_node, check_attribute).
#include "checker.hpp"
#include "onnxview/attribute_values.hpp"
#include "onnxview/enums.hpp"
#include "onnxview/traverse.hpp"

namespace onnxview {
namespace check_detail {

// onnx's check_value_info: only the outermost type of a main-graph input or
// output must be complete; element types inside sequences, maps and
// optionals may stay partial.
void checker::check_type(const type_view& t, std::string_view name) {
    if (t.has_tensor_type()) {
        const auto tt = t.tensor_type();
        if (!tt.has_elem_type())
            error(finding_code::missing_elem_type, "value " + quoted(name) + " has a tensor type without elem_type");
        if (!tt.has_shape())
            error(finding_code::missing_shape, "value " + quoted(name) + " has a tensor type without shape");
    } else if (t.has_sparse_tensor_type()) {
        const auto st = t.sparse_tensor_type();
        if (!st.has_elem_type())
            error(finding_code::missing_elem_type,
                  "value " + quoted(name) + " has a sparse tensor type without elem_type");
        if (!st.has_shape())
            error(finding_code::missing_shape, "value " + quoted(name) + " has a sparse tensor type without shape");
    } else if (t.has_sequence_type()) {
        if (!t.sequence_type().has_elem_type())
            error(finding_code::missing_elem_type, "value " + quoted(name) + " has a sequence type without elem_type");
    } else if (t.has_optional_type()) {
        if (!t.optional_type().has_elem_type())
            error(finding_code::missing_elem_type, "value " + quoted(name) + " has an optional type without elem_type");
    } else if (t.has_map_type()) {
        const auto mt = t.map_type();
        if (!mt.has_key_type() || !mt.has_value_type())
            error(finding_code::missing_elem_type,
                  "value " + quoted(name) + " has a map type without key_type or value_type");
    } else if (!t.has_opaque_type()) {
        error(finding_code::missing_type, "value " + quoted(name) + " has a type with no kind set");
    }
}

void checker::check_value_info(const value_info_view& v, bool main_graph) {
    if (v.name().empty()) error(finding_code::empty_name, "a value info has an empty name", offset_of(v));
    if (!main_graph) return;  // onnx relaxes subgraph inputs and outputs
    if (!v.has_type()) {
        error(finding_code::missing_type, "value " + quoted(v.name()) + " has no type", offset_of(v));
        return;
    }
    check_type(v.type(), v.name());
}

// A graph's own fields and declarations, before its nodes: name, value
// infos, then a new scope holding its inputs and initializers.
void checker::enter_graph(const graph_view& g, bool main_graph) {
    if (g.name().empty()) error(finding_code::empty_graph_name, "the graph has an empty name", offset_of(g));
    {
        std::int64_t i = 0;
        for (const value_info_view& v : g.input()) {
            path_guard p(*this, schema::msg_GraphProto, graph_view::field::input, i++, v.name(), true);
            check_value_info(v, main_graph);
        }
        i = 0;
        for (const value_info_view& v : g.output()) {
            path_guard p(*this, schema::msg_GraphProto, graph_view::field::output, i++, v.name(), true);
            check_value_info(v, main_graph);
        }
    }
    scopes_.emplace_back(mem_);
    std::int64_t i = 0;
    for (const value_info_view& v : g.input()) {
        if (!scopes_.back().insert(v.name()).second) {
            path_guard p(*this, schema::msg_GraphProto, graph_view::field::input, i, v.name(), true);
            error(finding_code::duplicate_input,
                  "graph input " + quoted(v.name()) + " is declared more than once (SSA)", offset_of(v));
        }
        ++i;
    }
    name_set initializer_names(mem_);
    i = 0;
    for (const tensor_view& t : g.initializer()) {
        path_guard p(*this, schema::msg_GraphProto, graph_view::field::initializer, i++, t.name(), true);
        if (t.name().empty()) {
            error(finding_code::empty_name, "an initializer has an empty name", offset_of(t));
        } else if (!initializer_names.insert(t.name()).second) {
            error(finding_code::duplicate_initializer, "initializer name " + quoted(t.name()) + " is not unique",
                  offset_of(t));
        }
        check_tensor(t);
        if (ir_version_ != 0 && ir_version_ <= 3) {
            if (!t.name().empty() && !scopes_.back().count(t.name()))
                error(finding_code::initializer_not_input,
                      "initializer " + quoted(t.name()) + " is not a graph input (required for IR version <= 3)",
                      offset_of(t));
        } else {
            scopes_.back().insert(t.name());
        }
        if (stopped_) return;
    }
    i = 0;
    for (const sparse_tensor_view& s : g.sparse_initializer()) {
        const std::string_view name = s.values().name();
        path_guard p(*this, schema::msg_GraphProto, graph_view::field::sparse_initializer, i++, name, true);
        if (name.empty()) {
            error(finding_code::empty_name, "a sparse initializer has an empty name", offset_of(s));
        } else if (!initializer_names.insert(name).second) {
            error(finding_code::duplicate_initializer,
                  "sparse initializer name " + quoted(name) + " is not unique across initializers", offset_of(s));
        }
        check_sparse(s);
        scopes_.back().insert(name);
        if (stopped_) return;
    }
}

// After its nodes: the graph's outputs are defined; its scope ends.
void checker::leave_graph(const graph_view& g) {
    std::int64_t i = 0;
    for (const value_info_view& v : g.output()) {
        if (!v.name().empty() && !defined_in_scopes(v.name())) {
            path_guard p(*this, schema::msg_GraphProto, graph_view::field::output, i, v.name(), true);
            error(finding_code::undefined_output,
                  "graph output " + quoted(v.name()) +
                      " is not produced by any node, "
                      "graph input or initializer",
                  offset_of(v));
        }
        ++i;
    }
    scopes_.pop_back();
}

// onnx's SSA order, in graphs and function bodies alike: the node's inputs
// defined before it, the node itself (node_inputs_and_fields), then, after
// the subgraphs it holds, each output defined once (node_outputs).
void checker::node_inputs_and_fields(const node_view& n, const opset_map& opsets, bool in_function) {
    std::int64_t k = 0;
    for (std::string_view in : n.input()) {
        if (!in.empty() && !defined_in_scopes(in)) {
            path_guard pi(*this, schema::msg_NodeProto, node_view::field::input, k);
            error(finding_code::undefined_input,
                  "input " + quoted(in) + " of " + quoted(n.op_type()) +
                      (in_function ? " node is neither a function input nor an output of an earlier node"
                                   : " node is not a graph input, an initializer or an output of an earlier node "
                                     "(nodes must be topologically sorted)"),
                  offset_of(n));
        }
        ++k;
    }
    check_node(n, opsets, in_function);
}

void checker::node_outputs(const node_view& n, bool in_function) {
    std::int64_t k = 0;
    for (std::string_view out : n.output()) {
        if (!out.empty()) {
            if (defined_in_scopes(out)) {
                path_guard po(*this, schema::msg_NodeProto, node_view::field::output, k);
                error(finding_code::duplicate_output,
                      "value " + quoted(out) + " is already defined " +
                          (in_function ? "(SSA)" : "(graphs must be in SSA form)"),
                      offset_of(n));
            }
            scopes_.back().insert(out);
        }
        ++k;
    }
}

// The checks of a scope and the scopes nested in it, as walk_scope visits
// them: a graph's declarations on entering it, each node's inputs and
// fields before the subgraphs it holds and its outputs after them (a
// subgraph sees what was defined before its node, not the node's outputs),
// a graph's outputs on leaving it. A top scope is the main graph or a
// function body (whose nodes check against `opsets`, and whose own fields
// and scope check_functions handles); a subgraph's nodes check against the
// model's opsets, as onnx 1.12 does. Subgraphs deeper than max_graph_depth
// are a finding, and not entered.
struct checker::scope_checks : scope_visitor {
    checker& c;
    const opset_map& opsets;
    struct frame {
        std::size_t path_length;
        bool graph_entered;
    };
    list<frame> frames;
    list<std::size_t> node_paths;  // path_ lengths before each open node's part
    scope_checks(checker& k, const opset_map& top_opsets) : c(k), opsets(top_opsets), frames(k.mem_), node_paths(k.mem_) {}

    bool enter(const model_scope& s) {
        frames.push_back({c.path_.size(), false});
        if (s.kind == scope_kind::subgraph) {
            const attribute_place& h = s.holder;
            c.push_path(schema::msg_NodeProto, node_view::field::attribute, h.attribute_index, h.attribute.name(), true);
            if (s.in_graphs)
                c.push_path(schema::msg_AttributeProto, attribute_view::field::graphs, s.index);
            else
                c.push_path(schema::msg_AttributeProto, attribute_view::field::g);
            if (s.depth > c.max_depth_) {
                c.error(finding_code::too_deep, "subgraphs nest deeper than " + c.num(c.max_depth_) + " levels",
                        offset_of(s.graph));
                return false;
            }
        }
        if (c.stopped_) return false;
        if (s.is_graph()) {
            c.enter_graph(s.graph, s.kind == scope_kind::main_graph);
            frames.back().graph_entered = true;
        }
        return !c.stopped_;
    }
    void node(const model_scope& s, const node_view& n, std::uint32_t index) {
        node_paths.push_back(c.path_.size());
        if (s.is_graph())
            c.push_path(schema::msg_GraphProto, graph_view::field::node, index, n.name(), true);
        else
            c.push_path(schema::msg_FunctionProto, function_view::field::node, index, n.name(), true);
        if (c.stopped_) return;
        const bool function_body = s.kind == scope_kind::function;
        c.node_inputs_and_fields(n, function_body ? opsets : c.model_opsets_, function_body);
    }
    void node_done(const model_scope& s, const node_view& n, std::uint32_t) {
        if (!c.stopped_) c.node_outputs(n, s.kind == scope_kind::function);
        c.path_.resize(node_paths.back());
        node_paths.pop_back();
    }
    void leave(const model_scope& s) {
        if (frames.back().graph_entered) {
            if (!c.stopped_) c.leave_graph(s.graph);
            else c.scopes_.pop_back();
        }
        c.path_.resize(frames.back().path_length);
        frames.pop_back();
    }
};

void checker::check_scope(const model_scope& s, const opset_map& opsets) {
    scope_checks checks(*this, opsets);
    // The limit is checked as a finding in enter(); the walk's own never
    // stops it (verify() bounds the nesting).
    (void)walk_scope(s, checks, ~std::uint32_t(0));
}

void checker::check_node(const node_view& n, const opset_map& opsets, bool in_function) {
    if (n.op_type().empty()) error(finding_code::empty_op_type, "the node has an empty op_type", offset_of(n));
    if (n.input().empty() && n.output().empty())
        error(finding_code::no_inputs_outputs, "the node has neither inputs nor outputs", offset_of(n));
    if (!opsets.count(domain_key(n.domain())))
        error(finding_code::missing_opset,
              "no opset_import for domain " + quoted(n.domain()) + " of " + quoted(n.op_type()) + " node",
              offset_of(n));
    name_set names(mem_);
    std::int64_t i = 0;
    for (const attribute_view& a : n.attribute()) {
        path_guard p(*this, schema::msg_NodeProto, node_view::field::attribute, i++, a.name(), true);
        if (!a.name().empty() && !names.insert(a.name()).second)
            error(finding_code::duplicate_attribute, "attribute " + quoted(a.name()) + " appears more than once",
                  offset_of(a));
        check_attribute(a, in_function);
        if (stopped_) return;
    }
}

// Subgraphs are checked as scopes of the walk (scope_checks).
void checker::check_attribute(const attribute_view& a, bool in_function) {
    if (a.name().empty()) error(finding_code::empty_name, "an attribute has an empty name", offset_of(a));
    if (ir_version_ >= 2 && !a.has_type())
        error(finding_code::missing_attribute_type, "attribute " + quoted(a.name()) + " has no type", offset_of(a));
    int used = 0;
    text named(mem_);
    for_each_value_field(a, [&](const attribute_value_field& f) {
        ++used;
        if (!named.empty()) named += ", ";
        named += f.name;
        if (a.has_type() && a.type() != f.type)
            error(finding_code::attribute_type_mismatch,
                  "attribute " + quoted(a.name()) + " has type " +
                      attribute_type_name(static_cast<std::int32_t>(a.type())) + " but holds field '" + f.name + "'",
                  offset_of(a));
    });
    if (used > 1)
        error(finding_code::attribute_several_values,
              "attribute " + quoted(a.name()) + " holds more than one value field (" + named + ")", offset_of(a));
    if (a.has_ref_attr_name()) {
        if (!in_function)
            warning(finding_code::ref_attr_outside_function,
                    "attribute " + quoted(a.name()) + " refers to a function attribute outside a function body",
                    offset_of(a));
        else if (used != 0)
            error(finding_code::ref_attr_with_value,
                  "attribute " + quoted(a.name()) + " refers to a parent attribute and also holds a value",
                  offset_of(a));
    }
    if (a.has_t()) {
        path_guard p(*this, schema::msg_AttributeProto, attribute_view::field::t);
        check_tensor(a.t());
    }
    if (a.has_sparse_tensor()) {
        path_guard p(*this, schema::msg_AttributeProto, attribute_view::field::sparse_tensor);
        check_sparse(a.sparse_tensor());
    }
    std::int64_t i = 0;
    for (const tensor_view& t : a.tensors()) {
        path_guard p(*this, schema::msg_AttributeProto, attribute_view::field::tensors, i++);
        check_tensor(t);
    }
    i = 0;
    for (const sparse_tensor_view& s : a.sparse_tensors()) {
        path_guard p(*this, schema::msg_AttributeProto, attribute_view::field::sparse_tensors, i++);
        check_sparse(s);
    }
}

}  // namespace check_detail
}  // namespace onnxview
