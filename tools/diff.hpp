// tools/diff.hpp - what `onnxview diff` finds, section by section, and the
// part of it that compares graphs (diff_graph.cpp).
#ifndef ONNXVIEW_TOOLS_DIFF_HPP
#define ONNXVIEW_TOOLS_DIFF_HPP

#include <string>
#include <utility>
#include <vector>

#include "onnxview/compare/model_hash.hpp"
#include "onnxview/compare/values.hpp"
#include "onnxview/error.hpp"
#include "onnxview/model_file.hpp"

namespace onnxview_cli {

// One line per change, in the sections `onnxview diff` prints, in order.
// Counted changes are those of signature, graph and weights (and the model
// section's ir_version and opset lines, counted as graph changes); the
// model section's other lines and the layout section are not counted.
struct diff_report {
    std::vector<std::string> model;
    std::size_t model_counted = 0;  // lines of `model` that change the computation
    std::vector<std::string> signature;
    std::vector<std::string> graph;
    std::vector<std::string> weights;
    std::vector<std::string> layout;
    // The figures behind each "values differ" line of `weights`, for --json.
    std::vector<std::pair<std::string, onnxview::value_difference>> values;
};

// The graph section: every scope of both models (main graph, subgraphs,
// training graphs, functions, through walk_scopes) paired by where it is,
// nodes paired by name (by position when unnamed): added, removed, op_type,
// domain, inputs, outputs and attributes changed. Tensor attributes of
// Constant nodes are left to the weights section; other tensor attributes
// are compared by digest (external payloads read through each model_file;
// with digest.values false, by type and dims only).
// Fails when a walk does.
onnxview::error diff_graphs(onnxview::model_file& a, onnxview::model_file& b,
                            const onnxview::digest_options& digest, diff_report& out);


}  // namespace onnxview_cli

#endif  // ONNXVIEW_TOOLS_DIFF_HPP
