// tools/diff.hpp - `onnxview diff` and `hash --textconv` around the
// comparison library (onnxview/compare/model_diff.hpp, which also words
// the reports: diff_report.hpp): --fail-on parsed (diff_options.cpp),
// textconv lines (diff_textconv.cpp).
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

// --fail-on's value; false when a word is not understood.
bool parse_fail_on(std::string_view list, failing& out);

// `onnxview hash --textconv`: a line-based summary of `m` for git's
// textconv (diff_textconv.cpp). External payloads that cannot be found (git
// runs textconv on a copy of the blob alone) are named, not hashed, and the
// model's digest is then one without values. Fails when a walk does, or a
// payload that is there is invalid.
onnxview::error print_textconv(onnxview::model_file& m);

}  // namespace onnxview_cli

#endif  // ONNXVIEW_TOOLS_DIFF_HPP
