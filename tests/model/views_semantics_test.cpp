// Protobuf meaning as libprotobuf gives it, through the typed views.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "../wire_builder.hpp"
#include "onnxview/model.hpp"
#include "onnxview/verify.hpp"

using namespace onnxview;
using onnxview::testing::wire_builder;

namespace {

wire_builder node(std::string_view op, std::string_view in) {
    wire_builder n;
    n.field_bytes(1, in).field_bytes(4, op);
    return n;
}

std::vector<std::string> ops(const graph_view& g) {
    std::vector<std::string> out;
    for (const node_view& n : g.node()) out.emplace_back(n.op_type());
    return out;
}

}  // namespace

TEST_CASE("two graph fields merge: nodes of both in order, scalars from the last") {
    wire_builder g1, g2, m;
    g1.field_message(1, node("Relu", "x")).field_bytes(2, "first");
    g2.field_message(1, node("Tanh", "y")).field_bytes(2, "second").field_message(1, node("Exp", "z"));
    m.field_varint(1, 8).field_message(7, g1).field_varint(1, 9).field_message(7, g2);
    const auto model = parse_model(m.str().data(), m.str().size());
    REQUIRE(model.ok());
    CHECK(model.ir_version() == 9);
    const graph_view g = model.graph();
    REQUIRE(g.ok());
    CHECK(g.name() == "second");
    CHECK(g.node().size() == 3);
    CHECK(ops(g) == std::vector<std::string>{"Relu", "Tanh", "Exp"});
}

TEST_CASE("merging reaches nested singular messages: value_info.type.tensor_type.shape") {
    // type { tensor_type { elem_type: 1 shape { dim { dim_value: 2 } } } }
    // type { tensor_type { shape { dim { dim_param: "N" } } } }
    wire_builder dim1, dim2, shape1, shape2, tt1, tt2, t1, t2, vi;
    dim1.field_varint(1, 2);
    dim2.field_bytes(2, "N");
    shape1.field_message(1, dim1);
    shape2.field_message(1, dim2);
    tt1.field_varint(1, 1).field_message(2, shape1);
    tt2.field_message(2, shape2);
    t1.field_message(1, tt1);
    t2.field_message(1, tt2);
    vi.field_bytes(1, "x").field_message(2, t1).field_message(2, t2);
    const auto v = parse_as<value_info_view>(vi.str().data(), vi.str().size());
    const auto tensor_type = v.type().tensor_type();
    REQUIRE(tensor_type.ok());
    CHECK(tensor_type.elem_type() == 1);
    const auto dims = tensor_type.shape().dim();
    REQUIRE(dims.size() == 2);
    CHECK(dims.at(0).dim_value() == 2);
    CHECK(dims.at(1).dim_param() == "N");
}

TEST_CASE("a oneof member clears the others; the last member wins") {
    wire_builder seq, tt, t;
    tt.field_varint(1, 7);
    seq.field_message(1, wire_builder().field_message(1, tt));
    t.field_message(1, tt).field_message(4, seq);
    const auto ty = parse_as<type_view>(t.str().data(), t.str().size());
    CHECK_FALSE(ty.has_tensor_type());
    CHECK(ty.has_sequence_type());
    CHECK(ty.sequence_type().elem_type().tensor_type().elem_type() == 7);
}

namespace {

// tensor_type { elem_type: elem (when not 0) shape { dim { dim_value: d } } (when d)}
wire_builder tensor_type(std::uint64_t elem, std::uint64_t dim) {
    wire_builder tt;
    if (elem) tt.field_varint(1, elem);
    if (dim) tt.field_message(2, wire_builder().field_message(1, wire_builder().field_varint(1, dim)));
    return tt;
}

// What libprotobuf (python3-onnx 1.12) parses both inputs below to:
// tensor_type { elem_type: 5 shape { dim { dim_value: 3 } } }.
void check_restarted_tensor_type(const type_view& ty) {
    REQUIRE(ty.ok());
    CHECK_FALSE(ty.has_sequence_type());
    const auto tt = ty.tensor_type();
    REQUIRE(tt.ok());
    CHECK(tt.elem_type() == 5);
    const auto dims = tt.shape().dim();
    REQUIRE(dims.size() == 1);
    CHECK(dims.at(0).dim_value() == 3);
}

}  // namespace

