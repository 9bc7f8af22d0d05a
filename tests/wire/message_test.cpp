// message: field cursors, last/all occurrences, merged singular messages, and
// repeated<Elem> over packed and unpacked elements.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "../wire_builder.hpp"
#include "onnxview/wire_repeated.hpp"
#include "walk.hpp"

using namespace onnxview;
using namespace onnxview::wire;
using onnxview::testing::walk;
using onnxview::testing::wire_builder;

namespace {

message root_of(const std::string& s) { return message::root(s.data(), s.size()); }

template <class Elem>
std::vector<typename Elem::value_type> elems(const message& m, std::uint32_t n, error& err) {
    std::vector<typename Elem::value_type> out;
    repeated<Elem> r(m, n);
    for (auto v : r) out.push_back(v);
    err = r.err();
    return out;
}

template <class Elem>
std::vector<typename Elem::value_type> elems(const std::string& s, std::uint32_t n) {
    error e;
    auto out = elems<Elem>(root_of(s), n, e);
    CHECK(e.ok());
    auto c = repeated<Elem>(root_of(s), n).count();
    REQUIRE(c.ok());
    CHECK(*c == out.size());
    return out;
}

}  // namespace

TEST_CASE("message: fields in wire order; empty messages") {
    const std::string s = wire_builder().field_varint(3, 1).field_varint(1, 2).field_varint(3, 3).str();
    auto c = root_of(s).fields();
    field f;
    std::vector<std::uint64_t> vals;
    while (c.next(f)) vals.push_back(f.number * 10 + f.raw);
    CHECK(c.err().ok());
    CHECK(vals == std::vector<std::uint64_t>{31, 12, 33});
    CHECK(c.offset() == s.size());

    message empty;
    CHECK(empty.empty());
    auto ec = empty.fields();
    CHECK_FALSE(ec.next(f));
    CHECK(ec.err().ok());
    CHECK(message::root("", 0).validate().ok());
}

TEST_CASE("message: find_last returns the last occurrence of any wire type") {
    const std::string s = wire_builder()
                              .field_varint(1, 10)
                              .field_bytes(2, "a")
                              .field_varint(1, 11)
                              .field_fixed32(1, 12)
                              .field_bytes(2, "b")
                              .str();
    field f;
    bool found = false;
    REQUIRE(root_of(s).find_last(1, f, found).ok());
    CHECK(found);
    CHECK(f.type == wire_type::fixed32);
    CHECK(f.raw == 12);
    REQUIRE(root_of(s).find_last(2, f, found).ok());
    CHECK(f.bytes() == "b");
    REQUIRE(root_of(s).find_last(7, f, found).ok());
    CHECK_FALSE(found);
    // An error after the last occurrence is still reported.
    const std::string bad = s + std::string("\x0F", 1);
    const error e = root_of(bad).find_last(1, f, found);
    CHECK(e == error(errc::bad_wire_type, s.size()));
}

TEST_CASE("message: cursor.next(number) iterates all occurrences of one field") {
    const std::string s = wire_builder()
                              .field_bytes(5, "x")
                              .field_varint(1, 1)
                              .unknown_fields(100)
                              .field_bytes(5, "y")
                              .field_fixed64(5, 2)
                              .str();
    auto c = root_of(s).fields();
    field f;
    std::vector<std::string> got;
    while (c.next(5, f)) got.push_back(f.type == wire_type::length_delimited ? std::string(f.bytes()) : "#");
    CHECK(c.err().ok());
    CHECK(got == std::vector<std::string>{"x", "y", "#"});
    // An error stops the iteration and is reported.
    const std::string bad = wire_builder().field_bytes(5, "x").field_len_raw(5, 9, "y").str();
    c = root_of(bad).fields();
    int n = 0;
    while (c.next(5, f)) ++n;
    CHECK(n == 1);
    CHECK(c.err().code == errc::length_out_of_bounds);
}

