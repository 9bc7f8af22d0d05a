// cursor<View> (onnxview/cursor.hpp): which fields it yields, their values,
// and its errors. The protobuf rules are libprotobuf's (see views_semantics_test
// for the same rules through the views); malformed input must give the
// error the wire reader gives, which tests/wire crosschecks with libprotobuf.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "../wire_builder.hpp"
#include "onnxview/cursor.hpp"
#include "onnxview/verify.hpp"

using namespace onnxview;
using onnxview::testing::wire_builder;
using wt = onnxview::wire::wire_type;

namespace {

template <class View>
cursor<View> cursor_over(const std::string& bytes, std::uint32_t max_depth = 0) {
    options o;
    o.max_message_depth = max_depth;
    return cursor_as<View>(bytes.data(), bytes.size(), o);
}

// The numbers a cursor yields, in order, until it stops.
template <class View>
std::vector<std::uint32_t> numbers(cursor<View> c) {
    std::vector<std::uint32_t> out;
    while (const std::uint32_t n = c.next()) out.push_back(n);
    return out;
}

// The first error the wire reader meets in bytes (the reference for the
// cursor's errors: tests/wire checks the reader against libprotobuf).
error reader_error(const std::string& bytes) {
    wire::reader r(bytes.data(), bytes.data(), bytes.data() + bytes.size());
    wire::field f;
    while (!r.at_end()) {
        const error e = r.next(f);
        if (!e.ok()) return e;
    }
    return error();
}

template <class Elem, class View>
std::vector<typename Elem::value_type> elements(cursor<View>& c) {
    std::vector<typename Elem::value_type> out;
    for (auto v : c.template elements<Elem>()) out.push_back(v);
    return out;
}

}  // namespace

TEST_CASE("cursor: the schema fields in wire order, each with its value") {
    wire_builder attr;
    attr.field_bytes(1, "alpha").field_varint(20, 1).field_float(2, 0.5f);
    wire_builder n;
    n.field_bytes(1, "x")
        .field_bytes(4, "Relu")
        .field_bytes(1, "y")
        .field_message(5, attr)
        .field_bytes(2, "out")
        .field_bytes(3, "relu0")
        .field_bytes(7, "ai.onnx");
    auto c = cursor_over<node_view>(n.str());
    using F = node_view::field;
    REQUIRE(c.next() == F::input);
    CHECK(c.as_string() == "x");
    CHECK(c.type() == wt::length_delimited);
    CHECK(c.offset() == 0);
    REQUIRE(c.next() == F::op_type);
    CHECK(c.as_string() == "Relu");
    REQUIRE(c.next() == F::input);
    CHECK(c.as_string() == "y");
    REQUIRE(c.next() == F::attribute);
    cursor<attribute_view> a = c.message<attribute_view>();
    CHECK(a.depth() == 1);
    REQUIRE(a.next() == attribute_view::field::name);
    CHECK(a.as_string() == "alpha");
    REQUIRE(a.next() == attribute_view::field::type);
    CHECK(a.as_int32() == 1);
    REQUIRE(a.next() == attribute_view::field::f);
    CHECK(a.as_float() == 0.5f);
    CHECK(a.type() == wt::fixed32);
    CHECK(a.next() == 0);
    CHECK(a.ok());
    REQUIRE(c.next() == F::output);
    REQUIRE(c.next() == F::name);
    CHECK(c.number() == F::name);
    REQUIRE(c.next() == F::domain);
    CHECK(c.as_string() == "ai.onnx");
    CHECK(c.next() == 0);
    CHECK(c.next() == 0);  // stays at the end
    CHECK(c.ok());
}

TEST_CASE("cursor: an empty message and a default cursor yield nothing") {
    CHECK(numbers(cursor_over<model_view>(std::string())) == std::vector<std::uint32_t>{});
    cursor<graph_view> c;
    CHECK(c.next() == 0);
    CHECK(c.ok());
}

