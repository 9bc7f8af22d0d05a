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

void release_payload(const onnxview::mapped_file& model, const char* data, std::size_t size) {
    if (model.kind() == onnxview::mapped_file::storage::mapped && data >= model.data() && size <= model.size() &&
        static_cast<std::size_t>(data - model.data()) <= model.size() - size) {
        (void)model.advise(onnxview::access_hint::dontneed, static_cast<std::uint64_t>(data - model.data()), size);
        return;
    }
    onnxview::release_pages(data, size);
}

void release_hashed_payload(void* user, const char* data, std::size_t size) {
    release_payload(*static_cast<const onnxview::mapped_file*>(user), data, size);
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

void text_quote(std::string& out, std::string_view s) {
    static const char hex[] = "0123456789abcdef";
    for (char ch : s) {
        const unsigned char c = static_cast<unsigned char>(ch);
        if (c >= 0x20 && c < 0x7F && c != '\\') {
            out += ch;
        } else if (c == '\\') {
            out += "\\\\";
        } else {
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
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

std::string type_string(const onnxview::type_view& t, int depth) {
    if (depth > 16) return "...";
    auto shape_string = [](const onnxview::tensor_shape_view& shape, bool has_shape) {
        if (!has_shape) return std::string("(unknown rank)");
        std::string s = "[";
        bool first = true;
        for (const onnxview::dimension_view& d : shape.dim()) {
            if (!first) s += ',';
            first = false;
            if (d.has_dim_value()) s += std::to_string(d.dim_value());
            else if (d.has_dim_param()) text_quote(s, d.dim_param());
            else s += '?';
        }
        return s + "]";
    };
    if (t.has_tensor_type()) {
        const auto tt = t.tensor_type();
        return std::string(onnxview::data_type_name(tt.elem_type())) + shape_string(tt.shape(), tt.has_shape());
    }
    if (t.has_sparse_tensor_type()) {
        const auto st = t.sparse_tensor_type();
        return "sparse " + std::string(onnxview::data_type_name(st.elem_type())) +
               shape_string(st.shape(), st.has_shape());
    }
    if (t.has_sequence_type()) return "seq(" + type_string(t.sequence_type().elem_type(), depth + 1) + ")";
    if (t.has_optional_type())
        return "optional(" + type_string(t.optional_type().elem_type(), depth + 1) + ")";
    if (t.has_map_type()) {
        const auto mt = t.map_type();
        return "map(" + std::string(onnxview::data_type_name(mt.key_type())) + "," +
               type_string(mt.value_type(), depth + 1) + ")";
    }
    if (t.has_opaque_type()) {
        std::string s = "opaque(";
        text_quote(s, t.opaque_type().domain());
        s += ",";
        text_quote(s, t.opaque_type().name());
        return s + ")";
    }
    return "(no type)";
}

}  // namespace onnxview_cli
