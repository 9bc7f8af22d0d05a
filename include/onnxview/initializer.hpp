// onnxview/initializer.hpp - a graph's initializer found by its name.
//
//   auto init = onnxview::find_initializer(model.graph(), "conv1.weight");
//   if (init && !init->is_sparse) auto d = onnxview::tensor_data::make(init->dense);
#ifndef ONNXVIEW_INITIALIZER_HPP
#define ONNXVIEW_INITIALIZER_HPP

#include <string_view>

#include "onnxview/model.hpp"

namespace onnxview {

// An initializer of a graph: a TensorProto of graph.initializer, or a
// SparseTensorProto of graph.sparse_initializer, whose name is the name of
// its `values` tensor (as onnx.proto defines it). Views into the model's
// bytes, valid while they are.
struct initializer_ref {
    bool is_sparse = false;
    tensor_view dense;          // the initializer, when !is_sparse
    sparse_tensor_view sparse;  // the sparse initializer, when is_sparse
    // The tensor that carries the name: `dense`, or the sparse tensor's values.
    tensor_view named() const noexcept { return is_sparse ? sparse.values() : dense; }
};

// The initializer of `g` named `name`: the first dense initializer with that
// name, else the first sparse initializer whose values have it. (ONNX wants
// initializer names unique across both fields; check() reports repeats.)
// Linear: every initializer before the match is indexed, O(its own fields),
// then the sparse ones; no allocation. Errors: not_found (at the graph's
// first byte), or the error of the graph or of an initializer met on the way.
result<initializer_ref> find_initializer(const graph_view& g, std::string_view name) noexcept;

}  // namespace onnxview

#endif  // ONNXVIEW_INITIALIZER_HPP