TEST_CASE("cursor: unknown fields of every wire type are skipped") {
    wire_builder m;
    m.unknown_fields(40)               // numbers 40-44: varint, fixed64, bytes, group, fixed32
        .field_varint(1, 8)            // ir_version
        .unknown_fields(9)             // 9-13: unused numbers below 16
        .field_bytes(2, "producer")
        .unknown_fields(27)            // 27-31: two-byte tags
        .field_varint(536870911, 1);   // the largest field number
    auto c = cursor_over<model_view>(m.str());
    REQUIRE(c.next() == model_view::field::ir_version);
    CHECK(c.as_int64() == 8);
    REQUIRE(c.next() == model_view::field::producer_name);
    CHECK(c.as_string() == "producer");
    CHECK(c.next() == 0);
    CHECK(c.ok());
}

TEST_CASE("cursor: a known field with another wire type is an unknown field") {
    wire_builder n;
    n.field_varint(3, 7)              // name as a varint
        .field_fixed32(4, 1)          // op_type as fixed32
        .field_fixed64(5, 1)          // attribute as fixed64
        .group(1, wire_builder())     // input as a group
        .field_bytes(3, "kept");
    CHECK(numbers(cursor_over<node_view>(n.str())) == std::vector<std::uint32_t>{3});
    wire_builder a;
    a.field_fixed64(2, 0)           // f (float) as fixed64
        .field_bytes(3, "12")       // i (int64) as bytes
        .field_fixed32(20, 1);      // type (enum) as fixed32
    CHECK(numbers(cursor_over<attribute_view>(a.str())) == std::vector<std::uint32_t>{});
}

TEST_CASE("cursor: tags, lengths and values in non-minimal encodings") {
    wire_builder a;
    a.tag(1, wt::length_delimited, 5).varint(3, 4).raw("abc")  // name: 5-byte tag, 4-byte length
        .tag(20, wt::varint, 3).varint(2, 10)                   // type: 3-byte tag, 10-byte value
        .tag(3, wt::varint, 2).varint(300, 3)                   // i: 2-byte tag of field 3
        .tag(21, wt::length_delimited).varint(0);               // ref_attr_name, empty
    auto c = cursor_over<attribute_view>(a.str());
    REQUIRE(c.next() == attribute_view::field::name);
    CHECK(c.as_string() == "abc");
    REQUIRE(c.next() == attribute_view::field::type);
    CHECK(c.as_int32() == 2);
    REQUIRE(c.next() == attribute_view::field::i);
    CHECK(c.as_int64() == 300);
    REQUIRE(c.next() == attribute_view::field::ref_attr_name);
    CHECK(c.as_string().empty());
    CHECK(c.next() == 0);
    CHECK(c.ok());
}

TEST_CASE("cursor: lengths and values of one, two and more bytes") {
    const std::string long_name(20000, 'n');  // a three-byte length
    wire_builder d;
    d.field_varint(1, 127).field_varint(1, 128).field_varint(1, 16383).field_varint(1, 16384);
    std::vector<std::uint64_t> got;
    auto c = cursor_over<dimension_view>(d.str());
    while (c.next()) got.push_back(c.as_uint64());
    CHECK(got == std::vector<std::uint64_t>{127, 128, 16383, 16384});
    wire_builder t;
    t.field_bytes(8, std::string(127, 'a')).field_bytes(8, std::string(128, 'b')).field_bytes(8, long_name);
    std::vector<std::size_t> sizes;
    auto ct = cursor_over<tensor_view>(t.str());
    while (ct.next()) sizes.push_back(ct.as_string().size());
    CHECK(sizes == std::vector<std::size_t>{127, 128, 20000});
    CHECK(ct.ok());
}

TEST_CASE("cursor: int32 fields sent as 64-bit varints keep their low 32 bits") {
    wire_builder t;
    t.field_varint(2, static_cast<std::uint64_t>(std::int64_t(-1)));  // data_type, 10 bytes
    auto c = cursor_over<tensor_view>(t.str());
    REQUIRE(c.next() == tensor_view::field::data_type);
    CHECK(c.as_int32() == -1);
    CHECK(c.as_int64() == -1);
}

