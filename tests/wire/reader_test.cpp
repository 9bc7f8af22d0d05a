// reader and message::cursor: field framing, length-delimited bounds, groups,
// depth limits, truncated prefixes and alignment.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "../wire_builder.hpp"
#include "onnxview/wire_repeated.hpp"
#include "walk.hpp"

using namespace onnxview;
using namespace onnxview::wire;
using onnxview::testing::walk;
using onnxview::testing::wire_builder;

namespace {

std::vector<field> all_fields(const std::string& s, error& err) {
    std::vector<field> out;
    reader r(s.data(), s.data(), s.data() + s.size());
    while (!r.at_end()) {
        field f;
        err = r.next(f);
        if (err) return out;
        out.push_back(f);
    }
    err = error();
    return out;
}

error first_error(const std::string& s) {
    error e;
    all_fields(s, e);
    return e;
}

// n messages nested in field 1; the innermost holds field 2 = 42.
std::string message_chain(unsigned n) {
    wire_builder b;
    b.field_varint(2, 42);
    for (unsigned i = 0; i < n; ++i) b = wire_builder().field_message(1, b);
    return b.str();
}

// Follows field 1 down n levels with child(); returns the first error.
error descend(const std::string& s, unsigned n, std::uint32_t max_depth = 0) {
    message m = message::root(s.data(), s.size(), max_depth);
    for (unsigned i = 0; i < n; ++i) {
        field f;
        bool found = false;
        if (const error e = m.find_last(1, f, found)) return e;
        REQUIRE(found);
        auto c = m.child(f);
        if (!c.ok()) return c.err();
        m = *c;
    }
    CHECK(m.depth() == n);
    field f;
    bool found = false;
    if (const error e = m.find_last(2, f, found)) return e;
    CHECK(found);
    CHECK(f.raw == 42);
    return error();
}

// n groups nested in one another (numbers 5, 6, ...), optionally inside
// `messages` levels of nested messages; the innermost group holds field 2.
std::string group_chain(unsigned n, unsigned messages = 0) {
    wire_builder b;
    b.field_varint(2, 42);
    for (unsigned i = n; i-- > 0;) b = wire_builder().group(5 + i, b);
    for (unsigned i = 0; i < messages; ++i) b = wire_builder().field_message(1, b);
    return b.str();
}

error descend_then_scan(const std::string& s, unsigned messages) {
    message m = message::root(s.data(), s.size());
    for (unsigned i = 0; i < messages; ++i) {
        field f;
        bool found = false;
        if (const error e = m.find_last(1, f, found)) return e;
        auto c = m.child(f);
        if (!c.ok()) return c.err();
        m = *c;
    }
    return m.validate();
}

// The kitchen sink: every wire type, padded varints, unknown fields, nested,
// merged and repeated fields in every form.
std::string sample_message() {
    wire_builder b;
    b.field_varint(1, 150);
    b.field_varint(2, 5, 10);
    b.field_sint64(3, -12345);
    b.field_fixed32(4, 0xCAFEBABEu);
    b.field_fixed64(5, 0x1122334455667788ull);
    b.field_double(6, -0.5);
    b.field_bytes(7, "hello");
    b.field_message(10, wire_builder()
                            .field_varint(1, 1)
                            .field_message(11, wire_builder()
                                                   .field_bytes(2, "deep")
                                                   .field_message(10, wire_builder().field_fixed32(1, 9))
                                                   .packed_varint(20, {3, 1ull << 40}))
                            .group(30, wire_builder().field_varint(1, 2).field_bytes(2, "in group")));
    b.packed_varint(20, {1, 300, 1ull << 63});
    b.unpacked_varint(20, {7});
    b.packed_fixed32(21, {10, 20});
    b.unpacked_fixed32(21, {30});
    b.packed_fixed64(22, {1, 2});
    b.field_message(12, wire_builder().field_varint(1, 7).field_message(
                            12, wire_builder().field_varint(2, 1).packed_fixed32(21, {4})));
    b.unknown_fields(100);
    b.field_message(12, wire_builder().field_bytes(2, "x").field_message(12, wire_builder().field_varint(3, 3)));
    b.group(31, wire_builder().group(32, wire_builder().field_bytes(1, "g").field_fixed64(2, 1)));
    b.field_varint(1, 151);
    b.field_bytes(8, "padded length", 3);
    b.unpacked_fixed64(22, {3});
    b.field_message(11, wire_builder());
    return b.str();
}

struct outcome {
    error err;
    std::string transcript;
};

outcome walk_at(const std::string& bytes, std::size_t shift) {
    // A fresh, exactly sized buffer: bytes past the end are outside the
    // allocation, so ASan catches any over-read.
    std::vector<char> buf(bytes.size() + shift);
    if (!bytes.empty()) std::memcpy(buf.data() + shift, bytes.data(), bytes.size());
    outcome o;
    o.err = walk(buf.data() + shift, bytes.size(), o.transcript);
    // Error offsets count from the start of the message, not of the buffer.
    return o;
}

}  // namespace

