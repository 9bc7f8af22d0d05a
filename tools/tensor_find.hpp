// tools/tensor_find.hpp - the tensors of a model with a given name, for
// `onnxview tensor`: initializers, sparse initializers and Constant values, in
// every graph (onnxview::for_each_tensor) and model-local functions.
#ifndef ONNXVIEW_TOOLS_TENSOR_FIND_HPP
#define ONNXVIEW_TOOLS_TENSOR_FIND_HPP

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "onnxview/model.hpp"
#include "onnxview/traverse.hpp"

namespace onnxview_cli {

// One tensor whose name matched: dense (t) or sparse (s).
struct match {
    bool sparse = false;
    onnxview::tensor_view t;
    onnxview::sparse_tensor_view s;
    std::string where;
    std::string_view name;    // a Constant's output; else the tensor's (values') name
    std::uint32_t depth = 0;  // 0: main and training graphs; subgraphs deeper; functions after all graphs
};

// Every tensor named `name` in `m`, top-level graphs first, then subgraphs by
// depth, then functions; `other_constant` is set to the attribute name of a Constant
// named `name` that holds no tensor (value_float, ...), if any.
std::vector<match> find_tensors(const onnxview::model_view& m, std::string_view name,
                                std::string_view& other_constant);

}  // namespace onnxview_cli

#endif  // ONNXVIEW_TOOLS_TENSOR_FIND_HPP
