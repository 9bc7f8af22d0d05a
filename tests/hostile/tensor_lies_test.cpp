// Tensor headers that lie about their payload: each is refused by
// tensor_data (and describe_storage / element_count) with its own error,
// without reading past the payload or allocating from the declared size.
#include <catch2/catch.hpp>

#include <string>

#include "onnx_builder.hpp"
#include "onnxview/model.hpp"
#include "onnxview/tensor_data.hpp"
#include "onnxview/verify.hpp"

using namespace onnxview;
using onnxview::hostile::wire_builder;

namespace {


errc make_error(const wire_builder& t) {
    const std::string s = t.str();
    hostile::model_with_graph(wire_builder().field_bytes(5, s).str());  // a seed (ONNXVIEW_HOSTILE_SEEDS) as an initializer
    REQUIRE(verify(s.data(), s.size(), schema::msg_TensorProto).ok());  // well-formed protobuf
    const tensor_view v = parse_tensor(s.data(), s.size());
    REQUIRE(v.ok());
    const auto d = tensor_data::make(v);
    const auto st = describe_storage(v);
    CHECK(st.ok() == d.ok());
    if (!st.ok()) CHECK(st.err().code == d.err().code);
    return d.ok() ? errc::ok : d.err().code;
}

}  // namespace

TEST_CASE("dims whose product overflows 64 bits: bad_dims", "[hostile][tensor]") {
    wire_builder t;
    t.field_varint(1, 1ull << 32).field_varint(1, 1ull << 32).field_varint(2, 1).field_bytes(9, "abcd");
    CHECK(make_error(t) == errc::bad_dims);
    const std::string s = t.str();
    CHECK(element_count(parse_tensor(s.data(), s.size())).err().code == errc::bad_dims);
}

TEST_CASE("dims x element size overflowing 64 bits: bad_dims", "[hostile][tensor]") {
    wire_builder t;  // 2^62 elements fit, 2^62 x 8 bytes do not
    t.field_varint(1, 1ull << 62).field_varint(2, 11).field_bytes(9, "abcdefgh");
    CHECK(make_error(t) == errc::bad_dims);
}

TEST_CASE("a negative dim: bad_dims", "[hostile][tensor]") {
    wire_builder t;
    t.field_varint(1, static_cast<std::uint64_t>(-2)).field_varint(1, static_cast<std::uint64_t>(-2))
        .field_varint(2, 1).field_bytes(9, std::string(16, '\0'));
    CHECK(make_error(t) == errc::bad_dims);
}

TEST_CASE("raw_data shorter than dims x element size: payload_size_mismatch", "[hostile][tensor]") {
    wire_builder t;
    t.field_varint(1, 4).field_varint(2, 1).field_bytes(9, std::string(15, '\0'));
    CHECK(make_error(t) == errc::payload_size_mismatch);
}

TEST_CASE("raw_data longer than dims x element size: payload_size_mismatch", "[hostile][tensor]") {
    wire_builder t;
    t.field_varint(1, 4).field_varint(2, 1).field_bytes(9, std::string(17, '\0'));
    CHECK(make_error(t) == errc::payload_size_mismatch);
}

TEST_CASE("typed data with too few elements: payload_size_mismatch", "[hostile][tensor]") {
    wire_builder t;
    t.field_varint(1, 3).field_varint(2, 1).packed_fixed32(4, {0, 0});
    CHECK(make_error(t) == errc::payload_size_mismatch);
}

TEST_CASE("unknown data types: bad_data_type", "[hostile][tensor]") {
    for (std::uint64_t type : {std::uint64_t{0}, std::uint64_t{27}, std::uint64_t{99}, ~std::uint64_t{0}}) {
        wire_builder t;
        t.field_varint(1, 1).field_varint(2, type).field_bytes(9, std::string(4, '\0'));
        INFO("data_type " << static_cast<std::int64_t>(type));
        CHECK(make_error(t) == errc::bad_data_type);
    }
}

TEST_CASE("a STRING tensor with raw_data: refused", "[hostile][tensor]") {
    wire_builder t;
    t.field_varint(1, 2).field_varint(2, 8).field_bytes(9, "ab");
    const errc e = make_error(t);
    CHECK(e != errc::ok);
    CHECK((e == errc::bad_data_type || e == errc::payload_size_mismatch));
}