TEST_CASE("reader: one field of each wire type") {
    wire_builder b;
    b.field_varint(1, 300).field_fixed64(2, 0x0102030405060708ull).field_bytes(3, "abc");
    b.group(4, wire_builder().field_varint(1, 1)).field_fixed32(5, 0xA0B0C0D0u);
    const std::string s = b.str();
    error e;
    const auto fs = all_fields(s, e);
    REQUIRE(e.ok());
    REQUIRE(fs.size() == 5);
    CHECK(fs[0].number == 1);
    CHECK(fs[0].type == wire_type::varint);
    CHECK(fs[0].raw == 300);
    CHECK(fs[0].tag == s.data());
    CHECK(fs[0].payload == s.data() + 1);
    CHECK(fs[1].type == wire_type::fixed64);
    CHECK(fs[1].raw == 0x0102030405060708ull);
    CHECK(fs[2].type == wire_type::length_delimited);
    CHECK(fs[2].bytes() == "abc");
    CHECK(fs[3].type == wire_type::start_group);
    CHECK(fs[3].bytes() == std::string("\x08\x01", 2));  // content without the end-group tag
    CHECK(fs[4].type == wire_type::fixed32);
    CHECK(fs[4].raw == 0xA0B0C0D0u);
}

TEST_CASE("field: typed accessors") {
    field f;
    f.raw = 0xFFFFFFFFFFFFFFFFull;  // int32 -1 as protobuf writes it (10 bytes, sign-extended)
    CHECK(f.as_int32() == -1);
    CHECK(f.as_int64() == -1);
    CHECK(f.as_uint32() == 0xFFFFFFFFu);
    CHECK(f.as_uint64() == 0xFFFFFFFFFFFFFFFFull);
    CHECK(f.as_bool());
    f.raw = 0x100000000ull;  // bool: any non-zero 64-bit value is true
    CHECK(f.as_bool());
    CHECK(f.as_uint32() == 0);
    f.raw = 0x3FC00000u;
    CHECK(f.as_float() == 1.5f);
    f.raw = 0x3FF8000000000000ull;
    CHECK(f.as_double() == 1.5);
}

TEST_CASE("reader: unknown fields of every wire type are skipped") {
    wire_builder b;
    b.field_varint(1, 1).unknown_fields(100).field_varint(2, 2).unknown_fields(200000).field_varint(3, 3);
    const std::string s = b.str();
    message m = message::root(s.data(), s.size());
    auto c = m.fields();
    field f;
    std::vector<std::uint32_t> known;
    while (c.next(f))
        if (f.number < 100) known.push_back(f.number);
    CHECK(c.err().ok());
    CHECK(known == std::vector<std::uint32_t>{1, 2, 3});
    // skip() moves over every kind of field too.
    reader r(s.data(), s.data(), s.data() + s.size());
    unsigned n = 0;
    while (!r.at_end()) {
        REQUIRE(r.skip().ok());
        ++n;
    }
    CHECK(n == 13);
}

TEST_CASE("reader: a copy remembers the position") {
    const std::string s = wire_builder().field_varint(1, 1).field_varint(2, 2).str();
    reader r(s.data(), s.data(), s.data() + s.size());
    field f;
    REQUIRE(r.next(f).ok());
    reader saved = r;
    REQUIRE(r.next(f).ok());
    CHECK(f.number == 2);
    CHECK(r.at_end());
    REQUIRE(saved.next(f).ok());
    CHECK(f.number == 2);
}

TEST_CASE("reader: errors leave the cursor in place and give absolute offsets") {
    const std::string s = wire_builder().field_varint(1, 1).raw(std::string("\x0F", 1)).str();
    reader r(s.data(), s.data(), s.data() + s.size());
    field f;
    REQUIRE(r.next(f).ok());
    const error e = r.next(f);
    CHECK(e == error(errc::bad_wire_type, 2));
    CHECK(r.offset() == 2);
    CHECK(r.next(f) == e);  // still there
}

