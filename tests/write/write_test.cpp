// The writer (onnxview/write.hpp) on hand-built models: what each option
// changes, what it must leave alone, and its errors. The python3-onnx,
// protoc and onnxruntime comparisons are tests/oracle/pack_oracle.py.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "../wire_builder.hpp"
#include "onnxview/model.hpp"
#include "onnxview/tensor_data.hpp"
#include "onnxview/verify.hpp"
#include "onnxview/wire_encode.hpp"
#include "onnxview/write.hpp"

using namespace onnxview;
using onnxview::testing::wire_builder;

namespace {

std::string floats_le(std::size_t n, float start = 0.5f) {
    std::string s(n * 4, '\0');
    for (std::size_t i = 0; i < n; ++i) {
        const float f = start + static_cast<float>(i);
        std::memcpy(&s[i * 4], &f, 4);  // the test hosts are little-endian
    }
    return s;
}

// TypeProto { tensor_type { elem_type: FLOAT, shape } }.
wire_builder float_tensor_type(const wire_builder& shape) {
    wire_builder tensor_type;
    tensor_type.field_varint(1, 1).field_message(2, shape);
    wire_builder type;
    type.field_message(1, tensor_type);
    return type;
}

wire_builder raw_tensor(const std::string& name, std::size_t n) {
    wire_builder t;
    t.packed_varint(1, {n}).field_varint(2, 1).field_bytes(8, name).field_bytes(9, floats_le(n));
    return t;
}

wire_builder typed_tensor(const std::string& name, std::size_t n) {
    wire_builder t;
    t.packed_varint(1, {n}).field_varint(2, 1).field_bytes(8, name);
    wire_builder packed;
    const std::string bytes = floats_le(n);
    t.field_bytes(4, bytes);
    return t;
}

std::string model_with(const std::vector<wire_builder>& initializers, const std::string& graph_name = "g") {
    wire_builder g;
    g.field_bytes(2, graph_name);
    for (const wire_builder& t : initializers) g.field_message(5, t);
    wire_builder m;
    m.field_varint(1, 8).field_bytes(2, "test").field_message(7, g);
    return m.str();
}

struct packed {
    error err;
    std::string model;
    std::string external;
    pack_stats stats;
};

error append(void* user, const char* data, std::size_t size) noexcept {
    static_cast<std::string*>(user)->append(data, size);
    return error();
}

packed pack(const std::string& in, pack_options po = {}) {
    packed out;
    const write_sink m{&out.model, append};
    const write_sink x{&out.external, append};
    out.err = pack_model(in, nullptr, po, m, &x, &out.stats);
    return out;
}

std::vector<tensor_view> initializers(const std::string& bytes) {
    std::vector<tensor_view> out;
    const model_view m = parse_model(bytes.data(), bytes.size());
    for (const tensor_view& t : m.graph().initializer()) out.push_back(t);
    return out;
}

// An external source over one in-memory "file".
struct memory_file {
    std::string bytes;
};
result<std::string_view> fetch_memory(void* user, const tensor_view& t, std::uint64_t expected) noexcept {
    const std::string& file = static_cast<memory_file*>(user)->bytes;
    std::uint64_t offset = find_external_location(t).offset;
    if (offset > file.size() || file.size() - offset < expected) return errc::external_range_past_end;
    return std::string_view(file.data() + offset, static_cast<std::size_t>(expected));
}

}  // namespace

