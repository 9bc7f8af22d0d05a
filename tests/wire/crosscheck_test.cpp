// Cross-check with libprotobuf (the reference): values encoded by
// libprotobuf from tests/proto/scalars.proto decode to the same values with
// the wire layer, and malformed inputs are refused by both or by neither.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>

#include "../wire_builder.hpp"
#include "onnxview/wire_repeated.hpp"
#include "scalars.pb.h"

using namespace onnxview;
using namespace onnxview::wire;
using onnxview::testing::wire_builder;
using onnxview_test::Nested;
using onnxview_test::Recursive;
using onnxview_test::Scalars;

namespace {

// ---------------------------------------------------------------- random values
struct random_source {
    std::mt19937_64 rng{20240501u};  // fixed seed: failures reproduce

    std::uint64_t u64() {
        // Spread magnitudes so every varint length (1..10 bytes) shows up.
        const unsigned bits = static_cast<unsigned>(rng() % 65);
        const std::uint64_t v = rng();
        return bits == 64 ? v : v & ((std::uint64_t(1) << bits) - 1);
    }
    std::int64_t i64() { return (rng() & 1) ? static_cast<std::int64_t>(u64()) : -static_cast<std::int64_t>(u64() >> 1); }
    std::uint32_t u32() { return static_cast<std::uint32_t>(u64()); }
    std::int32_t i32() { return static_cast<std::int32_t>(static_cast<std::uint32_t>(i64())); }
    float f32() {
        const std::uint32_t b = static_cast<std::uint32_t>(rng());
        float f;
        std::memcpy(&f, &b, 4);
        return f;
    }
    double f64() {
        const std::uint64_t b = rng();
        double d;
        std::memcpy(&d, &b, 8);
        return d;
    }
    bool chance(unsigned percent) { return rng() % 100 < percent; }
    unsigned count(unsigned max) { return static_cast<unsigned>(rng() % (max + 1)); }
    std::string ascii(unsigned max) {
        std::string s(count(max), ' ');
        for (char& c : s) c = static_cast<char>(' ' + rng() % 95);
        return s;
    }
    std::string bytes(unsigned max) {
        std::string s(count(max), '\0');
        for (char& c : s) c = static_cast<char>(rng());
        return s;
    }
    onnxview_test::Color color() {
        static const onnxview_test::Color colors[] = {onnxview_test::COLOR_ZERO, onnxview_test::COLOR_RED,
                                                      onnxview_test::COLOR_BIG, onnxview_test::COLOR_NEGATIVE};
        return colors[rng() % 4];
    }
};

void fill(random_source& r, Nested& n) {
    if (r.chance(70)) n.set_a(r.i64());
    if (r.chance(70)) n.set_b(r.ascii(10));
    for (unsigned i = r.count(4); i > 0; --i) n.add_c(r.i32());
}

void fill(random_source& r, Scalars& m) {
    if (r.chance(70)) m.set_f_int32(r.i32());
    if (r.chance(70)) m.set_f_int64(r.i64());
    if (r.chance(70)) m.set_f_uint32(r.u32());
    if (r.chance(70)) m.set_f_uint64(r.u64());
    if (r.chance(70)) m.set_f_sint32(r.i32());
    if (r.chance(70)) m.set_f_sint64(r.i64());
    if (r.chance(70)) m.set_f_fixed32(r.u32());
    if (r.chance(70)) m.set_f_fixed64(r.u64());
    if (r.chance(70)) m.set_f_sfixed32(r.i32());
    if (r.chance(70)) m.set_f_sfixed64(r.i64());
    if (r.chance(70)) m.set_f_float(r.f32());
    if (r.chance(70)) m.set_f_double(r.f64());
    if (r.chance(70)) m.set_f_bool(r.chance(50));
    if (r.chance(70)) m.set_f_string(r.ascii(20));
    if (r.chance(70)) m.set_f_bytes(r.bytes(20));
    if (r.chance(70)) m.set_f_enum(r.color());
    if (r.chance(50)) fill(r, *m.mutable_f_nested());
    const unsigned max = 5;
#define ONNXVIEW_FILL(field, gen)                                  \
    for (unsigned i = r.count(max); i > 0; --i) m.add_p_##field(gen); \
    for (unsigned i = r.count(max); i > 0; --i) m.add_u_##field(gen);
    ONNXVIEW_FILL(int32, r.i32())
    ONNXVIEW_FILL(int64, r.i64())
    ONNXVIEW_FILL(uint32, r.u32())
    ONNXVIEW_FILL(uint64, r.u64())
    ONNXVIEW_FILL(sint32, r.i32())
    ONNXVIEW_FILL(sint64, r.i64())
    ONNXVIEW_FILL(fixed32, r.u32())
    ONNXVIEW_FILL(fixed64, r.u64())
    ONNXVIEW_FILL(sfixed32, r.i32())
    ONNXVIEW_FILL(sfixed64, r.i64())
    ONNXVIEW_FILL(float, r.f32())
    ONNXVIEW_FILL(double, r.f64())
    ONNXVIEW_FILL(bool, r.chance(50))
    ONNXVIEW_FILL(enum, r.color())
#undef ONNXVIEW_FILL
    for (unsigned i = r.count(3); i > 0; --i) m.add_r_string(r.ascii(8));
    for (unsigned i = r.count(3); i > 0; --i) m.add_r_bytes(r.bytes(8));
    for (unsigned i = r.count(3); i > 0; --i) fill(r, *m.add_r_nested());
}

// ------------------------------------------- decoding with the wire layer only
// Each decode rebuilds a libprotobuf message from what the wire layer saw, so
// the two can be compared by their (deterministic) serialization.
error decode(const message& msg, Nested& out) {
    auto c = msg.fields();
    field f;
    while (c.next(f)) {
        if (f.number == 1 && f.type == wire_type::varint) out.set_a(f.as_int64());
        if (f.number == 2 && f.type == wire_type::length_delimited) out.set_b(std::string(f.bytes()));
    }
    if (c.err()) return c.err();
    repeated<elem_sint32> cs(msg, 3);
    for (std::int32_t v : cs) out.add_c(v);
    return cs.err();
}

template <class Elem, class Add>
error decode_repeated(const message& msg, std::uint32_t number, Add add) {
    repeated<Elem> r(msg, number);
    for (auto v : r) add(v);
    return r.err();
}

error decode(const message& msg, Scalars& out) {
    auto c = msg.fields();
    field f;
    while (c.next(f)) {
        const wire_type t = f.type;
        const bool v = t == wire_type::varint, f32 = t == wire_type::fixed32, f64 = t == wire_type::fixed64,
                   len = t == wire_type::length_delimited;
        switch (f.number) {
            case 1: if (v) out.set_f_int32(f.as_int32()); break;
            case 2: if (v) out.set_f_int64(f.as_int64()); break;
            case 3: if (v) out.set_f_uint32(f.as_uint32()); break;
            case 4: if (v) out.set_f_uint64(f.as_uint64()); break;
            case 5: if (v) out.set_f_sint32(zigzag_decode32(f.as_uint32())); break;
            case 6: if (v) out.set_f_sint64(zigzag_decode64(f.as_uint64())); break;
            case 7: if (f32) out.set_f_fixed32(f.as_uint32()); break;
            case 8: if (f64) out.set_f_fixed64(f.as_uint64()); break;
            case 9: if (f32) out.set_f_sfixed32(f.as_int32()); break;
            case 10: if (f64) out.set_f_sfixed64(f.as_int64()); break;
            case 11: if (f32) out.set_f_float(f.as_float()); break;
            case 12: if (f64) out.set_f_double(f.as_double()); break;
            case 13: if (v) out.set_f_bool(f.as_bool()); break;
            case 14: if (len) out.set_f_string(std::string(f.bytes())); break;
            case 15: if (len) out.set_f_bytes(std::string(f.bytes())); break;
            case 16: if (v) out.set_f_enum(static_cast<onnxview_test::Color>(f.as_int32())); break;
            case 60: if (len) out.add_r_string(std::string(f.bytes())); break;
            case 61: if (len) out.add_r_bytes(std::string(f.bytes())); break;
            case 62:
                if (len) {
                    auto child = msg.child(f);
                    if (!child.ok()) return child.err();
                    if (const error e = decode(*child, *out.add_r_nested())) return e;
                }
                break;
            default: break;
        }
    }
    if (c.err()) return c.err();
    field last;
    bool found = false;
    if (const error e = msg.find_last(17, last, found)) return e;
    if (found) {
        auto nested = msg.merged_child(17);
        if (!nested.ok()) return nested.err();
        if (const error e = decode(*nested, *out.mutable_f_nested())) return e;
    }
    error e;
#define ONNXVIEW_REP(field, elem, num, conv)                                                   \
    if ((e = decode_repeated<elem>(msg, num, [&](auto x) { out.add_p_##field(conv(x)); }))) return e; \
    if ((e = decode_repeated<elem>(msg, num + 20, [&](auto x) { out.add_u_##field(conv(x)); }))) return e;
#define ONNXVIEW_ID(x) (x)
#define ONNXVIEW_COLOR(x) static_cast<onnxview_test::Color>(x)
    ONNXVIEW_REP(int32, elem_int32, 21, ONNXVIEW_ID)
    ONNXVIEW_REP(int64, elem_int64, 22, ONNXVIEW_ID)
    ONNXVIEW_REP(uint32, elem_uint32, 23, ONNXVIEW_ID)
    ONNXVIEW_REP(uint64, elem_uint64, 24, ONNXVIEW_ID)
    ONNXVIEW_REP(sint32, elem_sint32, 25, ONNXVIEW_ID)
    ONNXVIEW_REP(sint64, elem_sint64, 26, ONNXVIEW_ID)
    ONNXVIEW_REP(fixed32, elem_fixed32, 27, ONNXVIEW_ID)
    ONNXVIEW_REP(fixed64, elem_fixed64, 28, ONNXVIEW_ID)
    ONNXVIEW_REP(sfixed32, elem_sfixed32, 29, ONNXVIEW_ID)
    ONNXVIEW_REP(sfixed64, elem_sfixed64, 30, ONNXVIEW_ID)
    ONNXVIEW_REP(float, elem_float, 31, ONNXVIEW_ID)
    ONNXVIEW_REP(double, elem_double, 32, ONNXVIEW_ID)
    ONNXVIEW_REP(bool, elem_bool, 33, ONNXVIEW_ID)
    ONNXVIEW_REP(enum, elem_int32, 34, ONNXVIEW_COLOR)
#undef ONNXVIEW_REP
#undef ONNXVIEW_ID
#undef ONNXVIEW_COLOR
    return error();
}

std::string canonical(const google::protobuf::Message& m) {
    std::string out;
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    m.SerializeToCodedStream(&coded);
    coded.Trim();
    return out;
}

// Whether the wire layer accepts `s` as a Scalars message the way a full
// parse would: every field framed, nested messages and packed chunks valid.
bool wire_accepts_scalars(const std::string& s) {
    message msg = message::root(s.data(), s.size());
    Scalars ignored;
    return decode(msg, ignored).ok();
}

bool wire_accepts_recursive(const message& m) {
    auto c = m.fields();
    field f;
    while (c.next(f)) {
        if (f.number == 1 && f.type == wire_type::length_delimited) {
            auto child = m.child(f);
            if (!child.ok() || !wire_accepts_recursive(*child)) return false;
        }
    }
    return c.err().ok();
}

bool pb_accepts_scalars(const std::string& s) {
    Scalars m;
    return m.ParseFromString(s);
}

std::string recursive_chain(unsigned n, const std::string& innermost = {}) {
    std::string s = innermost;
    for (unsigned i = 0; i < n; ++i) s = wire_builder().field_bytes(1, s).str();
    return s;
}

std::string group_chain(unsigned n) {
    wire_builder b;
    for (unsigned i = 0; i < n; ++i) b.start_group(100);
    for (unsigned i = 0; i < n; ++i) b.end_group(100);
    return b.str();
}

}  // namespace

TEST_CASE("crosscheck: random messages encoded by libprotobuf decode to the same values") {
    random_source r;
    for (int i = 0; i < 3000; ++i) {
        Scalars m;
        fill(r, m);
        const std::string bytes = m.SerializeAsString();
        Scalars back;
        const error e = decode(message::root(bytes.data(), bytes.size()), back);
        INFO("iteration " << i << ": " << m.ShortDebugString());
        REQUIRE(e.ok());
        REQUIRE(canonical(back) == canonical(m));
    }
}

TEST_CASE("crosscheck: concatenated messages merge like libprotobuf (last wins, repeated append, nested merge)") {
    random_source r;
    r.rng.seed(7);
    for (int i = 0; i < 1000; ++i) {
        Scalars a, b, c;
        fill(r, a);
        fill(r, b);
        fill(r, c);
        const std::string bytes = a.SerializeAsString() + b.SerializeAsString() + c.SerializeAsString();
        Scalars expected;
        REQUIRE(expected.ParseFromString(bytes));
        Scalars got;
        INFO("iteration " << i);
        REQUIRE(decode(message::root(bytes.data(), bytes.size()), got).ok());
        REQUIRE(canonical(got) == canonical(expected));
    }
}

TEST_CASE("crosscheck: every truncated prefix is refused by both or accepted by both") {
    random_source r;
    r.rng.seed(11);
    for (int i = 0; i < 100; ++i) {
        Scalars m;
        fill(r, m);
        const std::string bytes = m.SerializeAsString();
        for (std::size_t n = 0; n < bytes.size(); ++n) {
            const std::string p = bytes.substr(0, n);
            INFO("iteration " << i << ", prefix " << n);
            REQUIRE(wire_accepts_scalars(p) == pb_accepts_scalars(p));
        }
    }
}

TEST_CASE("crosscheck: libprotobuf 3.21 behaviour on edge cases, and the wire layer agrees") {
    struct edge {
        const char* what;
        std::string bytes;
        bool libprotobuf_accepts;  // as measured with libprotobuf 3.21.12
    };
    const edge cases[] = {
        {"packed fixed32, 4 bytes", wire_builder().field_bytes(27, std::string(4, '\1')).str(), true},
        {"packed fixed32, 0 bytes", wire_builder().field_bytes(27, "").str(), true},
        {"packed fixed32, 5 bytes (not a multiple of 4)", wire_builder().field_bytes(27, std::string(5, '\1')).str(), false},
        {"packed fixed32, 3 bytes", wire_builder().field_bytes(27, std::string(3, '\1')).str(), false},
        {"packed fixed64, 12 bytes", wire_builder().field_bytes(28, std::string(12, '\1')).str(), false},
        {"packed int32 ending inside a varint", wire_builder().field_bytes(21, std::string("\x01\x80", 2)).str(), false},
        {"unpacked fixed32 field sent as a varint (unknown field)", wire_builder().field_varint(47, 5).str(), true},
        {"unpacked fixed32 field sent packed", wire_builder().packed_fixed32(47, {1, 2}).str(), true},
        {"packed int32 field sent unpacked", wire_builder().field_varint(21, 5).str(), true},
        {"10-byte varint, last byte 0x7F", wire_builder().tag(2, wire_type::varint).raw(std::string(9, '\xFF')).byte(0x7F).str(), true},
        {"10-byte varint, last byte 0x01", wire_builder().tag(2, wire_type::varint).raw(std::string(9, '\xFF')).byte(0x01).str(), true},
        {"11-byte varint", wire_builder().tag(2, wire_type::varint).raw(std::string(10, '\xFF')).byte(0x01).str(), false},
        {"padded 5-byte varint", wire_builder().field_varint(2, 5, 5).str(), true},
        {"5-byte tag", wire_builder().tag(1, wire_type::varint, 5).varint(5).str(), true},
        {"5-byte tag with bit 32 set", std::string("\x88\x80\x80\x80\x10\x05", 6), true},
        {"6-byte tag", wire_builder().tag(1, wire_type::varint, 6).varint(5).str(), false},
        {"field number 0, varint", std::string("\x00\x05", 2), false},
        {"field number 0, length-delimited", std::string("\x02\x00", 2), false},
        {"wire type 6", std::string("\x0E\x00", 2), false},
        {"wire type 7", std::string("\x0F\x00", 2), false},
        {"end-group at top level", wire_builder().end_group(1).str(), false},
        {"unknown group", wire_builder().group(100, wire_builder().unknown_fields(1)).str(), true},
        {"group with mismatched end", wire_builder().start_group(100).end_group(101).str(), false},
        {"group without end", wire_builder().start_group(100).field_varint(1, 1).str(), false},
        {"nested message longer than the input", wire_builder().field_len_raw(17, 5, std::string("\x08\x01", 2)).str(), false},
        {"field inside a nested message extending past it",
         wire_builder().field_bytes(17, wire_builder().field_len_raw(2, 3, "a").str()).field_varint(1, 1).str(), false},
        {"nested message in two occurrences", wire_builder().field_message(17, wire_builder().field_varint(1, 7))
             .field_message(17, wire_builder().field_bytes(2, "x")).str(), true},
        {"every unknown wire type", wire_builder().unknown_fields(100).str(), true},
        {"100 nested groups", group_chain(100), true},
        {"101 nested groups", group_chain(101), false},
    };
    for (const edge& c : cases) {
        INFO(c.what);
        CHECK(pb_accepts_scalars(c.bytes) == c.libprotobuf_accepts);
        CHECK(wire_accepts_scalars(c.bytes) == c.libprotobuf_accepts);
    }
}

TEST_CASE("crosscheck: values of non-canonical encodings agree with libprotobuf") {
    // 10-byte varint with bits above 64, padded varints, a tag keeping its
    // value modulo 2^32.
    const std::string cases[] = {
        wire_builder().tag(2, wire_type::varint).raw(std::string(9, '\xFF')).byte(0x7F).str(),
        wire_builder().tag(1, wire_type::varint).raw(std::string(9, '\xFE')).byte(0x7F).str(),
        wire_builder().field_varint(3, 0x1FFFFFFFFull).field_varint(13, 0x100000000ull).str(),
        wire_builder().field_varint(2, 5, 10).field_varint(16, 1000000, 7).str(),
        std::string("\x88\x80\x80\x80\x10\x05", 6),
        wire_builder().field_varint(21, 1).packed_varint(21, {2, 3}).field_varint(21, 4).str(),
        wire_builder().field_fixed32(27, 1).packed_fixed32(27, {2, 3}).str(),
    };
    for (const std::string& s : cases) {
        Scalars expected;
        REQUIRE(expected.ParseFromString(s));
        Scalars got;
        REQUIRE(decode(message::root(s.data(), s.size()), got).ok());
        CHECK(canonical(got) == canonical(expected));
    }
}

TEST_CASE("crosscheck: depth limit matches libprotobuf's (100 nested messages accepted, 101 refused)") {
    for (unsigned n : {99u, 100u, 101u}) {
        const std::string s = recursive_chain(n);
        Recursive m;
        const bool pb = m.ParseFromString(s);
        const bool ours = wire_accepts_recursive(message::root(s.data(), s.size()));
        INFO(n << " levels");
        CHECK(pb == (n <= 100));
        CHECK(ours == pb);
    }
    // Messages and groups share the count.
    for (unsigned groups : {1u, 2u}) {
        const std::string s = recursive_chain(99, group_chain(groups));
        Recursive m;
        const bool pb = m.ParseFromString(s);
        INFO("99 messages and " << groups << " groups");
        CHECK(pb == (groups == 1));
        CHECK(wire_accepts_recursive(message::root(s.data(), s.size())) == pb);
    }
}
