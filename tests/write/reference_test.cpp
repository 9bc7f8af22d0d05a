// Weight-less proxies (write.hpp: pack_options::reference, find_reference_source;
// file.hpp: stamp_file) on hand-built models: which tensors become references
// and where they point, what stays, the source record, and the put-back
// dropping it. python3-onnx, its shape inference and version converter, and
// onnxruntime check real proxies in tests/oracle/proxy_oracle.py.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "../io/tmpdir.hpp"
#include "../wire_builder.hpp"
#include "edit_models.hpp"
#include "onnxview/decimal.hpp"
#include "onnxview/file.hpp"
#include "onnxview/model.hpp"
#include "onnxview/tensor_data.hpp"
#include "onnxview/write.hpp"

using namespace onnxview;
using onnxview::testing::wire_builder;
using onnxview_test::edit_models::external_entry_text;
using onnxview_test::edit_models::fetch_in_memory;

namespace {

using field = tensor_view::field;

// Bytes that differ from tensor name to tensor name.
std::string pattern(std::size_t bytes, std::string_view name) {
    unsigned seed = 0;
    for (char c : name) seed = seed * 31 + static_cast<unsigned char>(c);
    std::string s(bytes, '\0');
    for (std::size_t i = 0; i < bytes; ++i) s[i] = static_cast<char>(seed + i * 7 + (i >> 8));
    return s;
}

// A raw_data tensor of `bytes` bytes: FLOAT (4 bytes an element) or INT64 (8).
wire_builder raw(const std::string& name, std::size_t bytes, data_type type = data_type::float32) {
    const std::size_t element = type == data_type::int64 ? 8 : 4;
    wire_builder t;
    t.packed_varint(field::dims, {bytes / element})
        .field_varint(field::data_type, static_cast<std::uint64_t>(type))
        .field_bytes(field::name, name)
        .field_bytes(field::raw_data, pattern(bytes, name));
    return t;
}

wire_builder node_with_tensor(const wire_builder& t) {
    wire_builder a;
    a.field_bytes(1, "value").field_message(5, t).field_varint(20, 4);  // name, t, type TENSOR
    wire_builder n;
    n.field_bytes(2, "out").field_bytes(4, "Constant").field_message(5, a);  // output, op_type, attribute
    return n;
}

struct packed {
    error err;
    std::string model;
    pack_stats stats;
};

error append(void* user, const char* data, std::size_t size) noexcept {
    static_cast<std::string*>(user)->append(data, size);
    return error();
}

packed pack(const std::string& in, const pack_options& po, const external_payload_source* source = nullptr) {
    packed out;
    std::string external;
    const write_sink m{&out.model, append};
    const write_sink x{&external, append};
    out.err = pack_model(in, source, po, m, &x, &out.stats);
    return out;
}

pack_options reference_to(std::string_view location, file_stamp stamp = {1234, 5678}) {
    pack_options po{};
    po.reference.location = location;
    po.reference.stamp = stamp;
    return po;
}

// The bytes of `in` that t's external_data names.
std::string referenced_bytes(const tensor_view& t, const std::string& in) {
    const result<std::uint64_t> offset = parse_decimal(external_entry_text(t, "offset"));
    const result<std::uint64_t> length = parse_decimal(external_entry_text(t, "length"));
    REQUIRE(offset);
    REQUIRE(length);
    REQUIRE(*offset + *length <= in.size());
    return in.substr(*offset, *length);
}

std::string model(const wire_builder& graph, const wire_builder& extra = wire_builder()) {
    wire_builder m;
    m.field_varint(1, 8).field_message(7, graph);
    return m.str() + extra.str();
}

}  // namespace