TEST_CASE("wire_encode: varints round-trip through the decoder, padded widths included") {
    const std::uint64_t values[] = {0, 1, 127, 128, 300, 16383, 16384, (1ull << 35) - 1, 1ull << 35, ~0ull};
    for (std::uint64_t v : values) {
        for (unsigned w = wire::varint_size(v); w <= wire::max_varint_bytes; ++w) {
            char b[10];
            REQUIRE(wire::encode_varint(b, v, w) == w);
            const char* p = b;
            std::uint64_t back = 0;
            REQUIRE(wire::decode_varint(p, b + w, back) == errc::ok);
            CHECK(back == v);
            CHECK(p == b + w);
        }
    }
    CHECK(wire::varint_size(127) == 1);
    CHECK(wire::varint_size(128) == 2);
    CHECK(wire::varint_size(~0ull) == 10);
    char b[10];
    CHECK(wire::encode_tag(b, 9, wire::wire_type::length_delimited) == 1);
    CHECK(b[0] == 0x4A);
    CHECK(wire::tag_size(pack_padding_field) == 5);
    CHECK(wire::length_delimited_size(1, 200) == 1 + 2 + 200);
}

TEST_CASE("memory_sink: fills the caller's buffer, then buffer_too_small") {
    char buf[8];
    memory_sink_state st{buf, sizeof buf, 0};
    const write_sink s = memory_sink(st);
    CHECK(s.write(s.user, "abcde", 5).ok());
    CHECK(st.used == 5);
    CHECK(s.write(s.user, "xyzw", 4).code == errc::buffer_too_small);
    CHECK(st.used == 5);
    CHECK(std::string(buf, 5) == "abcde");
}

TEST_CASE("pack: a model with nothing to change is copied byte for byte") {
    const std::string in = model_with({raw_tensor("small", 4)});
    const packed out = pack(in);
    REQUIRE(out.err.ok());
    CHECK(out.model == in);
    CHECK(out.stats.kept == 1);
    CHECK(out.stats.tensors == 1);
    CHECK(out.external.empty());
}

TEST_CASE("pack: raw_data of large tensors starts at a multiple of --inline-align in the output") {
    // Names of every length from 0 to 140 move the payload through every
    // residue, and across a one-byte/two-byte length prefix of the tensor.
    for (std::uint64_t align : {4u, 64u, 4096u}) {
        for (std::size_t name_length = 0; name_length <= 140; name_length += 7) {
            const std::string name(name_length, 'w');
            const std::string in = model_with({raw_tensor(name, 300), raw_tensor("b", 1000)});
            pack_options po{};
            po.inline_align = align;
            const packed out = pack(in, po);
            REQUIRE(out.err.ok());
            REQUIRE(verify(out.model.data(), out.model.size(), schema::msg_ModelProto, options{}).ok());
            const std::vector<tensor_view> ts = initializers(out.model);
            REQUIRE(ts.size() == 2);
            for (const tensor_view& t : ts) {
                const std::uint64_t offset = static_cast<std::uint64_t>(t.raw_data().data() - out.model.data());
                CHECK(offset % align == 0);
            }
            CHECK(ts[0].name() == name);
            CHECK(ts[0].raw_data() == floats_le(300));
            CHECK(ts[1].raw_data() == floats_le(1000));
            CHECK(same_tensors(in, nullptr, out.model, nullptr).ok());
        }
    }
}

TEST_CASE("pack: packing a packed model changes nothing") {
    const std::string in = model_with({raw_tensor("first", 300), typed_tensor("second", 500), raw_tensor("c", 3)});
    const packed once = pack(in);
    REQUIRE(once.err.ok());
    CHECK(once.stats.converted == 1);
    const packed twice = pack(once.model);
    REQUIRE(twice.err.ok());
    CHECK(twice.model == once.model);
    CHECK(twice.stats.kept == 3);
}

