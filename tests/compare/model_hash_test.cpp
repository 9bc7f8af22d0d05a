// model_hash.hpp: digests that follow the meaning of a model, not its
// layout. Models are written by hand with wire_builder, so each layout
// (typed fields, packed or not, padded varints, field order, unknown fields)
// is exactly the one under test.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "../wire_builder.hpp"
#include "onnxview/compare/model_hash.hpp"
#include "onnxview/model.hpp"

using namespace onnxview;
using testing::wire_builder;

namespace {

// TensorProto field numbers.
enum : std::uint32_t { t_dims = 1, t_data_type = 2, t_float_data = 4, t_int32_data = 5, t_string_data = 6,
                       t_int64_data = 7, t_name = 8, t_raw_data = 9, t_doc_string = 12 };
enum : std::int32_t { FLOAT = 1, STRING = 8, INT64 = 7, FLOAT16 = 10, INT4 = 22 };

std::uint32_t bits(float f) {
    std::uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}

std::string raw_floats(std::initializer_list<float> fs) {
    std::string out;
    for (float f : fs) out += wire_builder().fixed32(bits(f)).str();
    return out;
}

digest128 tensor_of(const wire_builder& b) {
    const std::string bytes = b.str();
    const tensor_view t = parse_tensor(bytes.data(), bytes.size());
    const result<digest128> d = tensor_digest(t);
    REQUIRE(d.ok());
    return *d;
}

digest128 model_of(const wire_builder& b) {
    const std::string bytes = b.str();
    const model_view m = parse_model(bytes.data(), bytes.size());
    const result<digest128> d = model_digest(m);
    REQUIRE(d.ok());
    return *d;
}

wire_builder float_tensor(const char* name, float a, float b) {
    return wire_builder().field_varint(t_dims, 2).field_varint(t_data_type, FLOAT).field_bytes(t_name, name)
        .field_bytes(t_raw_data, raw_floats({a, b}));
}

wire_builder attribute_int(const char* name, std::int64_t v) {
    return wire_builder().field_bytes(1, name).field_varint(3, static_cast<std::uint64_t>(v)).field_varint(20, 2);
}

wire_builder node(const char* op, const char* in, const char* out, const wire_builder& attrs = wire_builder()) {
    return wire_builder().field_bytes(1, in).field_bytes(2, out).field_bytes(4, op).raw(attrs.str());
}

wire_builder opset(const char* domain, std::uint64_t version) {
    return wire_builder().field_bytes(1, domain).field_varint(2, version);
}

}  // namespace

TEST_CASE("digest128::to_hex: 32 hex digits, high half first") {
    char out[33];
    digest128{0x0123456789abcdefULL, 0xfedcba9876543210ULL}.to_hex(out);
    CHECK(std::string(out) == "0123456789abcdeffedcba9876543210");
    CHECK(digest128{1, 2} != digest128{2, 1});
    CHECK(digest128{1, 2} < digest128{2, 1});
}

