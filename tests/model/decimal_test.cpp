// parse_decimal (onnxview/decimal.hpp): the one reader of decimal text, at its edges.
#include <catch2/catch.hpp>

#include <string>

#include "onnxview/decimal.hpp"

using onnxview::errc;
using onnxview::parse_decimal;

TEST_CASE("parse_decimal: plain digits") {
    CHECK(parse_decimal("0").value() == 0);
    CHECK(parse_decimal("7").value() == 7);
    CHECK(parse_decimal("4096").value() == 4096);
    CHECK(parse_decimal("0010").value() == 10);  // leading zeros are fine
    CHECK(parse_decimal("00000000000000000000000000000001").value() == 1);
    CHECK(parse_decimal("000").value() == 0);
}

TEST_CASE("parse_decimal: the 64-bit edge") {
    CHECK(parse_decimal("18446744073709551615").value() == ~std::uint64_t(0));  // 2^64-1
    CHECK(parse_decimal("018446744073709551615").value() == ~std::uint64_t(0));
    CHECK(parse_decimal("18446744073709551614").value() == ~std::uint64_t(0) - 1);
    CHECK(parse_decimal("18446744073709551616").err().code == errc::number_too_large);  // 2^64
    CHECK(parse_decimal("18446744073709551620").err().code == errc::number_too_large);
    CHECK(parse_decimal("99999999999999999999").err().code == errc::number_too_large);
    CHECK(parse_decimal("184467440737095516150").err().code == errc::number_too_large);
    CHECK(parse_decimal(std::string(1000, '9')).err().code == errc::number_too_large);
}

TEST_CASE("parse_decimal: anything but digits") {
    for (const char* bad : {"", "-1", "+1", " 1", "1 ", "0x10", "1e3", "12a", "1.0", "\xd9\xa1", "1,000", "\t1"}) {
        INFO("'" << bad << "'");
        CHECK(parse_decimal(bad).err().code == errc::not_decimal);
    }
    CHECK(parse_decimal(std::string_view("1\0", 2)).err().code == errc::not_decimal);
    // Too many digits and a non-digit: not a number at all.
    CHECK(parse_decimal(std::string(30, '9') + "x").err().code == errc::not_decimal);
}

TEST_CASE("write_decimal: what std::to_string writes, and parse_decimal reads back") {
    const std::uint64_t values[] = {0, 1, 9, 10, 99, 100, 4096, 1234567890123ull, (std::uint64_t(1) << 63),
                                    ~std::uint64_t(0) - 1, ~std::uint64_t(0)};
    for (std::uint64_t v : values) {
        char out[onnxview::max_decimal_digits];
        const std::size_t n = onnxview::write_decimal(out, v);
        CHECK(std::string(out, n) == std::to_string(v));
        CHECK(parse_decimal(std::string_view(out, n)).value() == v);
    }
    char out[onnxview::max_decimal_digits];
    CHECK(onnxview::write_decimal(out, ~std::uint64_t(0)) == onnxview::max_decimal_digits);
}