TEST_CASE("reference: large raw_data becomes a reference to its bytes in the input; the rest is copied") {
    wire_builder g;
    g.field_bytes(2, "g")
        .field_message(5, raw("weight", 4096))
        .field_message(5, raw("small", 64))
        .field_message(5, raw("shape", 4096, data_type::int64));
    wire_builder varints;  // int32_data: varints, not raw_data's layout
    varints.packed_varint(field::dims, {1024}).field_varint(field::data_type, 6).field_bytes(field::name, "varints");
    std::string ones(1024, '\x01');
    varints.field_bytes(field::int32_data, ones);
    g.field_message(5, varints);
    const std::string in = model(g);
    const packed out = pack(in, reference_to("model.onnx"));
    REQUIRE_FALSE(out.err);
    CHECK(out.stats.referenced == 1);
    CHECK(out.stats.kept == 3);
    // The 4096 bytes of `weight` are gone; the references and the record take less than 200.
    CHECK(out.model.size() < in.size() - 4096 + 200);

    const model_view m = parse_model(out.model.data(), out.model.size());
    std::vector<tensor_view> ts;
    for (const tensor_view& t : m.graph().initializer()) ts.push_back(t);
    REQUIRE(ts.size() == 4);
    CHECK(ts[0].name() == "weight");
    CHECK(ts[0].data_location() == location_kind::external);
    CHECK(ts[0].raw_data().empty());
    CHECK(external_entry_text(ts[0], "location") == "model.onnx");
    CHECK(external_entry_text(ts[0], "length") == "4096");
    CHECK(referenced_bytes(ts[0], in) == pattern(4096, "weight"));
    // Below the threshold, INT64 and varint typed: the tensor's bytes as they were.
    for (std::size_t i = 1; i < 4; ++i) {
        CHECK(ts[i].data_location() == location_kind::default_location);
        const wire::message& w = ts[i].wire_message();
        CHECK(in.find(std::string(w.begin(), w.end())) != std::string::npos);
    }
    // The tensors read through the references equal the input's.
    std::string copy = in;
    const external_payload_source source{&copy, fetch_in_memory};
    const result<tensor_data> d = tensor_data::make(ts[0], &source);
    REQUIRE(d);
    CHECK(d->bytes() == pattern(4096, "weight"));
}

TEST_CASE("reference: float_data and double_data in one packed run are raw_data's layout: referenced") {
    const auto typed = [](const char* name, data_type type, typed_field f, std::size_t elements, std::size_t bytes) {
        wire_builder t;
        t.packed_varint(field::dims, {elements}).field_varint(field::data_type, static_cast<std::uint64_t>(type));
        t.field_bytes(field::name, name).field_bytes(static_cast<std::uint32_t>(f), pattern(bytes, name));
        return t;
    };
    wire_builder g;
    g.field_message(5, typed("floats", data_type::float32, typed_field::float_data, 1024, 4096))
        .field_message(5, typed("doubles", data_type::float64, typed_field::double_data, 512, 4096))
        .field_message(5, typed("complex", data_type::complex64, typed_field::float_data, 512, 4096));
    // float_data in two packed runs: its bytes are not contiguous.
    wire_builder split;
    split.packed_varint(field::dims, {1024}).field_varint(field::data_type, 1).field_bytes(field::name, "split");
    const std::string bytes = pattern(4096, "split");
    split.field_bytes(field::float_data, bytes.substr(0, 2048)).field_bytes(field::float_data, bytes.substr(2048));
    g.field_message(5, split);
    const std::string in = model(g);
    const packed out = pack(in, reference_to("m.onnx"));
    REQUIRE_FALSE(out.err);
    CHECK(out.stats.referenced == 3);
    CHECK(out.stats.kept == 1);
    const model_view m = parse_model(out.model.data(), out.model.size());
    std::string copy = in;
    const external_payload_source source{&copy, fetch_in_memory};
    for (const tensor_view& t : m.graph().initializer()) {
        INFO(std::string(t.name()));
        if (t.name() == "split") {
            CHECK(t.data_location() == location_kind::default_location);
            continue;
        }
        CHECK(t.data_location() == location_kind::external);
        CHECK(*t.float_data().count() == 0);
        CHECK(*t.double_data().count() == 0);
        CHECK(referenced_bytes(t, in) == pattern(4096, t.name()));
        const result<tensor_data> d = tensor_data::make(t, &source);
        REQUIRE(d);
        CHECK(d->bytes() == pattern(4096, t.name()));
    }
}

TEST_CASE("reference: the threshold decides, and already external tensors keep their references") {
    wire_builder ext;
    ext.packed_varint(field::dims, {256}).field_varint(field::data_type, 1).field_bytes(field::name, "ext");
    ext.field_message(field::external_data, wire_builder().field_bytes(1, "location").field_bytes(2, "w.bin"));
    ext.field_varint(field::data_location, 1);
    wire_builder g;
    g.field_message(5, raw("a", 64)).field_message(5, ext);
    const std::string in = model(g);
    pack_options po = reference_to("m.onnx");
    po.threshold = 64;
    const packed out = pack(in, po);
    REQUIRE_FALSE(out.err);
    CHECK(out.stats.referenced == 1);
    CHECK(out.stats.external_kept == 1);
    const model_view m = parse_model(out.model.data(), out.model.size());
    auto it = m.graph().initializer().begin();
    CHECK(external_entry_text(*it, "location") == "m.onnx");
    ++it;
    CHECK(external_entry_text(*it, "location") == "w.bin");
}