TEST_CASE("tensor_digest: the same values in any storage give one digest") {
    const digest128 raw = tensor_of(float_tensor("w", 1.5f, -2.0f));
    SECTION("float_data packed and unpacked, another name, a doc_string") {
        CHECK(tensor_of(wire_builder().field_varint(t_dims, 2).field_varint(t_data_type, FLOAT)
                            .packed_fixed32(t_float_data, {bits(1.5f), bits(-2.0f)})) == raw);
        CHECK(tensor_of(wire_builder().field_bytes(t_doc_string, "d").field_varint(t_data_type, FLOAT)
                            .unpacked_fixed32(t_float_data, {bits(1.5f), bits(-2.0f)}).field_varint(t_dims, 2, 5)
                            .field_bytes(t_name, "other")) == raw);
    }
    SECTION("one ulp, a dim, the data type change it") {
        CHECK(tensor_of(float_tensor("w", 1.5f, std::nextafter(-2.0f, 0.0f))) != raw);
        CHECK(tensor_of(wire_builder().field_varint(t_dims, 1).field_varint(t_dims, 2).field_varint(t_data_type, FLOAT)
                            .field_bytes(t_raw_data, raw_floats({1.5f, -2.0f}))) != raw);
        CHECK(tensor_of(wire_builder().field_varint(t_dims, 2).field_varint(t_data_type, 6)
                            .field_bytes(t_raw_data, raw_floats({1.5f, -2.0f}))) != raw);
    }
    SECTION("FLOAT16 in int32_data is its raw_data bytes") {
        const digest128 r = tensor_of(wire_builder().field_varint(t_dims, 2).field_varint(t_data_type, FLOAT16)
                                          .field_bytes(t_raw_data, std::string("\x00\x3c\x00\xc0", 4)));
        CHECK(tensor_of(wire_builder().field_varint(t_dims, 2).field_varint(t_data_type, FLOAT16)
                            .packed_varint(t_int32_data, {0x3c00, 0xc000})) == r);
        CHECK(tensor_of(wire_builder().field_varint(t_dims, 2).field_varint(t_data_type, FLOAT16)
                            .packed_varint(t_int32_data, {0x3c00, 0xc001})) != r);
    }
    SECTION("INT64 in int64_data, varints padded, is its raw_data bytes") {
        const digest128 r = tensor_of(wire_builder().field_varint(t_dims, 1).field_varint(t_data_type, INT64)
                                          .field_bytes(t_raw_data, wire_builder().fixed64(300).str()));
        CHECK(tensor_of(wire_builder().field_varint(t_dims, 1).field_varint(t_data_type, INT64)
                            .tag(t_int64_data, wire_builder::wt::varint).varint(300, 7)) == r);
    }
    SECTION("INT4: two elements a byte, in int32_data one a entry") {
        const digest128 r = tensor_of(wire_builder().field_varint(t_dims, 3).field_varint(t_data_type, INT4)
                                          .field_bytes(t_raw_data, std::string("\x21\x03", 2)));
        CHECK(tensor_of(wire_builder().field_varint(t_dims, 3).field_varint(t_data_type, INT4)
                            .packed_varint(t_int32_data, {0x21, 0x03})) == r);
    }
    SECTION("STRING: lengths count") {
        const digest128 ab_c = tensor_of(wire_builder().field_varint(t_dims, 2).field_varint(t_data_type, STRING)
                                             .field_bytes(t_string_data, "ab").field_bytes(t_string_data, "c"));
        const digest128 a_bc = tensor_of(wire_builder().field_varint(t_dims, 2).field_varint(t_data_type, STRING)
                                             .field_bytes(t_string_data, "a").field_bytes(t_string_data, "bc"));
        CHECK(ab_c != a_bc);
    }
}

TEST_CASE("tensor_digest: a payload that does not match its dims is an error") {
    const std::string bytes = wire_builder().field_varint(t_dims, 3).field_varint(t_data_type, FLOAT)
                                  .field_bytes(t_raw_data, raw_floats({1.0f})).str();
    const result<digest128> d = tensor_digest(parse_tensor(bytes.data(), bytes.size()));
    CHECK_FALSE(d.ok());
}

TEST_CASE("sparse_tensor_digest: values, indices and dims count") {
    const auto sparse = [](std::int64_t index) {
        const wire_builder values = wire_builder().field_varint(t_dims, 1).field_varint(t_data_type, FLOAT)
                                        .field_bytes(t_raw_data, raw_floats({4.0f}));
        const wire_builder indices = wire_builder().field_varint(t_dims, 1).field_varint(t_data_type, INT64)
                                         .packed_varint(t_int64_data, {static_cast<std::uint64_t>(index)});
        const std::string bytes = wire_builder().field_message(1, values).field_message(2, indices)
                                      .packed_varint(3, {8}).str();
        // A SparseTensorProto as the only sparse_initializer of a graph of a model.
        const std::string model = wire_builder().field_message(7, wire_builder().field_bytes(15, bytes)).str();
        const model_view m = parse_model(model.data(), model.size());
        const result<digest128> d = sparse_tensor_digest(*m.graph().sparse_initializer().begin());
        REQUIRE(d.ok());
        return *d;
    };
    CHECK(sparse(3) == sparse(3));
    CHECK(sparse(3) != sparse(4));
}

