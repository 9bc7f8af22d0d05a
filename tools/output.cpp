// tools/output.cpp - shared helpers of the onnxview subcommands.
#include "output.hpp"

#include <cstdio>
#include <cstring>
#include <memory>

#include "onnxview/decimal.hpp"
#include "onnxview/enums.hpp"
#include "onnxview/field_path.hpp"
#ifdef ONNXVIEW_CLI_REMOTE
#include "onnxview/remote/remote_file.hpp"
#endif

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
    const std::string remote = remote_error_sentence(e);
    if (!remote.empty()) return "cannot read " + remote;
    std::string msg = "cannot read '";
    msg += shown_path(path);
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
        if (at != std::string::npos) line.replace(at + 1, 4, shown_path(path));
    }
    return line;
}

std::string diagnosis_suffix(std::string_view bytes, const char* path) {
    // A remote file's bytes are fetched on demand: the diagnosis would read any of them.
    if (remote_bytes(bytes)) return {};
    const onnxview::diagnosis d = onnxview::diagnose(bytes.data(), bytes.size());
    if (d.healthy() || d.kind == onnxview::diagnosis_kind::malformed) return {};
    return "; " + diagnosis_line(d, path);
}

remote_settings& remote_cli_settings() {
    static remote_settings settings;
    return settings;
}

bool is_url(const char* path) {
    const char* p = path;
    while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '+' ||
           *p == '-' || *p == '.')
        ++p;
    return p != path && std::strncmp(p, "://", 3) == 0;
}

#ifdef ONNXVIEW_CLI_REMOTE
std::string shown_path(const char* path) { return is_url(path) ? onnxview::display_url(path) : std::string(path); }
#else
std::string shown_path(const char* path) { return path; }
#endif

namespace {
// The memory of each remote file opened (it stays reserved until the file goes).
std::vector<std::string_view>& remote_regions() {
    static std::vector<std::string_view> regions;
    return regions;
}
}  // namespace

bool remote_bytes(std::string_view bytes) {
    for (std::string_view r : remote_regions())
        if (bytes.data() >= r.data() && bytes.data() < r.data() + r.size()) return true;
    return false;
}

#ifdef ONNXVIEW_CLI_REMOTE
namespace {
// One report per remote file opened: they outlive the files.
std::vector<std::unique_ptr<onnxview::remote_report>>& remote_reports() {
    static std::vector<std::unique_ptr<onnxview::remote_report>> reports;
    return reports;
}
}  // namespace

std::string remote_error_sentence(onnxview::error e) {
    const onnxview::errc c = e.code;
    if (c != onnxview::errc::remote_failed && c != onnxview::errc::remote_changed &&
        c != onnxview::errc::remote_range_ignored)
        return {};
    for (auto it = remote_reports().rbegin(); it != remote_reports().rend(); ++it)
        if (!(*it)->last_error.empty()) return (*it)->last_error;
    return {};
}

void report_remote_reads() {
    for (const auto& r : remote_reports()) {
        const onnxview::remote_stats& s = r->stats;
        if (s.full_download)
            std::fprintf(stderr, "onnxview: %s: the server ignored the byte ranges: a full download of %llu bytes\n",
                         r->url.c_str(), static_cast<unsigned long long>(s.size));
        if (!remote_cli_settings().stats) continue;
        if (remote_cli_settings().stats_json) {
            std::string o = "{\"remote\":";
            json_quote(o, r->url);
            o += ",\"size\":" + std::to_string(s.size) + ",\"bytes_fetched\":" + std::to_string(s.bytes_fetched) +
                 ",\"bytes_received\":" + std::to_string(s.bytes_received) + ",\"requests\":" +
                 std::to_string(s.requests) + ",\"full_download\":" + (s.full_download ? "true" : "false") + "}\n";
            std::fputs(o.c_str(), stderr);
            continue;
        }
        const double percent = s.size ? 100.0 * static_cast<double>(s.bytes_fetched) / static_cast<double>(s.size) : 0.0;
        std::fprintf(stderr, "onnxview: %s: fetched %llu bytes of %llu (%.2f%%) in %llu requests (%llu bytes received)\n",
                     r->url.c_str(), static_cast<unsigned long long>(s.bytes_fetched),
                     static_cast<unsigned long long>(s.size), percent, static_cast<unsigned long long>(s.requests),
                     static_cast<unsigned long long>(s.bytes_received));
    }
}

namespace {
// What each remote model is opened with: its external files are opened
// with it, for as long as the model lives.
struct remote_opening {
    onnxview::remote_options options;
    onnxview::file_callbacks external;
};

std::vector<std::pair<std::string, std::unique_ptr<remote_opening>>>& remote_openings() {
    static std::vector<std::pair<std::string, std::unique_ptr<remote_opening>>> openings;
    return openings;
}

onnxview::result<onnxview::model_file> open_remote_model(const char* url, onnxview::options opts) {
    remote_reports().push_back(std::make_unique<onnxview::remote_report>());
    remote_openings().emplace_back(url, std::make_unique<remote_opening>());
    remote_opening& o = *remote_openings().back().second;
    o.options.allow_full_download = remote_cli_settings().allow_full_download;
    o.options.timeout_ms = remote_cli_settings().timeout_ms;
    o.options.report = remote_reports().back().get();
    auto file = onnxview::open_remote(url, o.options);
    if (!file) return file.err();
    remote_regions().push_back(file->bytes());
    // External data resolves against the model's URL, never the machine's directories.
    o.external = onnxview::remote_external_files(&o.options);
    opts.external_files = &o.external;
    opts.model_path = url;
    opts.external_base_dir = nullptr;
    return onnxview::model_file::adopt(std::move(file.value()), opts);
}
}  // namespace
void set_external_source(const char* path, onnxview::options& opts) {
    opts.model_path = path;
    for (auto it = remote_openings().rbegin(); it != remote_openings().rend(); ++it)
        if (it->first == path) {
            opts.external_files = &it->second->external;
            opts.external_base_dir = nullptr;
            return;
        }
}
#else
std::string remote_error_sentence(onnxview::error) { return {}; }
void report_remote_reads() {}
void set_external_source(const char* path, onnxview::options& opts) { opts.model_path = path; }
#endif

bool open_model(const char* cmd, const char* path, onnxview::options opts,
                onnxview::model_file& out, int& code) {
    opts.keep_malformed = true;
    if (is_url(path)) {
#ifdef ONNXVIEW_CLI_REMOTE
        // hash and diff read every payload through the views' spans, which
        // nothing ensures one by one: the file is fetched whole first.
        if (std::strcmp(cmd, "hash") == 0 || std::strcmp(cmd, "diff") == 0) opts.reads = onnxview::model_reads::everything;
        auto opened = open_remote_model(path, opts);
        if (!opened) {
            const std::string& why = remote_reports().back()->last_error;
            print_error(cmd, why.empty() ? open_error_message(path, opened.err()) : "cannot read " + why);
            code = exit_usage;
            return false;
        }
        out = std::move(opened.value());
        if (opts.verify && !out.model_error().ok()) {
            print_error(cmd, "'" + shown_path(path) + "' is not a valid ONNX model: " +
                                 describe(out.model_error(), out.bytes().data(), out.bytes().size()));
            code = exit_findings;
            return false;
        }
        return true;
#else
        // Not echoed: a URL's query may hold a signature.
        print_error(cmd, "cannot read a URL: this onnxview was built without remote support (libcurl)");
        code = exit_usage;
        return false;
#endif
    }
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