TEST_CASE("pack: typed fields become little-endian raw_data, or stay with keep_typed") {
    wire_builder i64;  // INT64 in int64_data, as varints (negative too)
    i64.packed_varint(1, {3}).field_varint(2, 7).field_bytes(8, "i").packed_varint(7, {1, ~0ull, 1ull << 40});
    wire_builder f16;  // FLOAT16 bit patterns in int32_data
    f16.packed_varint(1, {2}).field_varint(2, 10).field_bytes(8, "h").packed_varint(5, {0x3C00, 0xC000});
    wire_builder i4;  // INT4, two per int32_data entry
    i4.packed_varint(1, {3}).field_varint(2, 22).field_bytes(8, "q").packed_varint(5, {0x21, 0x0F});
    const std::string in = model_with({i64, f16, i4});
    const packed out = pack(in);
    REQUIRE(out.err.ok());
    CHECK(out.stats.converted == 3);
    const std::vector<tensor_view> ts = initializers(out.model);
    REQUIRE(ts.size() == 3);
    CHECK(ts[0].raw_data() == std::string("\x01\0\0\0\0\0\0\0\xff\xff\xff\xff\xff\xff\xff\xff\0\0\0\0\0\x01\0\0", 24));
    CHECK(ts[0].int64_data().count().value() == 0);
    CHECK(ts[1].raw_data() == std::string("\x00\x3c\x00\xc0", 4));
    CHECK(ts[2].raw_data() == std::string("\x21\x0f", 2));
    CHECK(same_tensors(in, nullptr, out.model, nullptr).ok());

    pack_options keep{};
    keep.keep_typed = true;
    const packed kept = pack(in, keep);
    REQUIRE(kept.err.ok());
    CHECK(kept.model == in);
}

TEST_CASE("pack: external_location moves large payloads to aligned offsets of the external sink") {
    const std::string in = model_with({raw_tensor("a", 300), raw_tensor("tiny", 2), typed_tensor("b", 700)});
    pack_options po{};
    po.external_location = "weights.bin";
    const packed out = pack(in, po);
    REQUIRE(out.err.ok());
    CHECK(out.stats.externalized == 2);
    const std::vector<tensor_view> ts = initializers(out.model);
    REQUIRE(ts.size() == 3);
    CHECK(ts[0].data_location() == location_kind::external);
    CHECK(ts[1].data_location() != location_kind::external);
    CHECK(ts[0].raw_data().empty());
    const external_location a = find_external_location(ts[0]);
    const external_location b = find_external_location(ts[2]);
    CHECK(a.location == "weights.bin");
    CHECK(a.offset == 0);
    CHECK(b.offset == 4096);
    REQUIRE(out.external.size() == 4096 + 2800);
    CHECK(out.external.substr(0, 1200) == floats_le(300));
    CHECK(out.external.substr(4096) == floats_le(700));

    memory_file file{out.external};
    const external_payload_source src{&file, fetch_memory};
    CHECK(same_tensors(in, nullptr, out.model, &src).ok());

    SECTION("internalize brings them back") {
        pack_options back{};
        back.internalize = true;
        packed in_again;
        const write_sink m{&in_again.model, append};
        REQUIRE(pack_model(out.model, &src, back, m, nullptr, &in_again.stats).ok());
        CHECK(in_again.stats.internalized == 2);
        const std::vector<tensor_view> again = initializers(in_again.model);
        CHECK(again[0].raw_data() == floats_le(300));
        CHECK(again[2].raw_data() == floats_le(700));
        CHECK(again[0].external_data().size() == 0);
        CHECK(!again[0].has_data_location());
        CHECK(same_tensors(in, nullptr, in_again.model, nullptr).ok());
    }
}

TEST_CASE("pack: a singular tensor field that occurs twice is merged by protobuf, so it is kept") {
    wire_builder attr;
    attr.field_bytes(1, "value").field_message(5, typed_tensor("x", 300)).field_message(5, typed_tensor("x", 300))
        .field_varint(20, 4);
    wire_builder node;
    node.field_bytes(2, "y").field_bytes(4, "Constant").field_message(5, attr);
    wire_builder g;
    g.field_message(1, node);
    wire_builder m;
    m.field_varint(1, 8).field_message(7, g);
    const packed out = pack(m.str());
    REQUIRE(out.err.ok());
    CHECK(out.model == m.str());
    CHECK(out.stats.tensors == 0);
}