TEST_CASE("model_digest: layout does not count") {
    const wire_builder graph = wire_builder()
                                   .field_message(1, node("Relu", "x", "y", wire_builder()))
                                   .field_message(1, node("Gemm", "y", "z", wire_builder().field_message(5, attribute_int("transA", 1)).field_message(5, attribute_int("alpha", 2))))
                                   .field_bytes(2, "g")
                                   .field_message(5, float_tensor("a", 1.0f, 2.0f))
                                   .field_message(5, float_tensor("b", 3.0f, 4.0f));
    const digest128 d = model_of(wire_builder().field_varint(1, 8).field_message(7, graph)
                                     .field_message(8, opset("", 17)).field_message(8, opset("com.x", 1)));

    SECTION("field order, padded varints, unknown fields, initializer and attribute order, opsets as a set") {
        const wire_builder reordered =
            wire_builder()
                .field_message(5, float_tensor("b", 3.0f, 4.0f))
                .field_bytes(2, "g")
                .field_message(1, node("Relu", "x", "y", wire_builder()))
                .field_message(1, node("Gemm", "y", "z", wire_builder().field_message(5, attribute_int("alpha", 2)).field_message(5, attribute_int("transA", 1))))
                .field_message(5, float_tensor("a", 1.0f, 2.0f))
                .field_bytes(1000, "padding");
        CHECK(model_of(wire_builder().field_message(8, opset("com.x", 1)).field_message(7, reordered)
                           .field_message(8, opset("ai.onnx", 17)).field_varint(1, 8, 6)) == d);
    }
    SECTION("doc_string, producer, metadata") {
        CHECK(model_of(wire_builder().field_varint(1, 8).field_message(7, graph).field_message(8, opset("", 17))
                           .field_message(8, opset("com.x", 1)).field_bytes(2, "producer").field_bytes(6, "doc")
                           .field_message(14, wire_builder().field_bytes(1, "k").field_bytes(2, "v"))) == d);
    }
    SECTION("what the model computes does") {
        CHECK(model_of(wire_builder().field_varint(1, 9).field_message(7, graph).field_message(8, opset("", 17))
                           .field_message(8, opset("com.x", 1))) != d);
        CHECK(model_of(wire_builder().field_varint(1, 8).field_message(7, graph).field_message(8, opset("", 18))
                           .field_message(8, opset("com.x", 1))) != d);
        const wire_builder renamed = wire_builder()
                                         .field_message(1, node("Relu", "x", "y", wire_builder()))
                                         .field_message(1, node("Gemm", "y", "z", wire_builder().field_message(5, attribute_int("transA", 1)).field_message(5, attribute_int("alpha", 3))))
                                         .field_bytes(2, "g")
                                         .field_message(5, float_tensor("a", 1.0f, 2.0f))
                                         .field_message(5, float_tensor("b", 3.0f, 4.0f));
        CHECK(model_of(wire_builder().field_varint(1, 8).field_message(7, renamed).field_message(8, opset("", 17))
                           .field_message(8, opset("com.x", 1))) != d);
        const wire_builder swapped_names = wire_builder()
                                               .field_message(1, node("Relu", "x", "y", wire_builder()))
                                               .field_message(1, node("Gemm", "y", "z", wire_builder().field_message(5, attribute_int("transA", 1)).field_message(5, attribute_int("alpha", 2))))
                                               .field_bytes(2, "g")
                                               .field_message(5, float_tensor("b", 1.0f, 2.0f))
                                               .field_message(5, float_tensor("a", 3.0f, 4.0f));
        CHECK(model_of(wire_builder().field_varint(1, 8).field_message(7, swapped_names).field_message(8, opset("", 17))
                           .field_message(8, opset("com.x", 1))) != d);
    }
}

TEST_CASE("model_digest: subgraphs by attribute name, whatever the attribute order") {
    const auto if_model = [](const char* then_out, const char* else_out, bool then_first) {
        const wire_builder then_g = wire_builder().field_message(1, node("Identity", "a", then_out));
        const wire_builder else_g = wire_builder().field_message(1, node("Identity", "a", else_out));
        const wire_builder then_a = wire_builder().field_bytes(1, "then_branch").field_message(6, then_g).field_varint(20, 5);
        const wire_builder else_a = wire_builder().field_bytes(1, "else_branch").field_message(6, else_g).field_varint(20, 5);
        const wire_builder attrs = then_first ? wire_builder().field_message(5, then_a).field_message(5, else_a)
                                              : wire_builder().field_message(5, else_a).field_message(5, then_a);
        return model_of(wire_builder().field_message(7, wire_builder().field_message(1, node("If", "c", "y", attrs))));
    };
    CHECK(if_model("p", "q", true) == if_model("p", "q", false));
    CHECK(if_model("p", "q", true) != if_model("q", "p", true));
    CHECK(if_model("p", "q", true) != if_model("p", "r", true));
}

