// tools/output.cpp - shared helpers of the onnxview subcommands.
#include "output.hpp"

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






}  // namespace onnxview_cli
