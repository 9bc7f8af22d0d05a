// Narrow float formats: 8-bit decoders through 256-entry tables.
//
// Each table holds the binary32 bit patterns of a format's 256 values,
// computed at compile time from (exponent bits, mantissa bits, bias,
// special-value rule): every value of these formats is exactly a binary32
// (see onnxview/float_formats.hpp), so integer arithmetic builds it exactly.
// Constant tables need no function-local static: a guarded static would pull
// __cxa_guard_acquire, and with it the C++ exception runtime and demangler
// (about 40 KiB), into every statically linked -fno-exceptions program.
#include "onnxview/float_formats.hpp"

#include <cstring>

#include "onnxview/enums.hpp"

namespace onnxview {
namespace {

// Which patterns are special in a format.
enum class special : std::uint8_t {
    ieee,  // all-ones exponent: mantissa 0 = Inf, else NaN (E5M2)
    fn,    // only S.1111.111 is NaN; no Inf (E4M3FN)
    fnuz,  // only 0x80 ("negative zero") is NaN; no Inf, no -0 (the FNUZ formats)
};

constexpr std::uint32_t f32_inf = 0x7F800000u;
constexpr std::uint32_t f32_qnan = 0x7FC00000u;  // std::numeric_limits<float>::quiet_NaN()

struct float8_table {
    std::uint32_t bits[256];  // binary32 patterns
};

// The binary32 pattern of 2^exp x (1 + frac / 2^frac_bits), exp in the
// normal binary32 range (true for every format here).
constexpr std::uint32_t f32_normal(int exp, std::uint32_t frac, unsigned frac_bits) noexcept {
    return (static_cast<std::uint32_t>(exp + 127) << 23) | (frac << (23 - frac_bits));
}

constexpr float8_table make_table(unsigned exp_bits, unsigned man_bits, int bias, special rule) noexcept {
    float8_table t{};
    const unsigned exp_max = (1u << exp_bits) - 1;
    const unsigned man_max = (1u << man_bits) - 1;
    for (unsigned b = 0; b < 256; ++b) {
        const std::uint32_t sign = (b & 0x80u) ? 0x80000000u : 0u;
        const unsigned e = (b >> man_bits) & exp_max;
        const unsigned m = b & man_max;
        std::uint32_t mag = 0;
        if (rule == special::fnuz && b == 0x80) {
            t.bits[b] = f32_qnan;
            continue;
        }
        if (rule == special::ieee && e == exp_max) {
            mag = m == 0 ? f32_inf : f32_qnan;
        } else if (rule == special::fn && e == exp_max && m == man_max) {
            mag = f32_qnan;
        } else if (e == 0) {
            // Subnormal: m x 2^(1 - bias - man_bits); normalize on m's top bit p.
            if (m != 0) {
                unsigned p = 0;
                while ((m >> (p + 1)) != 0) ++p;
                mag = f32_normal(static_cast<int>(p) + 1 - bias - static_cast<int>(man_bits), m - (1u << p), p);
            }
        } else {
            mag = f32_normal(static_cast<int>(e) - bias, m, man_bits);
        }
        t.bits[b] = sign | mag;  // -NaN keeps the sign bit
    }
    return t;
}

constexpr float8_table make_e8m0_table() noexcept {
    float8_table t{};
    t.bits[0] = 0x00400000u;  // 2^-127: a binary32 subnormal
    for (unsigned b = 1; b < 255; ++b) t.bits[b] = static_cast<std::uint32_t>(b) << 23;  // 2^(b - 127)
    t.bits[255] = f32_qnan;
    return t;
}

constexpr float8_table e4m3fn = make_table(4, 3, 7, special::fn);
constexpr float8_table e4m3fnuz = make_table(4, 3, 8, special::fnuz);
constexpr float8_table e5m2 = make_table(5, 2, 15, special::ieee);
constexpr float8_table e5m2fnuz = make_table(5, 2, 16, special::fnuz);
constexpr float8_table e8m0 = make_e8m0_table();

float lookup(const float8_table& t, std::uint8_t bits) noexcept {
    float f;
    std::memcpy(&f, &t.bits[bits], sizeof f);
    return f;
}

}  // namespace

float float8e4m3fn_to_float(std::uint8_t bits) noexcept { return lookup(e4m3fn, bits); }
float float8e4m3fnuz_to_float(std::uint8_t bits) noexcept { return lookup(e4m3fnuz, bits); }
float float8e5m2_to_float(std::uint8_t bits) noexcept { return lookup(e5m2, bits); }
float float8e5m2fnuz_to_float(std::uint8_t bits) noexcept { return lookup(e5m2fnuz, bits); }
float float8e8m0_to_float(std::uint8_t bits) noexcept { return lookup(e8m0, bits); }
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