TEST_CASE("cursor: out-of-range values of a closed enum are unknown fields") {
    wire_builder a;
    a.field_varint(20, 99)                                              // above the largest AttributeType
        .field_varint(20, 300)                                          // two bytes, out of range
        .field_varint(20, static_cast<std::uint64_t>(std::int64_t(-1)))  // negative
        .field_varint(20, (std::uint64_t(1) << 32) | 4)                 // 4 in the low 32 bits, as libprotobuf reads it
        .field_varint(20, 14)                                           // the largest valid value
        .field_varint(20, 0);                                           // UNDEFINED, valid
    std::vector<std::int32_t> got;
    auto c = cursor_over<attribute_view>(a.str());
    while (c.next()) got.push_back(c.as_int32());
    CHECK(got == std::vector<std::int32_t>{4, 14, 0});
    // The views agree: the last valid value wins.
    const auto v = parse_as<attribute_view>(a.str().data(), a.str().size());
    CHECK(static_cast<int>(v.type()) == 0);
}

TEST_CASE("cursor: repeated scalars, packed and unpacked, one occurrence at a time") {
    wire_builder a;
    a.unpacked_varint(8, {1}).packed_varint(8, {2, 300, static_cast<std::uint64_t>(std::int64_t(-5))})
        .unpacked_varint(8, {4})
        .packed_fixed32(7, {0x3F800000u, 0x40000000u})  // floats 1, 2
        .unpacked_fixed32(7, {0x40400000u})             // 3
        .packed_varint(8, {});                          // an empty chunk
    auto c = cursor_over<attribute_view>(a.str());
    using F = attribute_view::field;
    REQUIRE(c.next() == F::ints);
    CHECK(elements<wire::elem_int64>(c) == std::vector<std::int64_t>{1});
    CHECK(c.elements<wire::elem_int64>().size() == 1);
    REQUIRE(c.next() == F::ints);
    CHECK(elements<wire::elem_int64>(c) == std::vector<std::int64_t>{2, 300, -5});
    CHECK(c.elements<wire::elem_int64>().size() == 3);
    REQUIRE(c.next() == F::ints);
    CHECK(elements<wire::elem_int64>(c) == std::vector<std::int64_t>{4});
    REQUIRE(c.next() == F::floats);
    CHECK(elements<wire::elem_float>(c) == std::vector<float>{1, 2});
    CHECK(c.elements<wire::elem_float>().size() == 2);
    CHECK(c.as_string().size() == 8);  // the chunk's bytes, for block conversion
    REQUIRE(c.next() == F::floats);
    CHECK(elements<wire::elem_float>(c) == std::vector<float>{3});
    REQUIRE(c.next() == F::ints);
    CHECK(elements<wire::elem_int64>(c).empty());
    CHECK(c.elements<wire::elem_int64>().size() == 0);
    CHECK(c.next() == 0);
    CHECK(c.ok());
    // The views read the same elements.
    const auto v = parse_as<attribute_view>(a.str().data(), a.str().size());
    std::vector<std::int64_t> ints;
    for (std::int64_t x : v.ints()) ints.push_back(x);
    CHECK(ints == std::vector<std::int64_t>{1, 2, 300, -5, 4});
}

TEST_CASE("cursor: elements() of a field that is not a repeated scalar reads only its bytes") {
    // The caller's mistake, but never a read past the field: five bytes of a
    // string hold one whole float, and a varint field one element.
    wire_builder n;
    n.field_bytes(3, "name!").field_bytes(4, std::string(3, '\x80'));
    auto c = cursor_over<node_view>(n.str());
    REQUIRE(c.next() == node_view::field::name);
    CHECK(elements<wire::elem_float>(c).size() == 1);
    CHECK(elements<wire::elem_double>(c).empty());
    REQUIRE(c.next() == node_view::field::op_type);
    CHECK(elements<wire::elem_int64>(c).empty());  // bytes that are not whole varints: an error
    CHECK(c.err().code == errc::truncated);
    wire_builder d;
    d.field_varint(1, 9);
    auto cd = cursor_over<dimension_view>(d.str());
    REQUIRE(cd.next() == dimension_view::field::dim_value);
    CHECK(elements<wire::elem_int64>(cd) == std::vector<std::int64_t>{9});
    CHECK(elements<wire::elem_float>(cd).empty());
}

