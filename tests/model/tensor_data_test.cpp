// tensor_data: every data type in raw and typed (packed and unpacked) form,
// the size/type/dims rules, zero-copy spans against alignment, external
// payloads through the callback, sparse indices, and testdata/ files
// compared with python3-onnx's numpy_helper.to_array.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "onnxview/external_source.hpp"
#include "onnxview/model.hpp"
#include "onnxview/sparse_data.hpp"
#include "onnxview/tensor_data.hpp"
#include "../wire_builder.hpp"

using namespace onnxview;
using onnxview::testing::wire_builder;

namespace {

using wt = wire::wire_type;
const double inf = std::numeric_limits<double>::infinity();
const double qnan = std::numeric_limits<double>::quiet_NaN();

std::uint64_t dbits(double d) {
    std::uint64_t u;
    std::memcpy(&u, &d, 8);
    return u;
}
std::uint64_t fbits(float f) {
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

std::vector<vec> vectors() {
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

const data_type_info& info_of(data_type t) { return *find_data_type_info(static_cast<std::int32_t>(t)); }

std::uint64_t element_count_of(const vec& v) {
    return info_of(v.type).kind == element_kind::complex ? v.patterns.size() / 2 : v.patterns.size();
}

// raw_data bytes, written from the layout table of the spec.
std::string raw_bytes(const vec& v) {
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
std::vector<std::uint64_t> typed_entries(const vec& v) {
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

wire_builder tensor_header(data_type t, std::initializer_list<std::int64_t> dims) {
    wire_builder b;
    for (std::int64_t d : dims) b.field_varint(1, static_cast<std::uint64_t>(d));
    b.field_int32(2, static_cast<std::int32_t>(t));
    return b;
}
wire_builder tensor_header(const vec& v) {
    wire_builder b;
    b.field_varint(1, element_count_of(v));
    b.field_int32(2, static_cast<std::int32_t>(v.type));
    return b;
}

wire_builder raw_tensor(const vec& v) {
    wire_builder b = tensor_header(v);
    b.field_bytes(8, "t").field_bytes(9, raw_bytes(v));
    return b;
}

void add_typed(wire_builder& b, typed_field f, const std::vector<std::uint64_t>& entries, bool packed) {
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

wire_builder typed_tensor(const vec& v, bool packed) {
    wire_builder b = tensor_header(v);
    add_typed(b, info_of(v.type).field, typed_entries(v), packed);
    return b;
}

bool same_double(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

// Back from a natural value to its bit pattern(s), independently of the library.
template <class T>
void patterns_of(T v, unsigned part_bits, std::vector<std::uint64_t>& out) {
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
void with_natural(const data_type_info& info, F&& f) {
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

void check_all_accessors(const vec& v, const tensor_data& d) {
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

}  // namespace

TEST_CASE("data type table: 26 types, names, bits, fields") {
    CHECK(find_data_type_info(0) == nullptr);
    CHECK(find_data_type_info(27) == nullptr);
    CHECK(find_data_type_info(99) == nullptr);
    CHECK(find_data_type_info(-1) == nullptr);
    for (std::int32_t t = 1; t <= max_data_type; ++t) {
        const data_type_info* i = find_data_type_info(t);
        REQUIRE(i != nullptr);
        CHECK(i->type == t);
        CHECK(std::string(i->name) == data_type_name(t));
    }
    CHECK(info_of(data_type::complex128).bits == 128);
    CHECK(info_of(data_type::complex128).field == typed_field::double_data);
    CHECK(info_of(data_type::uint32).field == typed_field::uint64_data);
    CHECK(info_of(data_type::int4).bits == 4);
    CHECK(info_of(data_type::int2).elements_per_entry == 4);
    CHECK(info_of(data_type::boolean).field == typed_field::int32_data);
    static_assert(std::is_same<element_type_t<data_type::float16>, std::uint16_t>::value, "");
    static_assert(std::is_same<element_type_t<data_type::int4>, std::int8_t>::value, "");
    static_assert(std::is_same<element_type_t<data_type::complex64>, std::complex<float>>::value, "");
    static_assert(std::is_same<element_type_t<data_type::string>, std::string_view>::value, "");
    CHECK(std::string(typed_field_name(typed_field::uint64_data)) == "uint64_data");
    CHECK(std::string(storage_kind_name(storage_kind::external)) == "external");
}

TEST_CASE("every data type in raw_data") {
    for (const vec& v : vectors()) {
        INFO(data_type_name(static_cast<std::int32_t>(v.type)));
        const wire_builder b = raw_tensor(v);
        auto t = parse_tensor(b.str().data(), b.str().size());
        auto d = tensor_data::make(t);
        REQUIRE(d.ok());
        CHECK(d->storage() == storage_kind::raw);
        CHECK(d->describe().byte_size == raw_bytes(v).size());
        CHECK(d->bytes() == raw_bytes(v));
        check_all_accessors(v, *d);
        auto s = describe_storage(t);
        REQUIRE(s.ok());
        CHECK(s->kind == storage_kind::raw);
        CHECK(s->offset == static_cast<std::uint64_t>(t.raw_data().data() - b.str().data()));
    }
}

TEST_CASE("every data type in its typed field, packed and unpacked") {
    for (bool packed : {true, false}) {
        for (const vec& v : vectors()) {
            INFO(data_type_name(static_cast<std::int32_t>(v.type)) << (packed ? " packed" : " unpacked"));
            const wire_builder b = typed_tensor(v, packed);
            auto t = parse_tensor(b.str().data(), b.str().size());
            auto d = tensor_data::make(t);
            REQUIRE(d.ok());
            CHECK(d->storage() == storage_kind::typed);
            CHECK(d->describe().entry_count == typed_entries(v).size());
            CHECK(d->bytes().empty());
            check_all_accessors(v, *d);
        }
    }
}

TEST_CASE("typed fields split into several chunks and mixed encodings") {
    const vec v{data_type::int16, {0x8000, 0xFFFF, 0, 0x7FFF, 0xEF6E}, {-32768, -1, 0, 32767, -4242}};
    auto e = typed_entries(v);
    wire_builder b = tensor_header(v);
    add_typed(b, typed_field::int32_data, {e[0], e[1]}, true);
    b.field_bytes(8, "between");
    add_typed(b, typed_field::int32_data, {e[2]}, false);
    add_typed(b, typed_field::int32_data, {e[3], e[4]}, true);
    auto d = tensor_data::make(parse_tensor(b.str().data(), b.str().size()));
    REQUIRE(d.ok());
    check_all_accessors(v, *d);
}

// The blocks concatenated, and how many there were.
std::pair<std::string, int> joined_blocks(const tensor_data& d) {
    std::string all;
    int n = 0;
    for (std::string_view b : d.blocks()) {
        all.append(b.data(), b.size());
        ++n;
    }
    return {all, n};
}

TEST_CASE("blocks(): raw_data as one block, float/double chunks and unpacked entries in raw layout") {
    for (const vec& v : vectors()) {
        INFO(data_type_name(static_cast<std::int32_t>(v.type)));
        const std::string raw = raw_tensor(v).str();
        auto d = tensor_data::make(parse_tensor(raw.data(), raw.size()));
        REQUIRE(d.ok());
        REQUIRE(d->blocks().ok());
        CHECK(joined_blocks(*d) == std::make_pair(raw_bytes(v), raw_bytes(v).empty() ? 0 : 1));

        const typed_field field = info_of(v.type).field;
        const auto e = typed_entries(v);
        wire_builder b = tensor_header(v);  // two packed chunks around an unpacked entry
        add_typed(b, field, {e.begin(), e.begin() + e.size() / 2}, true);
        b.field_bytes(8, "between");
        if (e.size() > e.size() / 2) add_typed(b, field, {e[e.size() / 2]}, false);
        if (e.size() > e.size() / 2 + 1) add_typed(b, field, {e.begin() + e.size() / 2 + 1, e.end()}, true);
        auto t = tensor_data::make(parse_tensor(b.str().data(), b.str().size()));
        REQUIRE(t.ok());
        if (field == typed_field::float_data || field == typed_field::double_data) {
            REQUIRE(t->blocks().ok());
            const auto joined = joined_blocks(*t);
            CHECK(joined.first == raw_bytes(v));
            const std::size_t half = e.size() / 2;  // the first chunk may be empty
            CHECK(joined.second == 1 + (e.size() > half ? 1 : 0) + (e.size() > half + 1 ? 1 : 0));
        } else {  // varints: no bytes in raw layout to give
            CHECK(t->blocks().err().code == errc::bad_data_type);
            CHECK(joined_blocks(*t).second == 0);
        }
    }
    wire_builder s = tensor_header(data_type::string, {1});
    s.field_bytes(6, "abc");
    auto str = tensor_data::make(parse_tensor(s.str().data(), s.str().size()));
    REQUIRE(str.ok());
    CHECK(str->blocks().err().code == errc::bad_data_type);
}

TEST_CASE("negative int32_data entries are 10-byte varints and decode for INT8/INT16/INT4") {
    wire_builder b = tensor_header(data_type::int8, {2});
    b.field_int32(5, -128).field_int32(5, -1);
    // tag + 10 bytes each
    CHECK(b.str().size() == 2 + 2 + 2 * 11);
    auto d = tensor_data::make(parse_tensor(b.str().data(), b.str().size()));
    REQUIRE(d.ok());
    CHECK(d->at<std::int8_t>(0).value() == -128);
    CHECK(d->at<std::int8_t>(1).value() == -1);
    // ONNX 1.16's helper wrote packed INT4 bytes >= 0x80 as negative int32.
    wire_builder c = tensor_header(data_type::int4, {3});
    c.field_int32(5, static_cast<std::int8_t>(0xF8)).field_int32(5, 0x07);
    auto d4 = tensor_data::make(parse_tensor(c.str().data(), c.str().size()));
    REQUIRE(d4.ok());
    std::int8_t out[3];
    REQUIRE(d4->copy_to(out, 3).ok());
    CHECK(out[0] == -8);
    CHECK(out[1] == -1);
    CHECK(out[2] == 7);
    // Entries wider than the element are masked, not rejected.
    wire_builder u = tensor_header(data_type::uint8, {1});
    u.field_varint(5, 0x1FF);
    CHECK(tensor_data::make(parse_tensor(u.str().data(), u.str().size()))->at<std::uint8_t>(0).value() == 0xFF);
}

TEST_CASE("element count: scalar, zero, negative and overflowing dims") {
    auto count = [](std::initializer_list<std::int64_t> dims) {
        wire_builder b = tensor_header(data_type::float32, dims);
        return element_count(parse_tensor(b.str().data(), b.str().size()));
    };
    CHECK(count({}).value() == 1);
    CHECK(count({0, 3}).value() == 0);
    CHECK(count({2, 3, 4}).value() == 24);
    CHECK(count({-1, 3}).err().code == errc::bad_dims);
    CHECK(count({3, -5}).err().code == errc::bad_dims);
    CHECK(count({1ll << 32, 1ll << 32}).err().code == errc::bad_dims);
    CHECK(count({1ll << 32, 1ll << 31}).value() == (1ull << 63));
    CHECK(count({1ll << 40, 1ll << 40, 0}).value() == 0);  // overflow cancelled by a zero
    CHECK(count({0, -1}).err().code == errc::bad_dims);
    // Packed dims (proto3 writers).
    wire_builder p;
    p.packed_varint(1, {2, 5}).field_int32(2, 1);
    CHECK(element_count(parse_tensor(p.str().data(), p.str().size())).value() == 10);

    // N fits but N x 4 bytes does not: bad_dims, and no allocation or read.
    wire_builder big = tensor_header(data_type::float32, {1ll << 62, 2});
    big.field_bytes(9, std::string(8, '\0'));
    CHECK(tensor_data::make(parse_tensor(big.str().data(), big.str().size())).err().code == errc::bad_dims);
    // A huge count with a tiny payload: a size mismatch, nothing else.
    wire_builder huge = tensor_header(data_type::uint8, {1ll << 62});
    huge.field_bytes(9, std::string(8, '\0'));
    CHECK(tensor_data::make(parse_tensor(huge.str().data(), huge.str().size())).err().code ==
          errc::payload_size_mismatch);
    wire_builder huge_typed = tensor_header(data_type::int32, {1ll << 61});
    huge_typed.field_varint(5, 1);
    CHECK(tensor_data::make(parse_tensor(huge_typed.str().data(), huge_typed.str().size())).err().code ==
          errc::payload_size_mismatch);
    wire_builder neg = tensor_header(data_type::float32, {-2});
    neg.field_bytes(9, std::string(8, '\0'));
    CHECK(tensor_data::make(parse_tensor(neg.str().data(), neg.str().size())).err().code == errc::bad_dims);
}

TEST_CASE("scalar and empty tensors") {
    wire_builder s;
    s.field_int32(2, 1).field_bytes(9, std::string("\x00\x00\xe8\x40", 4));  // 7.25f
    auto d = tensor_data::make(parse_tensor(s.str().data(), s.str().size()));
    REQUIRE(d.ok());
    CHECK(d->size() == 1);
    CHECK(d->at<float>(0).value() == 7.25f);
    wire_builder e = tensor_header(data_type::float32, {0, 3});
    auto de = tensor_data::make(parse_tensor(e.str().data(), e.str().size()));
    REQUIRE(de.ok());
    CHECK(de->storage() == storage_kind::none);
    CHECK(de->size() == 0);
    CHECK(de->as_span<float>().value().empty());
    float none[1];
    CHECK(de->copy_to(none, 0).value() == 0);
    int iterations = 0;
    for (float x : de->elements<float>()) iterations += x != 0 ? 1 : 1;
    CHECK(iterations == 0);
    // Empty raw_data with zero elements is fine (proto2 writers keep it).
    wire_builder er = tensor_header(data_type::int32, {2, 0});
    er.field_bytes(9, "");
    auto der = tensor_data::make(parse_tensor(er.str().data(), er.str().size()));
    REQUIRE(der.ok());
    CHECK(der->storage() == storage_kind::raw);
    // One element but no payload at all.
    wire_builder np = tensor_header(data_type::int32, {1});
    CHECK(tensor_data::make(parse_tensor(np.str().data(), np.str().size())).err().code ==
          errc::payload_size_mismatch);
}

TEST_CASE("payload size is exact: raw shorter or longer, typed fewer or more entries") {
    for (const vec& v : vectors()) {
        INFO(data_type_name(static_cast<std::int32_t>(v.type)));
        const std::string raw = raw_bytes(v);
        wire_builder shorter = tensor_header(v);
        shorter.field_bytes(9, raw.substr(0, raw.size() - 1));
        CHECK(tensor_data::make(parse_tensor(shorter.str().data(), shorter.str().size())).err().code ==
              errc::payload_size_mismatch);
        wire_builder longer = tensor_header(v);
        longer.field_bytes(9, raw + '\0');
        auto lr = tensor_data::make(parse_tensor(longer.str().data(), longer.str().size()));
        CHECK(lr.err().code == errc::payload_size_mismatch);
        // The error points at raw_data's payload.
        CHECK(lr.err().offset == longer.str().size() - raw.size() - 1);

        const data_type_info& info = info_of(v.type);
        auto entries = typed_entries(v);
        auto fewer = entries;
        fewer.pop_back();
        wire_builder tf = tensor_header(v);
        add_typed(tf, info.field, fewer, true);
        CHECK(tensor_data::make(parse_tensor(tf.str().data(), tf.str().size())).err().code ==
              errc::payload_size_mismatch);
        auto more = entries;
        more.push_back(0);
        wire_builder tm = tensor_header(v);
        add_typed(tm, info.field, more, false);
        CHECK(tensor_data::make(parse_tensor(tm.str().data(), tm.str().size())).err().code ==
              errc::payload_size_mismatch);
        // describe_storage applies the same rules.
        CHECK(describe_storage(parse_tensor(tm.str().data(), tm.str().size())).err().code ==
              errc::payload_size_mismatch);
    }
}

TEST_CASE("sub-byte types: one packed byte per int32 entry, odd counts, checker's 1/8 bound refused") {
    // 9 INT4 elements: ceil(9/2) = 5 entries. The checker would accept 2.
    wire_builder ok = tensor_header(data_type::int4, {9});
    add_typed(ok, typed_field::int32_data, {0x21, 0x43, 0x65, 0x87, 0x09}, true);
    auto d = tensor_data::make(parse_tensor(ok.str().data(), ok.str().size()));
    REQUIRE(d.ok());
    std::int8_t out[9];
    REQUIRE(d->copy_to(out, 9).value() == 9);
    const std::int8_t want[9] = {1, 2, 3, 4, 5, 6, 7, -8, -7};
    for (int i = 0; i < 9; ++i) CHECK(out[i] == want[i]);
    wire_builder lenient = tensor_header(data_type::int4, {9});
    add_typed(lenient, typed_field::int32_data, {0x21, 0x43}, true);
    CHECK(tensor_data::make(parse_tensor(lenient.str().data(), lenient.str().size())).err().code ==
          errc::payload_size_mismatch);
    // 2-bit: 5 elements in ceil(5/4) = 2 bytes; x0 | x1<<2 | x2<<4 | x3<<6.
    wire_builder u2 = tensor_header(data_type::uint2, {5});
    u2.field_bytes(9, std::string("\xE4\x02", 2));  // 0,1,2,3 | 2
    auto d2 = tensor_data::make(parse_tensor(u2.str().data(), u2.str().size()));
    REQUIRE(d2.ok());
    std::uint8_t o2[5];
    REQUIRE(d2->copy_to(o2, 5).ok());
    CHECK((o2[0] == 0 && o2[1] == 1 && o2[2] == 2 && o2[3] == 3 && o2[4] == 2));
    CHECK(d2->at<std::uint8_t>(4).value() == 2);
    CHECK(d2->as_span<std::uint8_t>().err().code == errc::bad_data_type);  // no span of unpacked values
}

TEST_CASE("type and storage conflicts") {
    // Unknown data type numbers.
    for (std::int32_t t : {0, 27, 99, -3}) {
        wire_builder b;
        b.field_varint(1, 1).field_int32(2, t).field_bytes(9, "abcd");
        CHECK(tensor_data::make(parse_tensor(b.str().data(), b.str().size())).err().code == errc::bad_data_type);
    }
    // STRING with raw_data.
    wire_builder sr = tensor_header(data_type::string, {1});
    sr.field_bytes(9, "abc");
    CHECK(tensor_data::make(parse_tensor(sr.str().data(), sr.str().size())).err().code == errc::bad_data_type);
    // A FLOAT tensor with int64_data (wrong typed field).
    wire_builder wf = tensor_header(data_type::float32, {1});
    wf.field_varint(7, 3);
    CHECK(tensor_data::make(parse_tensor(wf.str().data(), wf.str().size())).err().code == errc::bad_data_type);
    // raw_data and a typed field at once.
    wire_builder both = tensor_header(data_type::float32, {1});
    both.field_float(4, 1.0f).field_bytes(9, std::string(4, '\0'));
    CHECK(tensor_data::make(parse_tensor(both.str().data(), both.str().size())).err().code ==
          errc::payload_size_mismatch);
    // A malformed tensor: the wire error comes through.
    const std::string bad("\x0a\x05\x01", 3);
    CHECK(tensor_data::make(parse_tensor(bad.data(), bad.size())).err().code != errc::ok);
    // Segments are not interpreted: checked against dims like any tensor.
    wire_builder seg = tensor_header(data_type::uint8, {3});
    seg.field_message(3, wire_builder().field_varint(1, 0).field_varint(2, 2)).field_bytes(9, "abc");
    auto st = parse_tensor(seg.str().data(), seg.str().size());
    CHECK(st.has_segment());
    CHECK(st.segment().end() == 2);
    CHECK(tensor_data::make(st).ok());
}

TEST_CASE("STRING tensors") {
    wire_builder b = tensor_header(data_type::string, {3});
    b.field_bytes(6, "").field_bytes(6, "hello").field_bytes(6, std::string("\x00\xff", 2));
    auto d = tensor_data::make(parse_tensor(b.str().data(), b.str().size()));
    REQUIRE(d.ok());
    CHECK(d->storage() == storage_kind::typed);
    std::vector<std::string_view> got;
    for (std::string_view s : d->elements<std::string_view>()) got.push_back(s);
    REQUIRE(got.size() == 3);
    CHECK(got[1] == "hello");
    CHECK(got[2] == std::string_view("\x00\xff", 2));
    std::string_view out[3];
    CHECK(d->copy_to(out, 3).value() == 3);
    CHECK(out[1] == "hello");
    CHECK(d->at<std::string_view>(2).value() == got[2]);
    CHECK(d->scalars<double>().err().code == errc::bad_data_type);
    wire_builder few = tensor_header(data_type::string, {3});
    few.field_bytes(6, "x");
    CHECK(tensor_data::make(parse_tensor(few.str().data(), few.str().size())).err().code ==
          errc::payload_size_mismatch);
}

TEST_CASE("zero-copy span: aligned, unaligned (buffer shifted by one byte), copy-out unaffected") {
    const vec v{data_type::float32, {fbits(1.5f), fbits(-2.0f), fbits(3.25f), fbits(1e-3f)}, {}};
    const std::string msg = raw_tensor(v).str();
    const std::size_t raw_off = msg.size() - 16;
    alignas(16) char storage[256];
    for (std::size_t shift = 0; shift < 8; ++shift) {
        std::memcpy(storage + shift, msg.data(), msg.size());
        auto t = parse_tensor(storage + shift, msg.size());
        auto d = tensor_data::make(t);
        REQUIRE(d.ok());
        const bool aligned = (reinterpret_cast<std::uintptr_t>(storage + shift + raw_off) % alignof(float)) == 0;
        auto s = d->as_span<float>();
        INFO("shift " << shift);
        if (!host_is_little_endian) {  // s390x: views of little-endian floats are refused
            CHECK(s.err().code == errc::not_little_endian);
        } else if (aligned) {
            REQUIRE(s.ok());
            CHECK(s->data() == reinterpret_cast<const float*>(storage + shift + raw_off));  // no copy
            CHECK((*s)[2] == 3.25f);
            CHECK(d->describe().alignment >= 4);
        } else {
            CHECK(s.err().code == errc::unaligned);
            CHECK(d->describe().alignment < 4);
        }
        float out[4];
        REQUIRE(d->copy_to(out, 4).value() == 4);
        CHECK((out[0] == 1.5f && out[1] == -2.0f && out[2] == 3.25f && out[3] == 1e-3f));
        CHECK(tensor_data::make(t).value().as_span<float>().ok() == (aligned && host_is_little_endian));
        float out2[4];
        CHECK(tensor_data::make(t).value().copy_to(out2, 4).value() == 4);
        CHECK(std::memcmp(out, out2, sizeof out) == 0);
        CHECK(d->as_span<double>().err().code == errc::bad_data_type);
        CHECK(d->as_span<std::uint8_t>().err().code == errc::bad_data_type);
    }
    // 1-byte types are never unaligned.
    const std::string u8 = raw_tensor(vec{data_type::uint8, {1, 2, 3}, {}}).str();
    std::memcpy(storage + 1, u8.data(), u8.size());
    CHECK(tensor_data::make(parse_tensor(storage + 1, u8.size()))->as_span<std::uint8_t>().ok());
}

TEST_CASE("zero-copy span over typed float_data/double_data in one packed chunk only") {
    const vec v{data_type::float64, {dbits(1.5), dbits(-1.0)}, {}};
    alignas(16) char storage[128];
    const std::string one = typed_tensor(v, true).str();
    const std::size_t payload_off = one.size() - 16;
    for (std::size_t shift = 0; shift < 8; ++shift) {
        std::memcpy(storage + shift, one.data(), one.size());
        auto d = tensor_data::make(parse_tensor(storage + shift, one.size()));
        REQUIRE(d.ok());
        auto s = d->as_span<double>();
        if (!host_is_little_endian) {
            CHECK(s.err().code == errc::not_little_endian);
        } else if ((reinterpret_cast<std::uintptr_t>(storage + shift + payload_off) % alignof(double)) == 0) {  // 4 on i686
            REQUIRE(s.ok());
            CHECK((*s)[1] == -1.0);
        } else {
            CHECK(s.err().code == errc::unaligned);
        }
    }
    const std::string unpacked = typed_tensor(v, false).str();
    CHECK(tensor_data::make(parse_tensor(unpacked.data(), unpacked.size()))->as_span<double>().err().code ==
          errc::bad_data_type);
    const std::string ints = typed_tensor(vec{data_type::int32, {1, 2}, {}}, true).str();
    CHECK(tensor_data::make(parse_tensor(ints.data(), ints.size()))->as_span<std::int32_t>().err().code ==
          errc::bad_data_type);  // varints: no array to view
}

TEST_CASE("BOOL span checks its bytes; iteration maps non-zero to true") {
    wire_builder b = tensor_header(data_type::boolean, {3});
    b.field_bytes(9, std::string("\x01\x00\x01", 3));
    auto d = tensor_data::make(parse_tensor(b.str().data(), b.str().size()));
    REQUIRE(d.ok());
    auto s = d->as_span<bool>();
    REQUIRE(s.ok());
    CHECK((*s)[0]);
    CHECK(!(*s)[1]);
    wire_builder c = tensor_header(data_type::boolean, {2});
    c.field_bytes(9, std::string("\x02\x00", 2));
    auto dc = tensor_data::make(parse_tensor(c.str().data(), c.str().size()));
    REQUIRE(dc.ok());
    CHECK(dc->as_span<bool>().err().code == errc::bad_data_type);
    bool out[2];
    REQUIRE(dc->copy_to(out, 2).ok());
    CHECK(out[0]);
    CHECK(!out[1]);
}

namespace {
struct fake_files {
    std::string payload;
    int calls = 0;
    std::uint64_t last_expected = 0;
    static result<std::string_view> fetch(void* user, const tensor_view& t, std::uint64_t expected) {
        auto* self = static_cast<fake_files*>(user);
        ++self->calls;
        self->last_expected = expected;
        if (t.name() == "missing") return error(errc::not_found);
        return std::string_view(self->payload);
    }
};

wire_builder external_tensor(const char* name, std::int64_t n) {
    wire_builder b = tensor_header(data_type::float32, {n});
    b.field_bytes(8, name);
    b.field_message(13, wire_builder().field_bytes(1, "location").field_bytes(2, "w.bin"));
    b.field_message(13, wire_builder().field_bytes(1, "offset").field_bytes(2, "4096"));
    b.field_message(13, wire_builder().field_bytes(1, "length").field_bytes(2, "8"));
    b.field_varint(14, 1);
    return b;
}
}  // namespace

TEST_CASE("external payloads come through the callback") {
    fake_files files;
    files.payload = std::string("\x00\x00\xc0\x3f\x00\x00\x00\xc0", 8);  // 1.5f, -2.0f
    external_payload_source src{&files, &fake_files::fetch};
    const std::string msg = external_tensor("w", 2).str();
    auto t = parse_tensor(msg.data(), msg.size());

    auto info = describe_storage(t);  // no fetch
    REQUIRE(info.ok());
    CHECK(info->kind == storage_kind::external);
    CHECK(info->location == "w.bin");
    CHECK(info->offset == 4096);
    CHECK(info->alignment == 4096);
    CHECK(info->byte_size == 8);
    CHECK(files.calls == 0);

    CHECK(tensor_data::make(t).err().code == errc::invalid_argument);  // no source
    auto d = tensor_data::make(t, src);
    REQUIRE(d.ok());
    CHECK(files.calls == 1);
    CHECK(files.last_expected == 8);
    CHECK(d->storage() == storage_kind::external);
    CHECK(d->bytes().data() == files.payload.data());
    float out[2];
    REQUIRE(d->copy_to(out, 2).ok());
    CHECK((out[0] == 1.5f && out[1] == -2.0f));
    CHECK(d->at<float>(1).value() == -2.0f);
    CHECK(tensor_data::make(t, src).value().copy_to(out, 2).ok());

    files.payload.pop_back();  // the source returns the wrong size
    CHECK(tensor_data::make(t, src).err().code == errc::payload_size_mismatch);
    const std::string miss = external_tensor("missing", 2).str();
    CHECK(tensor_data::make(parse_tensor(miss.data(), miss.size()), src).err().code == errc::not_found);

    // EXTERNAL with inline payload, and STRING external.
    wire_builder inline_too = external_tensor("w", 2);
    inline_too.field_bytes(9, std::string(8, '\0'));
    CHECK(describe_storage(parse_tensor(inline_too.str().data(), inline_too.str().size())).err().code ==
          errc::payload_size_mismatch);
    wire_builder ext_str;
    ext_str.field_varint(1, 1).field_int32(2, 8).field_varint(14, 1);
    CHECK(describe_storage(parse_tensor(ext_str.str().data(), ext_str.str().size())).err().code ==
          errc::bad_data_type);
}

TEST_CASE("typed entry counts, required entries and the external location (the facts the checker uses)") {
    // all_typed_fields: the six typed fields in field-number order, covering every type's field.
    REQUIRE(sizeof(all_typed_fields) / sizeof(all_typed_fields[0]) == 6);
    for (std::size_t i = 1; i < 6; ++i)
        CHECK(static_cast<int>(all_typed_fields[i - 1]) < static_cast<int>(all_typed_fields[i]));
    for (std::int32_t dt = 1; dt <= max_data_type; ++dt) {
        const typed_field f = find_data_type_info(dt)->field;
        CHECK(std::find(std::begin(all_typed_fields), std::end(all_typed_fields), f) != std::end(all_typed_fields));
    }

    // Every data type, packed and unpacked: the entries present are the
    // entries required, in its own field and nowhere else.
    for (const vec& v : vectors()) {
        const data_type_info& info = info_of(v.type);
        INFO(info.name);
        for (bool packed : {true, false}) {
            const std::string msg = typed_tensor(v, packed).str();
            const tensor_view t = parse_tensor(msg.data(), msg.size());
            for (typed_field f : all_typed_fields) {
                const std::uint64_t want = f == info.field ? typed_entries(v).size() : 0;
                CHECK(typed_entry_count(t, f).value() == want);
            }
            CHECK(required_typed_entries(info, element_count_of(v)).value() == typed_entries(v).size());
        }
    }
    CHECK(typed_entry_count(parse_tensor("", 0), typed_field::none).value() == 0);
    wire_builder strings = tensor_header(data_type::string, {3});
    strings.field_bytes(6, "").field_bytes(6, "a").field_bytes(6, "bc");
    const tensor_view st = parse_tensor(strings.str().data(), strings.str().size());
    CHECK(typed_entry_count(st, typed_field::string_data).value() == 3);
    CHECK(typed_entry_count(st, typed_field::int32_data).value() == 0);

    // The rule in numbers: complex 2N, 4-bit ceil(N/2), 2-bit ceil(N/4), STRING N.
    auto required = [](data_type t, std::uint64_t n) { return required_typed_entries(info_of(t), n); };
    CHECK(required(data_type::float32, 3).value() == 3);
    CHECK(required(data_type::complex64, 3).value() == 6);
    CHECK(required(data_type::complex128, 3).value() == 6);
    CHECK(required(data_type::int4, 9).value() == 5);
    CHECK(required(data_type::uint2, 5).value() == 2);
    CHECK(required(data_type::string, 4).value() == 4);
    CHECK(required(data_type::int4, ~0ull).value() == (1ull << 63));
    CHECK(required(data_type::complex64, 1ull << 63).err().code == errc::bad_dims);

    // A packed fixed32 chunk that is not a multiple of 4 bytes: the wire error.
    wire_builder bad = tensor_header(data_type::float32, {1});
    bad.field_bytes(4, "abc");
    CHECK(typed_entry_count(parse_tensor(bad.str().data(), bad.str().size()), typed_field::float_data).err().code ==
          errc::bad_packed_length);

    // The external location: the entries as written, no strict parsing.
    const std::string ext = external_tensor("w", 2).str();
    external_location where = find_external_location(parse_tensor(ext.data(), ext.size()));
    CHECK(where.has_location);
    CHECK(where.location == "w.bin");
    CHECK(where.offset == 4096);
    CHECK(describe_storage(parse_tensor(ext.data(), ext.size()))->location == where.location);
    wire_builder odd = tensor_header(data_type::float32, {2});
    odd.field_message(13, wire_builder().field_bytes(1, "location").field_bytes(2, ""));
    odd.field_message(13, wire_builder().field_bytes(1, "offset").field_bytes(2, "12x"));
    where = find_external_location(parse_tensor(odd.str().data(), odd.str().size()));
    CHECK(where.has_location);  // present, if empty
    CHECK(where.location.empty());
    CHECK(where.offset == 0);   // not a plain decimal
    const std::string none = tensor_header(data_type::float32, {2}).str();
    where = find_external_location(parse_tensor(none.data(), none.size()));
    CHECK_FALSE(where.has_location);
    CHECK(where.offset == 0);
}

TEST_CASE("the same API for attribute tensors and sparse values") {
    const vec v{data_type::int32, {5, 0xFFFFFFFFu}, {5, -1}};
    // AttributeProto { name: "value", t: <tensor>, type: TENSOR }
    wire_builder attr;
    attr.field_bytes(1, "value").field_message(5, typed_tensor(v, true)).field_varint(20, 4);
    auto a = parse_as<attribute_view>(attr.str().data(), attr.str().size());
    auto d = tensor_data::make(a.t());
    REQUIRE(d.ok());
    check_all_accessors(v, *d);
}

TEST_CASE("sparse tensors: linear and coordinate indices") {
    // dense [4, 5], values at (0,1), (2,3), (3,4) -> linear 1, 13, 19.
    wire_builder values = tensor_header(data_type::float32, {3});
    values.field_bytes(9, raw_bytes(vec{data_type::float32, {fbits(1.5f), fbits(-2.0f), fbits(3.25f)}, {}}));
    wire_builder coords = tensor_header(data_type::int64, {3, 2});
    add_typed(coords, typed_field::int64_data, {0, 1, 2, 3, 3, 4}, true);
    wire_builder sp;
    sp.field_message(1, values).field_message(2, coords).field_varint(3, 4).field_varint(3, 5);
    auto s = sparse_data::make(parse_as<sparse_tensor_view>(sp.str().data(), sp.str().size()));
    REQUIRE(s.ok());
    CHECK(s->layout() == sparse_layout::coordinates);
    CHECK(s->nnz() == 3);
    CHECK(s->rank() == 2);
    CHECK(s->dense_size() == 20);
    CHECK(s->linear_index(0).value() == 1);
    CHECK(s->linear_index(1).value() == 13);
    CHECK(s->linear_index(2).value() == 19);
    CHECK(s->linear_index(3).err().code == errc::not_found);
    std::int64_t c[2];
    REQUIRE(s->coordinates(1, c, 2).ok());
    CHECK((c[0] == 2 && c[1] == 3));
    CHECK(s->coordinates(1, c, 1).code == errc::buffer_too_small);
    CHECK(s->validate_indices().ok());
    CHECK(s->values().at<float>(2).value() == 3.25f);

    // Linearized [NNZ] indices, raw.
    wire_builder lin = tensor_header(data_type::int64, {3});
    lin.field_bytes(9, raw_bytes(vec{data_type::int64, {1, 13, 19}, {}}));
    wire_builder sl;
    sl.field_message(1, values).field_message(2, lin).packed_varint(3, {4, 5});
    auto l = sparse_data::make(parse_as<sparse_tensor_view>(sl.str().data(), sl.str().size()));
    REQUIRE(l.ok());
    CHECK(l->layout() == sparse_layout::linear);
    CHECK(l->linear_index(1).value() == 13);
    REQUIRE(l->coordinates(2, c, 2).ok());
    CHECK((c[0] == 3 && c[1] == 4));
    CHECK(l->validate_indices().ok());

    auto make = [&](const wire_builder& idx, std::initializer_list<std::uint64_t> dims) {
        wire_builder b;
        b.field_message(1, values).field_message(2, idx);
        for (auto d : dims) b.field_varint(3, d);
        static std::string keep;
        keep = b.str();
        return sparse_data::make(parse_as<sparse_tensor_view>(keep.data(), keep.size()));
    };
    // Indices must be INT64.
    wire_builder i32 = tensor_header(data_type::int32, {3});
    add_typed(i32, typed_field::int32_data, {1, 2, 3}, true);
    CHECK(make(i32, {4, 5}).err().code == errc::bad_data_type);
    // NNZ disagreeing with the values' length.
    wire_builder two = tensor_header(data_type::int64, {2});
    add_typed(two, typed_field::int64_data, {1, 2}, true);
    CHECK(make(two, {4, 5}).err().code == errc::bad_dims);
    // [NNZ, rank] with the wrong rank.
    wire_builder r3 = tensor_header(data_type::int64, {3, 3});
    add_typed(r3, typed_field::int64_data, {0, 0, 0, 0, 0, 1, 0, 0, 2}, true);
    CHECK(make(r3, {4, 5}).err().code == errc::bad_dims);
    // Out of range: caught per access and by validate_indices.
    wire_builder oor = tensor_header(data_type::int64, {3});
    add_typed(oor, typed_field::int64_data, {1, 13, 20}, true);
    auto o = make(oor, {4, 5});
    REQUIRE(o.ok());
    CHECK(o->linear_index(1).value() == 13);
    CHECK(o->linear_index(2).err().code == errc::bad_dims);
    CHECK(o->validate_indices().code == errc::bad_dims);
    wire_builder negc = tensor_header(data_type::int64, {3, 2});
    add_typed(negc, typed_field::int64_data, {0, 1, 2, static_cast<std::uint64_t>(-1), 3, 4}, true);
    auto nc = make(negc, {4, 5});
    REQUIRE(nc.ok());
    CHECK(nc->linear_index(1).err().code == errc::bad_dims);
    // Unsorted and duplicate indices.
    wire_builder uns = tensor_header(data_type::int64, {3});
    add_typed(uns, typed_field::int64_data, {13, 1, 19}, true);
    CHECK(make(uns, {4, 5})->validate_indices().code == errc::bad_dims);
    wire_builder dup = tensor_header(data_type::int64, {3});
    add_typed(dup, typed_field::int64_data, {1, 1, 19}, true);
    CHECK(make(dup, {4, 5})->validate_indices().code == errc::bad_dims);
    // Negative dense dims.
    CHECK(make(lin, {4, static_cast<std::uint64_t>(-5)}).err().code == errc::bad_dims);
}

// ---------------------------------------------------------------------------
// testdata/ files, compared with numpy_helper.to_array run at test time.

namespace {

std::string find_testdata(const char* name) {
    std::string here = __FILE__;
    const std::string tail = "tests/model/tensor_data_test.cpp";
    std::vector<std::string> candidates;
    if (here.size() >= tail.size() && here.compare(here.size() - tail.size(), tail.size(), tail) == 0)
        candidates.push_back(here.substr(0, here.size() - tail.size()) + "testdata/" + name);
    for (const char* up : {"", "../", "../../", "../../../"}) candidates.push_back(std::string(up) + "testdata/" + name);
    for (const std::string& c : candidates) {
        std::ifstream f(c, std::ios::binary);
        if (f) return c;
    }
    return {};
}

std::string read_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

// name -> scalars (float64, complex as real/imag) or hex strings, from python3-onnx.
bool python_reference(const std::string& model, std::map<std::string, std::vector<std::string>>& out) {
    static const char* script =
        "import sys\n"
        "import numpy as np\n"
        "import onnx\n"
        "from onnx import numpy_helper\n"
        "m = onnx.load(sys.argv[1])\n"
        "for t in m.graph.initializer:\n"
        "    try:\n"
        "        a = numpy_helper.to_array(t).reshape(-1)\n"
        "    except TypeError:\n"
        "        # onnx 1.12 cannot convert typed complex tensors: take the fields as decoded by protobuf\n"
        "        pairs = list(t.float_data) if t.data_type == onnx.TensorProto.COMPLEX64 else list(t.double_data)\n"
        "        print(t.name, len(pairs), *[float(x).hex() for x in pairs])\n"
        "        continue\n"
        "    if t.data_type == onnx.TensorProto.BFLOAT16 and a.dtype == np.uint16:\n"
        "        a = (a.astype(np.uint32) << 16).view(np.float32)\n"
        "    if t.data_type == onnx.TensorProto.STRING:\n"
        "        vals = ['x' + bytes(x).hex() for x in t.string_data]\n"
        "    elif np.iscomplexobj(a):\n"
        "        vals = [float(y).hex() for x in a for y in (x.real, x.imag)]\n"
        "    else:\n"
        "        vals = [float(x).hex() for x in a.astype(np.float64)]\n"
        "    print(t.name, len(vals), *vals)\n";
    char path[] = "/tmp/onnxview_ref_XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) return false;
    FILE* f = fdopen(fd, "w");
    std::fputs(script, f);
    std::fclose(f);
    const std::string cmd = "/usr/bin/python3 " + std::string(path) + " '" + model + "' 2>/dev/null";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) {
        std::remove(path);
        return false;
    }
    std::string text;
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) text.append(buf, n);
    const int rc = pclose(p);
    std::remove(path);
    if (rc != 0) return false;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream ls(line);
        std::string name;
        std::size_t count = 0;
        ls >> name >> count;
        std::vector<std::string> vals(count);
        for (auto& v : vals) ls >> v;
        out[name] = vals;
    }
    return !out.empty();
}

std::string hex_of(std::string_view s) {
    static const char* digits = "0123456789abcdef";
    std::string h;
    for (unsigned char c : s) {
        h.push_back(digits[c >> 4]);
        h.push_back(digits[c & 15]);
    }
    return h;
}

}  // namespace

TEST_CASE("testdata/tensors_all_types.onnx matches numpy_helper.to_array") {
    const std::string path = find_testdata("tensors_all_types.onnx");
    if (path.empty()) {
        WARN("testdata/tensors_all_types.onnx not found; skipped");
        return;
    }
    std::map<std::string, std::vector<std::string>> ref;
    if (!python_reference(path, ref)) {
        WARN("/usr/bin/python3 with onnx not available; skipped");
        return;
    }
    const std::string bytes = read_file(path);
    auto m = parse_model(bytes.data(), bytes.size());
    REQUIRE(m.ok());
    std::size_t compared = 0;
    bool saw_raw = false, saw_typed = false;
    for (const tensor_view& t : m.graph().initializer()) {
        const std::string name(t.name());
        INFO(name);
        REQUIRE(ref.count(name) == 1);
        const auto& want = ref[name];
        auto d = tensor_data::make(t);
        REQUIRE(d.ok());
        saw_raw |= d->storage() == storage_kind::raw;
        saw_typed |= d->storage() == storage_kind::typed;
        if (d->type() == static_cast<std::int32_t>(data_type::string)) {
            std::vector<std::string> got;
            for (std::string_view s : d->elements<std::string_view>()) got.push_back("x" + hex_of(s));  // 'x': empty strings stay tokens
            CHECK(got == want);
        } else {
            std::vector<double> got;
            for (double x : d->scalars<double>()) got.push_back(x);
            REQUIRE(got.size() == want.size());
            for (std::size_t i = 0; i < got.size(); ++i) {
                const double w = std::strtod(want[i].c_str(), nullptr);
                INFO(i << ": " << got[i] << " vs " << want[i]);
                CHECK(same_double(got[i], w));
                if (!std::isnan(w)) CHECK(std::signbit(got[i]) == std::signbit(w));
            }
        }
        ++compared;
    }
    CHECK(compared == ref.size());
    CHECK(compared >= 30);
    CHECK(saw_raw);
    CHECK(saw_typed);
}

TEST_CASE("testdata/sparse.onnx: values and indices as make_testdata.py wrote them") {
    const std::string path = find_testdata("sparse.onnx");
    if (path.empty()) {
        WARN("testdata/sparse.onnx not found; skipped");
        return;
    }
    const std::string bytes = read_file(path);
    auto m = parse_model(bytes.data(), bytes.size());
    REQUIRE(m.ok());
    int seen = 0;
    for (const sparse_tensor_view& sv : m.graph().sparse_initializer()) {
        auto s = sparse_data::make(sv);
        REQUIRE(s.ok());
        CHECK(s->validate_indices().ok());
        const std::string name(sv.values().name());
        if (name == "sparse_2d") {
            ++seen;
            CHECK(s->layout() == sparse_layout::coordinates);
            CHECK(s->dense_size() == 20);
            CHECK(s->linear_index(2).value() == 19);  // (3, 4) in [4, 5]
            CHECK(s->values().at<float>(1).value() == -2.0f);
        } else if (name == "sparse_linear") {
            ++seen;
            CHECK(s->layout() == sparse_layout::linear);
            std::int64_t c[2];
            REQUIRE(s->coordinates(2, c, 2).ok());  // 6 in [3, 4] -> (1, 2)
            CHECK((c[0] == 1 && c[1] == 2));
            CHECK(s->values().at<std::int64_t>(1).value() == -20);
        }
    }
    CHECK(seen == 2);
    // The sparse Constant's attribute reaches the same API.
    for (const node_view& n : m.graph().node()) {
        for (const attribute_view& a : n.attribute()) {
            if (a.name() != "sparse_value") continue;
            auto s = sparse_data::make(a.sparse_tensor());
            REQUIRE(s.ok());
            CHECK(s->linear_index(1).value() == 6);
            CHECK(s->values().at<float>(1).value() == 8.0f);
            ++seen;
        }
    }
    CHECK(seen == 3);
}

TEST_CASE("testdata/small_cnn.onnx: external tensors through the resolver equal the inline model's") {
    const std::string ext_path = find_testdata("small_cnn.onnx");
    const std::string inline_path = find_testdata("small_cnn_inline.onnx");
    if (ext_path.empty() || inline_path.empty()) {
        WARN("testdata/small_cnn*.onnx not found; skipped");
        return;
    }
    options opts{};
    opts.model_path = ext_path.c_str();
    auto resolver = external_data_resolver::create(opts);
    REQUIRE(resolver.ok());
    external_data_resolver r = std::move(resolver).value();
    const external_payload_source src = external_source(r);

    const std::string ext_bytes = read_file(ext_path);
    const std::string inl_bytes = read_file(inline_path);
    auto em = parse_model(ext_bytes.data(), ext_bytes.size());
    auto im = parse_model(inl_bytes.data(), inl_bytes.size());
    REQUIRE(em.ok());
    REQUIRE(im.ok());
    int external = 0;
    for (const tensor_view& t : em.graph().initializer()) {
        INFO(std::string(t.name()));
        auto d = tensor_data::make(t, src);
        REQUIRE(d.ok());
        if (d->storage() != storage_kind::external) continue;
        ++external;
        CHECK(tensor_data::make(t).err().code == errc::invalid_argument);
        for (const tensor_view& u : im.graph().initializer()) {
            if (u.name() != t.name()) continue;
            auto e = tensor_data::make(u);
            REQUIRE(e.ok());
            CHECK(e->storage() == storage_kind::raw);
            CHECK(d->bytes() == e->bytes());
            std::vector<float> a(d->size()), b(e->size());
            REQUIRE(d->copy_to(a.data(), a.size()).ok());
            REQUIRE(e->copy_to(b.data(), b.size()).ok());
            CHECK(a == b);
        }
    }
    CHECK(external == 2);  // conv2.weight and fc.weight
    CHECK(r.file_count() == 1);
}

TEST_CASE("BOOL in int32_data is true for any non-zero entry, as numpy_helper reads it") {
    // Regression: entries were masked to their low 8 bits, so 256 read as false.
    wire_builder t;
    t.unpacked_varint(1, {3}).field_varint(2, 9).unpacked_varint(5, {256, 1, 0});
    const auto tensor = parse_tensor(t.str().data(), t.str().size());
    auto d = tensor_data::make(tensor);
    REQUIRE(d.ok());
    std::vector<bool> got;
    for (bool b : d->elements<bool>()) got.push_back(b);
    CHECK(got == std::vector<bool>{true, true, false});
    CHECK(d->double_at(0, nullptr).value() == 1.0);
}
