// onnxview/json_format.hpp - the protobuf JSON mapping of ONNX messages.
//
// print_json() writes what google.protobuf.json_format.MessageToJson writes
// (as parsed JSON; whitespace differs): lowerCamelCase names, int64/uint64 as
// strings, bytes as base64, enums by name, floats as numbers (NaN, Infinity,
// -Infinity as strings), repeated fields as arrays, absent fields omitted,
// unknown fields dropped. Same validation, cost and allocation rules as
// print_text() (see text_format.hpp); opts.max_printed_bytes truncates base64 and
// string payloads (not MessageToJson-identical).
#ifndef ONNXVIEW_JSON_FORMAT_HPP
#define ONNXVIEW_JSON_FORMAT_HPP

#include "onnxview/text_format.hpp"

namespace onnxview {

error print_json(const void* data, std::size_t size, const schema::message_desc& root,
                 output_sink sink, const options& opts = {}) noexcept;

}  // namespace onnxview

#endif  // ONNXVIEW_JSON_FORMAT_HPP