TEST_CASE("message: a copied cursor remembers its position") {
    const std::string s = wire_builder().field_varint(1, 1).field_varint(2, 2).field_varint(3, 3).str();
    auto c = root_of(s).fields();
    field f;
    REQUIRE(c.next(f));
    auto saved = c;
    REQUIRE(c.next(f));
    REQUIRE(c.next(f));
    CHECK(f.number == 3);
    REQUIRE(saved.next(f));
    CHECK(f.number == 2);
}

TEST_CASE("message: child() of a length-delimited field only") {
    const std::string s = wire_builder().field_varint(1, 1).field_message(2, wire_builder().field_varint(3, 4)).str();
    message m = root_of(s);
    auto c = m.fields();
    field f;
    REQUIRE(c.next(f));
    auto bad = m.child(f);
    CHECK(bad.err() == error(errc::bad_wire_type, 0));
    REQUIRE(c.next(f));
    auto good = m.child(f);
    REQUIRE(good.ok());
    CHECK(good->depth() == 1);
    CHECK(good->bytes() == std::string("\x18\x04", 2));
    CHECK(good->offset_of(good->begin()) == 4);
}

TEST_CASE("merged_child: occurrences behave as their concatenation") {
    const wire_builder a = wire_builder().field_varint(1, 1).field_bytes(2, "first").packed_varint(20, {1, 2});
    const wire_builder b = wire_builder().field_varint(1, 5).unknown_fields(100).field_varint(20, 3);
    const wire_builder c = wire_builder().field_message(10, wire_builder().field_varint(7, 7));
    const std::string s = wire_builder()
                              .field_message(12, a)
                              .field_varint(9, 9)
                              .field_message(12, b)
                              .field_varint(12, 99)  // another wire type: an unknown field, not merged
                              .field_message(12, c)
                              .str();
    auto merged = root_of(s).merged_child(12);
    REQUIRE(merged.ok());
    CHECK(merged->merged());
    CHECK(merged->depth() == 1);
    const std::string concat = a.str() + b.str() + c.str();
    std::string t_merged, t_concat;
    REQUIRE(walk(*merged, t_merged).ok());
    REQUIRE(walk(concat.data(), concat.size(), t_concat).ok());
    CHECK(t_merged == t_concat);
    // find_last and repeated<> see through the merge.
    field f;
    bool found = false;
    REQUIRE(merged->find_last(1, f, found).ok());
    CHECK(f.raw == 5);
    error e;
    CHECK(elems<elem_int64>(*merged, 20, e) == std::vector<std::int64_t>{1, 2, 3});
    CHECK(e.ok());
    CHECK(repeated<elem_int64>(*merged, 20).count().value() == 3);
}

TEST_CASE("merged_child: one occurrence is a plain child; none is an empty message") {
    const std::string s = wire_builder().field_message(12, wire_builder().field_varint(1, 1)).str();
    auto one = root_of(s).merged_child(12);
    REQUIRE(one.ok());
    CHECK_FALSE(one->merged());
    CHECK(one->bytes() == std::string("\x08\x01", 2));
    auto none = root_of(s).merged_child(13);
    REQUIRE(none.ok());
    CHECK(none->empty());
    CHECK(none->validate().ok());
    // With a caller-supplied last occurrence and count.
    field f;
    bool found = false;
    REQUIRE(root_of(s).find_last(12, f, found).ok());
    auto same = root_of(s).merged_child(12, &f, 1);
    REQUIRE(same.ok());
    CHECK(same->bytes() == one->bytes());
}

TEST_CASE("merged_child: merges nest (a merged field inside merged occurrences)") {
    // 12 { 12 {1:1} } 12 { 12 {2:2} } 12 { 3:3 12 {1:4} }: the inner merged
    // message is {1:1 2:2 1:4}.
    const std::string s =
        wire_builder()
            .field_message(12, wire_builder().field_message(12, wire_builder().field_varint(1, 1)))
            .field_message(12, wire_builder().field_message(12, wire_builder().field_varint(2, 2)))
            .field_message(12, wire_builder().field_varint(3, 3).field_message(12, wire_builder().field_varint(1, 4)))
            .str();
    auto outer = root_of(s).merged_child(12);
    REQUIRE(outer.ok());
    auto inner = outer->merged_child(12);
    REQUIRE(inner.ok());
    CHECK(inner->depth() == 2);
    auto c = inner->fields();
    field f;
    std::vector<std::uint64_t> got;
    while (c.next(f)) got.push_back(f.number * 10 + f.raw);
    CHECK(c.err().ok());
    CHECK(got == std::vector<std::uint64_t>{11, 22, 14});
}

