// onnxview/compare/values.hpp - how far apart the values of two tensors are.
//
// compare_values() walks two tensors' elements side by side, each converted
// to double by the tensor readers (every numeric data type: the integers,
// FLOAT16, BFLOAT16, the FLOAT8 and 4-bit types, complex as real then
// imaginary), and gives the figures `onnxview diff` reports: how many
// differ, the first that does, the largest absolute and relative
// differences, the mean absolute difference, the RMS difference and the
// cosine similarity. STRING tensors are compared string by string (the
// numeric figures stay 0).
//
// NaN: two NaNs are equal; a NaN facing a number differs (nan_mismatches)
// and is left out of the numeric figures. An infinity facing anything else
// gives an infinite difference.
//
// Part of the optional library onnxview_compare (src/compare/). Cost: one
// pass over both payloads, nothing held.
#ifndef ONNXVIEW_COMPARE_VALUES_HPP
#define ONNXVIEW_COMPARE_VALUES_HPP

#include <cstdint>

#include "onnxview/error.hpp"
#include "onnxview/tensor_data.hpp"

namespace onnxview {

struct value_difference {
    // Values compared: elements, or twice the elements for complex tensors
    // (indices below count values the same way).
    std::uint64_t count = 0;
    std::uint64_t differing = 0;      // values that differ (NaN == NaN)
    std::uint64_t first_index = 0;    // the first that differs; meaningful when differing != 0
    std::uint64_t nan_mismatches = 0; // a NaN facing a number
    double max_abs = 0;  // max |a - b|
    double max_rel = 0;  // max |a - b| / |a| (infinite where a == 0 and b != 0)
    double mean_abs = 0; // mean |a - b| over the pairs without NaN
    double rms = 0;      // sqrt(mean (a - b)^2) over the same pairs
    double cosine = 1;   // a.b / (|a| |b|) over the same pairs; 1 when both are all zero, 0 when one is
    // Values not within the tolerance given to compare_values() (all those
    // that differ, with the default of none); strings: those that differ.
    std::uint64_t beyond_tolerance = 0;
};

// numpy.isclose(a, b, rtol, atol, equal_nan=True), value by value:
// |a - b| <= atol + rtol * |b| (b the new value), NaN close to NaN only, an
// infinity close only to itself. Complex values are taken as their real and
// imaginary parts apart, where numpy takes the modulus of the difference.
struct value_tolerance {
    double rtol = 0;
    double atol = 0;
};

// Compares a (the old values) with b (the new). Errors: bad_data_type when
// one is STRING and the other not, or either has no data type;
// payload_size_mismatch when they hold different numbers of values; a
// payload's read error. `tol` only sets beyond_tolerance.
result<value_difference> compare_values(const tensor_data& a, const tensor_data& b,
                                        const value_tolerance& tol = {}) noexcept;

}  // namespace onnxview

#endif  // ONNXVIEW_COMPARE_VALUES_HPP
