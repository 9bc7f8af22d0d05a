// fuzz/fuzz_wire.cpp - the wire layer on arbitrary bytes.
//
// Every primitive at every offset, the reader over the whole buffer and, as
// messages, inside every length-delimited payload (to a bounded depth);
// message::child / merged_child / find_last / validate for every field number
// seen; and every repeated-scalar element kind over every field number seen,
// where iteration and count() must agree. Contracts checked besides memory
// safety: a decoded field never reaches past its message; primitives leave p
// unchanged on failure and advance it within [p, end] on success; errors carry
// offsets inside the buffer.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "fuzz_check.hpp"
#include "onnxview/wire_repeated.hpp"

namespace {

using namespace onnxview;
using namespace onnxview::wire;

const char* g_base = nullptr;
std::size_t g_size = 0;

void check_offset(error e) {
    if (!e.ok()) FUZZ_CHECK(e.offset <= g_size);
}

template <class Elem>
void repeated_kind(const message& m, std::uint32_t number) {
    repeated<Elem> r(m, number);
    std::uint64_t n = 0;
    for (auto v : r) {
        (void)v;
        ++n;
    }
    const error iter_err = r.err();
    check_offset(iter_err);
    const result<std::uint64_t> c = r.count();
    // count() validates everything iteration does, and reports the same error.
    FUZZ_CHECK(c.ok() == iter_err.ok());
    if (c.ok()) {
        FUZZ_CHECK(*c == n);
    } else {
        FUZZ_CHECK(c.err() == iter_err);
    }
}

void repeated_all(const message& m, std::uint32_t number) {
    repeated_kind<elem_int64>(m, number);
    repeated_kind<elem_uint64>(m, number);
    repeated_kind<elem_int32>(m, number);
    repeated_kind<elem_uint32>(m, number);
    repeated_kind<elem_bool>(m, number);
    repeated_kind<elem_sint32>(m, number);
    repeated_kind<elem_sint64>(m, number);
    repeated_kind<elem_float>(m, number);
    repeated_kind<elem_double>(m, number);
    repeated_kind<elem_fixed32>(m, number);
    repeated_kind<elem_fixed64>(m, number);
    repeated_kind<elem_sfixed32>(m, number);
    repeated_kind<elem_sfixed64>(m, number);
}

// Walks a message: every field, every distinct field number's children,
// merged view and repeated ranges; recurses into payloads up to the depth
// limit, and at most `budget` messages in all (keeps each input linear-ish).
void walk(const message& m, unsigned& budget) {
    if (budget == 0) return;
    --budget;
    const error v = m.validate();
    check_offset(v);

    std::uint32_t numbers[8];
    unsigned n_numbers = 0;
    auto c = m.fields();
    field f;
    unsigned count = 0;
    while (c.next(f)) {
        ++count;
        FUZZ_CHECK(f.number >= 1 && f.number <= max_field_number);
        FUZZ_CHECK(f.tag >= m.begin() && f.tag < m.end());
        FUZZ_CHECK(f.payload > f.tag && f.payload <= m.end());
        if (f.type == wire_type::length_delimited || f.type == wire_type::start_group) {
            const std::string_view b = f.bytes();
            FUZZ_CHECK(b.size() <= static_cast<std::size_t>(m.end() - f.payload));
        }
        if (f.type == wire_type::length_delimited) {
            const result<message> child = m.child(f);
            if (child.ok()) {
                FUZZ_CHECK(child->depth() == m.depth() + 1);
                walk(*child, budget);
            } else {
                FUZZ_CHECK(child.err().code == errc::depth_exceeded);
            }
        }
        bool seen = false;
        for (unsigned i = 0; i < n_numbers; ++i) seen = seen || numbers[i] == f.number;
        if (!seen && n_numbers < 8) numbers[n_numbers++] = f.number;
    }
    check_offset(c.err());
    // A plain message's cursor and validate() agree (merged ones may meet an
    // error in an occurrence that validate() of the region does not enter).
    if (!m.merged()) FUZZ_CHECK(c.err().ok() == v.ok());

    for (unsigned i = 0; i < n_numbers; ++i) {
        field last;
        bool found = false;
        const error e = m.find_last(numbers[i], last, found);
        check_offset(e);
        if (e.ok()) FUZZ_CHECK(found);
        const result<message> merged = m.merged_child(numbers[i]);
        if (merged.ok()) {
            walk(*merged, budget);
        } else {
            check_offset(merged.err());
        }
        repeated_all(m, numbers[i]);
    }
}

void primitives(const char* data, std::size_t size) {
    const char* end = data + size;
    // At most 256 starting offsets: each primitive reads at most 10 bytes.
    for (std::size_t i = 0; i < size && i < 256; ++i) {
        const char* p = data + i;
        std::uint64_t v = 0;
        const errc e = decode_varint(p, end, v);
        if (e == errc::ok) {
            FUZZ_CHECK(p > data + i && p <= end && p - (data + i) <= 10);
        } else {
            FUZZ_CHECK(p == data + i);
            FUZZ_CHECK(e == errc::truncated || e == errc::varint_too_long);
        }
        p = data + i;
        std::uint32_t number = 0;
        wire_type t;
        const errc et = decode_tag(p, end, number, t);
        if (et == errc::ok) {
            FUZZ_CHECK(p > data + i && p <= end && p - (data + i) <= 5);
            FUZZ_CHECK(number >= 1 && number <= max_field_number);
            FUZZ_CHECK(static_cast<unsigned>(t) <= 5);
        } else {
            FUZZ_CHECK(p == data + i);
        }
        if (end - (data + i) >= 8) {
            const std::uint64_t x = load_le64(data + i);
            FUZZ_CHECK(static_cast<std::uint32_t>(x) == load_le32(data + i));
            FUZZ_CHECK(zigzag_encode64(zigzag_decode64(x)) == x);
            FUZZ_CHECK(zigzag_encode32(zigzag_decode32(static_cast<std::uint32_t>(x))) ==
                       static_cast<std::uint32_t>(x));
        }
    }
    // The raw reader, field by field, with skip() on a copy: a copy of the
    // cursor is a saved position.
    reader r(data, data, end);
    while (!r.at_end()) {
        reader saved = r;
        field f;
        const error e = r.next(f);
        check_offset(e);
        if (!e.ok()) {
            FUZZ_CHECK(r.position() == saved.position());
            FUZZ_CHECK(saved.skip() == e);
            break;
        }
        FUZZ_CHECK(saved.skip().ok());
        FUZZ_CHECK(saved.position() == r.position());
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    // The first byte picks a depth limit (1..64) so the limit's edges are
    // explored; the rest is the message.
    if (size == 0) return 0;
    const std::uint32_t max_depth = 1 + data[0] % 64;
    const char* bytes = reinterpret_cast<const char*>(data + 1);
    const std::size_t n = size - 1;
    g_base = bytes;
    g_size = n;
    primitives(bytes, n);
    unsigned budget = 500;
    walk(message::root(bytes, n, max_depth), budget);
    return 0;
}