TEST_CASE("digest_options::values = false: types and dims count, values are not read") {
    digest_options no_values;
    no_values.values = false;
    const auto digest = [&no_values](const wire_builder& b) {
        const std::string bytes = b.str();
        const result<digest128> d = tensor_digest(parse_tensor(bytes.data(), bytes.size()), nullptr, no_values);
        REQUIRE(d.ok());
        return *d;
    };
    CHECK(digest(float_tensor("w", 1.0f, 2.0f)) == digest(float_tensor("w", 1.0f, 3.0f)));
    // A payload that does not match its dims is not even looked at.
    CHECK(digest(wire_builder().field_varint(t_dims, 2).field_varint(t_data_type, FLOAT).field_bytes(t_raw_data, "x")) ==
          digest(float_tensor("w", 1.0f, 3.0f)));
    CHECK(digest(float_tensor("w", 1.0f, 2.0f)) !=
          digest(wire_builder().field_varint(t_dims, 2).field_varint(t_data_type, 6).field_bytes(t_raw_data, raw_floats({1.0f, 2.0f}))));
    const auto model = [&no_values](float v) {
        const std::string bytes = wire_builder().field_message(7, wire_builder().field_message(5, float_tensor("w", 1.0f, v))).str();
        const result<digest128> d = model_digest(parse_model(bytes.data(), bytes.size()), nullptr, no_values);
        REQUIRE(d.ok());
        return *d;
    };
    CHECK(model(2.0f) == model(5.0f));
    CHECK(model_of(wire_builder().field_message(7, wire_builder().field_message(5, float_tensor("w", 1.0f, 2.0f)))) != model(2.0f));
}

TEST_CASE("model_digest: functions as a set, training_info in order with bindings as sets") {
    const auto function = [](const char* name, const char* op) {
        return wire_builder().field_bytes(1, name).field_bytes(4, "x").field_bytes(5, "y")
            .field_message(7, node(op, "x", "y")).field_bytes(10, "com.x");
    };
    const auto model = [](std::initializer_list<wire_builder> parts, std::uint32_t number) {
        wire_builder m = wire_builder().field_varint(1, 8);
        for (const wire_builder& p : parts) m.field_message(number, p);
        return model_of(m);
    };
    const digest128 fg = model({function("f", "Relu"), function("g", "Sigmoid")}, 25);
    CHECK(model({function("g", "Sigmoid"), function("f", "Relu")}, 25) == fg);
    CHECK(model({function("f", "Relu"), function("g", "Tanh")}, 25) != fg);
    CHECK(model({function("f", "Relu")}, 25) != fg);

    const auto binding = [](const char* k, const char* v) { return wire_builder().field_bytes(1, k).field_bytes(2, v); };
    const auto training = [&](const char* op, bool swap_bindings) {
        wire_builder t = wire_builder().field_message(2, wire_builder().field_message(1, node(op, "a", "b")));
        if (swap_bindings)
            t.field_message(4, binding("w2", "b")).field_message(4, binding("w1", "a"));
        else
            t.field_message(4, binding("w1", "a")).field_message(4, binding("w2", "b"));
        return t;
    };
    const digest128 t = model({training("Add", false)}, 20);
    CHECK(model({training("Add", true)}, 20) == t);
    CHECK(model({training("Sub", false)}, 20) != t);
    CHECK(t != model_of(wire_builder().field_varint(1, 8)));
}

