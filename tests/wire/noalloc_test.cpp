// Decoding never allocates: the global operator new of wire_tests is the
// counting one (tests/new_counter.cpp), on while a decode is running.
#include <catch2/catch.hpp>

#include <new>
#include <string>

#include "../new_counter.hpp"
#include "../wire_builder.hpp"
#include "onnxview/wire_repeated.hpp"

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
    const unsigned long before = onnxview_test::new_calls();
    std::uint64_t sum = 0;
    {
        onnxview_test::counting_new counting;
        sum = decode_all(message::root(s.data(), s.size()), e1);
        decode_all(message::root(bad.data(), bad.size()), e2);
    }
    CHECK(onnxview_test::new_calls() == before);
    CHECK(e1.ok());
    CHECK(e2.code == errc::bad_wire_type);
    CHECK(sum > 0);
    // The counter works: an allocation while counting is seen.
    // (A call of the function itself: a new-expression may be elided.)
    void* probe = nullptr;
    {
        onnxview_test::counting_new counting;
        probe = ::operator new(sizeof(int));
    }
    ::operator delete(probe);
    CHECK(onnxview_test::new_calls() == before + 1);
}
