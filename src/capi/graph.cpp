// The C API: graphs, nodes, attributes, value infos, types and functions
// (include/onnxview.h), each a handle read through its C++ view.
#include "handle.hpp"
#include "onnxview/initializer.hpp"

using namespace onnxview;
using namespace onnxview::capi;

namespace {

template <class View, class Handle>
std::string_view text_of(const Handle* h, std::string_view (View::*field)() const noexcept) noexcept {
    return h ? (view_of<View>(h).*field)() : std::string_view();
}

template <class Child, class View, class Handle, class Out>
onnxview_error singular(const Handle* h, Child (View::*field)() const noexcept, Out* out) noexcept {
    if (h == nullptr) return fail(errc::invalid_argument);
    return store_view((view_of<View>(h).*field)(), body_of(h).owner, out);
}

// The TypeProto member that is set (the views apply the oneof rule).
int32_t kind_of(const type_view& t) noexcept {
    if (t.has_tensor_type()) return ONNXVIEW_TYPE_TENSOR;
    if (t.has_sequence_type()) return ONNXVIEW_TYPE_SEQUENCE;
    if (t.has_map_type()) return ONNXVIEW_TYPE_MAP;
    if (t.has_optional_type()) return ONNXVIEW_TYPE_OPTIONAL;
    if (t.has_sparse_tensor_type()) return ONNXVIEW_TYPE_SPARSE_TENSOR;
    if (t.has_opaque_type()) return ONNXVIEW_TYPE_OPAQUE;
    return ONNXVIEW_TYPE_NONE;
}

// The shape of a tensor or sparse tensor type, and whether it has one.
bool shape_of(const type_view& t, tensor_shape_view& shape) noexcept {
    if (t.has_tensor_type()) {
        const tensor_type_view tt = t.tensor_type();
        shape = tt.shape();
        return tt.has_shape();
    }
    if (t.has_sparse_tensor_type()) {
        const sparse_tensor_type_view st = t.sparse_tensor_type();
        shape = st.shape();
        return st.has_shape();
    }
    return false;
}

}  // namespace

#define ONNXVIEW_TEXT(fn, View, Handle, member) \
    onnxview_string fn(const Handle* h) { return to_c(text_of<View>(h, &View::member)); }
#define ONNXVIEW_COUNT(fn, View, Handle, member) \
    size_t fn(const Handle* h) { return h ? view_of<View>(h).member().size() : 0; }
#define ONNXVIEW_ELEMENT(fn, View, Handle, member, Elem, Out)                      \
    onnxview_error fn(const Handle* h, size_t i, Out* out) {                       \
        return store_element<Elem>(h, View::field::member, i, out);                \
    }
#define ONNXVIEW_STRING_AT(fn, View, Handle, member)                                \
    onnxview_error fn(const Handle* h, size_t i, onnxview_string* out) {            \
        if (h == nullptr) return fail(errc::invalid_argument);                      \
        return string_at(view_of<View>(h).member(), i, out);                        \
    }

