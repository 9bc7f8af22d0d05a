// parse_decimal and write_decimal (onnxview/decimal.hpp).
#include "onnxview/decimal.hpp"

#include <limits>

namespace onnxview {

result<std::uint64_t> parse_decimal(std::string_view text) noexcept {
    if (text.empty()) return errc::not_decimal;
    std::uint64_t value = 0;
    bool overflow = false;
    // Every byte is looked at even after an overflow, so that "99...9x" is
    // not_decimal however long it is.
    for (const char c : text) {
        if (c < '0' || c > '9') return errc::not_decimal;
        const auto digit = static_cast<std::uint64_t>(c - '0');
        if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) overflow = true;
        value = value * 10 + digit;
    }
    if (overflow) return errc::number_too_large;
    return value;
}

std::size_t write_decimal(char* out, std::uint64_t v) noexcept {
    char reversed[max_decimal_digits];
    std::size_t n = 0;
    do {
        reversed[n++] = static_cast<char>('0' + v % 10);
        v /= 10;
    } while (v != 0);
    for (std::size_t i = 0; i < n; ++i) out[i] = reversed[n - 1 - i];
    return n;
}

}  // namespace onnxview
