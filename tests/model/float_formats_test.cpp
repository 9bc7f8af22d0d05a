// Narrow float decoders, checked exhaustively against independent references:
// the compiler's _Float16 for FLOAT16, a field-by-field formula evaluated in
// double (repeated halving/doubling, no ldexp) for the other formats, and
// hand-checked values from the ONNX float8/float4 documents.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "onnxview/enums.hpp"
#include "onnxview/float_formats.hpp"

using namespace onnxview;

namespace {

[[maybe_unused]] std::uint32_t bits_of(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

// 2^e by repeated doubling/halving in double (exact for |e| < 1000).
double pow2(int e) {
    double r = 1.0;
    for (; e > 0; --e) r *= 2.0;
    for (; e < 0; ++e) r *= 0.5;
    return r;
}

// Reference decoder, written from the field definitions only.
struct layout {
    int exp_bits, man_bits, bias;
    bool has_inf;      // IEEE-style: all-ones exponent, mantissa 0
    bool ieee_nan;     // all-ones exponent with mantissa != 0 is NaN
    bool fn_nan;       // only all-ones exponent and mantissa is NaN
    bool fnuz;         // 0x80 is NaN (no -0)
};

double reference(unsigned bits, layout l) {
    const unsigned total = 1 + l.exp_bits + l.man_bits;
    const bool neg = (bits >> (total - 1)) & 1u;
    const unsigned e = (bits >> l.man_bits) & ((1u << l.exp_bits) - 1);
    const unsigned m = bits & ((1u << l.man_bits) - 1);
    const unsigned emax = (1u << l.exp_bits) - 1, mmax = (1u << l.man_bits) - 1;
    if (l.fnuz && bits == (1u << (total - 1))) return std::nan("");
    if (e == emax && (l.has_inf || l.ieee_nan)) {
        if (m == 0) return neg ? -HUGE_VAL : HUGE_VAL;
        return std::nan("");
    }
    if (l.fn_nan && e == emax && m == mmax) return std::nan("");
    double frac = static_cast<double>(m) / static_cast<double>(1u << l.man_bits);
    double v = e == 0 ? frac * pow2(1 - l.bias) : (1.0 + frac) * pow2(static_cast<int>(e) - l.bias);
    return neg ? -v : v;
}

void check_same(double got, double want, unsigned pattern) {
    INFO("pattern 0x" << std::hex << pattern);
    if (std::isnan(want)) {
        CHECK(std::isnan(got));
    } else {
        CHECK(got == want);
        CHECK(std::signbit(got) == std::signbit(want));
    }
}

}  // namespace

TEST_CASE("FLOAT16: all 65536 patterns match the compiler's _Float16") {
#if defined(__FLT16_MAX__)
    for (std::uint32_t b = 0; b < 65536; ++b) {
        const auto h = static_cast<std::uint16_t>(b);
        _Float16 ref;
        std::memcpy(&ref, &h, 2);
        const float want = static_cast<float>(ref);
        const float got = float16_to_float(h);
        INFO("pattern 0x" << std::hex << b);
        if (std::isnan(want)) {
            REQUIRE(std::isnan(got));
            REQUIRE(std::signbit(got) == std::signbit(want));
        } else {
            REQUIRE(bits_of(got) == bits_of(want));
        }
    }
#else
    WARN("no _Float16 on this compiler; checking against the formula only");
#endif
    // And against the field formula, with the documented edge values.
    const layout f16{5, 10, 15, true, true, false, false};
    for (unsigned b = 0; b < 65536; ++b)
        if (float16_to_double(static_cast<std::uint16_t>(b)) != reference(b, f16) &&
            !std::isnan(reference(b, f16)))
            FAIL("FLOAT16 pattern " << b);
    CHECK(float16_to_float(0x7BFF) == 65504.0f);
    CHECK(float16_to_float(0x0001) == std::ldexp(1.0f, -24));
    CHECK(float16_to_float(0x0400) == std::ldexp(1.0f, -14));
    CHECK(float16_to_float(0x3C00) == 1.0f);
    CHECK(float16_to_float(0xC100) == -2.5f);
    CHECK(std::isinf(float16_to_float(0x7C00)));
    CHECK(std::signbit(float16_to_float(0x8000)));
    CHECK(std::isnan(float16_to_float(0x7C01)));  // signaling NaN pattern comes back as NaN
}

TEST_CASE("BFLOAT16: all 65536 patterns match the field formula") {
    const layout bf{8, 7, 127, true, true, false, false};
    for (unsigned b = 0; b < 65536; ++b) {
        const double want = reference(b, bf);
        const double got = bfloat16_to_double(static_cast<std::uint16_t>(b));
        if (std::isnan(want)) {
            if (!std::isnan(got)) FAIL("BFLOAT16 NaN pattern " << b);
        } else if (got != want || std::signbit(got) != std::signbit(want)) {
            FAIL("BFLOAT16 pattern " << b << ": " << got << " vs " << want);
        }
    }
    CHECK(bfloat16_to_float(0x3F80) == 1.0f);
    CHECK(bfloat16_to_float(0x0001) == std::ldexp(1.0f, -133));
    CHECK(bfloat16_to_float(0x7F7F) == 0x1.FEp127f);
    CHECK(std::isinf(bfloat16_to_float(0xFF80)));
}

TEST_CASE("FLOAT8 formats: all 256 patterns match the field formula") {
    struct fmt {
        const char* name;
        float (*fn)(std::uint8_t);
        layout l;
    } formats[] = {
        {"E4M3FN", float8e4m3fn_to_float, {4, 3, 7, false, false, true, false}},
        {"E4M3FNUZ", float8e4m3fnuz_to_float, {4, 3, 8, false, false, false, true}},
        {"E5M2", float8e5m2_to_float, {5, 2, 15, true, true, false, false}},
        {"E5M2FNUZ", float8e5m2fnuz_to_float, {5, 2, 16, false, false, false, true}},
    };
    for (const fmt& f : formats) {
        INFO(f.name);
        int nans = 0;
        for (unsigned b = 0; b < 256; ++b) {
            const double got = f.fn(static_cast<std::uint8_t>(b));
            check_same(got, reference(b, f.l), b);
            nans += std::isnan(got) ? 1 : 0;
        }
        // NaN counts from the spec table: FN 2, FNUZ 1, E5M2 6.
        if (f.l.fn_nan) CHECK(nans == 2);
        if (f.l.fnuz) CHECK(nans == 1);
        if (f.l.ieee_nan) CHECK(nans == 6);
        // Positive finite patterns increase strictly with the pattern.
        double prev = -1.0;
        for (unsigned b = 0; b < 128; ++b) {
            const double v = f.fn(static_cast<std::uint8_t>(b));
            if (std::isnan(v) || std::isinf(v)) continue;
            CHECK(v > prev);
            prev = v;
        }
    }
}

TEST_CASE("FLOAT8 formats: hand-checked values from the spec") {
    // E4M3FN: max S.1111.110 = 448, min subnormal 2^-9, min normal 2^-6, NaN 0x7F/0xFF.
    CHECK(float8e4m3fn_to_float(0x7E) == 448.0f);
    CHECK(float8e4m3fn_to_float(0xFE) == -448.0f);
    CHECK(float8e4m3fn_to_float(0x01) == 1.0f / 512);
    CHECK(float8e4m3fn_to_float(0x07) == 7.0f / 512);
    CHECK(float8e4m3fn_to_float(0x08) == 1.0f / 64);
    CHECK(float8e4m3fn_to_float(0x38) == 1.0f);
    CHECK(float8e4m3fn_to_float(0x78) == 256.0f);  // exponent 1111 is finite here
    CHECK(std::isnan(float8e4m3fn_to_float(0x7F)));
    CHECK(std::isnan(float8e4m3fn_to_float(0xFF)));
    CHECK(float8e4m3fn_to_float(0x80) == 0.0f);
    CHECK(std::signbit(float8e4m3fn_to_float(0x80)));
    // E4M3FNUZ: max 240, min subnormal 2^-10, 0x80 NaN, 1.0 = 0x40.
    CHECK(float8e4m3fnuz_to_float(0x7F) == 240.0f);
    CHECK(float8e4m3fnuz_to_float(0xFF) == -240.0f);
    CHECK(float8e4m3fnuz_to_float(0x01) == 1.0f / 1024);
    CHECK(float8e4m3fnuz_to_float(0x40) == 1.0f);
    CHECK(std::isnan(float8e4m3fnuz_to_float(0x80)));
    CHECK(float8e4m3fnuz_to_float(0x00) == 0.0f);
    // E5M2: max 57344, Inf 0x7C/0xFC, NaN 0x7D-0x7F, min subnormal 2^-16, 1.0 = 0x3C.
    CHECK(float8e5m2_to_float(0x7B) == 57344.0f);
    CHECK(float8e5m2_to_float(0x7C) == std::numeric_limits<float>::infinity());
    CHECK(float8e5m2_to_float(0xFC) == -std::numeric_limits<float>::infinity());
    CHECK(std::isnan(float8e5m2_to_float(0x7D)));
    CHECK(std::isnan(float8e5m2_to_float(0xFF)));
    CHECK(float8e5m2_to_float(0x01) == 1.0f / 65536);
    CHECK(float8e5m2_to_float(0x3C) == 1.0f);
    // E5M2FNUZ: max 57344 at 0x7F, min subnormal 2^-17, 0x80 NaN, 1.0 = 0x40.
    CHECK(float8e5m2fnuz_to_float(0x7F) == 57344.0f);
    CHECK(float8e5m2fnuz_to_float(0x01) == 1.0f / 131072);
    CHECK(float8e5m2fnuz_to_float(0x40) == 1.0f);
    CHECK(std::isnan(float8e5m2fnuz_to_float(0x80)));
}

TEST_CASE("FLOAT8E8M0: all 256 patterns are powers of two, 0xFF is NaN") {
    for (unsigned b = 0; b < 255; ++b) {
        INFO(b);
        CHECK(float8e8m0_to_double(static_cast<std::uint8_t>(b)) == pow2(static_cast<int>(b) - 127));
    }
    CHECK(std::isnan(float8e8m0_to_float(0xFF)));
    CHECK(float8e8m0_to_float(0x7F) == 1.0f);
    CHECK(float8e8m0_to_float(0x00) == std::ldexp(1.0f, -127));
    CHECK(float8e8m0_to_float(0xFE) == std::ldexp(1.0f, 127));
}

TEST_CASE("FLOAT4E2M1: all 16 nibbles") {
    const float want[16] = {0.0f,  0.5f,  1.0f,  1.5f,  2.0f,  3.0f,  4.0f,  6.0f,
                            -0.0f, -0.5f, -1.0f, -1.5f, -2.0f, -3.0f, -4.0f, -6.0f};
    const layout f4{2, 1, 1, false, false, false, false};
    for (unsigned b = 0; b < 16; ++b) {
        INFO(b);
        CHECK(float4e2m1_to_float(static_cast<std::uint8_t>(b)) == want[b]);
        CHECK(float4e2m1_to_double(static_cast<std::uint8_t>(b)) == reference(b, f4));
        CHECK(std::signbit(float4e2m1_to_float(static_cast<std::uint8_t>(b))) == (b >= 8));
        // The high nibble is ignored.
        CHECK(float4e2m1_to_float(static_cast<std::uint8_t>(b | 0xA0)) == want[b]);
    }
}

TEST_CASE("narrow_float_to_float dispatches on the data type") {
    float f = 0;
    CHECK(narrow_float_to_float(static_cast<std::int32_t>(data_type::float16), 0x3C00, f));
    CHECK(f == 1.0f);
    CHECK(narrow_float_to_float(static_cast<std::int32_t>(data_type::bfloat16), 0xC020, f));
    CHECK(f == -2.5f);
    CHECK(narrow_float_to_float(static_cast<std::int32_t>(data_type::float8e4m3fn), 0x7E, f));
    CHECK(f == 448.0f);
    CHECK(narrow_float_to_float(static_cast<std::int32_t>(data_type::float4e2m1), 0x7, f));
    CHECK(f == 6.0f);
    f = 123.0f;
    CHECK_FALSE(narrow_float_to_float(static_cast<std::int32_t>(data_type::float32), 0, f));
    CHECK_FALSE(narrow_float_to_float(99, 0, f));
    CHECK(f == 123.0f);
    int count = 0;
    for (std::int32_t t = -1; t < 100; ++t) count += is_narrow_float(t) ? 1 : 0;
    CHECK(count == 8);
}