TEST_CASE("reader: end-group at top level is an error") {
    CHECK(first_error(wire_builder().end_group(1).str()) == error(errc::unmatched_end_group, 0));
    CHECK(first_error(wire_builder().field_varint(1, 1).end_group(3).str()) ==
          error(errc::unmatched_end_group, 2));
}

TEST_CASE("reader: each wire type truncated") {
    CHECK(first_error(wire_builder().tag(1, wire_type::varint).str()).code == errc::truncated);
    CHECK(first_error(wire_builder().tag(1, wire_type::varint).byte(0x80).str()).code == errc::truncated);
    CHECK(first_error(wire_builder().tag(1, wire_type::fixed32).raw("abc").str()) == error(errc::truncated, 1));
    CHECK(first_error(wire_builder().tag(1, wire_type::fixed64).raw("abcdefg").str()) == error(errc::truncated, 1));
    CHECK(first_error(wire_builder().tag(1, wire_type::length_delimited).str()).code == errc::truncated);
    CHECK(first_error(wire_builder().field_len_raw(1, 4, "abc").str()).code != errc::ok);
    CHECK(first_error(wire_builder().start_group(1).field_varint(2, 2).str()).code == errc::truncated);
    CHECK(first_error(wire_builder().field_varint(1, 1).raw(std::string(11, '\xFF')).str()) ==
          error(errc::varint_too_long, 2));
    CHECK(first_error(wire_builder().tag(1, wire_type::varint).raw(std::string(10, '\x80')).byte(0).str()) ==
          error(errc::varint_too_long, 1));
}

TEST_CASE("length-delimited: lengths are checked against the bytes remaining") {
    // Exactly fitting: fine.
    CHECK(first_error(wire_builder().field_len_raw(1, 3, "abc").str()).ok());
    CHECK(first_error(wire_builder().field_len_raw(1, 0).str()).ok());
    // One too many, huge, and 2^64-1 (p + len would wrap): errors, no overflow.
    for (std::uint64_t len : {std::uint64_t(4), std::uint64_t(1) << 31, std::uint64_t(1) << 32,
                              std::uint64_t(1) << 63, std::numeric_limits<std::uint64_t>::max(),
                              std::numeric_limits<std::uint64_t>::max() - 2}) {
        INFO("length " << len);
        const error e = first_error(wire_builder().field_len_raw(1, len, "abc").str());
        CHECK_FALSE(e.ok());
        CHECK(e.offset == 1);  // the length varint
    }
    // Padded length varints are fine.
    CHECK(first_error(wire_builder().field_bytes(1, "abc", 10).str()).ok());
}

// reader::next() decodes a one-byte tag with a value or length of one or two
// bytes inline; these are the edges of that path and of the general one.
TEST_CASE("reader: two-byte values and lengths at the edges of the inline path") {
    error err;
    // A 200-byte string (length 0xC8 0x01), exactly fitting, then a field after it.
    const std::string s200(200, 's');
    const std::string two = wire_builder().field_bytes(3, s200).field_varint(4, 16383).str();
    auto fs = all_fields(two, err);  // fields point into `two`
    REQUIRE(err.ok());
    REQUIRE(fs.size() == 2);
    CHECK(fs[0].number == 3);
    CHECK(fs[0].bytes() == s200);
    CHECK(fs[0].payload - fs[0].tag == 3);
    CHECK(fs[1].number == 4);
    CHECK(fs[1].raw == 16383);  // 0xFF 0x7F, the largest two-byte value
    CHECK(fs[1].payload - fs[1].tag == 1);
    // One byte short of a two-byte length: the error is at the length varint.
    const std::string short_by_one = wire_builder().field_len_raw(3, 200, std::string(199, 's')).str();
    CHECK(first_error(short_by_one) == error(errc::length_out_of_bounds, 1));
    // A two-byte varint cut after its first byte, as a value and as a length.
    CHECK(first_error(wire_builder().tag(1, wire_type::varint).byte(0x81).str()) == error(errc::truncated, 1));
    CHECK(first_error(wire_builder().tag(1, wire_type::length_delimited).byte(0x81).str()) ==
          error(errc::truncated, 1));
    // Non-minimal two-byte varints (0x80 0x00 is 0, 0x81 0x00 is 1) are read as libprotobuf reads them.
    const std::string padded = wire_builder().tag(1, wire_type::varint).byte(0x80).byte(0)
                                   .tag(2, wire_type::length_delimited).byte(0x81).byte(0).raw("x").str();
    fs = all_fields(padded, err);
    REQUIRE(err.ok());
    REQUIRE(fs.size() == 2);
    CHECK(fs[0].raw == 0);
    CHECK(fs[1].bytes() == "x");
    // Three-byte values and two-byte tags take the general path, with the same meaning.
    const std::string general = wire_builder().field_varint(1, 16384).field_varint(16, 300).str();
    fs = all_fields(general, err);
    REQUIRE(err.ok());
    REQUIRE(fs.size() == 2);
    CHECK(fs[0].raw == 16384);
    CHECK(fs[1].number == 16);
    CHECK(fs[1].raw == 300);
}