TEST_CASE("cursor: as_string of a field that is not length-delimited is empty") {
    wire_builder d;
    d.field_varint(1, 65);
    auto c = cursor_over<dimension_view>(d.str());
    REQUIRE(c.next() == dimension_view::field::dim_value);
    CHECK(c.as_string().empty());
    // message() of such a field is an error, not a read of its value as a length.
    cursor<tensor_view> m = c.message<tensor_view>();
    CHECK(m.next() == 0);
    CHECK(m.err().code == errc::bad_wire_type);
}

TEST_CASE("cursor: a packed chunk of partial elements is an error at its tag") {
    SECTION("fixed32") {
        wire_builder a;
        a.field_bytes(1, "x").tag(7, wt::length_delimited).varint(3).raw("abc");
        auto c = cursor_over<attribute_view>(a.str());
        CHECK(c.next() == attribute_view::field::name);
        CHECK(c.next() == 0);
        CHECK(c.err() == error(errc::bad_packed_length, 3));
        CHECK(c.next() == 0);  // stays failed
        // verify() refuses the same bytes.
        CHECK(!verify(a.str().data(), a.str().size(), schema::msg_AttributeProto).ok());
    }
    SECTION("fixed64") {
        wire_builder t;
        t.tag(10, wt::length_delimited).varint(12).raw(std::string(12, '\0'));  // double_data
        auto c = cursor_over<tensor_view>(t.str());
        CHECK(c.next() == 0);
        CHECK(c.err() == error(errc::bad_packed_length, 0));
    }
    SECTION("varint: an error when its elements are read") {
        wire_builder a;
        a.tag(8, wt::length_delimited).varint(2).byte(0x01).byte(0x80)  // the second varint is cut
            .field_bytes(1, "after");
        auto c = cursor_over<attribute_view>(a.str());
        REQUIRE(c.next() == attribute_view::field::ints);
        CHECK(c.ok());
        CHECK(elements<wire::elem_int64>(c).empty());
        CHECK(c.err() == error(errc::truncated, 3));
        CHECK(c.next() == 0);  // the walk ends there
        CHECK(!verify(a.str().data(), a.str().size(), schema::msg_AttributeProto).ok());
        // A walk that does not read the chunk does not check it.
        auto skipping = cursor_over<attribute_view>(a.str());
        CHECK(numbers(skipping) == std::vector<std::uint32_t>{attribute_view::field::ints, attribute_view::field::name});
    }
    SECTION("an eleven-byte varint") {
        wire_builder a;
        a.tag(8, wt::length_delimited).varint(11).raw(std::string(10, '\x80')).byte(0);
        auto c = cursor_over<attribute_view>(a.str());
        REQUIRE(c.next() == attribute_view::field::ints);
        CHECK(c.elements<wire::elem_int64>().size() == 0);
        CHECK(c.err() == error(errc::varint_too_long, 2));
        CHECK(c.next() == 0);
    }
}

