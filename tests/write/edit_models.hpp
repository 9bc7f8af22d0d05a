// tests/write/edit_models.hpp - small models built field by field for the
// edit tests (extract, toposort): typed values, nodes (with graph
// attributes), tensors, opset imports, functions, and a sink that appends;
// for the reference and rebind tests, a tensor's external_data entries read
// back and a payload source over one in-memory "file".
#ifndef ONNXVIEW_TESTS_WRITE_EDIT_MODELS_HPP
#define ONNXVIEW_TESTS_WRITE_EDIT_MODELS_HPP

#include <cstring>
#include <string>
#include <vector>

#include "../wire_builder.hpp"
#include "onnxview/error.hpp"
#include "onnxview/model.hpp"
#include "onnxview/tensor_storage.hpp"

namespace onnxview_test {
namespace edit_models {

using onnxview::error;
using onnxview::testing::wire_builder;

using names = std::vector<std::string>;

inline wire_builder value(const std::string& name, bool typed = true) {
    wire_builder dim, shape;
    dim.field_varint(1, 4);
    shape.field_message(1, dim);
    wire_builder tensor_type;
    tensor_type.field_varint(1, 1).field_message(2, shape);  // FLOAT[4]
    wire_builder type;
    type.field_message(1, tensor_type);
    wire_builder v;
    v.field_bytes(1, name);
    if (typed) v.field_message(2, type);
    return v;
}

inline wire_builder node(const std::string& op, const names& in, const names& out, const std::string& domain = {}) {
    wire_builder n;
    for (const std::string& i : in) n.field_bytes(1, i);
    for (const std::string& o : out) n.field_bytes(2, o);
    n.field_bytes(3, out.empty() ? op : out[0] + "_node").field_bytes(4, op);
    if (!domain.empty()) n.field_bytes(7, domain);
    return n;
}

// n with a graph attribute `name` holding g.
inline wire_builder with_graph(wire_builder n, const std::string& name, const wire_builder& g) {
    wire_builder a;
    a.field_bytes(1, name).field_message(6, g).field_varint(20, 5);
    return n.field_message(5, a);
}

inline wire_builder tensor(const std::string& name, float v) {
    wire_builder t;
    std::string raw(4, '\0');
    std::memcpy(&raw[0], &v, 4);
    t.field_varint(2, 1).field_bytes(8, name).field_bytes(9, raw);
    return t;
}

inline wire_builder opset(const std::string& domain, std::uint64_t version) {
    wire_builder o;
    if (!domain.empty()) o.field_bytes(1, domain);
    o.field_varint(2, version);
    return o;
}

// A FunctionProto `domain`.`name` with input `x`, output `y`, the body's
// nodes and an import of the default opset 13.
inline wire_builder function(const std::string& name, const std::string& domain, const std::vector<wire_builder>& body) {
    using ff = onnxview::function_view::field;
    wire_builder f;
    f.field_bytes(ff::name, name).field_bytes(ff::input, "x").field_bytes(ff::output, "y");
    for (const wire_builder& n : body) f.field_message(ff::node, n);
    f.field_message(ff::opset_import, opset("", 13)).field_bytes(ff::domain, domain);
    return f;
}

inline std::string model(const wire_builder& g, const std::vector<wire_builder>& extra = {}) {
    wire_builder m;
    m.field_varint(1, 8).field_bytes(2, "test").field_message(7, g).field_message(8, opset("", 13));
    for (const wire_builder& e : extra) m.raw(e.str());
    return m.str();
}

inline error append(void* user, const char* data, std::size_t size) noexcept {
    static_cast<std::string*>(user)->append(data, size);
    return error();
}

// The value of t's external_data entry `key` ("<none>" without one).
inline std::string external_entry_text(const onnxview::tensor_view& t, std::string_view key) {
    for (const onnxview::string_entry_view& e : t.external_data())
        if (e.key() == key) return std::string(e.value());
    return "<none>";
}

// Resolves every reference (its `offset`, the length expected) against
// one in-memory "file", the std::string `user` points to.
inline onnxview::result<std::string_view> fetch_in_memory(void* user, const onnxview::tensor_view& t,
                                                         std::uint64_t expected) noexcept {
    const std::string& in = *static_cast<const std::string*>(user);
    const std::uint64_t offset = onnxview::find_external_location(t).offset;
    if (offset > in.size() || in.size() - offset < expected) return onnxview::errc::external_out_of_bounds;
    return std::string_view(in).substr(offset, expected);
}

}  // namespace edit_models
}  // namespace onnxview_test

#endif  // ONNXVIEW_TESTS_WRITE_EDIT_MODELS_HPP
