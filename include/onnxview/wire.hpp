// onnxview/wire.hpp - a zero-copy decoder of the protobuf wire format.
//
// This layer knows nothing of ONNX. It turns a byte range into fields, and
// fields into values, without copying and without allocating:
//
//   * decode_varint / decode_tag / load_le32 / load_le64 / next_packed / decode_value:
//     primitives over a (const char*& p, const char* end) pair;
//     varints_well_formed / check_varints / check_packed: a packed chunk checked.
//   * field:   one decoded field (number, wire type, value or payload).
//   * reader:  a trivially copyable forward cursor over one contiguous message.
//   * message: a view of one message, possibly made of several occurrences of a
//     singular message field that protobuf merges (see message::merged_child).
//   * repeated<Elem>: the elements of a repeated scalar field, in order, from
//     any mix of packed chunks and unpacked occurrences.
//
// Lifetime: every view points into the caller's bytes and is valid while
// those bytes are. Offsets in errors count from the start of the root buffer.
//
// Compatibility with libprotobuf (the reference): tags are read as libprotobuf
// reads them (at most 5 bytes, value kept modulo 2^32); varints as at most 10
// bytes with bits past 64 dropped. Lengths are 64-bit (up to 10 bytes), so
// messages over 2 GiB - which libprotobuf refuses by design - are read too.
#ifndef ONNXVIEW_WIRE_HPP
#define ONNXVIEW_WIRE_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string_view>

#include "onnxview/error.hpp"