TEST_CASE("length-delimited: a child never extends past its parent") {
    // The inner field claims 5 bytes; the parent has only 2 left, though the
    // buffer has plenty more after the parent.
    const std::string inner = wire_builder().field_len_raw(2, 5, "ab").str();
    const std::string s = wire_builder().field_bytes(1, inner).field_bytes(3, "0123456789").str();
    REQUIRE(first_error(s).ok());  // the parent's own framing is fine
    message root = message::root(s.data(), s.size());
    field f;
    bool found = false;
    REQUIRE(root.find_last(1, f, found).ok());
    auto child = root.child(f);
    REQUIRE(child.ok());
    const error e = child->validate();
    CHECK(e.code == errc::length_out_of_bounds);
    CHECK(e.offset == 3);  // absolute: tag(1) len(1) inner tag(1) -> the inner length varint
    // Same inside a group: the group ends where its parent message ends.
    // (The parent's next field carries an end-group byte a careless decoder would take.)
    const std::string g = wire_builder().field_message(1, wire_builder().start_group(2).field_varint(3, 3))
                              .field_bytes(5, wire_builder().end_group(2).str()).str();
    root = message::root(g.data(), g.size());
    REQUIRE(root.find_last(1, f, found).ok());
    child = root.child(f);
    REQUIRE(child.ok());
    CHECK(child->validate().code == errc::truncated);
}

#if defined(__linux__) && UINTPTR_MAX > 0xFFFFFFFFu
TEST_CASE("length-delimited: lengths above 2 GiB are read (64-bit hosts)") {
    // A 2.5 GiB mapping reserved without backing memory: only the pages
    // written below are ever touched, since the reader skips payloads.
    const std::uint64_t payload = (std::uint64_t(5) << 29) - 16;  // ~2.5 GiB
    const std::string head = wire_builder().field_varint(1, 7).field_len_raw(2, payload).str();
    const std::string tail = wire_builder().field_varint(3, 9).str();
    const std::size_t size = head.size() + static_cast<std::size_t>(payload) + tail.size();
    void* map = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (map == MAP_FAILED) {
        WARN("mmap of 2.5 GiB refused; large-length test not run");
        return;
    }
    char* p = static_cast<char*>(map);
    std::memcpy(p, head.data(), head.size());
    std::memcpy(p + size - tail.size(), tail.data(), tail.size());
    message m = message::root(p, size);
    auto c = m.fields();
    field f;
    std::vector<field> fs;
    while (c.next(f)) fs.push_back(f);
    CHECK(c.err().ok());
    REQUIRE(fs.size() == 3);
    CHECK(fs[1].raw == payload);
    CHECK(fs[1].bytes().size() == payload);
    CHECK(fs[2].number == 3);
    CHECK(fs[2].raw == 9);
    CHECK(m.offset_of(fs[2].tag) == size - tail.size());
    // One byte short: the length no longer fits.
    message short_m = message::root(p, size - tail.size() - 1);
    CHECK(short_m.validate().code != errc::ok);
    munmap(map, size);
}
#endif

TEST_CASE("groups: nested groups are skipped with correct nesting") {
    const std::string s = wire_builder()
                              .group(1, wire_builder()
                                            .field_varint(1, 1)  // same number as the group: fine
                                            .group(2, wire_builder().group(1, wire_builder().field_bytes(3, "x")))
                                            .unknown_fields(50))
                              .field_varint(9, 9)
                              .str();
    error e;
    const auto fs = all_fields(s, e);
    REQUIRE(e.ok());
    REQUIRE(fs.size() == 2);
    CHECK(fs[0].type == wire_type::start_group);
    CHECK(fs[1].number == 9);
    // The content is the bytes between the start and end tags.
    CHECK(fs[0].bytes() == s.substr(1, s.size() - 1 - 1 - 2));
}