TEST_CASE("cursor: malformed fields give the wire reader's error") {
    struct bad {
        const char* what;
        std::string bytes;
    };
    const std::string ok_field = wire_builder().field_bytes(3, "n").str();
    const std::vector<bad> cases = {
        {"length past the end", wire_builder().tag(1, wt::length_delimited).varint(5).raw("ab").str()},
        {"length past the end, two-byte length", wire_builder().tag(1, wt::length_delimited).varint(300).raw("ab").str()},
        {"no length", wire_builder().tag(1, wt::length_delimited).str()},
        {"cut varint value", wire_builder().tag(3, wt::varint).byte(0x80).str()},
        {"cut fixed32", wire_builder().tag(9, wt::fixed32).raw("ab").str()},
        {"cut fixed64", wire_builder().tag(9, wt::fixed64).raw("abc").str()},
        {"wire type 6", wire_builder().byte(0x0E).byte(0).str()},
        {"wire type 7", wire_builder().byte(0x0F).byte(0).str()},
        {"field number 0", wire_builder().byte(0x00).byte(0).str()},
        {"six-byte tag", wire_builder().raw(std::string(5, '\x88')).byte(0x01).byte(0).str()},
        {"cut two-byte tag", wire_builder().byte(0xA0).str()},
        {"end group without start", wire_builder().end_group(4).str()},
        {"group without end", wire_builder().start_group(4).field_varint(1, 1).str()},
        {"eleven-byte varint", wire_builder().tag(3, wt::varint).raw(std::string(10, '\x80')).byte(0).str()},
    };
    for (const bad& b : cases) {
        INFO(b.what);
        const std::string bytes = ok_field + b.bytes;
        auto c = cursor_over<node_view>(bytes);
        CHECK(c.next() == node_view::field::name);
        CHECK(c.next() == 0);
        const error expected = reader_error(bytes);
        REQUIRE(!expected.ok());
        CHECK(c.err() == expected);
    }
}

TEST_CASE("cursor: every prefix of a model fails exactly when it cuts a field") {
    // A model with fields of every kind the fast path takes and some it
    // does not (two-byte tags and lengths, fixed32, a packed chunk).
    wire_builder attr;
    attr.field_bytes(1, "k").field_varint(20, 7).field_float(2, 1.5f).packed_varint(8, {1, 2, 3000});
    wire_builder n;
    n.field_bytes(1, "x").field_bytes(4, "Conv").field_message(5, attr).field_bytes(3, std::string(200, 'n'));
    wire_builder g;
    g.field_message(1, n).field_bytes(2, "g");
    wire_builder m;
    m.field_varint(1, 8).field_message(7, g).field_message(8, wire_builder().field_varint(2, 13))
        .field_message(25, wire_builder().field_bytes(1, "f"));
    const std::string& full = m.str();
    std::vector<std::size_t> boundaries = {0};
    {
        wire::reader r(full.data(), full.data(), full.data() + full.size());
        wire::field f;
        while (!r.at_end()) {
            REQUIRE(r.next(f).ok());
            boundaries.push_back(static_cast<std::size_t>(r.position() - full.data()));
        }
    }
    for (std::size_t len = 0; len <= full.size(); ++len) {
        INFO("prefix of " << len << " bytes");
        const std::string prefix = full.substr(0, len);
        auto c = cursor_over<model_view>(prefix);
        while (c.next()) {
        }
        const bool at_boundary = std::find(boundaries.begin(), boundaries.end(), len) != boundaries.end();
        CHECK(c.ok() == at_boundary);
        if (!at_boundary) CHECK(c.err() == reader_error(prefix));
    }
}

TEST_CASE("cursor: nesting deeper than max_depth is refused at the tag") {
    // graph > node > attribute > graph > node ...: depth 1, 2, 3, 4, 5
    wire_builder inner_graph;
    inner_graph.field_bytes(2, "deep");
    wire_builder attr;
    attr.field_message(6, inner_graph);
    wire_builder n;
    n.field_message(5, attr);
    wire_builder g;
    g.field_message(1, n);
    wire_builder m;
    m.field_message(7, g);
    auto walk_to_inner = [](const std::string& bytes, std::uint32_t max_depth) {
        auto mc = cursor_over<model_view>(bytes, max_depth);
        REQUIRE(mc.next() == model_view::field::graph);
        auto gc = mc.message<graph_view>();
        REQUIRE(gc.next() == graph_view::field::node);
        auto nc = gc.message<node_view>();
        REQUIRE(nc.next() == node_view::field::attribute);
        auto ac = nc.message<attribute_view>();
        REQUIRE(ac.next() == attribute_view::field::g);
        return ac;
    };
    auto ok = walk_to_inner(m.str(), 4);
    auto inner = ok.message<graph_view>();
    CHECK(inner.depth() == 4);
    CHECK(inner.next() == graph_view::field::name);
    auto refused = walk_to_inner(m.str(), 3);
    auto too_deep = refused.message<graph_view>();
    CHECK(too_deep.next() == 0);
    CHECK(too_deep.err() == error(errc::depth_exceeded, refused.offset()));
    // The views refuse at the same depth.
    options o;
    o.max_message_depth = 3;
    CHECK(verify(m.str().data(), m.str().size(), schema::msg_ModelProto, o).code == errc::depth_exceeded);
}