namespace onnxview {
namespace wire {

enum class wire_type : std::uint8_t {
    varint = 0,
    fixed64 = 1,
    length_delimited = 2,
    start_group = 3,
    end_group = 4,
    fixed32 = 5,
};

// Whether libprotobuf reads an occurrence of wire type `t` as a field whose
// values are written as `encoding`; any other occurrence is an unknown field.
// Packable fields (repeated numbers and enums) also take packed chunks, in
// either encoding whatever the schema prefers.
constexpr bool takes_wire_type(wire_type encoding, bool packable, wire_type t) noexcept {
    return t == encoding || (packable && t == wire_type::length_delimited);
}

// Whether a proto2 (closed) enum field takes the varint `raw`: libprotobuf
// reads it as an int32 and keeps a number the enum does not define as an
// unknown field (the field keeps its previous value). For an enum that
// defines exactly 0..max, as every ONNX enum does (the schema generator
// refuses gaps).
constexpr bool closed_enum_takes(std::uint64_t raw, std::int32_t max) noexcept {
    const auto v = static_cast<std::int32_t>(static_cast<std::uint32_t>(raw));
    return v >= 0 && v <= max;
}

constexpr std::uint32_t max_field_number = (1u << 29) - 1;
constexpr unsigned max_varint_bytes = 10;
constexpr unsigned max_tag_bytes = 5;       // libprotobuf's limit for a tag varint
constexpr std::uint32_t default_max_depth = 100;  // libprotobuf's default recursion limit
// The deepest nesting limit a caller may ask for; larger requests get this
// one. A message handle keeps its depths in 16 bits, and a recursive reader
// (libprotobuf's included) overflows its stack long before.
constexpr std::uint32_t max_depth_limit = 0xFFFF;
// The depth limit a request means: 0 is the default, larger than
// max_depth_limit is max_depth_limit.
constexpr std::uint32_t effective_max_depth(std::uint32_t requested) noexcept {
    return requested == 0 ? default_max_depth : requested > max_depth_limit ? max_depth_limit : requested;
}
constexpr unsigned max_merge_path = 8;      // nested merged singular messages one view can follow

// ---------------------------------------------------------------------------
// Primitives. Each reads from p (advancing it on success) and never reads at
// or past end. On failure p is left unchanged.

// A varint of at most 10 bytes; bits above 64 are dropped as libprotobuf does.
[[nodiscard]] inline errc decode_varint_slow(const char*& p, const char* end,
                                             std::uint64_t& value) noexcept {
    const char* q = p;
    std::uint64_t result = 0;
    for (unsigned shift = 0; shift < 7 * max_varint_bytes; shift += 7) {
        if (q == end) return errc::truncated;
        const auto byte = static_cast<std::uint8_t>(*q++);
        result |= static_cast<std::uint64_t>(byte & 0x7F) << shift;  // shift 63: high bits drop
        if (byte < 0x80) {
            value = result;
            p = q;
            return errc::ok;
        }
    }
    return errc::varint_too_long;
}
[[nodiscard]] inline errc decode_varint(const char*& p, const char* end,
                                        std::uint64_t& value) noexcept {
    // Most varints in ONNX (lengths of names, small enums, dims) fit one byte.
    if (p != end && static_cast<std::uint8_t>(*p) < 0x80) {
        value = static_cast<std::uint8_t>(*p++);
        return errc::ok;
    }
    return decode_varint_slow(p, end, value);
}

// A tag: at most 5 varint bytes, value modulo 2^32 (libprotobuf's ReadTag).
// Checks the field number (not 0) and the wire type (not 6 or 7).
[[nodiscard]] inline errc decode_tag(const char*& p, const char* end, std::uint32_t& number,
                                     wire_type& type) noexcept {
    const char* q = p;
    std::uint32_t tag = 0;
    if (q != end && static_cast<std::uint8_t>(*q) < 0x80) {  // fields 1-15: one byte
        tag = static_cast<std::uint8_t>(*q++);
    } else {
        for (unsigned i = 0;; ++i) {
            if (i == max_tag_bytes) return errc::varint_too_long;
            if (q == end) return errc::truncated;
            const auto byte = static_cast<std::uint8_t>(*q++);
            tag |= static_cast<std::uint32_t>(byte & 0x7F) << (7 * i);  // i == 4: bits past 32 drop
            if (byte < 0x80) break;
        }
    }
    const std::uint32_t t = tag & 7u;
    if (t > 5) return errc::bad_wire_type;
    if ((tag >> 3) == 0) return errc::bad_field_number;
    number = tag >> 3;
    type = static_cast<wire_type>(t);
    p = q;
    return errc::ok;
}

// Little-endian loads through memcpy: protobuf data is unaligned, and this
// reads correctly on big-endian hosts too.
inline std::uint32_t load_le32(const char* p) noexcept {
    unsigned char b[4];
    std::memcpy(b, p, 4);
    return static_cast<std::uint32_t>(b[0]) | static_cast<std::uint32_t>(b[1]) << 8 |
           static_cast<std::uint32_t>(b[2]) << 16 | static_cast<std::uint32_t>(b[3]) << 24;
}
inline std::uint64_t load_le64(const char* p) noexcept {
    return static_cast<std::uint64_t>(load_le32(p)) |
           static_cast<std::uint64_t>(load_le32(p + 4)) << 32;
}

// Index (0-7, from the low end) of the lowest / highest byte of x that has
// its top bit set; x != 0 and only top bits set.
inline unsigned lowest_set_byte(std::uint64_t x) noexcept {
#if defined(__GNUC__) || defined(__clang__)
    return static_cast<unsigned>(__builtin_ctzll(x)) / 8;
#else
    unsigned i = 0;
    while ((x & 0x80) == 0) x >>= 8, ++i;
    return i;
#endif
}
inline unsigned highest_set_byte(std::uint64_t x) noexcept {
#if defined(__GNUC__) || defined(__clang__)
    return 7 - static_cast<unsigned>(__builtin_clzll(x)) / 8;
#else
    unsigned i = 7;
    while ((x & (std::uint64_t(0x80) << 56)) == 0) x <<= 8, --i;
    return i;
#endif
}

// Whether [p, end) is a sequence of whole varints, each of at most 10 bytes
// (a packed chunk of varint elements, as libprotobuf accepts it), without
// decoding them: every run of continuation bytes is shorter than 10 and the
// last byte ends a varint. Eight bytes at a time; decode_varint() on each
// element names the error when this says no.
inline bool varints_well_formed(const char* p, const char* end) noexcept {
    if (p == end) return true;
    if (static_cast<std::uint8_t>(end[-1]) >= 0x80) return false;
    unsigned run = 0;  // continuation bytes since the last byte that ended a varint
    for (; end - p >= 8; p += 8) {
        const std::uint64_t ends = ~load_le64(p) & 0x8080808080808080ull;  // bytes < 0x80
        if (ends == 0) {
            run += 8;
            if (run >= max_varint_bytes) return false;
            continue;
        }
        // Bytes before the first end continue the current varint; runs between
        // two ends within eight bytes are shorter than ten; the bytes after
        // the last end start the next run.
        if (run + lowest_set_byte(ends) >= max_varint_bytes) return false;
        run = 7 - highest_set_byte(ends);
    }
    for (; p != end; ++p) {
        if (static_cast<std::uint8_t>(*p) < 0x80) {
            run = 0;
        } else if (++run >= max_varint_bytes) {
            return false;
        }
    }
    return true;
}

// Checks a packed chunk of varints as libprotobuf does: errc::ok, or the
// error decode_varint() gives for the first malformed element, with `bad` set
// to its first byte. A well-formed chunk is checked eight bytes at a time.
inline errc check_varints(const char* p, const char* end, const char*& bad) noexcept {
    if (varints_well_formed(p, end)) return errc::ok;
    while (p != end) {
        bad = p;
        std::uint64_t v;
        const errc e = decode_varint(p, end, v);
        if (e != errc::ok) return e;
    }
    return errc::ok;
}

// The tag at q when it is one the fast paths of the views and cursors
// decide by table: a field number below 32 in minimal encoding (one byte, or
// a first byte with the top bit set followed by 1). Its table index (0-255:
// the byte, or its low seven bits plus 0x80) goes to index and q moves past
// it; any other tag gives false and leaves q. Precondition: q != end.
constexpr std::uint32_t short_tag_count = 256;
inline bool decode_short_tag(const char*& q, const char* end, std::uint32_t& index) noexcept {
    const std::uint32_t first = static_cast<std::uint8_t>(*q);
    if (first < 0x80) {
        index = first;
        ++q;
        return true;
    }
    if (end - q < 2 || q[1] != 1) return false;
    index = (first & 0x7F) | 0x80;
    q += 2;
    return true;
}

// A varint of one or two bytes at q (values up to 16383, non-minimal ones
// included), which the inline paths of the reader and the cursors decode:
// moves q past it; anything else gives false and leaves q, for the general
// decoder (longer varints, truncated input).
inline bool decode_short_varint(const char*& q, const char* end, std::uint64_t& v) noexcept {
    if (q == end) return false;
    const auto b0 = static_cast<std::uint8_t>(q[0]);
    if (b0 < 0x80) {
        v = b0;
        q += 1;
        return true;
    }
    if (end - q < 2 || static_cast<std::uint8_t>(q[1]) >= 0x80) return false;
    v = (b0 & 0x7Fu) | static_cast<std::uint64_t>(static_cast<std::uint8_t>(q[1])) << 7;
    q += 2;
    return true;
}

// The next element of a packed run of `width`-byte elements (0: varints,
// else 4 or 8) that has bytes left in [p, end), moving p past it: ok, or
// truncated / varint_too_long with p left where it was. The one element
// decoder of every packed reader (repeated, cursors' elements, tensor
// entries, the printers).
[[nodiscard]] inline errc next_packed(const char*& p, const char* end, unsigned width,
                                      std::uint64_t& raw) noexcept {
    if (width == 0) return decode_varint(p, end, raw);
    if (end - p < static_cast<std::ptrdiff_t>(width)) return errc::truncated;
    raw = width == 4 ? load_le32(p) : load_le64(p);
    p += width;
    return errc::ok;
}

// The value of a field of wire type W (varint, fixed64, length_delimited or
// fixed32) whose tag ends at q, moving q past it: the value, or the length,
// in v; where a length-delimited payload starts in payload (q for the
// others). False when it is malformed or runs past end (q then unspecified):
// the fast paths of the views and cursors, which leave naming the error to
// reader::next().
template <wire_type W>
inline bool decode_value(const char*& q, const char* end, const char*& payload, std::uint64_t& v) noexcept {
    payload = q;
    switch (W) {
        case wire_type::varint: return decode_varint(q, end, v) == errc::ok;
        case wire_type::fixed64:
            if (end - q < 8) return false;
            v = load_le64(q);
            q += 8;
            return true;
        case wire_type::fixed32:
            if (end - q < 4) return false;
            v = load_le32(q);
            q += 4;
            return true;
        default:  // length_delimited; compare with the bytes remaining, never form q + v first
            if (decode_varint(q, end, v) != errc::ok || v > static_cast<std::uint64_t>(end - q)) return false;
            payload = q;
            q += v;
            return true;
    }
}

inline float bits_to_float(std::uint32_t bits) noexcept {
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}
inline double bits_to_double(std::uint64_t bits) noexcept {
    double d;
    std::memcpy(&d, &bits, 8);
    return d;
}

constexpr std::uint32_t zigzag_encode32(std::int32_t v) noexcept {
    return (static_cast<std::uint32_t>(v) << 1) ^ static_cast<std::uint32_t>(-(static_cast<std::uint32_t>(v) >> 31));
}
constexpr std::uint64_t zigzag_encode64(std::int64_t v) noexcept {
    return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(-(static_cast<std::uint64_t>(v) >> 63));
}
constexpr std::int32_t zigzag_decode32(std::uint32_t v) noexcept {
    return static_cast<std::int32_t>((v >> 1) ^ (~(v & 1) + 1));
}
constexpr std::int64_t zigzag_decode64(std::uint64_t v) noexcept {
    return static_cast<std::int64_t>((v >> 1) ^ (~(v & 1) + 1));
}

// ---------------------------------------------------------------------------
// One decoded field. For varint/fixed fields `raw` is the value (fixed values
// as their bit pattern). For length-delimited fields `raw` is the length and
// [payload, payload + raw) the bytes. For groups [payload, payload + raw) is
// the group's content, without the end-group tag.
struct field {
    const char* tag = nullptr;      // first byte of the tag
    const char* payload = nullptr;  // first byte after the tag
    std::uint64_t raw = 0;
    std::uint32_t number = 0;
    wire_type type = wire_type::varint;

