// onnxview/model.hpp - typed, zero-copy views of every ONNX message.
//
//   auto m = onnxview::parse_model(bytes.data(), bytes.size());
//   if (!m.ok()) { /* m.err().code, m.err().offset */ }
//   for (const onnxview::node_view& n : m.graph().node())
//       std::printf("%.*s\n", int(n.op_type().size()), n.op_type().data());
//
// Views are named after the messages (ModelProto -> model_view, ...) and
// their accessors after the fields. Nothing is copied and nothing is
// allocated; see onnxview/view.hpp for the protobuf rules and the error model.
#ifndef ONNXVIEW_MODEL_HPP
#define ONNXVIEW_MODEL_HPP

#include "onnxview/views/accessors.hpp"

namespace onnxview {

// A root view of `T` (model_view, tensor_view, sequence_view, ...) over
// [data, data + size), nested at most opts.max_message_depth deep.
// O(top-level fields of the root); allocates nothing.
// The view is valid while the bytes are.
template <class T>
T parse_as(const void* data, std::size_t size, const options& opts = {}) noexcept {
    return T(result<wire::message>(wire::message::root(data, size, opts.max_message_depth)));
}
inline model_view parse_model(const void* data, std::size_t size,
                              const options& opts = {}) noexcept {
    return parse_as<model_view>(data, size, opts);
}
inline tensor_view parse_tensor(const void* data, std::size_t size,
                                const options& opts = {}) noexcept {
    return parse_as<tensor_view>(data, size, opts);
}

}  // namespace onnxview

#endif  // ONNXVIEW_MODEL_HPP