TEST_CASE("pack: errors") {
    const std::string in = model_with({raw_tensor("a", 300)});
    pack_options po{};
    po.inline_align = 48;
    CHECK(pack(in, po).err.code == errc::invalid_argument);
    po = {};
    po.external_location = "x.bin";
    std::string m;
    const write_sink ms{&m, append};
    CHECK(pack_model(in, nullptr, po, ms, nullptr).code == errc::invalid_argument);

    SECTION("a sink's error stops the writer") {
        char small[100];
        memory_sink_state st{small, sizeof small, 0};
        CHECK(pack_model(in, nullptr, pack_options{}, memory_sink(st), nullptr).code == errc::buffer_too_small);
    }
    SECTION("a malformed model: every cut inside the tensor fails") {
        const packed whole = pack(in);
        REQUIRE(whole.err.ok());
        for (std::size_t n = in.size() - 1; n > in.size() - 1200; n -= 37) {
            const packed cut = pack(in.substr(0, n));
            CHECK(!cut.err.ok());
        }
    }
    SECTION("an external tensor without a source") {
        pack_options ext{};
        ext.external_location = "w.bin";
        const packed out = pack(in, ext);
        REQUIRE(out.err.ok());
        pack_options back{};
        back.internalize = true;
        CHECK(pack(out.model, back).err.code == errc::invalid_argument);
    }
}

// fuzz_pack finding 7 (fuzz/README.md): an EXTERNAL tensor without
// elements still names a place in a file, and every reader resolves it
// (tensor_data::make, check, doctor, the bindings; onnx opens the file and
// seeks too). pack kept it as it was because it had no bytes to move, so
// with external_location set the output went on naming the input's file at
// an offset past its end, and its tensors were not the input's.
TEST_CASE("pack: an empty EXTERNAL tensor is read like any other when its payload moves") {
    wire_builder w;
    w.packed_varint(1, {0}).field_varint(2, 1).field_bytes(8, "w");
    w.field_message(13, wire_builder().field_bytes(1, "location").field_bytes(2, "weights.bin"));
    w.field_message(13, wire_builder().field_bytes(1, "offset").field_bytes(2, "18446744073709551608"));
    w.field_message(13, wire_builder().field_bytes(1, std::string("len\001\002h", 6)).field_bytes(2, "16"));
    w.field_varint(14, 1);
    const std::string in = model_with({w, raw_tensor("a", 300)});
    REQUIRE(verify(in.data(), in.size(), schema::msg_ModelProto, options{}).ok());
    memory_file file{std::string(100, '\0')};
    const external_payload_source src{&file, fetch_memory};
    const tensor_view t = initializers(in)[0];
    CHECK(tensor_data::make(t, nullptr).err().code == errc::invalid_argument);
    const errc refused = tensor_data::make(t, &src).err().code;
    CHECK(refused == errc::external_range_past_end);

    pack_options moved{};
    moved.external_location = "w.bin";
    pack_options internalized{};
    internalized.internalize = true;
    for (const pack_options& po : {moved, internalized}) {
        CHECK(pack(in, po).err.code == errc::invalid_argument);  // no source: as for a tensor with bytes
        std::string m, x;
        const write_sink ms{&m, append}, xs{&x, append};
        CHECK(pack_model(in, &src, po, ms, &xs).code == refused);  // the source's refusal
    }
    // Kept in place, unread, as every EXTERNAL tensor is.
    pack_options in_place{};
    in_place.inline_align = 1;
    const packed kept = pack(in, in_place);
    REQUIRE(kept.err.ok());
    CHECK(kept.model == in);
    CHECK(same_tensors(in, nullptr, kept.model, nullptr).ok());

    SECTION("a place that resolves gives an empty inline tensor") {
        wire_builder e;
        e.packed_varint(1, {0}).field_varint(2, 1).field_bytes(8, "w");
        e.field_message(13, wire_builder().field_bytes(1, "location").field_bytes(2, "weights.bin"));
        e.field_message(13, wire_builder().field_bytes(1, "offset").field_bytes(2, "100"));
        e.field_varint(14, 1);
        const std::string good = model_with({e, raw_tensor("a", 300)});
        for (const pack_options& po : {moved, internalized}) {
            packed out;
            const write_sink ms{&out.model, append}, xs{&out.external, append};
            REQUIRE(pack_model(good, &src, po, ms, &xs, &out.stats).ok());
            CHECK(out.stats.internalized == 1);
            const tensor_view back = initializers(out.model)[0];
            CHECK(back.data_location() != location_kind::external);
            CHECK(back.external_data().size() == 0);
            memory_file written{out.external};
            const external_payload_source ws{&written, fetch_memory};
            CHECK(same_tensors(good, &src, out.model, &ws).ok());
        }
    }
}

