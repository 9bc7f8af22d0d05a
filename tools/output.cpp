// tools/output.cpp - shared helpers of the onnxview subcommands.
#include "output.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "onnxview/decimal.hpp"
#include "onnxview/enums.hpp"
#include "onnxview/field_path.hpp"

namespace onnxview_cli {

void print_error(const char* cmd, const std::string& message) {
    std::fprintf(stderr, "onnxview %s: %s\n", cmd, message.c_str());
}

std::string describe(onnxview::error e, const void* data, std::size_t size) {
    return describe(e, data, size, onnxview::schema::msg_ModelProto);
}

namespace {

// The text a library formatter writes (format_error and friends: they
// return the whole length, and write a prefix when the buffer is short).
template <class Write>
std::string formatted(Write write) {
    char buf[1024];
    const std::size_t n = write(buf, sizeof buf);
    if (n < sizeof buf) return std::string(buf, n);
    std::string s(n, '\0');
    write(&s[0], n + 1);
    return s;
}

}  // namespace

std::string describe(onnxview::error e, const void* data, std::size_t size,
                     const onnxview::schema::message_desc& root) {
    return formatted([&](char* out, std::size_t cap) { return onnxview::format_error(e, data, size, root, out, cap); });
}

std::string where(std::uint64_t offset, const void* data, std::size_t size, const onnxview::schema::message_desc& root) {
    return formatted(
        [&](char* out, std::size_t cap) { return onnxview::format_error_location(offset, data, size, root, out, cap); });
}

std::string open_error_message(const char* path, onnxview::error e) {
    std::string msg = "cannot read '";
    msg += path;
    msg += "': ";
    msg += onnxview::errc_message(e.code);
    if (e.sys_errno != 0) {
        msg += " (";
        msg += std::strerror(e.sys_errno);
        msg += ")";
    }
    return msg;
}

std::string diagnosis_line(const onnxview::diagnosis& d, const char* path) {
    std::string line = d.line;
    // Only the placeholder of a suggested command, never text quoted from the file.
    for (const char* placeholder : {" FILE`", " FILE)"}) {
        const std::size_t at = line.rfind(placeholder);
        if (at != std::string::npos) line.replace(at + 1, 4, path);
    }
    return line;
}

std::string diagnosis_suffix(std::string_view bytes, const char* path) {
    const onnxview::diagnosis d = onnxview::diagnose(bytes.data(), bytes.size());
    if (d.healthy() || d.kind == onnxview::diagnosis_kind::malformed) return {};
    return "; " + diagnosis_line(d, path);
}

bool open_model(const char* cmd, const char* path, onnxview::options opts,
                onnxview::model_file& out, int& code) {
    opts.keep_malformed = true;
    auto opened = onnxview::model_file::open(path, opts);
    if (!opened) {
        print_error(cmd, open_error_message(path, opened.err()));
        code = exit_usage;
        return false;
    }
    out = std::move(opened.value());
    if (opts.verify && !out.model_error().ok()) {
        print_error(cmd, "'" + std::string(path) + "' is not a valid ONNX model: " +
                             describe(out.model_error(), out.bytes().data(), out.bytes().size()) +
                             diagnosis_suffix(out.bytes(), path));
        code = exit_findings;
        return false;
    }
    return true;
}

bool parse_u64(std::string_view s, std::uint64_t& out) {
    const onnxview::result<std::uint64_t> v = onnxview::parse_decimal(s);
    if (v) out = v.value();
    return v.ok();
}

namespace {

// Length of the valid UTF-8 sequence at s[i], or 0.
std::size_t utf8_length(std::string_view s, std::size_t i) {
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

}  // namespace

void json_quote(std::string& out, std::string_view s) {
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
        const std::size_t n = utf8_length(s, i);
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


void json_writer::value(double v) {
    element();
    if (!std::isfinite(v)) {  // JSON has no NaN or infinity
        out_ += "null";
        return;
    }
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    out_ += buf;
}


}  // namespace onnxview_cli
