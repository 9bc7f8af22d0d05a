// onnxview/onnxview.hpp - the whole public API in one include.
//
//   wire.hpp, wire_message.hpp, wire_repeated.hpp   protobuf wire format
//   model.hpp, verify.hpp                           typed views of every ONNX message
//   traverse.hpp                                    every graph, node and stored tensor of a model
//   tensor_data.hpp, data_types.hpp, sparse_data.hpp, float_formats.hpp
//                                                   tensor payloads of every data type
//   check.hpp                                       model validation (onnx.checker rules)
//   diagnose.hpp                                    what a file that is not a model is
//   text_format.hpp, json_format.hpp, field_path.hpp printers and error paths
//   display.hpp                                     names and types as one-line text
//   file.hpp, external_data.hpp, external_source.hpp, model_file.hpp,
//   metadata_reads.hpp
//                                                   files, mmap, external data
#ifndef ONNXVIEW_ONNXVIEW_HPP
#define ONNXVIEW_ONNXVIEW_HPP

#include "onnxview/attribute_values.hpp"
#include "onnxview/check.hpp"
#include "onnxview/cursor.hpp"
#include "onnxview/decimal.hpp"
#include "onnxview/diagnose.hpp"
#include "onnxview/display.hpp"
#include "onnxview/field_path.hpp"
#include "onnxview/json_format.hpp"
#include "onnxview/metadata_reads.hpp"
#include "onnxview/output_file.hpp"
#include "onnxview/model_file.hpp"
#include "onnxview/merge.hpp"
#include "onnxview/rebind.hpp"
#include "onnxview/sparse_data.hpp"
#include "onnxview/text_format.hpp"
#include "onnxview/traverse.hpp"
#include "onnxview/verify.hpp"
#include "onnxview/wire_encode.hpp"
#include "onnxview/write.hpp"

#endif  // ONNXVIEW_ONNXVIEW_HPP
