// onnxview/verify.hpp - check a whole message tree once, up front.
//
// Views check lazily: each view validates its own fields when made, so a
// malformed nested message only shows when it is reached. verify() walks
// every nested message of the schema (and every packed scalar array) first,
// exactly as libprotobuf's parser meets them, so that after it succeeds no
// view made over the same bytes with the same options will report an error.
// The one difference from libprotobuf: merged singular messages (a singular
// message field occurring more than once) nested more than
// wire::max_merge_path levels deep are refused (merge_too_deep), since the
// views and the printers do not follow them. The printers (print_text,
// print_json) run it before writing anything.
//
// Cost: linear in the number of fields of the whole tree; payloads of
// strings, bytes and packed fixed-width arrays are skipped in O(1); a second
// pass over a message only where a singular message field occurs twice.
// Allocates nothing; recursion is bounded by the depth limit.
#ifndef ONNXVIEW_VERIFY_HPP
#define ONNXVIEW_VERIFY_HPP

#include <cstddef>

#include "onnxview/schema.hpp"
#include "onnxview/view.hpp"

namespace onnxview {

// Verifies [data, data + size) as a message of type `root` (by default
// onnx.ModelProto), with opts.max_message_depth and the schema of
// opts.release. Returns the first error in wire order, with its offset
// (merge_too_deep only once everything else is known to be well formed).
error verify(const void* data, std::size_t size,
             const schema::message_desc& root = schema::msg_ModelProto,
             const options& opts = {}) noexcept;

}  // namespace onnxview

#endif  // ONNXVIEW_VERIFY_HPP