TEST_CASE("reference: only tensors onnx.load resolves: subgraphs yes; functions, sparse tensors, training no") {
    wire_builder body;  // an If branch holding an initializer and a Constant
    body.field_bytes(2, "branch").field_message(5, raw("sub_init", 2048)).field_message(1, node_with_tensor(raw("sub_const", 2048)));
    wire_builder branch_attr;
    branch_attr.field_bytes(1, "then_branch").field_message(6, body).field_varint(20, 5);  // g, type GRAPH
    wire_builder if_node;
    if_node.field_bytes(4, "If").field_message(5, branch_attr);
    wire_builder sparse;
    sparse.field_message(1, raw("sparse_values", 2048)).field_message(2, raw("sparse_indices", 4096, data_type::int64));
    sparse.packed_varint(3, {4096});
    wire_builder g;
    g.field_bytes(2, "g").field_message(1, if_node).field_message(1, node_with_tensor(raw("const", 2048)));
    g.field_message(15, sparse);
    wire_builder function;
    function.field_bytes(1, "f").field_message(7, node_with_tensor(raw("function_const", 2048))).field_bytes(10, "local");
    wire_builder training;
    training.field_message(1, wire_builder().field_bytes(2, "init").field_message(5, raw("training_init", 2048)));
    wire_builder extra;
    extra.field_message(25, function).field_message(20, training);
    const std::string in = model(g, extra);

    const packed out = pack(in, reference_to("m.onnx"));
    REQUIRE_FALSE(out.err);
    CHECK(out.stats.referenced == 3);  // sub_init, sub_const, const
    const model_view m = parse_model(out.model.data(), out.model.size());
    const wire::message& whole = m.wire_message();
    const std::string bytes(whole.begin(), whole.end());
    for (const char* kept : {"sparse_values", "function_const", "training_init"}) {
        INFO(kept);
        CHECK(bytes.find(pattern(2048, kept)) != std::string::npos);
    }
    for (const char* moved : {"sub_init", "sub_const", "const"}) {
        INFO(moved);
        CHECK(bytes.find(pattern(2048, moved)) == std::string::npos);
    }
}

TEST_CASE("reference: the source record is written, replaced, read back, and dropped by the put-back") {
    wire_builder g;
    g.field_message(5, raw("w", 4096));
    wire_builder old_record;
    old_record.field_message(14, wire_builder().field_bytes(1, std::string(reference_source_key)).field_bytes(2, "old"));
    old_record.field_message(14, wire_builder().field_bytes(1, "other").field_bytes(2, "kept"));
    const std::string in = model(g, old_record);

    const file_stamp stamp{2147483648ull + 5, -1234567890123456789};
    const packed proxy = pack(in, reference_to("net.onnx", stamp));
    REQUIRE_FALSE(proxy.err);
    const result<reference_source> r = find_reference_source(proxy.model);
    REQUIRE(r);
    CHECK(r->location == "net.onnx");
    CHECK(r->stamp == stamp);
    std::size_t records = 0, others = 0;
    const model_view m = parse_model(proxy.model.data(), proxy.model.size());
    for (const string_entry_view& e : m.metadata_props()) {
        records += e.key() == reference_source_key;
        others += e.key() == "other" && e.value() == "kept";
    }
    CHECK(records == 1);
    CHECK(others == 1);

    // Packed as it is, the proxy keeps its references and its record.
    const packed kept = pack(proxy.model, pack_options{});
    REQUIRE_FALSE(kept.err);
    CHECK(find_reference_source(kept.model));
    // The weights put back, into the model or another external file: no record.
    std::string source_bytes = in;
    const external_payload_source source{&source_bytes, fetch_in_memory};
    pack_options internalize{};
    internalize.internalize = true;
    const packed back = pack(proxy.model, internalize, &source);
    REQUIRE_FALSE(back.err);
    CHECK(back.stats.internalized == 1);
    CHECK(find_reference_source(back.model).err().code == errc::not_found);
    CHECK(back.model.find(pattern(4096, "w")) != std::string::npos);
    CHECK(back.model.find("kept") != std::string::npos);
    pack_options external{};
    external.external_location = "w.data";
    const packed moved = pack(proxy.model, external, &source);
    REQUIRE_FALSE(moved.err);
    CHECK(find_reference_source(moved.model).err().code == errc::not_found);
}