TEST_CASE("same_tensors: finds a changed payload, name or count") {
    const std::string in = model_with({raw_tensor("a", 300), raw_tensor("b", 10)});
    CHECK(same_tensors(in, nullptr, in, nullptr).ok());
    std::string changed = in;
    changed[changed.size() - 3] ^= 1;  // inside b's payload
    CHECK(same_tensors(in, nullptr, changed, nullptr).code == errc::tensor_mismatch);
    CHECK(same_tensors(in, nullptr, model_with({raw_tensor("a", 300), raw_tensor("c", 10)}), nullptr).code ==
          errc::tensor_mismatch);
    CHECK(same_tensors(in, nullptr, model_with({raw_tensor("a", 300)}), nullptr).code == errc::tensor_mismatch);
    std::uint64_t compared = 0;
    CHECK(same_tensors(in, nullptr, in, nullptr, {}, &compared).ok());
    CHECK(compared == 2);
}

TEST_CASE("pack: dedupe shares the external range of identical payloads, only with the same type and dims") {
    wire_builder other_dims;  // the same bytes as "a" with dims [2, 150]
    other_dims.packed_varint(1, {2, 150}).field_varint(2, 1).field_bytes(8, "c").field_bytes(9, floats_le(300));
    const std::string in =
        model_with({raw_tensor("a", 300), raw_tensor("b", 300), other_dims, raw_tensor("d", 400), raw_tensor("e", 300)});
    pack_options po{};
    po.external_location = "w.bin";
    po.dedupe = true;
    const packed out = pack(in, po);
    REQUIRE(out.err.ok());
    CHECK(out.stats.externalized == 5);
    CHECK(out.stats.deduplicated == 2);
    const std::vector<tensor_view> ts = initializers(out.model);
    REQUIRE(ts.size() == 5);
    const std::uint64_t a = find_external_location(ts[0]).offset;
    CHECK(find_external_location(ts[1]).offset == a);
    CHECK(find_external_location(ts[2]).offset != a);
    CHECK(find_external_location(ts[4]).offset == a);
    CHECK(out.external.size() == 2 * 4096 + 1600);  // a, c and d written once each
    memory_file file{out.external};
    const external_payload_source src{&file, fetch_memory};
    CHECK(same_tensors(in, nullptr, out.model, &src).ok());
    po.dedupe = false;
    CHECK(pack(in, po).external.size() == 4 * 4096 + 1200);
}