    std::uint64_t as_uint64() const noexcept { return raw; }
    std::int64_t as_int64() const noexcept { return static_cast<std::int64_t>(raw); }
    // int32/enum fields may arrive as 64-bit (sign-extended) varints: keep the low 32 bits.
    std::int32_t as_int32() const noexcept { return static_cast<std::int32_t>(static_cast<std::uint32_t>(raw)); }
    std::uint32_t as_uint32() const noexcept { return static_cast<std::uint32_t>(raw); }
    bool as_bool() const noexcept { return raw != 0; }
    float as_float() const noexcept { return bits_to_float(static_cast<std::uint32_t>(raw)); }
    double as_double() const noexcept { return bits_to_double(raw); }
    // The payload of a length-delimited field or the content of a group;
    // empty for the other wire types (whose raw is a value, not a length).
    std::string_view bytes() const noexcept {
        if (type != wire_type::length_delimited && type != wire_type::start_group) return {};
        return std::string_view(payload, static_cast<std::size_t>(raw));
    }
};

// Checks a packed chunk (a length-delimited occurrence f of a repeated
// scalar field whose elements are `width` bytes wide, 0 for varints) as
// libprotobuf's parser does: a fixed-width chunk with a partial trailing
// element is bad_packed_length at its tag; a varint chunk fails at its first
// malformed element. Offsets count from base.
inline error check_packed(const char* base, const field& f, unsigned width) noexcept {
    if (width != 0) {
        if (f.raw % width != 0) return error(errc::bad_packed_length, static_cast<std::uint64_t>(f.tag - base));
        return error();
    }
    const char* bad = nullptr;
    const errc e = check_varints(f.payload, f.payload + f.raw, bad);
    if (e != errc::ok) return error(e, static_cast<std::uint64_t>(bad - base));
    return error();
}

// Skips a group's content after its start tag (nested groups included) up to
// and including the end-group tag of the same number. `depth` is the nesting
// depth of the group itself. On success p is past the end-group tag and
// content_end at its first byte; on failure error_at is the offending byte.
// Defined in src/wire/group.cpp (groups are rare; ONNX never writes them).
[[nodiscard]] errc skip_group(const char*& p, const char* end, std::uint32_t number,
                              std::uint32_t depth, std::uint32_t max_depth,
                              const char*& content_end, const char*& error_at) noexcept;

// ---------------------------------------------------------------------------
// A forward cursor over the fields of one contiguous message. Trivially
// copyable: a copy remembers the position. Each next() validates one field's
// framing (tag, value, length within this message, groups well nested).
class reader {
public:
    reader() noexcept = default;
    // [begin, end) are the message bytes; base is the start of the root buffer
    // (for error offsets); depth is this message's nesting depth (root = 0).
    reader(const char* base, const char* begin, const char* end, std::uint32_t depth = 0,
           std::uint32_t max_depth = default_max_depth) noexcept
        : base_(base), p_(begin), end_(end), depth_(depth), max_depth_(max_depth) {}

