// tools/diff.hpp - `onnxview diff` and `hash --textconv` around the
// comparison library (onnxview/compare/model_diff.hpp): option values
// parsed (diff_options.cpp), reports printed (diff_print.cpp), textconv
// lines (diff_textconv.cpp).
#ifndef ONNXVIEW_TOOLS_DIFF_HPP
#define ONNXVIEW_TOOLS_DIFF_HPP

#include <cstdint>
#include <string>
#include <string_view>

#include "onnxview/compare/model_diff.hpp"
#include "onnxview/error.hpp"
#include "onnxview/model_file.hpp"

namespace onnxview_cli {

// --fail-on: the sections whose changes make exit status 1.
struct failing {
    bool signature = false, graph = false, weights = false;
};

// The option values of diff; false when one is not understood.
bool parse_ignore(std::string_view list, onnxview::diff_ignore& out);  // doc_string, producer, metadata, names, value_info
bool parse_weights(std::string_view text, onnxview::diff_options& out);  // exact, none, allclose[:rtol=R][,atol=A]
bool parse_fail_on(std::string_view list, failing& out);

// How a report is printed: the paths as given, and with --git the paths
// git names ("a/PATH", "b/PATH") for a model whose external data is missing.
struct report_names {
    const char* a = nullptr;
    const char* b = nullptr;
    std::string git_a, git_b;
};

// The report as text (docs/diff.md): each section with at most
// `max_changes` lines, then the last line.
void print_report(const onnxview::model_diff& d, const onnxview::diff_options& options, const report_names& names,
                  std::uint64_t max_changes);

// The report as one JSON object (docs/diff.md, "version": 2).
void print_report_json(const onnxview::model_diff& d, const onnxview::diff_options& options,
                       const report_names& names);

// `onnxview hash --textconv`: a line-based summary of `m` for git's
// textconv (diff_textconv.cpp). External payloads that cannot be found (git
// runs textconv on a copy of the blob alone) are named, not hashed, and the
// model's digest is then one without values. Fails when a walk does, or a
// payload that is there is invalid.
onnxview::error print_textconv(onnxview::model_file& m);

}  // namespace onnxview_cli

#endif  // ONNXVIEW_TOOLS_DIFF_HPP
