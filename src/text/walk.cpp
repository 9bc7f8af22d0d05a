// Number formatting shared by the text and JSON printers (the schema walk
// itself is src/model/schema_walk.cpp).
#include "walk.hpp"

#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace onnxview {
namespace text_detail {

using wire::wire_type;

}  // namespace text_detail

namespace text_detail {

// ---------------------------------------------------------------------------
// Numbers.

std::size_t fmt_i64(char* buf, std::int64_t v) noexcept {
    if (v < 0) {
        buf[0] = '-';
        return 1 + write_decimal(buf + 1, ~static_cast<std::uint64_t>(v) + 1);
    }
    return write_decimal(buf, static_cast<std::uint64_t>(v));
}

// protobuf's FloatToBuffer: %.*g with FLT_DIG digits, FLT_DIG + 3 when that
// does not read back as the same float through safe_strtof, which also fails
// when strtof sets errno (ERANGE for every subnormal).
std::size_t fmt_float(char* buf, float v) noexcept {
    if (std::isnan(v)) return static_cast<std::size_t>(std::snprintf(buf, 32, "nan"));
    if (std::isinf(v)) return static_cast<std::size_t>(std::snprintf(buf, 32, v > 0 ? "inf" : "-inf"));
    int n = std::snprintf(buf, 32, "%.*g", FLT_DIG, static_cast<double>(v));
    const int saved = errno;
    errno = 0;
    const float back = std::strtof(buf, nullptr);
    const bool exact = errno == 0 && back == v;
    errno = saved;
    if (!exact) n = std::snprintf(buf, 32, "%.*g", FLT_DIG + 3, static_cast<double>(v));
    return static_cast<std::size_t>(n);
}

// protobuf's DoubleToBuffer: %.*g with DBL_DIG digits, then DBL_DIG + 2.
std::size_t fmt_double(char* buf, double v) noexcept {
    if (std::isnan(v)) return static_cast<std::size_t>(std::snprintf(buf, 32, "nan"));
    if (std::isinf(v)) return static_cast<std::size_t>(std::snprintf(buf, 32, v > 0 ? "inf" : "-inf"));
    int n = std::snprintf(buf, 32, "%.*g", DBL_DIG, v);
    if (std::strtod(buf, nullptr) != v) n = std::snprintf(buf, 32, "%.*g", DBL_DIG + 2, v);
    return static_cast<std::size_t>(n);
}

}  // namespace text_detail
}  // namespace onnxview
