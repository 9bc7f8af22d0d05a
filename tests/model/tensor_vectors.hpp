// Test vectors and builders shared by the tensor_data tests: every data type
// with its bit patterns and scalar values written by hand from the spec,
// TensorProto builders for raw and typed storage, and the check of every
// accessor against a vector.
#ifndef ONNXVIEW_TESTS_MODEL_TENSOR_VECTORS_HPP
#define ONNXVIEW_TESTS_MODEL_TENSOR_VECTORS_HPP

#include <catch2/catch.hpp>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "onnxview/model.hpp"
#include "onnxview/tensor_data.hpp"
#include "../wire_builder.hpp"

namespace onnxview {
namespace tensor_test {

using onnxview::testing::wire_builder;

using wt = wire::wire_type;
const double inf = std::numeric_limits<double>::infinity();
const double qnan = std::numeric_limits<double>::quiet_NaN();

inline std::uint64_t dbits(double d) {
    std::uint64_t u;
    std::memcpy(&u, &d, 8);
    return u;
}
inline std::uint64_t fbits(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

// One test vector: a data type, its elements as bit patterns (complex: real
// and imaginary pattern per element), and the value of each scalar as a
// double (written by hand from the spec, not computed by the library).
struct vec {
    data_type type;
    std::vector<std::uint64_t> patterns;  // per scalar part
    std::vector<double> scalars;
};

inline std::vector<vec> vectors() {
    const auto i64 = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
    return {
        {data_type::float32, {fbits(1.5f), fbits(-0.0f), fbits(INFINITY), fbits(NAN), fbits(1e-45f)},
         {1.5, -0.0, inf, qnan, static_cast<double>(1e-45f)}},
        {data_type::uint8, {0, 1, 127, 128, 255}, {0, 1, 127, 128, 255}},
        {data_type::int8, {0x80, 0xFF, 0, 1, 0x7F}, {-128, -1, 0, 1, 127}},
        {data_type::uint16, {0, 65535, 4242}, {0, 65535, 4242}},
        {data_type::int16, {0x8000, 0xFFFF, 0, 0x7FFF, 0xEF6E}, {-32768, -1, 0, 32767, -4242}},
        {data_type::int32, {0x80000000u, 0xFFFFFFFFu, 0, 0x7FFFFFFF}, {-2147483648.0, -1, 0, 2147483647.0}},
        {data_type::int64, {i64(INT64_MIN), i64(-1), 0, i64(INT64_MAX), (1ull << 53) + 1},
         {-9223372036854775808.0, -1, 0, 9223372036854775807.0, 9007199254740992.0}},
        {data_type::boolean, {1, 0, 1}, {1, 0, 1}},
        {data_type::float16, {0x3C00, 0xC100, 0x7C00, 0x0001, 0x7BFF}, {1, -2.5, inf, std::ldexp(1.0, -24), 65504}},
        {data_type::float64, {dbits(1.5), dbits(-1e300), dbits(5e-324)}, {1.5, -1e300, 5e-324}},
        {data_type::uint32, {0, 0x80000000u, 0xFFFFFFFFu}, {0, 2147483648.0, 4294967295.0}},
        {data_type::uint64, {0, 1ull << 63, ~0ull}, {0, 9223372036854775808.0, 18446744073709551615.0}},
        {data_type::complex64, {fbits(1), fbits(2), fbits(-0.5f), fbits(0.25f)}, {1, 2, -0.5, 0.25}},
        {data_type::complex128, {dbits(1e300), dbits(-1e-300), dbits(3), dbits(4)}, {1e300, -1e-300, 3, 4}},
        {data_type::bfloat16, {0x3F80, 0xC020, 0x0001, 0x7F80}, {1, -2.5, std::ldexp(1.0, -133), inf}},
        {data_type::float8e4m3fn, {0x7E, 0x01, 0xB8, 0x7F}, {448, 1.0 / 512, -1, qnan}},
        {data_type::float8e4m3fnuz, {0x7F, 0x80, 0x01}, {240, qnan, 1.0 / 1024}},
        {data_type::float8e5m2, {0x7B, 0x7C, 0xFC, 0x01}, {57344, inf, -inf, 1.0 / 65536}},
        {data_type::float8e5m2fnuz, {0x7F, 0x01, 0xFF}, {57344, 1.0 / 131072, -57344}},
        {data_type::uint4, {0, 1, 15, 7, 8}, {0, 1, 15, 7, 8}},
        {data_type::int4, {8, 15, 0, 7, 3}, {-8, -1, 0, 7, 3}},
        {data_type::float4e2m1, {0x7, 0xF, 0x1}, {6, -6, 0.5}},
        {data_type::float8e8m0, {0x7F, 0x00, 0xFE, 0xFF}, {1, std::ldexp(1.0, -127), std::ldexp(1.0, 127), qnan}},
        {data_type::uint2, {0, 1, 2, 3, 1}, {0, 1, 2, 3, 1}},
        {data_type::int2, {2, 3, 0, 1, 2, 1, 0}, {-2, -1, 0, 1, -2, 1, 0}},
    };
}

inline const data_type_info& info_of(data_type t) { return *find_data_type_info(static_cast<std::int32_t>(t)); }

inline std::uint64_t element_count_of(const vec& v) {
    return info_of(v.type).kind == element_kind::complex ? v.patterns.size() / 2 : v.patterns.size();
}

// raw_data bytes, written from the layout table of the spec.
inline std::string raw_bytes(const vec& v) {
    const data_type_info& info = info_of(v.type);
    std::string out;
    if (info.sub_byte()) {
        const unsigned per = info.elements_per_entry;
        for (std::size_t i = 0; i < v.patterns.size(); i += per) {
            unsigned b = 0;
            for (unsigned j = 0; j < per && i + j < v.patterns.size(); ++j)
                b |= static_cast<unsigned>(v.patterns[i + j]) << (j * info.bits);
            out.push_back(static_cast<char>(b));
        }
        return out;
    }
    const unsigned part_bytes = info.part_bits() / 8;
    for (std::uint64_t p : v.patterns)
        for (unsigned i = 0; i < part_bytes; ++i) out.push_back(static_cast<char>(p >> (8 * i)));
    return out;
}

// Typed-field entries (as the writer would store them, before encoding).
inline std::vector<std::uint64_t> typed_entries(const vec& v) {
    const data_type_info& info = info_of(v.type);
    std::vector<std::uint64_t> e;
    if (info.sub_byte()) {
        for (char c : raw_bytes(v)) e.push_back(static_cast<unsigned char>(c));
        return e;
    }
    for (std::uint64_t p : v.patterns) {
        if (info.field == typed_field::int32_data && info.kind == element_kind::signed_int) {
            // int32 on the wire: sign-extended to 64 bits (negatives = 10-byte varints).
            const int bits = info.bits;
            std::int64_t s = static_cast<std::int64_t>(p << (64 - bits)) >> (64 - bits);
            e.push_back(static_cast<std::uint64_t>(s));
        } else {
            e.push_back(p);
        }
    }
    return e;
}

inline wire_builder tensor_header(data_type t, std::initializer_list<std::int64_t> dims) {
    wire_builder b;
    for (std::int64_t d : dims) b.field_varint(1, static_cast<std::uint64_t>(d));
    b.field_int32(2, static_cast<std::int32_t>(t));
    return b;
}
inline wire_builder tensor_header(const vec& v) {
    wire_builder b;
    b.field_varint(1, element_count_of(v));
    b.field_int32(2, static_cast<std::int32_t>(v.type));
    return b;
}

inline wire_builder raw_tensor(const vec& v) {
    wire_builder b = tensor_header(v);
    b.field_bytes(8, "t").field_bytes(9, raw_bytes(v));
    return b;
}

inline void add_typed(wire_builder& b, typed_field f, const std::vector<std::uint64_t>& entries, bool packed) {
    const auto n = static_cast<std::uint32_t>(f);
    if (packed) {
        wire_builder p;
        for (std::uint64_t e : entries) {
            if (f == typed_field::float_data) p.fixed32(static_cast<std::uint32_t>(e));
            else if (f == typed_field::double_data) p.fixed64(e);
            else p.varint(e);
        }
        b.field_bytes(n, p.str());
    } else {
        for (std::uint64_t e : entries) {
            if (f == typed_field::float_data) b.field_fixed32(n, static_cast<std::uint32_t>(e));
            else if (f == typed_field::double_data) b.field_fixed64(n, e);
            else b.field_varint(n, e);
        }
    }
}

inline wire_builder typed_tensor(const vec& v, bool packed) {
    wire_builder b = tensor_header(v);
    add_typed(b, info_of(v.type).field, typed_entries(v), packed);
    return b;
}

inline bool same_double(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

// Back from a natural value to its bit pattern(s), independently of the library.
template <class T>
inline void patterns_of(T v, unsigned part_bits, std::vector<std::uint64_t>& out) {
    if constexpr (std::is_same<T, float>::value) {
        out.push_back(fbits(v));
    } else if constexpr (std::is_same<T, double>::value) {
        out.push_back(dbits(v));
    } else if constexpr (std::is_same<T, std::complex<float>>::value) {
        out.push_back(fbits(v.real()));
        out.push_back(fbits(v.imag()));
    } else if constexpr (std::is_same<T, std::complex<double>>::value) {
        out.push_back(dbits(v.real()));
        out.push_back(dbits(v.imag()));
    } else if constexpr (std::is_same<T, bool>::value) {
        out.push_back(v ? 1 : 0);
    } else {
        const std::uint64_t mask = part_bits >= 64 ? ~0ull : (1ull << part_bits) - 1;
        out.push_back(static_cast<std::uint64_t>(static_cast<std::int64_t>(v)) & mask);
    }
}

template <class F>
inline void with_natural(const data_type_info& info, F&& f) {
    switch (info.natural) {
        case natural_type::f32: f(float{}); break;
        case natural_type::u8: f(std::uint8_t{}); break;
        case natural_type::i8: f(std::int8_t{}); break;
        case natural_type::u16: f(std::uint16_t{}); break;
        case natural_type::i16: f(std::int16_t{}); break;
        case natural_type::i32: f(std::int32_t{}); break;
        case natural_type::i64: f(std::int64_t{}); break;
        case natural_type::boolean: f(bool{}); break;
        case natural_type::f64: f(double{}); break;
        case natural_type::u32: f(std::uint32_t{}); break;
        case natural_type::u64: f(std::uint64_t{}); break;
        case natural_type::c64: f(std::complex<float>{}); break;
        case natural_type::c128: f(std::complex<double>{}); break;
        case natural_type::string_view: FAIL("string"); break;
    }
}

inline void check_all_accessors(const vec& v, const tensor_data& d) {
    const data_type_info& info = info_of(v.type);
    const std::uint64_t n = element_count_of(v);
    REQUIRE(d.size() == n);
    REQUIRE(d.scalar_count() == v.scalars.size());

    // (2) conversion to double and float: iteration, copy-out and at().
    std::vector<double> got;
    for (double x : d.scalars<double>()) got.push_back(x);
    REQUIRE(got.size() == v.scalars.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        INFO("scalar " << i << ": " << got[i] << " want " << v.scalars[i]);
        CHECK(same_double(got[i], v.scalars[i]));
        CHECK(std::signbit(got[i]) == std::signbit(v.scalars[i]));
    }
    std::vector<double> copied(got.size() + 1, 99.0);
    REQUIRE(d.copy_as(copied.data(), copied.size()).value() == got.size());
    for (std::size_t i = 0; i < got.size(); ++i) CHECK(same_double(copied[i], v.scalars[i]));
    CHECK(copied.back() == 99.0);
    if (!got.empty()) CHECK(d.copy_as(copied.data(), got.size() - 1).err().code == errc::buffer_too_small);
    std::vector<float> fl;
    for (float x : d.scalars<float>()) fl.push_back(x);
    REQUIRE(fl.size() == got.size());
    if (info.bits <= 32 || v.type == data_type::complex64)
        for (std::size_t i = 0; i < fl.size(); ++i) CHECK(same_double(fl[i], static_cast<float>(v.scalars[i])));
    for (std::uint64_t k = 0; k < n; ++k) {
        double im = -7;
        auto r = d.double_at(k, &im);
        REQUIRE(r.ok());
        if (info.kind == element_kind::complex) {
            CHECK(same_double(*r, v.scalars[2 * k]));
            CHECK(same_double(im, v.scalars[2 * k + 1]));
        } else {
            CHECK(same_double(*r, v.scalars[k]));
            CHECK(im == 0.0);
        }
    }
    CHECK(d.double_at(n).err().code == errc::not_found);

    // (1) natural type: iteration, copy-out, at(); a wrong type is refused.
    with_natural(info, [&](auto tag) {
        using T = decltype(tag);
        auto range = d.elements<T>();
        REQUIRE(range.ok());
        CHECK(range.size() == n);
        std::vector<std::uint64_t> pats;
        std::vector<T> values;
        for (T x : d.elements<T>()) {
            values.push_back(x);
            patterns_of(x, info.part_bits(), pats);
        }
        REQUIRE(values.size() == n);
        for (std::size_t i = 0; i < pats.size(); ++i) {
            INFO("part " << i);
            if (info.kind == element_kind::ieee_float || info.kind == element_kind::complex) {
                CHECK(pats[i] == v.patterns[i]);
            } else {
                CHECK(pats[i] == v.patterns[i]);
            }
        }
        std::unique_ptr<T[]> out(new T[n + 1]());
        REQUIRE(d.copy_to(out.get(), n + 1).value() == n);
        for (std::uint64_t k = 0; k < n; ++k) {
            std::vector<std::uint64_t> a, b;
            patterns_of(out[k], info.part_bits(), a);
            patterns_of(values[k], info.part_bits(), b);
            CHECK(a == b);
            auto at = d.at<T>(k);
            REQUIRE(at.ok());
            std::vector<std::uint64_t> c;
            patterns_of(*at, info.part_bits(), c);
            CHECK(c == b);
        }
        if (n > 0) CHECK(d.copy_to(out.get(), n - 1).err().code == errc::buffer_too_small);
        CHECK(d.at<T>(n).err().code == errc::not_found);
        if (!std::is_same<T, std::int64_t>::value) {
            CHECK(d.elements<std::int64_t>().err().code == errc::bad_data_type);
            std::int64_t dummy[64];
            CHECK(d.copy_to(dummy, 64).err().code == errc::bad_data_type);
        } else {
            CHECK(d.elements<double>().err().code == errc::bad_data_type);
        }
    });
    CHECK(d.elements<std::string_view>().empty());
    CHECK(d.elements<std::string_view>().err().code == errc::bad_data_type);
}

}  // namespace tensor_test
}  // namespace onnxview

#endif  // ONNXVIEW_TESTS_MODEL_TENSOR_VECTORS_HPP
