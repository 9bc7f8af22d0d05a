// onnxview/display.hpp - names and value types as one-line text for people:
// what the CLI's listings and `onnxview diff`'s changes print.
//
// Cost: linear in the text written; allocates the returned std::string.
// Nothing returned refers to the model's bytes.
#ifndef ONNXVIEW_DISPLAY_HPP
#define ONNXVIEW_DISPLAY_HPP

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "onnxview/model.hpp"

namespace onnxview {

// Appends `s` for a terminal: printable ASCII as is, a backslash doubled,
// every other byte as \xNN (so that names from a hostile model cannot move
// the cursor or break a line).
void text_quote(std::string& out, std::string_view s);

// 'name', with text_quote's escapes: how reports name things.
std::string quoted(std::string_view s);

// A value's type: "FLOAT[N,3,224,224]" (dim params quoted as text_quote
// writes them, "?" an unknown dim), "seq(FLOAT[?])", "map(INT64,FLOAT)",
// "FLOAT(unknown rank)", "(no type)". Nesting deeper than 16 prints "...".
std::string type_string(const type_view& t, int depth = 0);

// An attribute's float as people read it: 9 significant digits ("%.9g"),
// enough to tell any two floats apart.
inline std::string float_text(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}

// A count with its thousands grouped: "1,234,567".
inline std::string grouped_count(std::uint64_t n) {
    std::string s = std::to_string(n);
    for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<std::size_t>(i), ",");
    return s;
}

}  // namespace onnxview

#endif  // ONNXVIEW_DISPLAY_HPP
