// compare_values (onnxview/compare/values.hpp): two payloads side by side,
// as doubles.
#include <cmath>
#include <string_view>

#include "onnxview/compare/values.hpp"

namespace onnxview {

namespace {

result<value_difference> compare_strings(const tensor_data& a, const tensor_data& b) noexcept {
    value_difference r;
    const auto xs = a.elements<std::string_view>();
    const auto ys = b.elements<std::string_view>();
    auto y = ys.begin();
    for (std::string_view x : xs) {
        if (y == ys.end()) return error(errc::payload_size_mismatch, b.describe().offset);
        if (x != *y && r.differing++ == 0) r.first_index = r.count;
        ++r.count;
        ++y;
    }
    if (y != ys.end()) return error(errc::payload_size_mismatch, a.describe().offset);
    r.beyond_tolerance = r.differing;  // no tolerance for strings
    return r;
}

}  // namespace

result<value_difference> compare_values(const tensor_data& a, const tensor_data& b, const value_tolerance& tol) noexcept {
    if (a.type() == 0 || b.type() == 0) return error(errc::bad_data_type, a.type() == 0 ? a.describe().offset : b.describe().offset);
    const bool string_a = a.info().kind == element_kind::string, string_b = b.info().kind == element_kind::string;
    if (string_a != string_b) return error(errc::bad_data_type, b.describe().offset);
    if (a.scalar_count() != b.scalar_count()) return error(errc::payload_size_mismatch, b.describe().offset);
    if (string_a) return compare_strings(a, b);

    const scalar_range<double> xs = a.scalars<double>();
    const scalar_range<double> ys = b.scalars<double>();
    if (!xs.ok()) return xs.err();
    if (!ys.ok()) return ys.err();
    value_difference r;
    double sum_abs = 0, sum_sq = 0, dot = 0, norm_a = 0, norm_b = 0;
    std::uint64_t pairs = 0;  // without NaN
    auto y = ys.begin();
    for (const double x : xs) {
        if (y == ys.end()) break;
        const double v = *y;
        ++y;
        const std::uint64_t index = r.count++;
        const bool nan_x = std::isnan(x), nan_y = std::isnan(v);
        if (nan_x || nan_y) {
            if (nan_x != nan_y) {
                if (r.differing++ == 0) r.first_index = index;
                ++r.nan_mismatches;
                ++r.beyond_tolerance;
            }
            continue;
        }
        ++pairs;
        dot += x * v;
        norm_a += x * x;
        norm_b += v * v;
        if (x == v) continue;  // +0 and -0 too: the same number
        if (r.differing++ == 0) r.first_index = index;
        const double d = std::isinf(x) || std::isinf(v) ? INFINITY : std::fabs(x - v);
        // numpy.isclose's test; an infinity is close only to itself (equal
        // values never come here), whatever rtol * |v| is.
        if (std::isinf(x) || std::isinf(v) || !(d <= tol.atol + tol.rtol * std::fabs(v))) ++r.beyond_tolerance;
        const double rel = x == 0 ? INFINITY : d / std::fabs(x);
        if (d > r.max_abs) r.max_abs = d;
        if (rel > r.max_rel) r.max_rel = rel;
        sum_abs += d;
        sum_sq += d * d;
    }
    if (r.count != a.scalar_count()) return error(errc::payload_size_mismatch, a.describe().offset);
    if (pairs != 0) {
        r.mean_abs = sum_abs / static_cast<double>(pairs);
        r.rms = std::sqrt(sum_sq / static_cast<double>(pairs));
    }
    if (norm_a == 0 && norm_b == 0)
        r.cosine = 1;
    else if (norm_a == 0 || norm_b == 0)
        r.cosine = 0;
    else
        r.cosine = dot / (std::sqrt(norm_a) * std::sqrt(norm_b));
    return r;
}

}  // namespace onnxview