TEST_CASE("pack with edits: metadata, producer and doc strings, tensors untouched") {
    wire_builder entry_old, entry_keep;
    entry_old.field_bytes(1, "k").field_bytes(2, "old");
    entry_keep.field_bytes(1, "keep").field_bytes(2, "1");
    wire_builder t = raw_tensor("w", 300);
    t.field_bytes(12, "tensor doc");
    wire_builder sub;  // a subgraph whose node carries a doc string
    wire_builder sub_node;
    sub_node.field_bytes(4, "Identity").field_bytes(6, "node doc");
    sub.field_message(1, sub_node).field_bytes(10, "graph doc");
    wire_builder attr;
    attr.field_bytes(1, "then_branch").field_message(6, sub).field_varint(20, 5);
    wire_builder node;
    node.field_bytes(4, "If").field_message(5, attr);
    wire_builder g;
    g.field_message(1, node).field_message(5, t);
    wire_builder m;
    m.field_varint(1, 8).field_bytes(2, "old producer").field_bytes(6, "model doc").field_message(7, g)
        .field_message(14, entry_old).field_message(14, entry_keep);

    const metadata_change changes[] = {{"k", "new", false}, {"keep", "", true}, {"added", "2", false}};
    edit_options edits{};
    edits.strip_doc_strings = true;
    edits.set_producer_name = true;
    edits.producer_name = "edited";
    edits.metadata = changes;
    edits.metadata_count = 3;
    pack_options po{};
    po.inline_align = 1;
    po.keep_typed = true;
    po.edits = &edits;
    const packed out = pack(m.str(), po);
    REQUIRE(out.err.ok());
    REQUIRE(verify(out.model.data(), out.model.size(), schema::msg_ModelProto, options{}).ok());
    const model_view v = parse_model(out.model.data(), out.model.size());
    CHECK(v.producer_name() == "edited");
    CHECK(!v.has_doc_string());
    std::vector<std::pair<std::string, std::string>> meta;
    for (const string_entry_view& e : v.metadata_props()) meta.emplace_back(e.key(), e.value());
    CHECK(meta == std::vector<std::pair<std::string, std::string>>{{"k", "new"}, {"added", "2"}});
    const tensor_view w = *v.graph().initializer().begin();
    CHECK(!w.has_doc_string());
    CHECK(w.raw_data() == floats_le(300));
    const graph_view then_branch = (*(*v.graph().node().begin()).attribute().begin()).g();
    CHECK(!then_branch.has_doc_string());
    CHECK(!(*then_branch.node().begin()).has_doc_string());
    CHECK((*then_branch.node().begin()).op_type() == "Identity");
    CHECK(out.model.find("doc") == std::string::npos);
    CHECK(same_tensors(m.str(), nullptr, out.model, nullptr).ok());
}

namespace {
// `model` packed with edit_options::dims (and no other change).
packed pack_with_dims(const std::string& model, const dim_change* dims, std::size_t count) {
    edit_options edits{};
    edits.dims = dims;
    edits.dim_count = count;
    pack_options po{};
    po.edits = &edits;
    return pack(model, po);
}
}  // namespace

TEST_CASE("pack with edits: set_dim changes a main-graph input's dim, keeps its denotation, and nothing else") {
    wire_builder d0, d1;
    d0.field_varint(1, 1).field_bytes(3, "DATA_BATCH");
    d1.field_bytes(2, "width");
    wire_builder shape;
    shape.field_message(1, d0).field_message(1, d1);
    const wire_builder type = float_tensor_type(shape);
    wire_builder input;
    input.field_bytes(1, "x").field_message(2, type);
    wire_builder other;  // a value_info with the same name: not an input, not changed
    other.field_bytes(1, "x").field_message(2, type);
    wire_builder g;
    g.field_message(11, input).field_message(13, other);
    wire_builder m;
    m.field_varint(1, 8).field_message(7, g);

    const dim_change dims[] = {{"x", 0, true, 0, "N"}, {"x", 1, false, 224, {}}, {"y", 0, false, 1, {}}};
    const packed out = pack_with_dims(m.str(), dims, 3);
    REQUIRE(out.err.ok());
    CHECK(out.stats.dims_set == 2);
    REQUIRE(verify(out.model.data(), out.model.size(), schema::msg_ModelProto, options{}).ok());
    const graph_view gv = parse_model(out.model.data(), out.model.size()).graph();
    const tensor_shape_view s = (*gv.input().begin()).type().tensor_type().shape();
    std::vector<dimension_view> ds;
    for (const dimension_view& d : s.dim()) ds.push_back(d);
    REQUIRE(ds.size() == 2);
    CHECK(ds[0].dim_param() == "N");
    CHECK(!ds[0].has_dim_value());
    CHECK(ds[0].denotation() == "DATA_BATCH");
    CHECK(ds[1].dim_value() == 224);
    CHECK(!ds[1].has_dim_param());
    const tensor_shape_view unchanged = (*gv.value_info().begin()).type().tensor_type().shape();
    CHECK((*unchanged.dim().begin()).dim_value() == 1);
}