namespace {

// Numbers times ten plus values of a message's varint fields, in wire order.
std::vector<std::uint64_t> varints_of(const message& m) {
    auto c = m.fields();
    field f;
    std::vector<std::uint64_t> got;
    while (c.next(f)) got.push_back(f.number * 10 + f.raw);
    CHECK(c.err().ok());
    return got;
}

// The tag of the n-th (from 0) occurrence of `number` in m.
const char* nth_tag(const message& m, std::uint32_t number, int n) {
    auto c = m.fields();
    field f;
    while (c.next(number, f))
        if (n-- == 0) return f.tag;
    FAIL("no such occurrence");
    return nullptr;
}

}  // namespace

TEST_CASE("merged_child from an occurrence: the earlier ones are left out") {
    // 12 {1:1} 12 {2:2} 12 {3:3}, merged from the second occurrence: {2:2 3:3}.
    const std::string s = wire_builder()
                              .field_message(12, wire_builder().field_varint(1, 1))
                              .field_message(12, wire_builder().field_varint(2, 2))
                              .field_message(12, wire_builder().field_varint(3, 3))
                              .str();
    const message m = root_of(s);
    auto merged = m.merged_child(12, nullptr, 0, nth_tag(m, 12, 1));
    REQUIRE(merged.ok());
    CHECK(merged->merged());
    CHECK(varints_of(*merged) == std::vector<std::uint64_t>{22, 33});
    // From the last occurrence: a plain child.
    auto last = m.merged_child(12, nullptr, 0, nth_tag(m, 12, 2));
    REQUIRE(last.ok());
    CHECK_FALSE(last->merged());
    CHECK(varints_of(*last) == std::vector<std::uint64_t>{33});

    SECTION("inside a merged parent, and inherited by merges below it") {
        // 5 { 12 {1:1} 12 {6 {1:1}} } 5 { 12 {2:2 6 {2:2}} 12 {3:3 6 {3:3}} }: in the
        // merged 5, field 12 merged from its third occurrence is {2:2 6{2:2}
        // 3:3 6{3:3}}, and its merged 6 is {2:2 3:3}.
        const wire_builder six1 = wire_builder().field_varint(1, 1);
        const std::string t =
            wire_builder()
                .field_message(5, wire_builder()
                                      .field_message(12, wire_builder().field_varint(1, 1))
                                      .field_message(12, wire_builder().field_message(6, six1)))
                .field_message(5, wire_builder()
                                      .field_message(12, wire_builder().field_varint(2, 2).field_message(
                                                             6, wire_builder().field_varint(2, 2)))
                                      .field_message(12, wire_builder().field_varint(3, 3).field_message(
                                                             6, wire_builder().field_varint(3, 3))))
                .str();
        auto five = root_of(t).merged_child(5);
        REQUIRE(five.ok());
        auto twelve = five->merged_child(12, nullptr, 0, nth_tag(*five, 12, 2));
        REQUIRE(twelve.ok());
        CHECK(twelve->depth() == 2);
        auto c = twelve->fields();
        field f;
        std::vector<std::uint32_t> numbers;
        while (c.next(f)) numbers.push_back(f.number);
        CHECK(c.err().ok());
        CHECK(numbers == std::vector<std::uint32_t>{2, 6, 3, 6});
        auto six = twelve->merged_child(6);
        REQUIRE(six.ok());
        CHECK(varints_of(*six) == std::vector<std::uint64_t>{22, 33});
        // Without `from`, every occurrence merges.
        auto all = five->merged_child(12);
        REQUIRE(all.ok());
        CHECK(varints_of(*all->merged_child(6)) == std::vector<std::uint64_t>{11, 22, 33});
    }
}