TEST_CASE("a oneof member set again after another member merges only its occurrences since") {
    // tensor_type{1, [2]} sequence_type{..} tensor_type{[3]} tensor_type{5}:
    // the sequence_type clears the first tensor_type, the last two merge.
    wire_builder seq, t;
    seq.field_message(1, wire_builder().field_message(1, tensor_type(7, 0)));
    t.field_message(1, tensor_type(1, 2)).field_message(4, seq);
    t.field_message(1, tensor_type(0, 3)).field_message(1, tensor_type(5, 0));
    check_restarted_tensor_type(parse_as<type_view>(t.str().data(), t.str().size()));

    SECTION("inside a merged parent") {
        // value_info { type { tensor_type{1, [2]} } type { sequence_type{..}
        // tensor_type{[3]} tensor_type{5} } }: the type merges, and in it the
        // first tensor_type is cleared.
        wire_builder t1, t2, vi;
        t1.field_message(1, tensor_type(1, 2));
        t2.field_message(4, seq).field_message(1, tensor_type(0, 3)).field_message(1, tensor_type(5, 0));
        vi.field_bytes(1, "x").field_message(2, t1).field_message(2, t2);
        const auto v = parse_as<value_info_view>(vi.str().data(), vi.str().size());
        check_restarted_tensor_type(v.type());
    }
}

TEST_CASE("closed enum: an undefined value is an unknown field, the previous value stays") {
    wire_builder a;
    a.field_bytes(1, "alpha").field_varint(20, 1).field_varint(20, 99);
    const auto attr = parse_as<attribute_view>(a.str().data(), a.str().size());
    CHECK(attr.type() == attribute_type::float32);
    CHECK(attr.type_raw() == 99);
    wire_builder only_bad;
    only_bad.field_varint(20, 15);
    const auto bad = parse_as<attribute_view>(only_bad.str().data(), only_bad.str().size());
    CHECK_FALSE(bad.has_type());
    CHECK(bad.type() == attribute_type::undefined);
}

TEST_CASE("open int32 fields keep any value; negative int32 arrives as a 10-byte varint") {
    wire_builder t;
    t.field_int32(2, -5);
    const auto tensor = parse_tensor(t.str().data(), t.str().size());
    CHECK(tensor.data_type() == -5);
    wire_builder big;
    big.field_varint(2, 0x1'0000'0007ULL);  // int32 from a 64-bit varint: the low 32 bits
    CHECK(parse_tensor(big.str().data(), big.str().size()).data_type() == 7);
}

TEST_CASE("packed and unpacked dims mix in wire order") {
    wire_builder t;
    t.unpacked_varint(1, {2}).packed_varint(1, {3, 4}).unpacked_varint(1, {5});
    const auto tensor = parse_tensor(t.str().data(), t.str().size());
    std::vector<std::int64_t> dims;
    for (std::int64_t d : tensor.dims()) dims.push_back(d);
    CHECK(dims == std::vector<std::int64_t>{2, 3, 4, 5});
    CHECK(tensor.dims().count().value() == 4);
}

TEST_CASE("a known field with another wire type is an unknown field") {
    wire_builder m;
    m.field_bytes(1, "not a varint").field_varint(2, 3).field_varint(1, 4);
    const auto model = parse_model(m.str().data(), m.str().size());
    REQUIRE(model.ok());
    CHECK(model.ir_version() == 4);
    CHECK_FALSE(model.has_producer_name());
}

TEST_CASE("unknown fields of every wire type are skipped") {
    wire_builder m;
    m.unknown_fields(100).field_varint(1, 7).unknown_fields(200);
    const auto model = parse_model(m.str().data(), m.str().size());
    REQUIRE(model.ok());
    CHECK(model.ir_version() == 7);
}

