// onnxview/json_writer.hpp - a small JSON writer for reports (the CLI's
// --json outputs, the comparison and profile reports, the Python dicts made
// from them): objects and arrays with two-space indentation, strings always
// valid JSON. Header-only (it costs nothing where it is not used); not the
// protobuf JSON mapping (json_format.hpp).
#ifndef ONNXVIEW_JSON_WRITER_HPP
#define ONNXVIEW_JSON_WRITER_HPP

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace onnxview {

namespace json_detail {

// Length of the valid UTF-8 sequence at s[i], or 0.
inline std::size_t utf8_length(std::string_view s, std::size_t i) noexcept {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned c = b(i);
    std::size_t n;
    unsigned min;
    if (c < 0x80) return 1;
    if ((c & 0xE0) == 0xC0) { n = 2; min = 0x80; }
    else if ((c & 0xF0) == 0xE0) { n = 3; min = 0x800; }
    else if ((c & 0xF8) == 0xF0) { n = 4; min = 0x10000; }
    else return 0;
    if (s.size() - i < n) return 0;
    unsigned cp = c & (0x7F >> n);
    for (std::size_t k = 1; k < n; ++k) {
        if ((b(i + k) & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (b(i + k) & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return n;
}

}  // namespace json_detail

// Appends `s` to `out` with JSON string escaping (quotes included). Bytes that
// are not valid UTF-8 are written as \u00XX of the byte (lossless to read back
// as Latin-1), so the output is always valid JSON.
inline void json_quote(std::string& out, std::string_view s);

// A streaming JSON writer into a std::string. Keys and values alternate
// inside objects; commas and indentation are handled here. A compact
// writer puts a whole document on one line (JSON Lines: `onnxview scan`).
class json_writer {
public:
    json_writer() = default;
    explicit json_writer(bool compact) : compact_(compact) {}

    void begin_object() { open('{'); }
    void end_object() { close('}'); }
    void begin_array() { open('['); }
    void end_array() { close(']'); }
    void key(std::string_view k) {
        element();
        json_quote(out_, k);
        out_ += compact_ ? ":" : ": ";
        after_key_ = true;
    }
    void value(std::string_view s) {
        element();
        json_quote(out_, s);
    }
    void value(const char* s) { value(std::string_view(s)); }
    void value(std::int64_t v) {
        element();
        out_ += std::to_string(v);
    }
    void value(std::uint64_t v) {
        element();
        out_ += std::to_string(v);
    }
    void value(int v) { value(static_cast<std::int64_t>(v)); }
    void value(double v);
    void value(bool b) {
        element();
        out_ += b ? "true" : "false";
    }
    void null() {
        element();
        out_ += "null";
    }
    // A value already in JSON form (a number, or a quoted string) written as is.
    void number(std::string_view json_text) {
        element();
        out_.append(json_text.data(), json_text.size());
    }
    template <class T>
    void field(std::string_view k, const T& v) {
        key(k);
        value(v);
    }
    const std::string& str() const { return out_; }
    // Forgets what is written so far, once the caller has handed it on: a
    // long document goes out in pieces (the nesting is kept, not in str()).
    void clear() { out_.clear(); }

private:
    void element() {
        if (after_key_) {
            after_key_ = false;
            return;
        }
        if (!first_.empty()) {
            if (!first_.back()) out_ += ',';
            first_.back() = false;
            newline();
        }
    }
    void open(char c) {
        element();
        out_ += c;
        first_.push_back(true);
    }
    void close(char c) {
        const bool empty = first_.back();
        first_.pop_back();
        if (!empty) newline();
        out_ += c;
        if (first_.empty()) out_ += '\n';
    }
    void newline() {
        if (compact_) return;
        out_ += '\n';
        out_.append(2 * first_.size(), ' ');
    }

    std::string out_;
    std::vector<bool> first_;
    bool after_key_ = false;
    bool compact_ = false;
};

inline void json_quote(std::string& out, std::string_view s) {
    static const char hex[] = "0123456789abcdef";
    out += '"';
    for (std::size_t i = 0; i < s.size();) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        switch (c) {
            case '"': out += "\\\""; ++i; continue;
            case '\\': out += "\\\\"; ++i; continue;
            case '\n': out += "\\n"; ++i; continue;
            case '\r': out += "\\r"; ++i; continue;
            case '\t': out += "\\t"; ++i; continue;
            case '\b': out += "\\b"; ++i; continue;
            case '\f': out += "\\f"; ++i; continue;
            default: break;
        }
        if (c < 0x20 || c == 0x7F) {
            out += "\\u00";
            out += hex[c >> 4];
            out += hex[c & 15];
            ++i;
            continue;
        }
        const std::size_t n = json_detail::utf8_length(s, i);
        if (n == 0) {  // not UTF-8: the byte as a code point
            out += "\\u00";
            out += hex[c >> 4];
            out += hex[c & 15];
            ++i;
            continue;
        }
        out.append(s.data() + i, n);
        i += n;
    }
    out += '"';
}

inline void json_writer::value(double v) {
    element();
    if (!std::isfinite(v)) {  // JSON has no NaN or infinity
        out_ += "null";
        return;
    }
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    out_ += buf;
}

}  // namespace onnxview

#endif  // ONNXVIEW_JSON_WRITER_HPP