    bool at_end() const noexcept { return p_ == end_; }
    const char* position() const noexcept { return p_; }
    const char* end() const noexcept { return end_; }
    std::uint64_t offset() const noexcept { return static_cast<std::uint64_t>(p_ - base_); }
    std::uint32_t depth() const noexcept { return depth_; }
    std::uint32_t max_depth() const noexcept { return max_depth_; }
    const char* base() const noexcept { return base_; }

    // Decodes the next field into f. Returns an error (with the offset of the
    // offending byte) on malformed input; the cursor does not move then.
    // Precondition: !at_end().
    [[nodiscard]] error next(field& f) noexcept {
        const char* q = p_;
        // Most ONNX fields have a one-byte tag and a varint value or length of
        // one or two bytes (nodes and attributes are mostly 128 bytes to 16 KiB
        // long); those are decoded here without the general path's checks.
        const auto t = static_cast<std::uint8_t>(*q);
        const char* after = q + 1;
        std::uint64_t v;
        if (t >= 8 && t < 0x80 && decode_short_varint(after, end_, v)) {
            // Compare with the bytes remaining, never form after + v first.
            if ((t & 7) == 2 && v <= static_cast<std::uint64_t>(end_ - after)) {
                f.tag = q;
                f.number = t >> 3;
                f.type = wire_type::length_delimited;
                f.raw = v;
                f.payload = after;
                p_ = after + v;
                return error();
            }
            if ((t & 7) == 0) {
                f.tag = q;
                f.number = t >> 3;
                f.type = wire_type::varint;
                f.raw = v;
                f.payload = q + 1;
                p_ = after;
                return error();
            }
        }
        f.tag = q;
        errc e = decode_tag(q, end_, f.number, f.type);
        if (e != errc::ok) return error(e, offset());
        f.payload = q;
        switch (f.type) {
            case wire_type::varint:
                e = decode_varint(q, end_, f.raw);
                if (e != errc::ok) return error(e, static_cast<std::uint64_t>(f.payload - base_));
                break;
            case wire_type::fixed64:
                if (end_ - q < 8) return error(errc::truncated, static_cast<std::uint64_t>(q - base_));
                f.raw = load_le64(q);
                q += 8;
                break;
            case wire_type::fixed32:
                if (end_ - q < 4) return error(errc::truncated, static_cast<std::uint64_t>(q - base_));
                f.raw = load_le32(q);
                q += 4;
                break;
            case wire_type::length_delimited: {
                const char* len_at = q;
                e = decode_varint(q, end_, f.raw);
                if (e != errc::ok) return error(e, static_cast<std::uint64_t>(len_at - base_));
                // Compare with the bytes remaining, never form q + raw first.
                if (f.raw > static_cast<std::uint64_t>(end_ - q))
                    return error(q == end_ || f.raw == 0 ? errc::truncated : errc::length_out_of_bounds,
                                 static_cast<std::uint64_t>(len_at - base_));
                f.payload = q;
                q += f.raw;
                break;
            }
            case wire_type::start_group: {
                const char* content_end = q;
                const char* err_at = q;
                e = skip_group(q, end_, f.number, depth_ + 1, max_depth_, content_end, err_at);
                if (e != errc::ok) return error(e, static_cast<std::uint64_t>(err_at - base_));
                f.raw = static_cast<std::uint64_t>(content_end - f.payload);
                break;
            }
            case wire_type::end_group:
                return error(errc::unmatched_end_group, offset());
        }
        p_ = q;
        return error();
    }

    // Skips one field. Same errors as next().
    [[nodiscard]] error skip() noexcept {
        field f;
        return next(f);
    }

private:
    const char* base_ = nullptr;
    const char* p_ = nullptr;
    const char* end_ = nullptr;
    std::uint32_t depth_ = 0;
    std::uint32_t max_depth_ = default_max_depth;
};

}  // namespace wire
}  // namespace onnxview

#endif  // ONNXVIEW_WIRE_HPP