TEST_CASE("errors carry their offset and propagate to derived views") {
    wire_builder g, m;
    g.field_bytes(2, "g").raw("\x0a\x05\x01");  // node field claiming 5 bytes, 1 present
    m.field_varint(1, 7).field_message(7, g);
    const auto model = parse_model(m.str().data(), m.str().size());
    REQUIRE(model.ok());  // the model's own fields are fine
    const graph_view graph = model.graph();
    CHECK(graph.err().code == errc::length_out_of_bounds);
    CHECK(graph.err().offset == 8);  // the length byte of the node field
    CHECK(graph.name().empty());     // an errored view reads as empty
    CHECK(graph.node().empty());
    CHECK_FALSE(graph.node().at(0).ok());
    CHECK(graph.initializer().at(0).err().code == errc::not_found);
    const error e = verify(m.str().data(), m.str().size());
    CHECK(e.code == errc::length_out_of_bounds);
    CHECK(e.offset == 8);
}

TEST_CASE("views over a buffer shifted by one byte read the same") {
    wire_builder g, m;
    g.field_message(1, node("Conv", "x")).field_bytes(2, "g");
    m.field_varint(1, 7).field_message(7, g);
    std::string shifted = "#" + m.str();
    const auto a = parse_model(m.str().data(), m.str().size());
    const auto b = parse_model(shifted.data() + 1, m.str().size());
    CHECK(ops(a.graph()) == ops(b.graph()));
    CHECK(a.graph().name() == b.graph().name());
}

TEST_CASE("subgraph nesting is bounded by the depth limit") {
    // model(0) > graph(1) > node(2) > attribute(3) > g(4) > node(5) > ...
    auto nested = [](int levels) {
        wire_builder g;
        g.field_bytes(2, "leaf");
        for (int i = 0; i < levels; ++i) {
            wire_builder attr, n, outer;
            attr.field_bytes(1, "body").field_varint(20, 5).field_message(6, g);
            n.field_bytes(4, "If").field_message(5, attr);
            outer.field_message(1, n);
            g = outer;
        }
        wire_builder m;
        m.field_message(7, g);
        return m.str();
    };
    // Each level adds 3 messages (graph, node, attribute): 33 levels reach depth 100.
    const std::string ok = nested(33);
    CHECK(verify(ok.data(), ok.size()).ok());
    const std::string deep = nested(34);
    CHECK(verify(deep.data(), deep.size()).code == errc::depth_exceeded);
    options strict;
    strict.max_message_depth = 10;
    CHECK(verify(ok.data(), ok.size(), schema::msg_ModelProto, strict).code == errc::depth_exceeded);
}

TEST_CASE("verify checks packed arrays libprotobuf would parse") {
    wire_builder t;
    t.field_len_raw(7, 2, "\x80\x80");  // int64_data packed: a varint running off its chunk
    CHECK(verify(t.str().data(), t.str().size(), schema::msg_TensorProto).code == errc::truncated);
    wire_builder f;
    f.field_len_raw(4, 3, "abc");  // float_data packed: 3 bytes
    CHECK(verify(f.str().data(), f.str().size(), schema::msg_TensorProto).code ==
          errc::bad_packed_length);
    wire_builder s;
    s.field_len_raw(8, 2, "\x80\x80");  // name: a string, never parsed
    CHECK(verify(s.str().data(), s.str().size(), schema::msg_TensorProto).ok());
}

TEST_CASE("absent message fields read as empty views, never as errors") {
    // verify() promises that views over verified bytes report no error, even
    // the views of absent fields of the deepest message.
    wire_builder tt, t;
    tt.field_varint(1, 1);
    t.field_message(1, tt);
    options tight;
    tight.max_message_depth = 1;  // type (0) > tensor_type (1): shape would be depth 2
    const auto ty = parse_as<type_view>(t.str().data(), t.str().size(), tight);
    REQUIRE(verify(t.str().data(), t.str().size(), schema::msg_TypeProto, tight).ok());
    const auto shape = ty.tensor_type().shape();
    CHECK(shape.ok());
    CHECK(shape.dim().empty());
    CHECK_FALSE(ty.tensor_type().has_shape());
    CHECK(ty.sequence_type().elem_type().sequence_type().elem_type().ok());
}
