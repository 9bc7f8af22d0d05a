// onnxview/wire_encode.hpp - the encoding half of the protobuf wire format:
// sizes and bytes of varints, tags and length prefixes. Knows nothing of
// ONNX; the decoder is onnxview/wire.hpp.
//
// Every function writes into a caller buffer of at least max_varint_bytes
// (10) bytes and returns the number of bytes written; nothing allocates,
// nothing fails. Header-only.
#ifndef ONNXVIEW_WIRE_ENCODE_HPP
#define ONNXVIEW_WIRE_ENCODE_HPP

#include <cstddef>
#include <cstdint>

#include "onnxview/wire.hpp"

namespace onnxview {
namespace wire {

// Bytes of the shortest varint encoding of v (1-10).
constexpr unsigned varint_size(std::uint64_t v) noexcept {
    unsigned n = 1;
    while (v >= 0x80) v >>= 7, ++n;
    return n;
}

// Writes v as a varint of exactly `width` bytes (width >= varint_size(v),
// at most 10): the shortest form when width is varint_size(v), else padded
// with continuation bytes holding zero bits. Protobuf parsers (libprotobuf,
// upb, this decoder) accept such padded varints for any value, which lets a
// writer fix a length prefix's width before the length is final.
inline unsigned encode_varint(char* out, std::uint64_t v, unsigned width) noexcept {
    for (unsigned i = 0; i + 1 < width; ++i) {
        out[i] = static_cast<char>(static_cast<std::uint8_t>(v & 0x7F) | 0x80);
        v >>= 7;
    }
    out[width - 1] = static_cast<char>(static_cast<std::uint8_t>(v));
    return width;
}
inline unsigned encode_varint(char* out, std::uint64_t v) noexcept { return encode_varint(out, v, varint_size(v)); }

constexpr std::uint64_t make_tag(std::uint32_t number, wire_type type) noexcept {
    return static_cast<std::uint64_t>(number) << 3 | static_cast<std::uint64_t>(type);
}
constexpr unsigned tag_size(std::uint32_t number) noexcept { return varint_size(make_tag(number, wire_type::varint)); }

inline unsigned encode_tag(char* out, std::uint32_t number, wire_type type) noexcept {
    return encode_varint(out, make_tag(number, type));
}

// Bytes of a whole length-delimited field of `number` whose payload is
// `length` bytes: tag, shortest length prefix, payload.
constexpr std::uint64_t length_delimited_size(std::uint32_t number, std::uint64_t length) noexcept {
    return tag_size(number) + varint_size(length) + length;
}

}  // namespace wire
}  // namespace onnxview

#endif  // ONNXVIEW_WIRE_ENCODE_HPP
