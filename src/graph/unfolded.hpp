// The unfolded picture of a model (every node, input and output a box),
// made by one walk of the model; draw_graph folds it once, graph_html folds
// it once per picture of its page. Internal to src/graph/.
#ifndef ONNXVIEW_GRAPH_UNFOLDED_HPP
#define ONNXVIEW_GRAPH_UNFOLDED_HPP

#include <memory>

#include "onnxview/graph.hpp"

namespace onnxview {

class unfolded;  // draw.cpp
struct unfolded_deleter {
    void operator()(unfolded* u) const noexcept;
};
using unfolded_ptr = std::unique_ptr<unfolded, unfolded_deleter>;

// Errors: not_found (no graph), depth_exceeded (bodies nested too deep).
error unfold_graph(const model_view& m, bool initializers, unfolded_ptr& out);
// The picture `opts` asks for (opts.initializers is the unfold's).
result<graph_picture> fold_graph(const unfolded& u, const graph_options& opts);

}  // namespace onnxview

#endif  // ONNXVIEW_GRAPH_UNFOLDED_HPP
