// Decoding never allocates: the global operator new is replaced by one that
// counts calls while a decode is running.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>

#include "../wire_builder.hpp"
#include "onnxview/wire_repeated.hpp"

namespace {
std::atomic<bool> counting{false};
std::atomic<unsigned long> allocations{0};
}  // namespace

// g++ 12 sees free() on memory from `new` once these are inlined into a
// new/delete pair and warns; here both sides are malloc/free by construction.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void* operator new(std::size_t n) {
    if (counting.load()) ++allocations;
    if (void* p = std::malloc(n ? n : 1)) return p;
    std::abort();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

using namespace onnxview;
using namespace onnxview::wire;
using onnxview::testing::wire_builder;

namespace {
// Touches everything the wire layer offers; returns a checksum.
std::uint64_t decode_all(const message& m, error& err) {
    std::uint64_t sum = 0;
    auto c = m.fields();
    field f;
    while (c.next(f)) {
        sum += f.number + f.raw;
        if (f.number == 10 && f.type == wire_type::length_delimited) {
            auto ch = m.child(f);
            if (!ch.ok()) return err = ch.err(), sum;
            sum += decode_all(*ch, err);
        }
    }
    if (c.err()) return err = c.err(), sum;
    auto merged = m.merged_child(12);
    if (!merged.ok()) return err = merged.err(), sum;
    if (!merged->empty()) sum += decode_all(*merged, err);
    repeated<elem_int64> r(m, 20);
    for (auto v : r) sum += static_cast<std::uint64_t>(v);
    repeated<elem_double> d(m, 21);
    for (auto v : d) sum += static_cast<std::uint64_t>(v);
    auto n = r.count();
    if (n.ok()) sum += *n;
    field last;
    bool found = false;
    if (const error e = m.find_last(1, last, found)) err = e;
    if (const error e = m.validate()) err = e;
    return sum;
}
}  // namespace

TEST_CASE("decoding performs no heap allocation") {
    const std::string s = wire_builder()
                              .field_varint(1, 1)
                              .field_message(10, wire_builder().field_varint(2, 2).packed_varint(20, {1, 2}))
                              .field_message(12, wire_builder().field_varint(3, 3))
                              .unknown_fields(100)
                              .field_message(12, wire_builder().field_message(10, wire_builder().field_varint(4, 4)))
                              .packed_varint(20, {5, 6, 7})
                              .field_varint(20, 8)
                              .packed_fixed64(21, {0x4000000000000000ull})
                              .group(30, wire_builder().group(31, wire_builder().field_bytes(1, "g")))
                              .str();
    const std::string bad = s + std::string("\x0F", 1);
    error e1, e2;
    allocations = 0;
    counting = true;
    const std::uint64_t sum = decode_all(message::root(s.data(), s.size()), e1);
    decode_all(message::root(bad.data(), bad.size()), e2);
    counting = false;
    CHECK(allocations.load() == 0);
    CHECK(e1.ok());
    CHECK(e2.code == errc::bad_wire_type);
    CHECK(sum > 0);
    // The counter works: an allocation while counting is seen.
    counting = true;
    auto* probe = new int(1);
    counting = false;
    delete probe;
    CHECK(allocations.load() == 1);
}