TEST_CASE("merged_child: errors inside any occurrence are reported with absolute offsets") {
    const std::string first = wire_builder().field_message(12, wire_builder().field_varint(1, 1)).str();
    const std::string s = first + wire_builder().field_bytes(12, std::string("\x08\x01\x0F", 3)).str();
    auto merged = root_of(s).merged_child(12);
    REQUIRE(merged.ok());
    CHECK(merged->validate() == error(errc::bad_wire_type, first.size() + 2 + 2));
    // merged_child reports framing errors of the parent.
    const std::string bad = first + wire_builder().field_len_raw(12, 50, "ab").str();
    CHECK(root_of(bad).merged_child(12).err().code == errc::length_out_of_bounds);
}

TEST_CASE("merged_child: nested merges beyond max_merge_path are refused, not misread") {
    // k levels, each split into two occurrences.
    auto chain = [](unsigned k) {
        wire_builder b;
        b.field_varint(2, 42);
        for (unsigned i = 0; i < k; ++i) b = wire_builder().field_message(1, b).field_message(1, wire_builder());
        return b.str();
    };
    for (unsigned k : {max_merge_path, max_merge_path + 1}) {
        const std::string s = chain(k);
        message m = root_of(s);
        error e;
        for (unsigned i = 0; i < k && e.ok(); ++i) {
            auto c = m.merged_child(1);
            if (c.ok())
                m = *c;
            else
                e = c.err();
        }
        if (k == max_merge_path) {
            REQUIRE(e.ok());
            field f;
            bool found = false;
            REQUIRE(m.find_last(2, f, found).ok());
            CHECK(found);
            CHECK(f.raw == 42);
        } else {
            CHECK(e.code == errc::merge_too_deep);
        }
    }
}

TEST_CASE("merged_child: a merged field numbered above merge_path::max_number is refused") {
    // The merge path packs seven bits per level: 127 merges, 128 does not
    // fit and is merge_too_deep; a single occurrence needs no path at all.
    for (std::uint32_t number : {merge_path::max_number, merge_path::max_number + 1, max_field_number}) {
        const std::string two = wire_builder()
                                    .field_message(number, wire_builder().field_varint(1, 1))
                                    .field_message(number, wire_builder().field_varint(2, 2))
                                    .str();
        auto merged = root_of(two).merged_child(number);
        if (number <= merge_path::max_number) {
            REQUIRE(merged.ok());
            CHECK(merged->merged());
            CHECK(merged->path().size() == 1);
            CHECK(merged->path()[0] == number);
            std::vector<std::uint64_t> got;
            auto c = merged->fields();
            field f;
            while (c.next(f)) got.push_back(f.number * 10 + f.raw);
            CHECK(c.err().ok());
            CHECK(got == std::vector<std::uint64_t>{11, 22});
        } else {
            CHECK(merged.err().code == errc::merge_too_deep);
            CHECK(merged.err().offset == two.size() / 2);  // the last occurrence's tag
        }
        const std::string one = wire_builder().field_message(number, wire_builder().field_varint(1, 1)).str();
        auto single = root_of(one).merged_child(number);
        REQUIRE(single.ok());
        CHECK_FALSE(single->merged());
    }
}

TEST_CASE("merge_path: numbers packed per level, in order") {
    merge_path p;
    CHECK(p.empty());
    CHECK(p.size() == 0);
    for (unsigned i = 0; i < max_merge_path; ++i) {
        REQUIRE(p.fits(127 - i));
        p = p.then(127 - i);
    }
    CHECK(p.size() == max_merge_path);
    for (unsigned i = 0; i < max_merge_path; ++i) CHECK(p[i] == 127 - i);
    CHECK_FALSE(p.fits(1));
    CHECK_FALSE(merge_path().fits(merge_path::max_number + 1));
}

TEST_CASE("message handles and cursors carry no merge state on the plain path") {
    // Three pointers, the depth and its limit, one word of merge path; a
    // cursor is a reader plus the merge state a merged message needs.
    if (sizeof(void*) == 8) {
        CHECK(sizeof(message) == 40);
        CHECK(sizeof(message::cursor) <= sizeof(reader) + 8 + 8 + sizeof(error) + 8 * max_merge_path);
    }
}