extern "C" {

// --- graphs
ONNXVIEW_TEXT(onnxview_graph_name, graph_view, onnxview_graph, name)
ONNXVIEW_TEXT(onnxview_graph_doc_string, graph_view, onnxview_graph, doc_string)
ONNXVIEW_COUNT(onnxview_graph_node_count, graph_view, onnxview_graph, node)
ONNXVIEW_ELEMENT(onnxview_graph_node, graph_view, onnxview_graph, node, node_view, onnxview_node)
ONNXVIEW_COUNT(onnxview_graph_input_count, graph_view, onnxview_graph, input)
ONNXVIEW_ELEMENT(onnxview_graph_input, graph_view, onnxview_graph, input, value_info_view, onnxview_value_info)
ONNXVIEW_COUNT(onnxview_graph_output_count, graph_view, onnxview_graph, output)
ONNXVIEW_ELEMENT(onnxview_graph_output, graph_view, onnxview_graph, output, value_info_view, onnxview_value_info)
ONNXVIEW_COUNT(onnxview_graph_value_info_count, graph_view, onnxview_graph, value_info)
ONNXVIEW_ELEMENT(onnxview_graph_value_info, graph_view, onnxview_graph, value_info, value_info_view,
                 onnxview_value_info)
ONNXVIEW_COUNT(onnxview_graph_initializer_count, graph_view, onnxview_graph, initializer)
ONNXVIEW_ELEMENT(onnxview_graph_initializer, graph_view, onnxview_graph, initializer, tensor_view, onnxview_tensor)
ONNXVIEW_COUNT(onnxview_graph_sparse_initializer_count, graph_view, onnxview_graph, sparse_initializer)
ONNXVIEW_ELEMENT(onnxview_graph_sparse_initializer, graph_view, onnxview_graph, sparse_initializer,
                 sparse_tensor_view, onnxview_sparse_tensor)

onnxview_error onnxview_graph_find_initializer(const onnxview_graph* g, const char* name, size_t size,
                                               int* is_sparse, onnxview_tensor* dense,
                                               onnxview_sparse_tensor* sparse) {
    if (g == nullptr || (name == nullptr && size != 0) || is_sparse == nullptr) return fail(errc::invalid_argument);
    const result<initializer_ref> r = find_initializer(view_of<graph_view>(g), std::string_view(name, size));
    if (!r.ok()) return to_c(r.err());
    // A handle from the graph's repeated field, so that next() steps on.
    const graph_view gv = view_of<graph_view>(g);
    std::size_t index = 0;
    if (r->is_sparse) {
        for (const sparse_tensor_view& s : gv.sparse_initializer()) {
            if (s.wire_message().begin() == r->sparse.wire_message().begin()) break;
            ++index;
        }
        *is_sparse = 1;
        return sparse ? store_element<sparse_tensor_view>(g, graph_view::field::sparse_initializer, index, sparse)
                      : ok();
    }
    for (const tensor_view& t : gv.initializer()) {
        if (t.wire_message().begin() == r->dense.wire_message().begin()) break;
        ++index;
    }
    *is_sparse = 0;
    return dense ? store_element<tensor_view>(g, graph_view::field::initializer, index, dense) : ok();
}

// --- nodes
ONNXVIEW_TEXT(onnxview_node_name, node_view, onnxview_node, name)
ONNXVIEW_TEXT(onnxview_node_op_type, node_view, onnxview_node, op_type)
ONNXVIEW_TEXT(onnxview_node_domain, node_view, onnxview_node, domain)
ONNXVIEW_TEXT(onnxview_node_overload, node_view, onnxview_node, overload)
ONNXVIEW_TEXT(onnxview_node_doc_string, node_view, onnxview_node, doc_string)
ONNXVIEW_COUNT(onnxview_node_input_count, node_view, onnxview_node, input)
ONNXVIEW_STRING_AT(onnxview_node_input, node_view, onnxview_node, input)
ONNXVIEW_COUNT(onnxview_node_output_count, node_view, onnxview_node, output)
ONNXVIEW_STRING_AT(onnxview_node_output, node_view, onnxview_node, output)
ONNXVIEW_COUNT(onnxview_node_attribute_count, node_view, onnxview_node, attribute)
ONNXVIEW_ELEMENT(onnxview_node_attribute, node_view, onnxview_node, attribute, attribute_view, onnxview_attribute)

onnxview_error onnxview_node_find_attribute(const onnxview_node* n, const char* name, size_t size,
                                            onnxview_attribute* out) {
    if (n == nullptr || (name == nullptr && size != 0) || out == nullptr) return fail(errc::invalid_argument);
    const node_view v = view_of<node_view>(n);
    const std::string_view wanted(name, size);
    std::size_t index = 0;
    for (const attribute_view& a : v.attribute()) {
        if (!a.ok()) return to_c(a.err());
        if (a.name() == wanted) return store_element<attribute_view>(n, node_view::field::attribute, index, out);
        ++index;
    }
    const wire::message& m = v.wire_message();
    return fail(errc::not_found, m.offset_of(m.begin()));
}

onnxview_error onnxview_node_next(const onnxview_node* n, onnxview_node* out) { return store_next<node_view>(n, out); }

// --- attributes
ONNXVIEW_TEXT(onnxview_attribute_name, attribute_view, onnxview_attribute, name)
ONNXVIEW_TEXT(onnxview_attribute_ref_attr_name, attribute_view, onnxview_attribute, ref_attr_name)
ONNXVIEW_TEXT(onnxview_attribute_doc_string, attribute_view, onnxview_attribute, doc_string)
ONNXVIEW_TEXT(onnxview_attribute_s, attribute_view, onnxview_attribute, s)
int32_t onnxview_attribute_type(const onnxview_attribute* a) {
    return a ? static_cast<int32_t>(view_of<attribute_view>(a).type()) : 0;
}
const char* onnxview_attribute_type_name(int32_t type) {
    return type >= 0 && type <= static_cast<int32_t>(attribute_type::type_protos) ? attribute_type_name(type)
                                                                                  : "UNKNOWN";
}
float onnxview_attribute_f(const onnxview_attribute* a) { return a ? view_of<attribute_view>(a).f() : 0.0f; }
int64_t onnxview_attribute_i(const onnxview_attribute* a) { return a ? view_of<attribute_view>(a).i() : 0; }
onnxview_error onnxview_attribute_floats(const onnxview_attribute* a, float* out, size_t capacity, size_t* count) {
    if (a == nullptr) return fail(errc::invalid_argument);
    return copy_scalars(view_of<attribute_view>(a).floats(), out, capacity, count);
}
onnxview_error onnxview_attribute_ints(const onnxview_attribute* a, int64_t* out, size_t capacity, size_t* count) {
    if (a == nullptr) return fail(errc::invalid_argument);
    return copy_scalars(view_of<attribute_view>(a).ints(), out, capacity, count);
}
ONNXVIEW_COUNT(onnxview_attribute_strings_count, attribute_view, onnxview_attribute, strings)
ONNXVIEW_STRING_AT(onnxview_attribute_string_at, attribute_view, onnxview_attribute, strings)
onnxview_error onnxview_attribute_t(const onnxview_attribute* a, onnxview_tensor* out) {
    return singular(a, &attribute_view::t, out);
}
onnxview_error onnxview_attribute_g(const onnxview_attribute* a, onnxview_graph* out) {
    return singular(a, &attribute_view::g, out);
}
onnxview_error onnxview_attribute_sparse_tensor(const onnxview_attribute* a, onnxview_sparse_tensor* out) {
    return singular(a, &attribute_view::sparse_tensor, out);
}
onnxview_error onnxview_attribute_tp(const onnxview_attribute* a, onnxview_type* out) {
    return singular(a, &attribute_view::tp, out);
}
ONNXVIEW_COUNT(onnxview_attribute_tensors_count, attribute_view, onnxview_attribute, tensors)
ONNXVIEW_ELEMENT(onnxview_attribute_tensor_at, attribute_view, onnxview_attribute, tensors, tensor_view,
                 onnxview_tensor)
ONNXVIEW_COUNT(onnxview_attribute_graphs_count, attribute_view, onnxview_attribute, graphs)
ONNXVIEW_ELEMENT(onnxview_attribute_graph_at, attribute_view, onnxview_attribute, graphs, graph_view, onnxview_graph)
ONNXVIEW_COUNT(onnxview_attribute_sparse_tensors_count, attribute_view, onnxview_attribute, sparse_tensors)
ONNXVIEW_ELEMENT(onnxview_attribute_sparse_tensor_at, attribute_view, onnxview_attribute, sparse_tensors,
                 sparse_tensor_view, onnxview_sparse_tensor)
ONNXVIEW_COUNT(onnxview_attribute_type_protos_count, attribute_view, onnxview_attribute, type_protos)
ONNXVIEW_ELEMENT(onnxview_attribute_type_proto_at, attribute_view, onnxview_attribute, type_protos, type_view,
                 onnxview_type)

// --- value infos and types
ONNXVIEW_TEXT(onnxview_value_info_name, value_info_view, onnxview_value_info, name)
ONNXVIEW_TEXT(onnxview_value_info_doc_string, value_info_view, onnxview_value_info, doc_string)
onnxview_error onnxview_value_info_type(const onnxview_value_info* v, onnxview_type* out) {
    return singular(v, &value_info_view::type, out);
}

int32_t onnxview_type_kind(const onnxview_type* t) { return t ? kind_of(view_of<type_view>(t)) : 0; }
int32_t onnxview_type_elem_type(const onnxview_type* t) {
    if (t == nullptr) return 0;
    const type_view v = view_of<type_view>(t);
    if (v.has_tensor_type()) return v.tensor_type().elem_type();
    if (v.has_sparse_tensor_type()) return v.sparse_tensor_type().elem_type();
    if (v.has_map_type()) return v.map_type().key_type();
    return 0;
}
int onnxview_type_has_shape(const onnxview_type* t) {
    tensor_shape_view shape;
    return t && shape_of(view_of<type_view>(t), shape) ? 1 : 0;
}
size_t onnxview_type_rank(const onnxview_type* t) {
    tensor_shape_view shape;
    return t && shape_of(view_of<type_view>(t), shape) ? shape.dim().size() : 0;
}
onnxview_error onnxview_type_dim(const onnxview_type* t, size_t i, onnxview_dim* out) {
    if (t == nullptr || out == nullptr) return fail(errc::invalid_argument);
    tensor_shape_view shape;
    if (!shape_of(view_of<type_view>(t), shape) || i >= shape.dim().size()) return fail(errc::not_found);
    if (!shape.ok()) return to_c(shape.err());
    const dimension_view d = shape.dim().at(i);
    if (!d.ok()) return to_c(d.err());
    out->kind = d.has_dim_value() ? ONNXVIEW_DIM_VALUE : d.has_dim_param() ? ONNXVIEW_DIM_PARAM : ONNXVIEW_DIM_UNKNOWN;
    out->value = d.dim_value();
    out->param = to_c(d.dim_param());
    out->denotation = to_c(d.denotation());
    return ok();
}
onnxview_error onnxview_type_element(const onnxview_type* t, onnxview_type* out) {
    if (t == nullptr) return fail(errc::invalid_argument);
    const type_view v = view_of<type_view>(t);
    const onnxview_model* owner = body_of(t).owner;
    if (v.has_sequence_type()) return store_view(v.sequence_type().elem_type(), owner, out);
    if (v.has_optional_type()) return store_view(v.optional_type().elem_type(), owner, out);
    if (v.has_map_type()) return store_view(v.map_type().value_type(), owner, out);
    return fail(errc::not_found);
}
onnxview_error onnxview_type_opaque(const onnxview_type* t, onnxview_string* domain, onnxview_string* name) {
    if (t == nullptr) return fail(errc::invalid_argument);
    const type_view v = view_of<type_view>(t);
    if (!v.has_opaque_type()) return fail(errc::not_found);
    const opaque_type_view o = v.opaque_type();
    if (!o.ok()) return to_c(o.err());
    if (domain != nullptr) *domain = to_c(o.domain());
    if (name != nullptr) *name = to_c(o.name());
    return ok();
}
ONNXVIEW_TEXT(onnxview_type_denotation, type_view, onnxview_type, denotation)

// --- functions
ONNXVIEW_TEXT(onnxview_function_name, function_view, onnxview_function, name)
ONNXVIEW_TEXT(onnxview_function_domain, function_view, onnxview_function, domain)
ONNXVIEW_TEXT(onnxview_function_overload, function_view, onnxview_function, overload)
ONNXVIEW_TEXT(onnxview_function_doc_string, function_view, onnxview_function, doc_string)
ONNXVIEW_COUNT(onnxview_function_input_count, function_view, onnxview_function, input)
ONNXVIEW_STRING_AT(onnxview_function_input, function_view, onnxview_function, input)
ONNXVIEW_COUNT(onnxview_function_output_count, function_view, onnxview_function, output)
ONNXVIEW_STRING_AT(onnxview_function_output, function_view, onnxview_function, output)
ONNXVIEW_COUNT(onnxview_function_attribute_count, function_view, onnxview_function, attribute)
ONNXVIEW_STRING_AT(onnxview_function_attribute, function_view, onnxview_function, attribute)
ONNXVIEW_COUNT(onnxview_function_node_count, function_view, onnxview_function, node)
ONNXVIEW_ELEMENT(onnxview_function_node, function_view, onnxview_function, node, node_view, onnxview_node)
ONNXVIEW_COUNT(onnxview_function_opset_count, function_view, onnxview_function, opset_import)
onnxview_error onnxview_function_opset(const onnxview_function* f, size_t i, onnxview_string* domain,
                                       int64_t* version) {
    if (f == nullptr) return fail(errc::invalid_argument);
    return opset_at(view_of<function_view>(f).opset_import(), i, domain, version);
}

}  // extern "C"

#undef ONNXVIEW_TEXT
#undef ONNXVIEW_COUNT
#undef ONNXVIEW_ELEMENT
#undef ONNXVIEW_STRING_AT
