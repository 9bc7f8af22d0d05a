// onnxview/float_formats.hpp - the narrow floating-point formats of ONNX,
// decoded from their bit patterns.
//
// Every value of every format here is exactly representable as a binary32
// float (FLOAT8E8M0's 2^-127 and BFLOAT16's subnormals as binary32
// subnormals), so the float results are exact and the double overloads are
// the same numbers widened. Bit layouts (sign/exponent/mantissa, bias):
//
//   FLOAT16         1/5/10, bias 15   IEEE binary16: Inf, NaN, subnormals
//   BFLOAT16        1/8/7,  bias 127  the top half of a binary32
//   FLOAT8E4M3FN    1/4/3,  bias 7    no Inf; NaN = S.1111.111; max 448
//   FLOAT8E4M3FNUZ  1/4/3,  bias 8    no Inf, no -0; NaN = 0x80 only; max 240
//   FLOAT8E5M2      1/5/2,  bias 15   IEEE-like: Inf 0x7C/0xFC, NaN 0x7D-0x7F/0xFD-0xFF; max 57344
//   FLOAT8E5M2FNUZ  1/5/2,  bias 16   no Inf, no -0; NaN = 0x80 only; max 57344
//   FLOAT8E8M0      0/8/0,  bias 127  unsigned power of two 2^(e-127); NaN = 0xFF; no zero
//   FLOAT4E2M1      1/2/1,  bias 1    no Inf, no NaN; magnitudes 0 .5 1 1.5 2 3 4 6
//
// NaN results: FLOAT16 and BFLOAT16 keep the sign and the payload bits (as a
// binary32 NaN with the payload shifted into its top mantissa bits, quieted);
// the 8-bit formats give a quiet NaN with the pattern's sign bit.
//
// All functions are pure, O(1) and allocate nothing. The 8-bit decoders read
// a 256-entry table built on first use (thread-safe static initialization).
#ifndef ONNXVIEW_FLOAT_FORMATS_HPP
#define ONNXVIEW_FLOAT_FORMATS_HPP

#include <cstdint>
#include <cstring>

namespace onnxview {

// IEEE binary16 -> binary32, exact.
inline float float16_to_float(std::uint16_t bits) noexcept {
    const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
    const std::uint32_t exp = (bits >> 10) & 0x1Fu;
    std::uint32_t man = bits & 0x3FFu;
    std::uint32_t out;
    if (exp == 0x1F) {
        // Inf or NaN; a NaN is quieted (as hardware conversions do).
        out = sign | 0x7F800000u | (man << 13) | (man != 0 ? 0x00400000u : 0u);
    } else if (exp != 0) {
        out = sign | ((exp + (127 - 15)) << 23) | (man << 13);
    } else if (man == 0) {
        out = sign;
    } else {
        // Subnormal: value = man * 2^-24; normalize into a binary32 normal.
        std::uint32_t e = 127 - 15 + 1;
        while ((man & 0x400u) == 0) {
            man <<= 1;
            --e;
        }
        out = sign | (e << 23) | ((man & 0x3FFu) << 13);
    }
    float f;
    std::memcpy(&f, &out, 4);
    return f;
}

// bfloat16 -> binary32, exact (the pattern is the top half of a binary32).
// A NaN pattern stays a NaN with its payload (not quieted: nothing is lost).
inline float bfloat16_to_float(std::uint16_t bits) noexcept {
    const std::uint32_t out = static_cast<std::uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &out, 4);
    return f;
}

// The 8-bit formats (table lookups; defined in src/model/float_formats.cpp).
float float8e4m3fn_to_float(std::uint8_t bits) noexcept;
float float8e4m3fnuz_to_float(std::uint8_t bits) noexcept;
float float8e5m2_to_float(std::uint8_t bits) noexcept;
float float8e5m2fnuz_to_float(std::uint8_t bits) noexcept;
float float8e8m0_to_float(std::uint8_t bits) noexcept;
// FLOAT4E2M1: the low 4 bits of `bits` (S.EE.M); the high 4 bits are ignored.
float float4e2m1_to_float(std::uint8_t bits) noexcept;

// The same values as double (exact widenings of the float results).
inline double float16_to_double(std::uint16_t bits) noexcept { return float16_to_float(bits); }
inline double bfloat16_to_double(std::uint16_t bits) noexcept { return bfloat16_to_float(bits); }
inline double float8e4m3fn_to_double(std::uint8_t bits) noexcept { return float8e4m3fn_to_float(bits); }
inline double float8e4m3fnuz_to_double(std::uint8_t bits) noexcept { return float8e4m3fnuz_to_float(bits); }
inline double float8e5m2_to_double(std::uint8_t bits) noexcept { return float8e5m2_to_float(bits); }
inline double float8e5m2fnuz_to_double(std::uint8_t bits) noexcept { return float8e5m2fnuz_to_float(bits); }
inline double float8e8m0_to_double(std::uint8_t bits) noexcept { return float8e8m0_to_float(bits); }
inline double float4e2m1_to_double(std::uint8_t bits) noexcept { return float4e2m1_to_float(bits); }

// True for the DataType numbers of the formats above (10, 16, 17-20, 23, 24).
bool is_narrow_float(std::int32_t data_type) noexcept;

// Decodes the pattern `bits` (low 16, 8 or 4 bits used) of narrow float type
// `data_type`. Returns false, leaving `out` alone, when `data_type` is not a
// narrow float (see is_narrow_float).
bool narrow_float_to_float(std::int32_t data_type, std::uint32_t bits, float& out) noexcept;

}  // namespace onnxview

#endif  // ONNXVIEW_FLOAT_FORMATS_HPP
