// onnxview/verify.hpp - check a whole message tree once, up front.
//
// Views check lazily: each view validates its own fields when made, so a
// malformed nested message only shows when it is reached. verify() walks
// every nested message of the schema (and every packed scalar array) first,
// so that after it succeeds no view made over the same bytes with the same
// options will report an error. It reads merged singular messages as the
// views do, so it also refuses more than wire::max_merge_path nested merges
// (merge_too_deep), which libprotobuf would accept; otherwise it accepts
// exactly what libprotobuf accepts.
//
// Cost: linear in the number of fields of the whole tree; payloads of
// strings, bytes and packed fixed-width arrays are skipped in O(1).
// Allocates nothing; recursion is bounded by the depth limit.
#ifndef ONNXVIEW_VERIFY_HPP
#define ONNXVIEW_VERIFY_HPP

#include <cstddef>

#include "onnxview/schema.hpp"
#include "onnxview/view.hpp"

namespace onnxview {

// Verifies [data, data + size) as a message of type `root` (by default
// onnx.ModelProto). Returns the first error in wire order, with its offset.
error verify(const void* data, std::size_t size,
             const schema::message_desc& root = schema::msg_ModelProto,
             const parse_options& options = {}) noexcept;

}  // namespace onnxview

#endif  // ONNXVIEW_VERIFY_HPP