TEST_CASE("cursor: what the caller applies - repeated singular fields and oneofs are yielded as they come") {
    wire_builder g1, g2, m;
    g1.field_bytes(2, "first");
    g2.field_bytes(2, "second");
    m.field_varint(1, 7).field_message(7, g1).field_varint(1, 8).field_message(7, g2);
    CHECK(numbers(cursor_over<model_view>(m.str())) == std::vector<std::uint32_t>{1, 7, 1, 7});
    wire_builder t;
    t.field_message(1, wire_builder().field_varint(1, 1)).field_message(4, wire_builder());  // tensor_type, then sequence_type
    CHECK(numbers(cursor_over<type_view>(t.str())) ==
          std::vector<std::uint32_t>{type_view::field::tensor_type, type_view::field::sequence_type});
    // The view of the same bytes: the last sequence_type wins the oneof.
    const auto v = parse_as<type_view>(t.str().data(), t.str().size());
    CHECK(!v.has_tensor_type());
    CHECK(v.has_sequence_type());
}

TEST_CASE("cursor: views of the current field and of the message walked") {
    wire_builder n;
    n.field_bytes(1, "a").field_bytes(1, "b").field_bytes(4, "Add");
    wire_builder g;
    g.field_bytes(2, "main").field_message(1, n).field_message(1, n);
    wire_builder m;
    m.field_message(7, g);
    auto c = cursor_over<model_view>(m.str());
    REQUIRE(c.next() == model_view::field::graph);
    const graph_view gv = c.message_view<graph_view>();
    REQUIRE(gv.ok());
    CHECK(gv.name() == "main");
    CHECK(gv.node().size() == 2);
    auto gc = c.message<graph_view>();
    const graph_view same = gc.view();
    CHECK(same.name() == "main");
    REQUIRE(gc.next() == graph_view::field::name);
    REQUIRE(gc.next() == graph_view::field::node);
    const node_view nv = gc.message_view<node_view>();
    CHECK(nv.op_type() == "Add");
    CHECK(nv.input().size() == 2);
    // An error cursor's view carries its error.
    cursor<graph_view> failed(error(errc::truncated, 9));
    CHECK(failed.view().err() == error(errc::truncated, 9));
}

TEST_CASE("cursor: error offsets count from the start of the root buffer") {
    wire_builder n;
    n.field_bytes(3, "ok").tag(1, wt::length_delimited).varint(50).raw("x");  // input's length runs past the end
    wire_builder g;
    g.field_bytes(2, "name").field_len_raw(1, n.size(), n.str());
    wire_builder m;
    m.field_varint(1, 8).field_message(7, g);
    auto mc = cursor_over<model_view>(m.str());
    REQUIRE(mc.next() == model_view::field::ir_version);
    REQUIRE(mc.next() == model_view::field::graph);
    auto gc = mc.message<graph_view>();
    REQUIRE(gc.next() == graph_view::field::name);
    REQUIRE(gc.next() == graph_view::field::node);
    auto nc = gc.message<node_view>();
    REQUIRE(nc.next() == node_view::field::name);
    CHECK(nc.next() == 0);
    const std::size_t node_at = m.size() - n.size();
    CHECK(nc.err() == error(errc::length_out_of_bounds, node_at + 4 + 1));  // the length byte
    CHECK(gc.next() == 0);  // the parent's framing is intact
    CHECK(gc.ok());
}
