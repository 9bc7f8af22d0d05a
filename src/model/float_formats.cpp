// Narrow float formats: 8-bit decoders through 256-entry tables.
//
// Each table is filled once from the format's (exponent bits, mantissa bits,
// bias, special-value rule) with ldexp, which is exact here because every
// value fits a binary32 (see onnxview/float_formats.hpp).
#include "onnxview/float_formats.hpp"

#include <cmath>
#include <limits>

#include "onnxview/enums.hpp"

namespace onnxview {
namespace {

// Which patterns are special in a format.
enum class special : std::uint8_t {
    ieee,  // all-ones exponent: mantissa 0 = Inf, else NaN (E5M2)
    fn,    // only S.1111.111 is NaN; no Inf (E4M3FN)
    fnuz,  // only 0x80 ("negative zero") is NaN; no Inf, no -0 (the FNUZ formats)
};

struct float8_table {
    float v[256];
};

float8_table make_table(unsigned exp_bits, unsigned man_bits, int bias, special rule) noexcept {
    float8_table t{};
    const unsigned exp_max = (1u << exp_bits) - 1;
    const unsigned man_max = (1u << man_bits) - 1;
    for (unsigned b = 0; b < 256; ++b) {
        const bool neg = (b & 0x80u) != 0;
        const unsigned e = (b >> man_bits) & exp_max;
        const unsigned m = b & man_max;
        float mag;
        if (rule == special::fnuz && b == 0x80) {
            t.v[b] = std::numeric_limits<float>::quiet_NaN();
            continue;
        }
        if (rule == special::ieee && e == exp_max) {
            mag = m == 0 ? std::numeric_limits<float>::infinity() : std::numeric_limits<float>::quiet_NaN();
        } else if (rule == special::fn && e == exp_max && m == man_max) {
            mag = std::numeric_limits<float>::quiet_NaN();
        } else if (e == 0) {
            mag = std::ldexp(static_cast<float>(m), 1 - bias - static_cast<int>(man_bits));
        } else {
            mag = std::ldexp(static_cast<float>((1u << man_bits) | m),
                             static_cast<int>(e) - bias - static_cast<int>(man_bits));
        }
        t.v[b] = neg ? -mag : mag;  // -NaN keeps the sign bit
    }
    return t;
}

float8_table make_e8m0_table() noexcept {
    float8_table t{};
    for (unsigned b = 0; b < 255; ++b) t.v[b] = std::ldexp(1.0f, static_cast<int>(b) - 127);
    t.v[255] = std::numeric_limits<float>::quiet_NaN();
    return t;
}

}  // namespace

float float8e4m3fn_to_float(std::uint8_t bits) noexcept {
    static const float8_table t = make_table(4, 3, 7, special::fn);
    return t.v[bits];
}
float float8e4m3fnuz_to_float(std::uint8_t bits) noexcept {
    static const float8_table t = make_table(4, 3, 8, special::fnuz);
    return t.v[bits];
}
float float8e5m2_to_float(std::uint8_t bits) noexcept {
    static const float8_table t = make_table(5, 2, 15, special::ieee);
    return t.v[bits];
}
float float8e5m2fnuz_to_float(std::uint8_t bits) noexcept {
    static const float8_table t = make_table(5, 2, 16, special::fnuz);
    return t.v[bits];
}
float float8e8m0_to_float(std::uint8_t bits) noexcept {
    static const float8_table t = make_e8m0_table();
    return t.v[bits];
}
float float4e2m1_to_float(std::uint8_t bits) noexcept {
    // S.EE.M, bias 1: E=0 is subnormal (M * 0.5); no Inf/NaN.
    static constexpr float magnitude[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
    const float m = magnitude[bits & 0x7u];
    return (bits & 0x8u) ? -m : m;
}

bool is_narrow_float(std::int32_t t) noexcept {
    switch (static_cast<data_type>(t)) {
        case data_type::float16:
        case data_type::bfloat16:
        case data_type::float8e4m3fn:
        case data_type::float8e4m3fnuz:
        case data_type::float8e5m2:
        case data_type::float8e5m2fnuz:
        case data_type::float8e8m0:
        case data_type::float4e2m1:
            return true;
        default:
            return false;
    }
}

bool narrow_float_to_float(std::int32_t t, std::uint32_t bits, float& out) noexcept {
    const auto b8 = static_cast<std::uint8_t>(bits);
    const auto b16 = static_cast<std::uint16_t>(bits);
    switch (static_cast<data_type>(t)) {
        case data_type::float16: out = float16_to_float(b16); return true;
        case data_type::bfloat16: out = bfloat16_to_float(b16); return true;
        case data_type::float8e4m3fn: out = float8e4m3fn_to_float(b8); return true;
        case data_type::float8e4m3fnuz: out = float8e4m3fnuz_to_float(b8); return true;
        case data_type::float8e5m2: out = float8e5m2_to_float(b8); return true;
        case data_type::float8e5m2fnuz: out = float8e5m2fnuz_to_float(b8); return true;
        case data_type::float8e8m0: out = float8e8m0_to_float(b8); return true;
        case data_type::float4e2m1: out = float4e2m1_to_float(b8); return true;
        default: return false;
    }
}

}  // namespace onnxview
