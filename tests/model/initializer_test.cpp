// find_initializer: dense and sparse initializers by name, the first of
// repeated names, not_found, and a malformed initializer met on the way.
#include <catch2/catch.hpp>

#include <string>

#include "onnxview/sparse_data.hpp"
#include "onnxview/tensor_data.hpp"
#include "../wire_builder.hpp"

using namespace onnxview;
using onnxview::testing::wire_builder;

namespace {

// TensorProto { dims: [n]; data_type: FLOAT; float_data: values; name }
wire_builder float_tensor(const std::string& name, std::initializer_list<std::uint32_t> bits) {
    wire_builder t;
    t.field_varint(1, bits.size()).field_varint(2, static_cast<std::uint64_t>(data_type::float32));
    t.packed_fixed32(4, bits).field_bytes(8, name);
    return t;
}

// SparseTensorProto { values: <named, 1 element>; indices: [0]; dims: [4] }
wire_builder sparse_tensor(const std::string& name) {
    wire_builder indices;
    indices.field_varint(1, 1).field_varint(2, static_cast<std::uint64_t>(data_type::int64)).packed_varint(7, {0});
    wire_builder s;
    s.field_message(1, float_tensor(name, {0x40000000u})).field_message(2, indices).field_varint(3, 4);
    return s;
}

constexpr std::uint32_t one = 0x3F800000u, two = 0x40000000u;  // 1.0f, 2.0f

}  // namespace

TEST_CASE("find_initializer: dense by name, the first of repeated names") {
    wire_builder g;
    g.field_bytes(2, "main")
        .field_message(5, float_tensor("a", {one}))
        .field_message(5, float_tensor("b", {one, two}))
        .field_message(5, float_tensor("a", {two}));
    const std::string bytes = g.str();
    const graph_view graph = parse_as<graph_view>(bytes.data(), bytes.size());

    auto b = find_initializer(graph, "b");
    REQUIRE(b.ok());
    CHECK_FALSE(b->is_sparse);
    CHECK(b->named().name() == "b");
    CHECK(tensor_data::make(b->dense).value().size() == 2);

    auto a = find_initializer(graph, "a");
    REQUIRE(a.ok());
    CHECK(tensor_data::make(a->dense).value().at<float>(0).value() == 1.0f);  // the first "a"

    auto missing = find_initializer(graph, "c");
    CHECK(missing.err().code == errc::not_found);
    CHECK(missing.err().offset == 0);
    CHECK(find_initializer(graph, "").err().code == errc::not_found);
}

TEST_CASE("find_initializer: sparse initializers by their values' name") {
    wire_builder g;
    g.field_message(5, float_tensor("dense", {one}))
        .field_message(15, sparse_tensor("sp"))
        .field_message(15, sparse_tensor("both"))
        .field_message(5, float_tensor("both", {one}));
    const std::string bytes = g.str();
    const graph_view graph = parse_as<graph_view>(bytes.data(), bytes.size());

    auto sp = find_initializer(graph, "sp");
    REQUIRE(sp.ok());
    CHECK(sp->is_sparse);
    CHECK(sp->named().name() == "sp");
    auto s = sparse_data::make(sp->sparse);
    REQUIRE(s.ok());
    CHECK(s->nnz() == 1);
    CHECK(s->dense_size() == 4);
    CHECK(s->values().at<float>(0).value() == 2.0f);

    auto both = find_initializer(graph, "both");  // invalid ONNX; the dense one is found
    REQUIRE(both.ok());
    CHECK_FALSE(both->is_sparse);
    CHECK(find_initializer(graph, "nothing").err().code == errc::not_found);
}

TEST_CASE("find_initializer: an empty graph, and a malformed initializer on the way") {
    const graph_view empty = parse_as<graph_view>("", 0);
    CHECK(find_initializer(empty, "a").err().code == errc::not_found);

    wire_builder bad;
    bad.raw("\x08");  // TensorProto whose first tag has no value
    wire_builder g;
    g.field_message(5, bad).field_message(5, float_tensor("a", {one}));
    const std::string bytes = g.str();
    const graph_view graph = parse_as<graph_view>(bytes.data(), bytes.size());
    auto r = find_initializer(graph, "a");
    REQUIRE_FALSE(r.ok());
    CHECK(r.err().code != errc::not_found);
    CHECK(r.err().offset == 3);  // where the missing varint should start
}
