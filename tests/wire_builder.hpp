// tests/wire_builder.hpp - builds protobuf wire payloads by hand, including
// the non-canonical ones a real encoder never writes: padded varints, tags of
// a chosen length, lying lengths, packed and unpacked repeated fields mixed,
// groups, and unknown fields of every wire type. Test-only (it allocates).
//
//   wire_builder b;
//   b.field_varint(1, 150).field_bytes(2, "abc").field_varint(3, 7, 4);  // 7 in 4 bytes
//   b.field_message(4, wire_builder().field_fixed32(1, 42));
//   const std::string& bytes = b.str();
#ifndef ONNXVIEW_TESTS_WIRE_BUILDER_HPP
#define ONNXVIEW_TESTS_WIRE_BUILDER_HPP

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <string_view>

#include "onnxview/wire.hpp"

namespace onnxview {
namespace testing {

class wire_builder {
public:
    using wt = onnxview::wire::wire_type;

    // Bytes of a varint. nbytes 0: minimal encoding. nbytes larger than
    // minimal: padded with 0x80 continuation bytes (non-minimal but valid,
    // up to 10 bytes). nbytes smaller than minimal: the value is cut (the
    // caller asked for a broken encoding; the last byte still ends it).
    static std::string varint_bytes(std::uint64_t v, unsigned nbytes = 0) {
        std::string out;
        if (nbytes == 0) {
            do {
                std::uint8_t b = v & 0x7F;
                v >>= 7;
                if (v != 0) b |= 0x80;
                out.push_back(static_cast<char>(b));
            } while (v != 0);
            return out;
        }
        for (unsigned i = 0; i < nbytes; ++i) {
            std::uint8_t b = v & 0x7F;
            v >>= 7;
            if (i + 1 < nbytes) b |= 0x80;
            out.push_back(static_cast<char>(b));
        }
        return out;
    }
    static unsigned varint_size(std::uint64_t v) { return static_cast<unsigned>(varint_bytes(v).size()); }

    // --- raw pieces -------------------------------------------------------
    wire_builder& raw(std::string_view bytes) {
        buf_.append(bytes.data(), bytes.size());
        return *this;
    }
    wire_builder& byte(std::uint8_t b) {
        buf_.push_back(static_cast<char>(b));
        return *this;
    }
    wire_builder& varint(std::uint64_t v, unsigned nbytes = 0) { return raw(varint_bytes(v, nbytes)); }
    wire_builder& tag(std::uint32_t number, wt type, unsigned nbytes = 0) {
        return varint((static_cast<std::uint64_t>(number) << 3) | static_cast<std::uint64_t>(type), nbytes);
    }
    wire_builder& fixed32(std::uint32_t v) {
        for (int i = 0; i < 4; ++i) byte(static_cast<std::uint8_t>(v >> (8 * i)));
        return *this;
    }
    wire_builder& fixed64(std::uint64_t v) {
        for (int i = 0; i < 8; ++i) byte(static_cast<std::uint8_t>(v >> (8 * i)));
        return *this;
    }

