// tools/write_output.hpp - what the commands that write a model share
// (`pack`, `edit`): the input opened and verified, OUT (and an external
// file next to it) written through temporary files that are renamed into
// place when complete and removed on an error or SIGINT/SIGTERM, payload
// pages given back as they are written, a progress line, one-line errors.
#ifndef ONNXVIEW_TOOLS_WRITE_OUTPUT_HPP
#define ONNXVIEW_TOOLS_WRITE_OUTPUT_HPP

#include <cstdint>
#include <string>
#include <string_view>

#include "onnxview/write.hpp"

namespace onnxview_cli {

// An io error for people: its message, and the system's text when it has one.
std::string system_text(onnxview::error e);
// The directory part of `path` with its trailing separator ("" for a bare name).
std::string directory_of(const char* path);
// The part of `path` after directory_of(path): the file's name.
std::string file_name_of(const char* path);
// Whether two paths name one file (false when either does not exist).
bool same_file(const char* a, const char* b);
// Whether two paths' directories are one directory.
bool same_directory(const char* a, const char* b);

// Prints "onnxview CMD: MESSAGE" and returns code.
int write_failure(const char* cmd, const std::string& message, int code);

// Until forget_on_signal(), SIGINT and SIGTERM remove the temporary files
// `model` and `data` (either may be null) and then end the process as the
// signal would. The paths must live until then.
void remove_on_signal(const char* model, const char* data);
void forget_on_signal();

// Writes IN to OUT through pack_model with `po` (its sinks, progress and
// source descriptor are set here); `external`, when not null, is the name of
// the external file in OUT's directory (po.external_location). With `verify`
// OUT is read back and its tensors compared with IN's before it is renamed
// into place. `dims_expected`: the dims po.edits must change (fewer is an
// error: a --set-dim named none). `putting_back`: IN is a weight-less proxy
// whose weights come back, so a tensor without a valid payload (a tool
// dropped its reference) is an error. `replaced`, when not empty, holds
// the bytes to write instead of IN's (a proxy whose dropped references
// were given back), external data still resolved next to IN. Prints a
// summary line and returns the exit code.
int write_model(const char* cmd, const char* in, const char* out, onnxview::pack_options po, const char* external,
                bool verify = false, std::uint64_t dims_expected = 0, bool putting_back = false,
                std::string_view replaced = {});

// Why an extraction was refused, in one sentence (defined in edit.cpp).
std::string describe_extract_problem(const onnxview::extract_report& r);

}  // namespace onnxview_cli

#endif  // ONNXVIEW_TOOLS_WRITE_OUTPUT_HPP
