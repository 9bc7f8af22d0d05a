// compare_values (onnxview/compare/values.hpp): figures checked by hand on
// small tensors, across data types and storages.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <string>

#include "../wire_builder.hpp"
#include "onnxview/compare/values.hpp"
#include "onnxview/model.hpp"

using namespace onnxview;
using testing::wire_builder;

namespace {

std::uint32_t bits(float f) {
    std::uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}

// A FLOAT tensor (raw_data), or of `type` with typed int32_data entries.
std::string floats(std::initializer_list<float> fs) {
    std::string raw;
    for (float f : fs) raw += wire_builder().fixed32(bits(f)).str();
    return wire_builder().field_varint(1, fs.size()).field_varint(2, 1).field_bytes(9, raw).str();
}

value_difference compare(const std::string& a, const std::string& b, const value_tolerance& tol = {}) {
    const result<tensor_data> x = tensor_data::make(parse_tensor(a.data(), a.size()));
    const result<tensor_data> y = tensor_data::make(parse_tensor(b.data(), b.size()));
    REQUIRE(x.ok());
    REQUIRE(y.ok());
    const result<value_difference> d = compare_values(*x, *y, tol);
    REQUIRE(d.ok());
    return *d;
}

}  // namespace

TEST_CASE("compare_values: the figures of two FLOAT tensors") {
    const value_difference d = compare(floats({1, 2, 3, 4}), floats({1, 2.5f, 3, 3}));
    CHECK(d.count == 4);
    CHECK(d.differing == 2);
    CHECK(d.first_index == 1);
    CHECK(d.max_abs == 1.0);
    CHECK(d.max_rel == Approx(0.25));
    CHECK(d.mean_abs == Approx(1.5 / 4));
    CHECK(d.rms == Approx(std::sqrt((0.25 + 1.0) / 4)));
    const double dot = 1 + 5 + 9 + 12, na = std::sqrt(1.0 + 4 + 9 + 16), nb = std::sqrt(1 + 6.25 + 9 + 9);
    CHECK(d.cosine == Approx(dot / (na * nb)));
}

TEST_CASE("compare_values: beyond_tolerance as numpy.isclose(a, b, rtol, atol, equal_nan=True)") {
    // |a - b| <= atol + rtol * |b|: 0.5 against 1 + 0.1 * 2.5 passes, 1 against 1 + 0.1 * 3 does not.
    CHECK(compare(floats({1, 2, 3, 4}), floats({1, 2.5f, 3, 3})).beyond_tolerance == 2);
    CHECK(compare(floats({1, 2, 3, 4}), floats({1, 2.5f, 3, 3}), {0.1, 0.5}).beyond_tolerance == 1);
    CHECK(compare(floats({1, 2, 3, 4}), floats({1, 2.5f, 3, 3}), {0.1, 1.0}).beyond_tolerance == 0);
    // NaN only with NaN; an infinity only with itself, whatever the tolerance.
    CHECK(compare(floats({NAN, 1, INFINITY}), floats({NAN, NAN, INFINITY}), {1, 1}).beyond_tolerance == 1);
    CHECK(compare(floats({1, INFINITY}), floats({INFINITY, -INFINITY}), {1e9, 1e9}).beyond_tolerance == 2);
}

TEST_CASE("compare_values: identical, NaN against NaN, +0 against -0") {
    const value_difference d = compare(floats({NAN, 0.0f, 1}), floats({NAN, -0.0f, 1}));
    CHECK(d.differing == 0);
    CHECK(d.max_abs == 0);
    CHECK(d.cosine == Approx(1));
}

TEST_CASE("compare_values: a NaN against a number differs, out of the numeric figures") {
    const value_difference d = compare(floats({1, NAN, 2}), floats({1, 5, 3}));
    CHECK(d.differing == 2);
    CHECK(d.nan_mismatches == 1);
    CHECK(d.first_index == 1);
    CHECK(d.max_abs == 1.0);
    CHECK(d.mean_abs == Approx(0.5));  // two pairs without NaN
}

TEST_CASE("compare_values: FLOAT16 in int32_data against FLOAT raw_data, as doubles") {
    const std::string half = wire_builder().field_varint(1, 2).field_varint(2, 10).packed_varint(5, {0x3c00, 0x4000}).str();
    const value_difference d = compare(half, floats({1, 2.5f}));
    CHECK(d.differing == 1);
    CHECK(d.first_index == 1);
    CHECK(d.max_abs == 0.5);
}

TEST_CASE("compare_values: strings, and what cannot be compared") {
    const auto strings = [](const char* x, const char* y) {
        return wire_builder().field_varint(1, 2).field_varint(2, 8).field_bytes(6, x).field_bytes(6, y).str();
    };
    const value_difference d = compare(strings("a", "b"), strings("a", "c"));
    CHECK(d.count == 2);
    CHECK(d.differing == 1);
    CHECK(d.first_index == 1);
    const std::string s = strings("a", "b"), f = floats({1, 2}), g = floats({1, 2, 3});
    const tensor_data ts = *tensor_data::make(parse_tensor(s.data(), s.size()));
    const tensor_data tf = *tensor_data::make(parse_tensor(f.data(), f.size()));
    const tensor_data tg = *tensor_data::make(parse_tensor(g.data(), g.size()));
    CHECK(compare_values(ts, tf).err().code == errc::bad_data_type);
    CHECK(compare_values(tf, tg).err().code == errc::payload_size_mismatch);
}

TEST_CASE("compare_values: FLOAT8E4M3FN and INT4, converted to double") {
    // FLOAT8E4M3FN 0x38 is 1.0, 0x40 is 2.0, 0x44 is 3.0.
    const auto f8 = [](std::string raw) {
        return wire_builder().field_varint(1, raw.size()).field_varint(2, 17).field_bytes(9, raw).str();
    };
    const value_difference d = compare(f8("\x38\x40"), f8("\x38\x44"));
    CHECK(d.differing == 1);
    CHECK(d.first_index == 1);
    CHECK(d.max_abs == 1.0);
    CHECK(d.max_rel == 0.5);
    // INT4, two a byte, low bits first: 0x21 0x03 is 1, 2, 3; 0xF1 0x03 is 1, -1, 3.
    const auto i4 = [](std::string raw) {
        return wire_builder().field_varint(1, 3).field_varint(2, 22).field_bytes(9, raw).str();
    };
    const value_difference e = compare(i4(std::string("\x21\x03", 2)), i4(std::string("\xF1\x03", 2)));
    CHECK(e.count == 3);
    CHECK(e.differing == 1);
    CHECK(e.first_index == 1);
    CHECK(e.max_abs == 3.0);
    CHECK(e.mean_abs == Approx(1.0));
}
