// tools/output.hpp - what every onnxview subcommand shares: exit codes,
// one-line errors on stderr, opening a model file, and a small JSON writer.
#ifndef ONNXVIEW_TOOLS_OUTPUT_HPP
#define ONNXVIEW_TOOLS_OUTPUT_HPP

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "onnxview/diagnose.hpp"
#include "onnxview/display.hpp"
#include "onnxview/error.hpp"
#include "onnxview/json_writer.hpp"
#include "onnxview/model_file.hpp"
#include "onnxview/schema.hpp"

namespace onnxview_cli {

// The display helpers every command prints with (onnxview/display.hpp).
using onnxview::quoted;
using onnxview::text_quote;
using onnxview::type_string;
using onnxview::json_quote;
using onnxview::json_writer;

// Exit codes, the same for every subcommand (documented in `onnxview --help`).
enum exit_code : int {
    exit_ok = 0,        // success; `check` found no errors
    exit_findings = 1,  // the model is invalid (check found errors, or a parse error)
    exit_usage = 2,     // bad usage, or the file could not be read
};

// Prints "onnxview CMD: MESSAGE" and a newline to stderr.
void print_error(const char* cmd, const std::string& message);

// Describes a library error: "truncated at byte 12". With the bytes of a model
// (`data` non-null) the field path of the offset is added when known.
std::string describe(onnxview::error e, const void* data = nullptr, std::size_t size = 0);
std::string describe(onnxview::error e, const void* data, std::size_t size,
                     const onnxview::schema::message_desc& root);
// "at byte N in PATH" (the field path where the model's bytes give one).
std::string where(std::uint64_t offset, const void* data, std::size_t size,
                  const onnxview::schema::message_desc& root = onnxview::schema::msg_ModelProto);

// Opens `path` as a model_file with `options`, keep_malformed set: the bytes
// of a malformed model stay, to be printed or checked. On failure prints one
// line and returns false with `code` set: exit_usage for an I/O error
// (missing file, directory, empty file), exit_findings, naming the field
// path, when options.verify is set and the model does not verify.
bool open_model(const char* cmd, const char* path, onnxview::options opts,
                onnxview::model_file& out, int& code);

// "cannot read 'PATH': MESSAGE (strerror)": why model_file::open failed.
// For a remote file's error, the remote reader's sentence instead.
std::string open_error_message(const char* path, onnxview::error e);

// The global options of remote reading (`onnxview [--stats]
// [--allow-full-download] [--timeout SECONDS] COMMAND ...`, main.cpp), and
// what each remote file opened so far has cost.
struct remote_settings {
    bool stats = false;
    bool stats_json = false;  // --stats=json: one JSON object per file
    bool allow_full_download = false;
    std::uint32_t timeout_ms = 30000;
};
remote_settings& remote_cli_settings();
// Whether `path` is a URL (scheme://...): read remotely, never as a local path.
bool is_url(const char* path);
// `path` as outputs show it: a URL without credentials, query or fragment
// (a presigned URL's signature must not land in a CI log or a report).
std::string shown_path(const char* path);
// Whether `bytes` lie in a remote file's memory, where only what was
// fetched may be read.
bool remote_bytes(std::string_view bytes);
// Prints, to stderr, the cost of each remote file read (with --stats) and
// a notice for each a server sent whole.
void report_remote_reads();
// Where the external data of the model at `path` (opened with open_model)
// is found: opts.model_path, and for a URL the remote reader's callbacks.
void set_external_source(const char* path, onnxview::options& opts);
// For a remote_* error: the remote reader's sentence saying why ("" when
// none is known).
std::string remote_error_sentence(onnxview::error e);

// The diagnosis line of `d` with FILE in its suggested command replaced by
// `path`.
std::string diagnosis_line(const onnxview::diagnosis& d, const char* path);

// "; " and the diagnosis of `bytes`, for the end of a parse error; empty
// when the bytes are a valid model after all (the error is of another kind).
std::string diagnosis_suffix(std::string_view bytes, const char* path);

// Parses a non-negative decimal number; false when `s` is not one.
bool parse_u64(std::string_view s, std::uint64_t& out);


}  // namespace onnxview_cli

#endif  // ONNXVIEW_TOOLS_OUTPUT_HPP
