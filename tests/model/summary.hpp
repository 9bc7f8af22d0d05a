// tests/model/summary.hpp - the canonical summary of an ONNX file, made from
// onnxview's public API, to be compared with the python3-onnx oracle
// (tests/oracle/export_summary.py; the format is specified in
// tests/oracle/README.md).
#ifndef ONNXVIEW_TESTS_MODEL_SUMMARY_HPP
#define ONNXVIEW_TESTS_MODEL_SUMMARY_HPP

#include <cstddef>
#include <string>
#include <string_view>

namespace onnxview_test {

// What a .pb test data file holds.
enum class pb_kind { tensor, sequence, optional, map };

struct summary_options {
    // false: stop every tensor block after its `count:` line (no value
    // lines); compare with strip_value_lines() of the expectation.
    bool values = true;
};

// The summary of the ModelProto in `bytes`; external data is looked up in
// `base_dir` (the model's directory).
std::string summarize_model(std::string_view bytes, const std::string& base_dir,
                            const summary_options& options = {});

// The summary of a test data file holding a message of kind `kind`.
std::string summarize_pb(std::string_view bytes, pb_kind kind, const std::string& base_dir,
                         const summary_options& options = {});

// The kind of DIR/test_data_set_K/input_I.pb (output_I.pb) taken from the
// type of graph.input[I] (graph.output[I]) of DIR/model.onnx, as onnx's
// backend test runner does; tensor when that cannot be found.
pb_kind pb_kind_for(const std::string& path);

// The summary of the file at `path`: a test data file if it ends in ".pb",
// else a ModelProto.
std::string summarize_file(const std::string& path, const summary_options& options = {});

// The expectation without the value lines of tensor blocks (what
// summary_options::values = false produces).
std::string strip_value_lines(std::string_view summary);

// Compares two summaries line by line; an expected line `error: ...` (after
// its indentation) matches any actual line with the same indentation that
// starts with `error:`.
struct summary_diff {
    bool equal = true;
    std::size_t line = 0;   // 1-based number of the first differing line
    std::string expected;   // that line ("<end of summary>" past the end)
    std::string actual;
    std::string describe() const;  // "line N:\n  expected: ...\n  actual:   ..."
};
summary_diff compare_summaries(std::string_view expected, std::string_view actual);

// Reads a whole file; false if it cannot be read.
bool read_file(const std::string& path, std::string& out);

}  // namespace onnxview_test

#endif  // ONNXVIEW_TESTS_MODEL_SUMMARY_HPP
