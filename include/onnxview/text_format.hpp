// onnxview/text_format.hpp - protobuf text format of ONNX messages, as protoc.
//
// print_text() writes what
//   protoc --decode=onnx.ModelProto onnx.proto < model.onnx
// writes (libprotoc 3.21, Debian's /usr/include/onnx/onnx.proto with
// options.release = schema::release(1, 12, 0)): known fields in field-number
// order, repeated elements in wire order, merged occurrences of singular
// messages, last-wins scalars, oneof semantics, then the unknown fields in
// wire order as protoc prints them (numbers, 0x-hex fixed values, nested
// `N { }` for length-delimited payloads that parse as messages, C-escaped
// strings otherwise, groups). Floats as protobuf's SimpleFtoa/SimpleDtoa,
// strings and bytes C-escaped with octal.
//
// The input is validated completely first (as libprotobuf parses it: framing,
// nested known messages, packed payloads, depth); an input protoc rejects
// gives an error with its byte offset and nothing is written.
//
// Cost: linear in the input for the validation pass; printing a message is
// O(fields x present known fields), so a graph of 100k nodes prints in linear
// time. No heap allocation: output goes through a 4 KiB stack buffer to the
// sink; recursion depth is bounded by opts.max_message_depth (default 100, as
// libprotobuf). Of the options, print_text() reads max_message_depth,
// release (fields and enum values newer than it are printed as unknown
// fields, exactly as a protoc built with that release's onnx.proto) and
// max_printed_bytes.
#ifndef ONNXVIEW_TEXT_FORMAT_HPP
#define ONNXVIEW_TEXT_FORMAT_HPP

#include <cstddef>
#include <cstdint>

#include "onnxview/error.hpp"
#include "onnxview/options.hpp"
#include "onnxview/schema.hpp"

namespace onnxview {

// Where printers write: write(user, data, n) is called with consecutive
// chunks of the output (never more than a few KiB at a time).
struct output_sink {
    void (*write)(void* user, const char* data, std::size_t n) = nullptr;
    void* user = nullptr;
};

// Validates, then writes the text format of the message to the sink.
// Errors (nothing written for any of them): any error of verify()
// (onnxview/verify.hpp) with the same max_message_depth and release, including
// merge_too_deep when merged occurrences of singular messages nest deeper
// than 8 levels (protoc would print those); invalid_argument when sink.write
// is null.
error print_text(const void* data, std::size_t size, const schema::message_desc& root,
                 output_sink sink, const options& opts = {}) noexcept;

}  // namespace onnxview

#endif  // ONNXVIEW_TEXT_FORMAT_HPP
