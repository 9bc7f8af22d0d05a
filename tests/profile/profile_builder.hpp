// tests/profile/profile_builder.hpp - a tiny ONNX model builder over the
// generated field numbers, for the profiler's tests: value infos, tensors,
// attributes (subgraphs too), nodes, graphs, model-local functions.
#ifndef ONNXVIEW_TESTS_PROFILE_BUILDER_HPP
#define ONNXVIEW_TESTS_PROFILE_BUILDER_HPP

#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "../wire_builder.hpp"
#include "onnxview/enums.hpp"
#include "onnxview/model.hpp"
#include "onnxview/profile.hpp"

namespace profile_testing {

using namespace onnxview;
using testing::wire_builder;

using dim_spec = std::variant<std::int64_t, std::string>;

inline wire_builder value_info(const std::string& name, const std::vector<dim_spec>& dims,
                        data_type type = data_type::float32) {
    wire_builder shape;
    for (const dim_spec& d : dims) {
        wire_builder dim;
        if (const std::int64_t* v = std::get_if<std::int64_t>(&d))
            dim.field_varint(dimension_view::field::dim_value, static_cast<std::uint64_t>(*v));
        else dim.field_bytes(dimension_view::field::dim_param, std::get<std::string>(d));
        shape.field_message(tensor_shape_view::field::dim, dim);
    }
    wire_builder tensor_type;
    tensor_type.field_varint(tensor_type_view::field::elem_type, static_cast<std::uint64_t>(type))
        .field_message(tensor_type_view::field::shape, shape);
    wire_builder type_proto;
    type_proto.field_message(type_view::field::tensor_type, tensor_type);
    wire_builder vi;
    vi.field_bytes(value_info_view::field::name, name).field_message(value_info_view::field::type, type_proto);
    return vi;
}

// A graph output declared with its name only: its shape is the profiler's to find.
inline wire_builder declared(const std::string& name) {
    wire_builder vi;
    vi.field_bytes(value_info_view::field::name, name);
    return vi;
}

inline wire_builder int64_tensor(const std::string& name, const std::vector<std::int64_t>& dims,
                          const std::vector<std::int64_t>& values) {
    wire_builder t;
    for (std::int64_t d : dims) t.field_varint(tensor_view::field::dims, static_cast<std::uint64_t>(d));
    t.field_varint(tensor_view::field::data_type, static_cast<std::uint64_t>(data_type::int64));
    for (std::int64_t v : values) t.field_varint(tensor_view::field::int64_data, static_cast<std::uint64_t>(v));
    t.field_bytes(tensor_view::field::name, name);
    return t;
}

inline wire_builder ints_attribute(const std::string& name, const std::vector<std::int64_t>& values) {
    wire_builder a;
    a.field_bytes(attribute_view::field::name, name);
    for (std::int64_t v : values) a.field_varint(attribute_view::field::ints, static_cast<std::uint64_t>(v));
    a.field_varint(attribute_view::field::type, static_cast<std::uint64_t>(attribute_type::ints));
    return a;
}

inline wire_builder node(const std::string& op, const std::vector<std::string>& inputs, const std::vector<std::string>& outputs,
                  const std::vector<wire_builder>& attributes = {}) {
    wire_builder n;
    for (const std::string& i : inputs) n.field_bytes(node_view::field::input, i);
    for (const std::string& o : outputs) n.field_bytes(node_view::field::output, o);
    n.field_bytes(node_view::field::op_type, op);
    for (const wire_builder& a : attributes) n.field_message(node_view::field::attribute, a);
    return n;
}

struct graph_parts {
    std::vector<wire_builder> nodes, inputs, outputs, initializers;
};

inline std::string model_bytes(const graph_parts& p, const std::vector<wire_builder>& functions = {},
                               std::uint64_t opset_version = 17) {
    wire_builder g;
    for (const wire_builder& n : p.nodes) g.field_message(graph_view::field::node, n);
    g.field_bytes(graph_view::field::name, "g");
    for (const wire_builder& t : p.initializers) g.field_message(graph_view::field::initializer, t);
    for (const wire_builder& i : p.inputs) g.field_message(graph_view::field::input, i);
    for (const wire_builder& o : p.outputs) g.field_message(graph_view::field::output, o);
    wire_builder opset;
    opset.field_bytes(opset_id_view::field::domain, "").field_varint(opset_id_view::field::version, opset_version);
    wire_builder m;
    m.field_varint(model_view::field::ir_version, 8)
        .field_message(model_view::field::graph, g)
        .field_message(model_view::field::opset_import, opset);
    for (const wire_builder& f : functions) m.field_message(model_view::field::functions, f);
    return m.str();
}

// A profile with the model bytes it views (node names, op types, output
// names), which must outlive it: the bytes are kept beside it.
struct held_profile : model_profile {
    std::shared_ptr<const std::string> bytes;
};

inline held_profile profile_of(std::string bytes, const profile_options& opts = profile_options()) {
    held_profile held;
    held.bytes = std::make_shared<const std::string>(std::move(bytes));
    const model_view m = parse_model(held.bytes->data(), held.bytes->size());
    REQUIRE(m.ok());
    result<model_profile> p = profile_model(m, opts);
    REQUIRE(p.ok());
    static_cast<model_profile&>(held) = std::move(p).value();
    return held;
}

// A GRAPH attribute holding `body` (a graph of parts).
inline wire_builder graph_attribute(const std::string& name, const graph_parts& body) {
    wire_builder g;
    for (const wire_builder& n : body.nodes) g.field_message(graph_view::field::node, n);
    g.field_bytes(graph_view::field::name, name + "_graph");
    for (const wire_builder& t : body.initializers) g.field_message(graph_view::field::initializer, t);
    for (const wire_builder& i : body.inputs) g.field_message(graph_view::field::input, i);
    for (const wire_builder& o : body.outputs) g.field_message(graph_view::field::output, o);
    wire_builder a;
    a.field_bytes(attribute_view::field::name, name).field_message(attribute_view::field::g, g);
    a.field_varint(attribute_view::field::type, static_cast<std::uint64_t>(attribute_type::graph));
    return a;
}

inline wire_builder int_attribute(const std::string& name, std::int64_t value) {
    wire_builder a;
    a.field_bytes(attribute_view::field::name, name).field_varint(attribute_view::field::i, static_cast<std::uint64_t>(value));
    a.field_varint(attribute_view::field::type, static_cast<std::uint64_t>(attribute_type::int64));
    return a;
}

// An attribute of a function body's node taking the call's attribute `ref`.
inline wire_builder ref_attribute(const std::string& name, const std::string& ref, attribute_type type) {
    wire_builder a;
    a.field_bytes(attribute_view::field::name, name).field_bytes(attribute_view::field::ref_attr_name, ref);
    a.field_varint(attribute_view::field::type, static_cast<std::uint64_t>(type));
    return a;
}

// A model-local function: domain::name(inputs) -> outputs, its attribute
// names, and defaults (attribute_proto).
inline wire_builder function(const std::string& domain, const std::string& name, const std::vector<std::string>& inputs,
                             const std::vector<std::string>& outputs, const std::vector<wire_builder>& nodes,
                             const std::vector<wire_builder>& defaults = {}) {
    wire_builder f;
    f.field_bytes(function_view::field::name, name);
    for (const std::string& i : inputs) f.field_bytes(function_view::field::input, i);
    for (const std::string& o : outputs) f.field_bytes(function_view::field::output, o);
    for (const wire_builder& n : nodes) f.field_message(function_view::field::node, n);
    f.field_bytes(function_view::field::domain, domain);
    for (const wire_builder& d : defaults) f.field_message(function_view::field::attribute_proto, d);
    return f;
}

// A node of another domain (a function call).
inline wire_builder call(const std::string& domain, const std::string& op, const std::vector<std::string>& inputs,
                         const std::vector<std::string>& outputs, const std::vector<wire_builder>& attributes = {}) {
    wire_builder n = node(op, inputs, outputs, attributes);
    n.field_bytes(node_view::field::domain, domain);
    return n;
}

}  // namespace profile_testing

#endif  // ONNXVIEW_TESTS_PROFILE_BUILDER_HPP