TEST_CASE("digest_options::payload_hashed: every piece of a large payload, the digest unchanged") {
    const std::string raw((std::size_t(9) << 20) + 4, '\x01');  // 9 MiB + one FLOAT: two pieces
    const std::string bytes = wire_builder().field_varint(t_dims, raw.size() / 4).field_varint(t_data_type, FLOAT)
                                  .field_bytes(t_raw_data, raw).str();
    const tensor_view t = parse_tensor(bytes.data(), bytes.size());
    struct seen {
        const char* payload;
        std::size_t pieces = 0, end = 0;  // end: how far the pieces reach into the payload
        bool inside = true;
    } s{t.raw_data().data()};
    digest_options opts;
    opts.user = &s;
    opts.payload_hashed = [](void* user, const char* data, std::size_t size) {
        seen& s = *static_cast<seen*>(user);
        ++s.pieces;
        s.inside = s.inside && data >= s.payload && static_cast<std::size_t>(data - s.payload) <= s.end;
        s.end = static_cast<std::size_t>(data - s.payload) + size;
    };
    const result<digest128> with = tensor_digest(t, nullptr, opts);
    const result<digest128> without = tensor_digest(t);
    REQUIRE(with.ok());
    CHECK(*with == *without);
    CHECK(s.pieces == 2);
    CHECK(s.inside);
    CHECK(s.end == raw.size());
}

TEST_CASE("digest_options::tensor_hashed: each dense tensor's digest, as tensor_digest makes it") {
    const wire_builder graph = wire_builder()
                                   .field_message(1, node("Relu", "x", "y"))
                                   .field_message(5, float_tensor("a", 1.0f, 2.0f))
                                   .field_message(5, float_tensor("b", 3.0f, 4.0f));
    const std::string bytes = wire_builder().field_varint(1, 8).field_message(7, graph).str();
    const model_view m = parse_model(bytes.data(), bytes.size());
    struct seen {
        std::vector<std::pair<std::string, digest128>> tensors;
    } s;
    digest_options opts;
    opts.tensor_user = &s;
    opts.tensor_hashed = [](void* user, const tensor_view& t, const digest128& d) {
        static_cast<seen*>(user)->tensors.emplace_back(std::string(t.name()), d);
    };
    const result<digest128> with = model_digest(m, nullptr, opts);
    REQUIRE(with.ok());
    CHECK(*with == *model_digest(m));  // the hook changes nothing
    REQUIRE(s.tensors.size() == 2);
    for (const auto& [name, d] : s.tensors) {
        const wire_builder t = name == "a" ? float_tensor("a", 1.0f, 2.0f) : float_tensor("b", 3.0f, 4.0f);
        CHECK(d == tensor_of(t));
    }
}

TEST_CASE("digest_options::names = false: renames do not count, which tensor feeds which input does") {
    // Add(x, a) -> y, Mul(y, b) -> z; initializers ta = [ta0, 2] and tb = [3, 4].
    const auto model = [](const char* x, const char* a, const char* y, const char* b, const char* z, const char* ta,
                          float ta0, const char* tb, const char* node_name) {
        const wire_builder add = wire_builder().field_bytes(1, x).field_bytes(1, a).field_bytes(2, y)
                                     .field_bytes(3, node_name).field_bytes(4, "Add");
        const wire_builder mul = wire_builder().field_bytes(1, y).field_bytes(1, b).field_bytes(2, z).field_bytes(4, "Mul");
        const wire_builder graph = wire_builder().field_message(1, add).field_message(1, mul)
                                       .field_message(5, float_tensor(ta, ta0, 2.0f)).field_message(5, float_tensor(tb, 3.0f, 4.0f));
        return wire_builder().field_varint(1, 8).field_message(7, graph).str();
    };
    const auto digest = [](const std::string& bytes, bool names) {
        const model_view m = parse_model(bytes.data(), bytes.size());
        digest_options opts;
        opts.names = names;
        const result<digest128> d = model_digest(m, nullptr, opts);
        REQUIRE(d.ok());
        return *d;
    };
    const std::string base = model("x", "A", "y", "B", "z", "A", 1.0f, "B", "add");
    const std::string renamed = model("x2", "w0", "t", "w1", "out", "w0", 1.0f, "w1", "n0");
    CHECK(digest(base, true) != digest(renamed, true));
    CHECK(digest(base, false) == digest(renamed, false));
    // The same two tensors, but Add now reads what Mul read and Mul what Add read.
    CHECK(digest(base, false) != digest(model("x", "B", "y", "A", "z", "A", 1.0f, "B", "add"), false));
    // A value changed still counts.
    CHECK(digest(base, false) != digest(model("x", "A", "y", "B", "z", "A", 1.5f, "B", "add"), false));
}
