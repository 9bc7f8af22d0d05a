// onnxview/tensor_decode.hpp - a tensor's elements decoded one at a time.
//
// element_cursor reads each element's bit pattern from raw_data, a typed
// field (packed or not) or an external payload; the detail functions turn a
// pattern into the element's natural C++ type or into float/double. The
// ranges of onnxview/tensor_data.hpp are built on them. element_cursor is
// also public as the lowest level of reading: bit patterns exactly as
// stored (e.g. to compare NaN payloads), for any data type but STRING.
#ifndef ONNXVIEW_TENSOR_DECODE_HPP
#define ONNXVIEW_TENSOR_DECODE_HPP

#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "onnxview/data_types.hpp"
#include "onnxview/float_formats.hpp"
#include "onnxview/tensor_storage.hpp"

namespace onnxview {

class tensor_data;
struct tensor_data_builder;

namespace detail {

// 2^k for the largest k with 2^k | v, capped at 4096 (v = 0 gives 4096).
inline std::uint32_t alignment_of(std::uint64_t v) noexcept {
    std::uint32_t a = 1;
    while (a < 4096 && (v & a) == 0) a <<= 1;
    return a;
}

inline std::int64_t sign_extend(std::uint64_t v, unsigned bits) noexcept {
    if (bits >= 64) return static_cast<std::int64_t>(v);
    const std::uint64_t m = std::uint64_t(1) << (bits - 1);
    v &= (m << 1) - 1;
    return static_cast<std::int64_t>((v ^ m) - m);
}

inline std::uint64_t mask_bits(std::uint64_t v, unsigned bits) noexcept {
    return bits >= 64 ? v : v & ((std::uint64_t(1) << bits) - 1);
}

// double -> float without undefined behaviour for values beyond FLT_MAX:
// they round (to nearest even) to +-FLT_MAX or +-inf as IEEE would.
inline float narrow_to_float(double d) noexcept {
    const double a = d < 0 ? -d : d;
    if (a > static_cast<double>(std::numeric_limits<float>::max()) && a == a) {
        const float big = a < 0x1.ffffffp+127 ? std::numeric_limits<float>::max()
                                              : std::numeric_limits<float>::infinity();
        return d < 0 ? -big : big;
    }
    return static_cast<float>(d);
}

// The raw 64-bit values of a repeated scalar field, packed or unpacked,
// `width` 0 (varint), 4 (fixed32) or 8 (fixed64). Same rules as
// wire::repeated (other wire types are skipped), so it yields exactly the
// entries wire::repeated<...>::count() counted. Stops at the first error.
class entry_reader {
public:
    entry_reader() noexcept = default;
    entry_reader(const wire::message& scope, std::uint32_t number, unsigned width) noexcept
        : cursor_(scope.fields()), number_(number), width_(static_cast<std::uint8_t>(width)) {}