TEST_CASE("repeated: varint kinds, packed and unpacked mixed, in wire order") {
    const std::string s = wire_builder()
                              .packed_varint(1, {1, 2})
                              .field_varint(1, 3)
                              .field_varint(2, 100)
                              .packed_varint(1, {})
                              .packed_varint(1, {4, 5})
                              .field_varint(1, 6, 10)  // padded
                              .str();
    CHECK(elems<elem_int64>(s, 1) == std::vector<std::int64_t>{1, 2, 3, 4, 5, 6});
    CHECK(elems<elem_uint32>(s, 2) == std::vector<std::uint32_t>{100});
    CHECK(elems<elem_int64>(s, 3).empty());
}

TEST_CASE("repeated: every element kind converts like protobuf") {
    const std::uint64_t minus_one = 0xFFFFFFFFFFFFFFFFull;
    const std::string s = wire_builder()
                              .packed_varint(1, {minus_one, 0x80000000ull, 0x1FFFFFFFFull})
                              .packed_varint(2, {0, 1, 0x100000000ull})
                              .packed_varint(3, {wire::zigzag_encode64(-3), wire::zigzag_encode64(INT64_MIN)})
                              .packed_varint(4, {wire::zigzag_encode32(-3), wire::zigzag_encode32(INT32_MIN)})
                              .packed_fixed32(5, {0x3F800000u, 0xFFFFFFFFu})
                              .packed_fixed64(6, {0xBFF0000000000000ull, 0x8000000000000000ull})
                              .str();
    CHECK(elems<elem_int32>(s, 1) == std::vector<std::int32_t>{-1, INT32_MIN, -1});
    CHECK(elems<elem_uint32>(s, 1) == std::vector<std::uint32_t>{0xFFFFFFFFu, 0x80000000u, 0xFFFFFFFFu});
    CHECK(elems<elem_int64>(s, 1) == std::vector<std::int64_t>{-1, 0x80000000ll, 0x1FFFFFFFFll});
    CHECK(elems<elem_uint64>(s, 1) == std::vector<std::uint64_t>{minus_one, 0x80000000ull, 0x1FFFFFFFFull});
    CHECK(elems<elem_bool>(s, 2) == std::vector<bool>{false, true, true});
    CHECK(elems<elem_sint64>(s, 3) == std::vector<std::int64_t>{-3, INT64_MIN});
    CHECK(elems<elem_sint32>(s, 4) == std::vector<std::int32_t>{-3, INT32_MIN});
    CHECK(elems<elem_float>(s, 5).front() == 1.0f);
    CHECK(elems<elem_fixed32>(s, 5) == std::vector<std::uint32_t>{0x3F800000u, 0xFFFFFFFFu});
    CHECK(elems<elem_sfixed32>(s, 5) == std::vector<std::int32_t>{0x3F800000, -1});
    CHECK(elems<elem_double>(s, 6).front() == -1.0);
    CHECK(elems<elem_fixed64>(s, 6) == std::vector<std::uint64_t>{0xBFF0000000000000ull, 0x8000000000000000ull});
    CHECK(elems<elem_sfixed64>(s, 6) == std::vector<std::int64_t>{static_cast<std::int64_t>(0xBFF0000000000000ull), INT64_MIN});
}

TEST_CASE("repeated: fixed kinds, packed and unpacked mixed") {
    const std::string s = wire_builder()
                              .field_fixed32(1, 1)
                              .packed_fixed32(1, {2, 3})
                              .field_fixed32(1, 4)
                              .packed_fixed64(2, {10})
                              .field_fixed64(2, 11)
                              .packed_fixed64(2, {12, 13})
                              .str();
    CHECK(elems<elem_fixed32>(s, 1) == std::vector<std::uint32_t>{1, 2, 3, 4});
    CHECK(elems<elem_fixed64>(s, 2) == std::vector<std::uint64_t>{10, 11, 12, 13});
}

