// onnxview/compare/diff_report.hpp - a model_diff as the reports print it:
// one line per change in the text, one object per change in the JSON
// (docs/diff.md; `onnxview diff` and `onnxview.diff()` in Python print
// these), and the option values the reports' callers take as words.
//
//   onnxview::diff_report_names names{"before.onnx", "after.onnx"};
//   std::fputs(onnxview::diff_report_text(d, options, names).c_str(), stdout);
//
// Part of the optional library `onnxview_compare` (model_diff.hpp).
#ifndef ONNXVIEW_COMPARE_DIFF_REPORT_HPP
#define ONNXVIEW_COMPARE_DIFF_REPORT_HPP

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "onnxview/compare/model_diff.hpp"

namespace onnxview {

// How a report names the two models: their paths as given, and for git's
// external diff the paths git shows ("a/PATH", "b/PATH"), named in the line
// saying that a model's external data is not there.
struct diff_report_names {
    std::string a, b;
    std::string git_a, git_b;
};

// One change as the text report prints it: "graph: node 'conv1' (Conv):
// removed", "initializer 'w': 3 of 10 values differ, first at 2, ...".
std::string diff_change_text(const model_change& c, const model_diff& d, const diff_options& options,
                             const diff_report_names& names);

// The text report: each section's title and at most `max_changes` lines
// ("... N more" for the rest), then the last line: the verdict, or "N
// signature, M graph, K weight changes".
std::string diff_report_text(const model_diff& d, const diff_options& options, const diff_report_names& names,
                             std::uint64_t max_changes = std::numeric_limits<std::uint64_t>::max());

// The report as one JSON object ("version": 2; docs/diff.md gives the
// schema), every change with its text line.
std::string diff_report_json(const model_diff& d, const diff_options& options, const diff_report_names& names);

// The parts diff_ignore names, comma-separated ("doc_string,producer"; ""
// names none): each one set in `out`. False, `out` unchanged, when a word
// is empty or none of doc_string, producer, metadata, names, value_info.
bool parse_diff_ignore(std::string_view list, diff_ignore& out);

// A weights comparison as words: "exact", "none", "allclose", or
// "allclose:rtol=R,atol=A" (either or both; decimal numbers, not negative)
// setting out.weights and out.tolerance. False, `out` unchanged, for
// anything else.
bool parse_diff_weights(std::string_view text, diff_options& out);

}  // namespace onnxview

#endif  // ONNXVIEW_COMPARE_DIFF_REPORT_HPP
