// tools/tensor_census.hpp - every tensor a model stores, wherever it sits
// (onnxview::for_each_tensor: initializers, sparse initializers, the value
// of Constant nodes and the tensor attributes of other nodes, in every graph
// and model-local function), counted. `info` and `doctor` count parameters
// and bytes from it, so a model that keeps its weights in Constant nodes is
// not reported as holding none.
#ifndef ONNXVIEW_TOOLS_TENSOR_CENSUS_HPP
#define ONNXVIEW_TOOLS_TENSOR_CENSUS_HPP

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "onnxview/json_writer.hpp"
#include "onnxview/model.hpp"
#include "onnxview/traverse.hpp"

namespace onnxview_cli {

using onnxview::tensor_origin;
using onnxview::tensor_origin_count;
using onnxview::tensor_origin_name;

// One dense tensor; a sparse tensor gives two (values, then indices), both
// with the sparse tensor's origin and `sparse_part` set.
struct census_tensor {
    onnxview::tensor_view t;
    tensor_origin origin = tensor_origin::initializer;
    bool sparse_part = false;
    bool sparse_indices = false;  // the indices of a sparse tensor: bytes, not parameters
    // constant and attribute: the node holding the tensor (its first output,
    // or its name when it has no output) and the attribute's name.
    std::string_view node;
    std::string_view attribute;
};

// How a person finds the tensor: 'w' for an initializer; for a tensor in a
// node, where it is (Constant 'out', attribute 't' of 'node'), then its name
// if it has one; a sparse tensor's parts say which part they are.
std::string census_label(const census_tensor& c);

// A sparse tensor counts as two tensors, its values and its indices.
struct totals {
    std::uint64_t tensors = 0;
    std::uint64_t elements = 0;  // parameters (sparse: the stored values; indices not counted)
    std::uint64_t bytes = 0;     // dims x element size (STRING: the strings' bytes)
};

// {"tensors": N, "parameters": N, "bytes": N}: how `info --json` and
// `doctor --json` write totals.
void json_totals(onnxview::json_writer& w, const totals& t);

struct tensor_census {
    std::vector<census_tensor> tensors;  // in for_each_tensor() order
    totals by_origin[tensor_origin_count];
    std::map<std::string, totals> by_data_type;  // over every origin, "FLOAT", ...
    totals all;
    std::uint64_t bad_sizes = 0;  // tensors whose dims are negative or overflow (not counted)
};

// Walks `m` (metadata only: payloads are not read).
tensor_census take_census(const onnxview::model_view& m);

// What take_census does with each tensor: for a walk that takes the census
// and more in one pass (onnxview::tensor_scope_visitor<census_adder>).
struct census_adder {
    tensor_census& census;
    void operator()(const onnxview::stored_tensor& st) const;
};

// Elements and bytes of one tensor from its dims and data type; false when a
// dim is negative or the size overflows.
bool tensor_size(const onnxview::tensor_view& t, std::uint64_t& elements, std::uint64_t& bytes);

}  // namespace onnxview_cli

#endif  // ONNXVIEW_TOOLS_TENSOR_CENSUS_HPP