TEST_CASE("repeated: occurrences with another wire type are skipped (unknown fields to libprotobuf)") {
    const std::string s = wire_builder()
                              .field_varint(1, 1)
                              .field_fixed32(1, 77)  // wrong for a varint field
                              .field_fixed64(1, 78)
                              .group(1, wire_builder().field_varint(1, 79))
                              .field_varint(1, 2)
                              .field_varint(2, 5)  // wrong for a fixed32 field
                              .field_fixed32(2, 6)
                              .str();
    CHECK(elems<elem_int64>(s, 1) == std::vector<std::int64_t>{1, 2});
    CHECK(elems<elem_fixed32>(s, 2) == std::vector<std::uint32_t>{6});
}

TEST_CASE("repeated: packed fixed length not a multiple of the width is bad_packed_length") {
    // libprotobuf 3.21 fails ParseFromString on a packed fixed32 payload of 3
    // or 5 bytes (verified in crosscheck_test.cpp).
    for (std::size_t len : {1u, 3u, 5u, 7u}) {
        const std::string s = wire_builder().field_varint(9, 9).field_bytes(1, std::string(len, '\x01')).str();
        error e;
        elems<elem_fixed32>(root_of(s), 1, e);
        CHECK(e == error(errc::bad_packed_length, 2));
        CHECK(repeated<elem_fixed32>(root_of(s), 1).count().err() == e);
    }
    const std::string s = wire_builder().field_bytes(1, std::string(12, '\x01')).str();
    error e;
    elems<elem_fixed64>(root_of(s), 1, e);
    CHECK(e.code == errc::bad_packed_length);
    CHECK(repeated<elem_fixed64>(root_of(s), 1).count().err().code == errc::bad_packed_length);
    CHECK(elems<elem_fixed32>(s, 1).size() == 3);  // 12 is fine for fixed32
}

TEST_CASE("repeated: a packed varint chunk ending inside a varint is truncated") {
    const std::string s = wire_builder().field_bytes(1, std::string("\x01\x80", 2)).str();
    error e;
    const auto v = elems<elem_int64>(root_of(s), 1, e);
    CHECK(v == std::vector<std::int64_t>{1});
    CHECK(e == error(errc::truncated, 3));
    CHECK(repeated<elem_int64>(root_of(s), 1).count().err() == e);
    const std::string t = wire_builder().field_bytes(1, std::string(11, '\xFF')).str();
    CHECK(repeated<elem_int64>(root_of(t), 1).count().err().code == errc::varint_too_long);
}

TEST_CASE("repeated: a framing error elsewhere in the message ends the iteration with that error") {
    const std::string s = wire_builder().field_varint(1, 1).raw(std::string("\x0E", 1)).str();
    error e;
    const auto v = elems<elem_int64>(root_of(s), 1, e);
    CHECK(v == std::vector<std::int64_t>{1});
    CHECK(e == error(errc::bad_wire_type, 2));
    CHECK(repeated<elem_int64>(root_of(s), 1).count().err() == e);
}

TEST_CASE("repeated: a known number of occurrences stops after the last one") {
    // Two occurrences (a packed chunk counts once), then a field that is not
    // read: with the count given, iteration never reaches the bad byte.
    const std::string s = wire_builder()
                              .field_varint(1, 7)
                              .field_varint(2, 0)
                              .packed_varint(1, {8, 9})
                              .raw(std::string("\x0E", 1))
                              .str();
    repeated<elem_int64> known(root_of(s), 1, 2);
    std::vector<std::int64_t> got;
    for (std::int64_t v : known) got.push_back(v);
    CHECK(got == std::vector<std::int64_t>{7, 8, 9});
    CHECK(known.err().ok());
    error e;  // unknown count: reads to the end and meets the bad byte
    CHECK(elems<elem_int64>(root_of(s), 1, e) == std::vector<std::int64_t>{7, 8, 9});
    CHECK(e.code == errc::bad_wire_type);
    repeated<elem_int64> empty;  // a default range: nothing, no error
    CHECK(empty.begin() == empty.end());
    CHECK(empty.err().ok());
}