    // --- whole fields -----------------------------------------------------
    wire_builder& field_varint(std::uint32_t n, std::uint64_t v, unsigned nbytes = 0) {
        return tag(n, wt::varint).varint(v, nbytes);
    }
    // int32/enum: negative values are sign-extended to 64 bits (10 bytes), as protobuf writes them.
    wire_builder& field_int32(std::uint32_t n, std::int32_t v) {
        return field_varint(n, static_cast<std::uint64_t>(static_cast<std::int64_t>(v)));
    }
    wire_builder& field_sint32(std::uint32_t n, std::int32_t v) {
        return field_varint(n, onnxview::wire::zigzag_encode32(v));
    }
    wire_builder& field_sint64(std::uint32_t n, std::int64_t v) {
        return field_varint(n, onnxview::wire::zigzag_encode64(v));
    }
    wire_builder& field_fixed32(std::uint32_t n, std::uint32_t v) { return tag(n, wt::fixed32).fixed32(v); }
    wire_builder& field_fixed64(std::uint32_t n, std::uint64_t v) { return tag(n, wt::fixed64).fixed64(v); }
    wire_builder& field_float(std::uint32_t n, float f) {
        std::uint32_t v;
        std::memcpy(&v, &f, 4);
        return field_fixed32(n, v);
    }
    wire_builder& field_double(std::uint32_t n, double d) {
        std::uint64_t v;
        std::memcpy(&v, &d, 8);
        return field_fixed64(n, v);
    }
    // A length-delimited field; len_bytes pads the length varint.
    wire_builder& field_bytes(std::uint32_t n, std::string_view payload, unsigned len_bytes = 0) {
        return tag(n, wt::length_delimited).varint(payload.size(), len_bytes).raw(payload);
    }
    wire_builder& field_message(std::uint32_t n, const wire_builder& m, unsigned len_bytes = 0) {
        return field_bytes(n, m.str(), len_bytes);
    }
    // A length-delimited field whose declared length need not match its payload.
    wire_builder& field_len_raw(std::uint32_t n, std::uint64_t declared_len, std::string_view payload = {}) {
        return tag(n, wt::length_delimited).varint(declared_len).raw(payload);
    }

    // Packed repeated fields: one length-delimited chunk.
    wire_builder& packed_varint(std::uint32_t n, std::initializer_list<std::uint64_t> vs) {
        wire_builder p;
        for (auto v : vs) p.varint(v);
        return field_bytes(n, p.str());
    }
    wire_builder& packed_fixed32(std::uint32_t n, std::initializer_list<std::uint32_t> vs) {
        wire_builder p;
        for (auto v : vs) p.fixed32(v);
        return field_bytes(n, p.str());
    }
    wire_builder& packed_fixed64(std::uint32_t n, std::initializer_list<std::uint64_t> vs) {
        wire_builder p;
        for (auto v : vs) p.fixed64(v);
        return field_bytes(n, p.str());
    }
    // Unpacked repeated fields: one field per element.
    wire_builder& unpacked_varint(std::uint32_t n, std::initializer_list<std::uint64_t> vs) {
        for (auto v : vs) field_varint(n, v);
        return *this;
    }
    wire_builder& unpacked_fixed32(std::uint32_t n, std::initializer_list<std::uint32_t> vs) {
        for (auto v : vs) field_fixed32(n, v);
        return *this;
    }
    wire_builder& unpacked_fixed64(std::uint32_t n, std::initializer_list<std::uint64_t> vs) {
        for (auto v : vs) field_fixed64(n, v);
        return *this;
    }

    // Groups (wire types 3 and 4).
    wire_builder& start_group(std::uint32_t n) { return tag(n, wt::start_group); }
    wire_builder& end_group(std::uint32_t n) { return tag(n, wt::end_group); }
    wire_builder& group(std::uint32_t n, const wire_builder& content) {
        return start_group(n).raw(content.str()).end_group(n);
    }

    // One unknown field of every wire type (varint, fixed64, length-delimited,
    // a group with content, fixed32), numbered first, first+1, ... first+4.
    wire_builder& unknown_fields(std::uint32_t first) {
        field_varint(first, 0xFFFFFFFFFFFFFFFFull);
        field_fixed64(first + 1, 0x0123456789ABCDEFull);
        field_bytes(first + 2, "unknown");
        group(first + 3, wire_builder().field_varint(1, 1).group(2, wire_builder().field_fixed32(3, 3)));
        field_fixed32(first + 4, 0xDEADBEEFu);
        return *this;
    }

    const std::string& str() const noexcept { return buf_; }
    std::size_t size() const noexcept { return buf_.size(); }

private:
    std::string buf_;
};

}  // namespace testing
}  // namespace onnxview

#endif  // ONNXVIEW_TESTS_WIRE_BUILDER_HPP