TEST_CASE("find_reference_source: none, malformed records, and the last entry counting") {
    const auto with_record = [](const std::string& value) {
        wire_builder extra;
        extra.field_message(14, wire_builder().field_bytes(1, std::string(reference_source_key)).field_bytes(2, value));
        return model(wire_builder().field_bytes(2, "g"), extra);
    };
    CHECK(find_reference_source(model(wire_builder())).err().code == errc::not_found);
    for (const char* bad : {"", "size=1", "size=1;mtime_ns=2", "size=1;mtime_ns=2;location=", "size=x;mtime_ns=2;location=a",
                            "size=1;mtime_ns=+2;location=a", "mtime_ns=2;size=1;location=a",
                            "size=1;mtime_ns=-9223372036854775809;location=a",
                            "size=1;mtime_ns=9223372036854775808;location=a", "size=18446744073709551616;mtime_ns=0;location=a"}) {
        INFO(bad);
        CHECK(find_reference_source(with_record(bad)).err().code == errc::external_bad_entry);
    }
    // The record's location points into the model's bytes: keep them alive.
    const std::string extreme_model =
        with_record("size=18446744073709551615;mtime_ns=-9223372036854775808;location=a;b=c");
    const result<reference_source> extreme = find_reference_source(extreme_model);
    REQUIRE(extreme);
    CHECK(extreme->stamp.size == ~std::uint64_t(0));
    CHECK(extreme->stamp.mtime_ns == INT64_MIN);
    CHECK(extreme->location == "a;b=c");
    wire_builder two;
    two.field_message(14, wire_builder().field_bytes(1, std::string(reference_source_key)).field_bytes(2, "bad"));
    two.field_message(14, wire_builder().field_bytes(1, std::string(reference_source_key))
                              .field_bytes(2, "size=1;mtime_ns=2;location=last"));
    const std::string last_model = model(wire_builder(), two);
    const result<reference_source> last = find_reference_source(last_model);
    REQUIRE(last);
    CHECK(last->location == "last");
    CHECK(find_reference_source(std::string("\x0a\xff", 2)).err().code == errc::truncated);
}

TEST_CASE("reference: options it excludes, and a tensor without a valid payload counted") {
    wire_builder g;
    g.field_message(5, raw("w", 4096));
    const std::string in = model(g);
    pack_options po = reference_to("m.onnx");
    po.internalize = true;
    CHECK(pack(in, po).err.code == errc::invalid_argument);
    po = reference_to("m.onnx");
    po.external_location = "x.data";
    CHECK(pack(in, po).err.code == errc::invalid_argument);
    po = reference_to("m.onnx");
    po.dedupe = true;
    CHECK(pack(in, po).err.code == errc::invalid_argument);
    const std::string long_name(4096, 'a');
    CHECK(pack(in, reference_to(long_name)).err.code == errc::invalid_argument);
    CHECK_FALSE(pack(in, reference_to(std::string(4095, 'a'))).err);

    // dims of 1024 floats, no payload at all: what a tool leaves when it drops a reference.
    wire_builder lost;
    lost.packed_varint(field::dims, {1024}).field_varint(field::data_type, 1).field_bytes(field::name, "lost");
    const packed out = pack(model(wire_builder().field_message(5, lost)), pack_options{});
    REQUIRE_FALSE(out.err);
    CHECK(out.stats.unreadable == 1);
}

TEST_CASE("stamp_file: size and modification time; missing files and directories refused") {
    onnxview_test::tmpdir dir;
    const std::string path = dir / "f.bin";
    REQUIRE(onnxview_test::write_file(path, "12345"));
    struct timespec times[2] = {{1000000000, 123456789}, {1000000000, 123456789}};
    REQUIRE(::utimensat(AT_FDCWD, path.c_str(), times, 0) == 0);
    const result<file_stamp> s = stamp_file(path.c_str());
    REQUIRE(s);
    CHECK(s->size == 5);
    CHECK(s->mtime_ns == 1000000000123456789);
    CHECK(stamp_file((dir / "missing").c_str()).err().code == errc::io_stat_failed);
    CHECK(stamp_file(dir.path().c_str()).err().code == errc::is_directory);
    CHECK(stamp_file(nullptr).err().code == errc::invalid_argument);
    CHECK(stamp_file("").err().code == errc::invalid_argument);
}
