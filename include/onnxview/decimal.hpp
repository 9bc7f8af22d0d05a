// onnxview/decimal.hpp - the one reader and the one writer of decimal numbers
// written as text.
//
// ONNX stores external-data offsets and lengths as strings
// (StringStringEntryProto). They are read strictly, so that one string never
// means two numbers to two readers: one or more ASCII digits and nothing
// else (no sign, space, '+', hex prefix, exponent or non-ASCII digit);
// leading zeros are fine. The CLI reads its numeric options with the same
// rules. No allocation; linear in the string.
#ifndef ONNXVIEW_DECIMAL_HPP
#define ONNXVIEW_DECIMAL_HPP

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "onnxview/error.hpp"

namespace onnxview {

// The value of `text`. Errors: not_decimal (empty, or any byte that is not
// '0'-'9'), number_too_large (above 2^64-1 = 18446744073709551615). A string
// with both a non-digit and too many digits is not_decimal.
result<std::uint64_t> parse_decimal(std::string_view text) noexcept;

// The most digits write_decimal writes (2^64-1 has 20).
constexpr std::size_t max_decimal_digits = 20;

// Writes v's digits (no sign, no leading zeros, "0" for 0) to out, which has
// room for max_decimal_digits; returns their count. What parse_decimal reads.
std::size_t write_decimal(char* out, std::uint64_t v) noexcept;

}  // namespace onnxview

#endif  // ONNXVIEW_DECIMAL_HPP