TEST_CASE("pack with edits: set_dim leaves shapes off the path to a main-graph input's dims") {
    wire_builder d0;
    d0.field_varint(1, 1);
    wire_builder shape;
    shape.field_message(1, d0);
    const wire_builder type = float_tensor_type(shape);
    wire_builder sequence;  // TypeProto.Sequence { elem_type: the tensor type }
    sequence.field_message(1, type);
    wire_builder seq_type;
    seq_type.field_message(4, sequence);
    wire_builder seq_input;  // a sequence input: its elements' shape is deeper
    seq_input.field_bytes(1, "s").field_message(2, seq_type);
    wire_builder sub_input;  // a subgraph's input of the same name as the edit's
    sub_input.field_bytes(1, "x").field_message(2, type);
    wire_builder body;
    body.field_message(11, sub_input).field_bytes(2, "body");
    wire_builder attr;
    attr.field_bytes(1, "then_branch").field_message(6, body).field_varint(20, 5);
    wire_builder node;
    node.field_bytes(1, "c").field_bytes(2, "y").field_bytes(4, "If").field_message(5, attr);
    wire_builder g;
    g.field_message(1, node).field_message(11, seq_input);
    wire_builder m;
    m.field_varint(1, 8).field_message(7, g);

    const dim_change dims[] = {{"s", 0, false, 7, {}}, {"x", 0, false, 7, {}}};
    const packed out = pack_with_dims(m.str(), dims, 2);
    REQUIRE(out.err.ok());
    CHECK(out.stats.dims_set == 0);
    CHECK(out.model == m.str());
}

namespace {
// The ranges payload_written was given, as offsets into `base`.
struct released_ranges {
    const char* base = nullptr;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;  // [begin, end)
    std::uint64_t covered_from_start() const {
        std::uint64_t end = 0;
        for (const auto& r : ranges)
            if (r.first <= end && r.second > end) end = r.second;
        return end;
    }
};
void note_release(void* user, const char* data, std::size_t size) {
    auto& r = *static_cast<released_ranges*>(user);
    r.ranges.emplace_back(static_cast<std::uint64_t>(data - r.base), static_cast<std::uint64_t>(data - r.base) + size);
}
}  // namespace

TEST_CASE("pack: every byte of the model is given back to payload_written, tensors copied as they are too") {
    // 3 x 3 MiB payloads: more than one 4 MiB run, kept as they are (edit's
    // settings) or aligned (pack's).
    const std::string in = model_with({raw_tensor("a", 3 << 18), raw_tensor("b", 3 << 18), raw_tensor("c", 3 << 18)});
    for (const bool kept : {true, false}) {
        released_ranges seen;
        seen.base = in.data();
        pack_options po{};
        if (kept) {
            po.inline_align = 1;
            po.keep_typed = true;
        }
        po.payload_written = note_release;
        po.user = &seen;
        const packed out = pack(in, po);
        REQUIRE(out.err.ok());
        CHECK(out.stats.kept == (kept ? 3u : 0u));
        for (const auto& r : seen.ranges) CHECK(r.second <= in.size());
        CHECK(seen.covered_from_start() == in.size());
        // Given back as it goes, not only at the end.
        CHECK(seen.ranges.size() >= 2);
    }
}