TEST_CASE("groups: a mismatched end-group is an error") {
    const std::string s = wire_builder().start_group(1).field_varint(2, 2).end_group(3).str();
    CHECK(first_error(s) == error(errc::unmatched_end_group, 3));
    // Crossed nesting: 1 { 2 { }1 }2
    const std::string x = wire_builder().start_group(1).start_group(2).end_group(1).end_group(2).str();
    CHECK(first_error(x) == error(errc::unmatched_end_group, 2));
}

TEST_CASE("groups: a missing end-group is an error") {
    CHECK(first_error(wire_builder().start_group(1).str()) == error(errc::truncated, 1));
    CHECK(first_error(wire_builder().start_group(1).start_group(2).end_group(2).str()) ==
          error(errc::truncated, 3));
}

TEST_CASE("groups: malformed content inside a group is reported at its byte") {
    const std::string s = wire_builder().start_group(1).field_varint(2, 2).byte(0x0E).end_group(1).str();
    CHECK(first_error(s) == error(errc::bad_wire_type, 3));
    const std::string t = wire_builder().start_group(1).field_len_raw(2, 100, "ab").end_group(1).str();
    CHECK(first_error(t) == error(errc::length_out_of_bounds, 2));
}

TEST_CASE("depth: nested messages, exactly at the limit accepted, one more rejected") {
    CHECK(descend(message_chain(100), 100).ok());
    const error e = descend(message_chain(101), 101);
    CHECK(e.code == errc::depth_exceeded);
    const std::string chain = message_chain(101);
    CHECK(e.offset == chain.size() - 4);  // the tag of the 101st level: 0A 02 10 2A at the end
    // A custom limit works the same way.
    CHECK(descend(message_chain(5), 5, 5).ok());
    CHECK(descend(message_chain(6), 6, 5).code == errc::depth_exceeded);
}

TEST_CASE("depth: an absent field of a message at the depth limit is an empty message") {
    // Regression (fuzz_wire corpus): merged_child of an absent field made a
    // message one level past the limit, which debug builds refuse as misuse.
    // libprotobuf reads an absent field at any depth.
    const std::string s = wire_builder().field_message(1, wire_builder().field_varint(2, 7)).str();
    const message root = message::root(s.data(), s.size(), 1);
    auto at_limit = root.merged_child(1);
    REQUIRE(at_limit.ok());
    REQUIRE(at_limit->depth() == 1);
    for (std::uint32_t number : {2u, 3u}) {  // 2: present, not length-delimited; 3: absent
        INFO("field " << number);
        auto absent = at_limit->merged_child(number);
        REQUIRE(absent.ok());
        CHECK(absent->empty());
        CHECK(absent->depth() <= absent->max_depth());
        CHECK(absent->validate().ok());
        auto again = absent->merged_child(number);
        REQUIRE(again.ok());
        CHECK(again->empty());
    }
}

TEST_CASE("depth: nested messages via merged_child, at the limit and one more") {
    for (unsigned n : {100u, 101u}) {
        // Build the chain; the last three levels are split into two occurrences each.
        wire_builder b;
        b.field_varint(2, 42);
        for (unsigned i = 0; i < n; ++i) {
            if (i < 3)
                b = wire_builder().field_message(1, b).field_message(1, wire_builder().field_varint(3, i));
            else
                b = wire_builder().field_message(1, b);
        }
        const std::string s = b.str();
        message m = message::root(s.data(), s.size());
        error e;
        for (unsigned i = 0; i < n; ++i) {
            auto c = m.merged_child(1);
            if (!c.ok()) {
                e = c.err();
                break;
            }
            m = *c;
        }
        INFO("depth " << n);
        if (n == 100) {
            REQUIRE(e.ok());
            CHECK(m.depth() == 100);
            CHECK(m.merged());
            field f;
            bool found = false;
            REQUIRE(m.find_last(2, f, found).ok());
            CHECK(found);
            CHECK(f.raw == 42);
        } else {
            CHECK(e.code == errc::depth_exceeded);
        }
    }
}

TEST_CASE("depth: nested groups, exactly at the limit accepted, one more rejected") {
    CHECK(first_error(group_chain(100)).ok());
    CHECK(first_error(group_chain(101)).code == errc::depth_exceeded);
    // Messages and groups share one depth count, as in libprotobuf (verified
    // with 3.21: 99 messages and 1 group parse, 99 messages and 2 groups fail).
    CHECK(descend_then_scan(group_chain(1, 99), 99).ok());
    CHECK(descend_then_scan(group_chain(2, 99), 99).code == errc::depth_exceeded);
    // A custom limit.
    const std::string g = group_chain(3);
    message m = message::root(g.data(), g.size(), 3);
    CHECK(m.validate().ok());
    m = message::root(g.data(), g.size(), 2);
    CHECK(m.validate().code == errc::depth_exceeded);
}

