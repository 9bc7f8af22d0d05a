// Field paths of scopes and stored tensors (onnxview/traverse.hpp). Every
// field name is the schema's, looked up by its generated field number. In the
// text layer, not the model layer: they build std::strings, which a program
// that only walks a model (ONNXVIEW_NO_TEXT) must not link.
#include "onnxview/traverse.hpp"

#include "onnxview/schema.hpp"

namespace onnxview {

namespace {

void field(std::string& out, const schema::message_desc& d, std::uint32_t number) {
    if (!out.empty()) out += '.';
    out += d.find(number)->name;
}

void element(std::string& out, const schema::message_desc& d, std::uint32_t number, std::uint32_t index) {
    field(out, d, number);
    out += '[';
    out += std::to_string(index);
    out += ']';
}

// "node[N].attribute[M]" below the path of `scope`, which holds the node.
void node_attribute(std::string& out, const model_scope* scope, const attribute_place& at) {
    if (scope != nullptr && scope->kind == scope_kind::function)
        element(out, schema::msg_FunctionProto, function_view::field::node, at.node_index);
    else
        element(out, schema::msg_GraphProto, graph_view::field::node, at.node_index);
    element(out, schema::msg_NodeProto, node_view::field::attribute, at.attribute_index);
}

}  // namespace

void append_scope_path(const model_scope& s, std::string& out) {
    const schema::message_desc& model = schema::msg_ModelProto;
    switch (s.kind) {
        case scope_kind::main_graph: field(out, model, model_view::field::graph); return;
        case scope_kind::function: element(out, model, model_view::field::functions, s.index); return;
        case scope_kind::training_initialization:
        case scope_kind::training_algorithm:
            element(out, model, model_view::field::training_info, s.index);
            field(out, schema::msg_TrainingInfoProto, s.kind == scope_kind::training_initialization
                                                          ? training_info_view::field::initialization
                                                          : training_info_view::field::algorithm);
            return;
        case scope_kind::subgraph:
            if (s.parent != nullptr) append_scope_path(*s.parent, out);
            node_attribute(out, s.parent, s.holder);
            if (s.in_graphs) element(out, schema::msg_AttributeProto, attribute_view::field::graphs, s.index);
            else field(out, schema::msg_AttributeProto, attribute_view::field::g);
            return;
    }
}

void append_tensor_path(const stored_tensor& t, std::string& out) {
    if (t.scope != nullptr) append_scope_path(*t.scope, out);
    const schema::message_desc& graph = schema::msg_GraphProto;
    const schema::message_desc& attribute = schema::msg_AttributeProto;
    switch (t.field) {
        case tensor_field::initializer: element(out, graph, graph_view::field::initializer, t.index); break;
        case tensor_field::sparse_initializer:
            element(out, graph, graph_view::field::sparse_initializer, t.index);
            break;
        case tensor_field::t:
            node_attribute(out, t.scope, t.holder);
            field(out, attribute, attribute_view::field::t);
            break;
        case tensor_field::tensors:
            node_attribute(out, t.scope, t.holder);
            element(out, attribute, attribute_view::field::tensors, t.index);
            break;
        case tensor_field::sparse_tensor:
            node_attribute(out, t.scope, t.holder);
            field(out, attribute, attribute_view::field::sparse_tensor);
            break;
        case tensor_field::sparse_tensors:
            node_attribute(out, t.scope, t.holder);
            element(out, attribute, attribute_view::field::sparse_tensors, t.index);
            break;
    }
    if (t.sparse_part)
        field(out, schema::msg_SparseTensorProto,
              t.sparse_indices ? sparse_tensor_view::field::indices : sparse_tensor_view::field::values);
}

}  // namespace onnxview