    bool next(std::uint64_t& raw) noexcept {
        for (;;) {
            if (p_ != end_) return wire::next_packed(p_, end_, width_, raw) == errc::ok || stop();
            if (number_ == 0) return false;
            wire::field f;
            if (!cursor_.next(f)) return stop();
            if (f.number != number_) continue;
            if (f.type == wire::wire_type::length_delimited) {
                p_ = f.payload;
                end_ = f.payload + f.raw;
                continue;
            }
            const wire::wire_type want = width_ == 0   ? wire::wire_type::varint
                                         : width_ == 4 ? wire::wire_type::fixed32
                                                       : wire::wire_type::fixed64;
            if (f.type == want) {
                raw = f.raw;
                return true;
            }
        }
    }

private:
    bool stop() noexcept {
        number_ = 0;
        p_ = end_ = nullptr;
        return false;
    }
    wire::message::cursor cursor_;
    const char* p_ = nullptr;
    const char* end_ = nullptr;
    std::uint32_t number_ = 0;
    std::uint8_t width_ = 0;
};

inline unsigned entry_width(typed_field f) noexcept {
    return f == typed_field::float_data ? 4u : f == typed_field::double_data ? 8u : 0u;
}

// Little-endian load of 1, 2, 4 or 8 bytes.
inline std::uint64_t load_le(const char* p, unsigned bytes) noexcept {
    switch (bytes) {
        case 1: return static_cast<unsigned char>(*p);
        case 2:
            return static_cast<std::uint64_t>(static_cast<unsigned char>(p[0])) |
                   static_cast<std::uint64_t>(static_cast<unsigned char>(p[1])) << 8;
        case 4: return wire::load_le32(p);
        default: return wire::load_le64(p);
    }
}

// The bit pattern of one scalar part (an element, or the real or imaginary
// half of a complex) as a double.
double scalar_to_double(const data_type_info& info, std::uint64_t bits) noexcept;

// The same as float (narrow floats and FLOAT exactly; others rounded).
inline float scalar_to_float(const data_type_info& info, std::uint64_t bits) noexcept {
    switch (info.kind) {
        case element_kind::ieee_float:
        case element_kind::complex:
            if (info.part_bits() == 32) return wire::bits_to_float(static_cast<std::uint32_t>(bits));
            return narrow_to_float(wire::bits_to_double(bits));
        case element_kind::unsigned_int: return static_cast<float>(bits);
        case element_kind::signed_int: return static_cast<float>(sign_extend(bits, info.bits));
        case element_kind::boolean: return bits != 0 ? 1.0f : 0.0f;
        case element_kind::narrow_float: {
            float f = 0;
            narrow_float_to_float(info.type, static_cast<std::uint32_t>(bits), f);
            return f;
        }
        default: return 0.0f;
    }
}

template <class D>
D scalar_to(const data_type_info& info, std::uint64_t bits) noexcept {
    if constexpr (std::is_same<D, float>::value)
        return scalar_to_float(info, bits);
    else
        return scalar_to_double(info, bits);
}

// Element bit patterns -> natural type T (T already checked to match).
template <class T>
T from_bits(std::uint64_t lo, std::uint64_t hi, unsigned part_bits) noexcept {
    if constexpr (std::is_same<T, bool>::value) {
        (void)hi, (void)part_bits;
        return lo != 0;
    } else if constexpr (std::is_same<T, float>::value) {
        (void)hi, (void)part_bits;
        return wire::bits_to_float(static_cast<std::uint32_t>(lo));
    } else if constexpr (std::is_same<T, double>::value) {
        (void)hi, (void)part_bits;
        return wire::bits_to_double(lo);
    } else if constexpr (std::is_same<T, std::complex<float>>::value) {
        (void)part_bits;
        return T(wire::bits_to_float(static_cast<std::uint32_t>(lo)),
                 wire::bits_to_float(static_cast<std::uint32_t>(hi)));
    } else if constexpr (std::is_same<T, std::complex<double>>::value) {
        (void)part_bits;
        return T(wire::bits_to_double(lo), wire::bits_to_double(hi));
    } else if constexpr (std::is_signed<T>::value) {
        (void)hi;
        return static_cast<T>(sign_extend(lo, part_bits));
    } else {
        (void)hi, (void)part_bits;
        return static_cast<T>(lo);
    }
}

}  // namespace detail

// Decodes a tensor's elements one at a time as bit patterns: `lo` holds the
// element (zero-extended, masked to its width; sub-byte types unpacked),
// `hi` the imaginary part of a complex. Copying it saves the position.
class element_cursor {
public:
    element_cursor() noexcept = default;
    explicit element_cursor(const tensor_data& d) noexcept;

    // False at the end (or if the bytes changed since validation).
    bool next(std::uint64_t& lo, std::uint64_t& hi) noexcept {
        if (remaining_ == 0) return false;
        --remaining_;
        hi = 0;
        if (per_byte_ > 1) {
            if (sub_ == 0) {
                if (typed_) {
                    std::uint64_t r;
                    if (!entries_.next(r)) return stop();
                    byte_ = static_cast<std::uint8_t>(r);
                } else {
                    byte_ = static_cast<std::uint8_t>(*p_++);
                }
            }
            lo = (byte_ >> (sub_ * bits_)) & ((1u << bits_) - 1u);
            if (++sub_ == per_byte_) sub_ = 0;
            return true;
        }
        if (typed_) {
            if (!entries_.next(lo)) return stop();
            if (complex_) {
                if (!entries_.next(hi)) return stop();
                if (part_bytes_ == 4) {
                    lo &= 0xFFFFFFFFu;
                    hi &= 0xFFFFFFFFu;
                }
            } else if (boolean_) {
                lo = lo != 0;  // any non-zero entry is true, as numpy_helper reads it
            } else {
                lo = detail::mask_bits(lo, bits_);
            }
            return true;
        }
        if (complex_) {
            lo = detail::load_le(p_, part_bytes_);
            hi = detail::load_le(p_ + part_bytes_, part_bytes_);
            p_ += 2u * part_bytes_;
        } else {
            lo = detail::load_le(p_, part_bytes_);
            p_ += part_bytes_;
        }
        return true;
    }
    // Elements not yet returned.
    std::uint64_t remaining() const noexcept { return remaining_; }

private:
    bool stop() noexcept {
        remaining_ = 0;
        return false;
    }
    detail::entry_reader entries_;
    const char* p_ = nullptr;
    std::uint64_t remaining_ = 0;
    std::uint8_t bits_ = 0;        // element bits (non-complex)
    std::uint8_t part_bytes_ = 0;  // raw: bytes per element (complex: per part)
    std::uint8_t per_byte_ = 1;    // elements per byte/entry for sub-byte types
    std::uint8_t sub_ = 0;
    std::uint8_t byte_ = 0;
    bool typed_ = false;
    bool complex_ = false;
    bool boolean_ = false;
};

}  // namespace onnxview

#endif  // ONNXVIEW_TENSOR_DECODE_HPP
