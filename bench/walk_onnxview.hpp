// bench/walk_onnxview.hpp - what the two onnxview competitors share.
#ifndef ONNXVIEW_BENCH_WALK_ONNXVIEW_HPP
#define ONNXVIEW_BENCH_WALK_ONNXVIEW_HPP

#include <string>

#include "common.hpp"
#include "onnxview/model.hpp"

namespace bench {

// A tensor through its view: name, data type, dims and, with payloads, every
// element through tensor_data (walk_onnxview.cpp).
void walk_tensor_view(const onnxview::tensor_view& t, bool payloads, walk_result& r);
// Workload 1 for onnxview: a mapped file and parse_model's view (both
// competitors open the same way: the view indexes the model's own fields).
bool open_onnxview(const char* path, walk_result& r, std::string& err);

}  // namespace bench

#endif  // ONNXVIEW_BENCH_WALK_ONNXVIEW_HPP