TEST_CASE("the sample message walks completely") {
    const std::string s = sample_message();
    std::string t;
    const error e = walk(s.data(), s.size(), t);
    INFO(t);
    REQUIRE(e.ok());
    CHECK(t.find("20*=1,300,-9223372036854775808,7,;21*=10,20,30,;22*=1,2,3,;n=4,3,3") != std::string::npos);
    // The merged field 12: both occurrences, and its own merged field 12 too.
    CHECK(t.find("12*={1:0=7;12:2=\"") != std::string::npos);
    CHECK(t.find("12*={2:0=1;21:2=r;3:0=3;12*={};20*=;21*=4,;") != std::string::npos);
}

TEST_CASE("every truncated prefix of a valid message is an error or a clean shorter message") {
    const std::string s = sample_message();
    // The prefixes that are complete messages themselves end at a top-level
    // field boundary; every other prefix must fail.
    std::vector<std::size_t> boundaries{0};
    {
        reader r(s.data(), s.data(), s.data() + s.size());
        field f;
        while (!r.at_end()) {
            REQUIRE(r.next(f).ok());
            boundaries.push_back(static_cast<std::size_t>(r.position() - s.data()));
        }
    }
    std::string full;
    REQUIRE(walk(s.data(), s.size(), full).ok());
    std::size_t failures = 0;
    for (std::size_t n = 0; n < s.size(); ++n) {
        INFO("prefix of " << n << " bytes");
        const outcome o = walk_at(s.substr(0, n), 0);
        const bool boundary = std::find(boundaries.begin(), boundaries.end(), n) != boundaries.end();
        if (boundary) {
            CHECK(o.err.ok());
        } else {
            CHECK_FALSE(o.err.ok());
            CHECK(o.err.offset <= n);
            ++failures;
        }
        // The fields read before the cut are the message's own first fields.
        const std::size_t streamed = o.transcript.find("12*=");
        const std::string head = o.transcript.substr(0, streamed == std::string::npos ? o.transcript.size() : streamed);
        CHECK(full.compare(0, head.size(), head) == 0);
    }
    CHECK(failures > s.size() / 2);
}

TEST_CASE("the same input at a 1-byte offset decodes identically") {
    const std::string s = sample_message();
    for (std::size_t n = 0; n <= s.size(); ++n) {
        const outcome a = walk_at(s.substr(0, n), 0);
        const outcome b = walk_at(s.substr(0, n), 1);
        INFO("prefix of " << n << " bytes");
        CHECK(a.err == b.err);
        CHECK(a.transcript == b.transcript);
    }
    // And at every offset modulo 8, for the whole message.
    const outcome ref = walk_at(s, 0);
    for (std::size_t shift = 1; shift < 8; ++shift) {
        const outcome o = walk_at(s, shift);
        CHECK(o.err == ref.err);
        CHECK(o.transcript == ref.transcript);
    }
}

TEST_CASE("every single-byte corruption of the sample is handled (no crash, errors in bounds)") {
    const std::string s = sample_message();
    for (std::size_t i = 0; i < s.size(); ++i) {
        for (int v : {0x00, 0x01, 0x7F, 0x80, 0xFF, 0x0C, 0x0E}) {
            std::string t = s;
            t[i] = static_cast<char>(v);
            const outcome o = walk_at(t, 1);
            if (!o.err.ok()) CHECK(o.err.offset <= t.size());
        }
    }
}

TEST_CASE("depth limits: 0 is the default, larger than max_depth_limit is clamped") {
    CHECK(effective_max_depth(0) == default_max_depth);
    CHECK(effective_max_depth(7) == 7);
    CHECK(effective_max_depth(max_depth_limit) == max_depth_limit);
    CHECK(effective_max_depth(max_depth_limit + 1) == max_depth_limit);
    CHECK(effective_max_depth(0xFFFFFFFFu) == max_depth_limit);
    const char byte = 0;
    CHECK(message::root(&byte, 0, 1000000).max_depth() == max_depth_limit);
    CHECK(message::root(&byte, 0).max_depth() == default_max_depth);
    CHECK(message(&byte, &byte, &byte, 3, 0xFFFFFFFFu).max_depth() == max_depth_limit);
}
