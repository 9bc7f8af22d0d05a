// Lying lengths and over-long varints, at the wire layer and through a model:
// each gets its own error code and the offset of the offending bytes.
#include <catch2/catch.hpp>

#include <string>

#include "model_walk.hpp"
#include "onnx_builder.hpp"
#include "onnxview/model.hpp"
#include "onnxview/verify.hpp"

using namespace onnxview;
using onnxview::hostile::wire_builder;

namespace {

error first_field_error(const std::string& bytes) {
    auto c = wire::message::root(bytes.data(), bytes.size()).fields();
    wire::field f;
    while (c.next(f)) {
    }
    return c.err();
}

error walk_error(const std::string& bytes) {
    fuzzing::model_walker w;
    w.model(parse_model(bytes.data(), bytes.size()));
    return w.stats.first_error;
}

}  // namespace

TEST_CASE("a length past the end of the buffer is length_out_of_bounds at the length", "[hostile][wire]") {
    wire_builder b;
    b.field_varint(1, 8).field_len_raw(2, 10, "abc");  // 10 declared, 3 present
    const std::string s = b.str();
    const error e = first_field_error(s);
    CHECK(e.code == errc::length_out_of_bounds);
    CHECK(e.offset == 3);  // the length varint after tag 0x12
    CHECK(verify(s.data(), s.size()) == e);
    CHECK(parse_model(s.data(), s.size()).err() == e);
}

TEST_CASE("a length with nothing after it is truncated", "[hostile][wire]") {
    wire_builder b;
    b.field_len_raw(2, 5);
    const std::string s = b.str();
    CHECK(first_field_error(s).code == errc::truncated);
}

TEST_CASE("a nested length past its parent's end is refused even inside the buffer", "[hostile][wire]") {
    // graph { node { op_type <length 40, 1 byte left in the node> } } followed by
    // 60 bytes of padding that the inner length would reach into.
    wire_builder node;
    node.field_len_raw(4, 40, "a");
    wire_builder graph;
    graph.field_message(1, node);
    wire_builder m;
    m.field_message(7, graph).field_bytes(6, std::string(60, 'p'));
    const std::string s = m.str();
    const error e = verify(s.data(), s.size());
    CHECK(e.code == errc::length_out_of_bounds);
    CHECK(e.offset == 5);  // 0x3a L 0x0a L 0x22 [40]
    CHECK(walk_error(s) == e);
}

TEST_CASE("lengths that wrap 32 bits are not truncated to their low bits", "[hostile][wire]") {
    for (std::uint64_t len : {(1ull << 32) + 3, (1ull << 32) - 1, (1ull << 31), (1ull << 33) + 3}) {
        wire_builder b;
        b.field_len_raw(2, len, "abc");
        const std::string s = b.str();
        INFO("length " << len);
        CHECK(first_field_error(s).code == errc::length_out_of_bounds);
        CHECK(verify(s.data(), s.size()).code == errc::length_out_of_bounds);
    }
}

TEST_CASE("lengths that wrap 64 bits (p + len overflowing) are refused", "[hostile][wire]") {
    for (std::uint64_t len : {~0ull, ~0ull - 2, 1ull << 63, (1ull << 63) + 3}) {
        wire_builder b;
        b.field_len_raw(2, len, "abcdef");
        const std::string s = b.str();
        INFO("length " << len);
        CHECK(first_field_error(s).code == errc::length_out_of_bounds);
        CHECK(verify(s.data(), s.size()).code == errc::length_out_of_bounds);
        CHECK(parse_model(s.data(), s.size()).err().code == errc::length_out_of_bounds);
    }
}

TEST_CASE("an 11-byte varint value is varint_too_long", "[hostile][wire]") {
    wire_builder b;
    b.tag(1, wire_builder::wt::varint).raw(std::string(10, '\x80')).byte(0x01);
    const std::string s = b.str();
    const error e = first_field_error(s);
    CHECK(e.code == errc::varint_too_long);
    CHECK(e.offset == 1);
    CHECK(verify(s.data(), s.size()) == e);
    CHECK(walk_error(s) == e);
}

TEST_CASE("an 11-byte varint length is varint_too_long", "[hostile][wire]") {
    wire_builder b;
    b.field_varint(1, 8).tag(7, wire_builder::wt::length_delimited).raw(std::string(10, '\x80')).byte(0x00);
    const std::string s = b.str();
    const error e = verify(s.data(), s.size());
    CHECK(e.code == errc::varint_too_long);
    CHECK(e.offset == 3);
}

TEST_CASE("a 10-byte varint is the longest accepted, an over-long tag is refused", "[hostile][wire]") {
    wire_builder ok;
    ok.tag(1, wire_builder::wt::varint).varint(5, 10);
    const std::string s = ok.str();
    CHECK(verify(s.data(), s.size()).ok());
    CHECK(parse_model(s.data(), s.size()).ir_version() == 5);

    wire_builder bad;
    bad.raw(std::string(5, '\x88')).byte(0x00).byte(0x01);  // a tag of 6 bytes
    const std::string t = bad.str();
    CHECK(verify(t.data(), t.size()).code == errc::varint_too_long);
}
