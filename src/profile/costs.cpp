// src/profile/costs.cpp - MACs and FLOPs of one node from its shapes. The
// conventions (docs/profile.md lists them per op):
//   MACs   Conv, ConvInteger, QLinearConv: output elements x (C/group x kernel)
//          = output elements x (weight elements / M);
//          ConvTranspose: input elements x (weight elements / C);
//          Gemm, MatMul, MatMulInteger, QLinearMatMul: output elements x K;
//          LSTM, GRU, RNN: seq x directions x batch x gates x hidden x
//          (input + hidden), gates 4, 3, 1 (the W and R products of the
//          spec's equations, every time step).
//   FLOPs  2 x MACs, plus one per output element for a bias (Conv, Gemm C);
//          one per output element for elementwise and unary ops (n - 1 for
//          n-input Sum, Mean, Max, Min); pooling: output elements x kernel
//          size (global: input elements); reductions and ArgMax/ArgMin:
//          input elements; Softmax, LogSoftmax: 3 per element;
//          BatchNormalization: 2 per element; Layer/Instance/Group/
//          MeanVariance normalisation: 5 per element; data movement
//          (Reshape, Transpose, Gather, Concat, ...): 0.
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rules.hpp"

namespace onnxview {
namespace profile_detail {
namespace {

// Known MACs whose 2 x MACs (+ bias) no longer fit: the node is not covered,
// its FLOPs are not silently dropped.
constexpr const char* flops_overflow = "FLOPs not computable (unknown or overflowing sizes)";

bool one_of(std::string_view op, std::initializer_list<std::string_view> names) {
    return std::find(names.begin(), names.end(), op) != names.end();
}

// Product of dims [from, end) of a complete shape.
quantity product(const value_shape& s, std::size_t from) {
    quantity p(1);
    for (std::size_t i = from; i < s.dims.size(); ++i) p = times(p, s.dims[i]);
    return p;
}

bool has_input(const node_context& c, std::size_t i) {
    return i < c.input_names.size() && !c.input_names[i].empty();
}

std::string mac_op_cost(const node_context& c, std::string_view op, const quantity& out_elements, node_cost& cost) {
    std::string reason;
    quantity macs;
    bool bias = false;
    if (op == "Conv" || op == "ConvInteger" || op == "QLinearConv") {
        const std::size_t w_input = op == "QLinearConv" ? 3 : 1;
        const value_shape* w = ranked_input(c, w_input, reason);
        if (!w) return reason;
        macs = times(out_elements, product(*w, 1));
        bias = has_input(c, op == "QLinearConv" ? 8 : 2) && op != "ConvInteger";
    } else if (op == "ConvTranspose") {
        const value_shape* x = ranked_input(c, 0, reason);
        const value_shape* w = x ? ranked_input(c, 1, reason) : nullptr;
        if (!w) return reason;
        macs = times(x->element_count(), product(*w, 1));
        bias = has_input(c, 2);
    } else if (op == "Gemm") {
        const value_shape* a = ranked_input(c, 0, reason);
        if (!a) return reason;
        if (a->dims.size() != 2) return "Gemm input not of rank 2";
        macs = times(out_elements, a->dims[c.int_attribute("transA", 0) != 0 ? 0 : 1]);
        bias = has_input(c, 2);
    } else {  // MatMul, MatMulInteger, QLinearMatMul
        const value_shape* a = ranked_input(c, 0, reason);
        if (!a) return reason;
        if (a->dims.empty()) return "MatMul of a scalar";
        macs = times(out_elements, a->dims.back());
    }
    if (!macs.known) return "MACs not computable (unknown or overflowing sizes)";
    cost.macs = macs;
    cost.flops = times(macs, 2);
    if (bias) cost.flops = plus(cost.flops, out_elements);
    return cost.flops.known ? std::string() : flops_overflow;
}

std::string recurrent_cost(const node_context& c, std::string_view op, node_cost& cost) {
    std::string reason;
    const value_shape* x = ranked_input(c, 0, reason);
    if (!x) return reason;
    if (x->dims.size() != 3) return "input not of rank 3";
    const std::int64_t gates = op == "LSTM" ? 4 : op == "GRU" ? 3 : 1;
    const std::int64_t hidden = c.int_attribute("hidden_size", 0);
    const std::int64_t directions = c.string_attribute("direction", "forward") == "bidirectional" ? 2 : 1;
    const bool batch_first = c.int_attribute("layout", 0) != 0;
    const quantity& seq = x->dims[batch_first ? 1 : 0];
    const quantity& batch = x->dims[batch_first ? 0 : 1];
    // Per step and direction: gates x hidden outputs, each a dot product over input + hidden.
    const quantity per_row = plus(x->dims[2], quantity(hidden));
    if (hidden <= 0) return "no positive hidden_size";
    const quantity macs = times(times(times(seq, batch), directions * gates), times(quantity(hidden), per_row));
    if (!macs.known) return "MACs not computable (unknown or overflowing sizes)";
    cost.macs = macs;
    cost.flops = times(macs, 2);
    return cost.flops.known ? std::string() : flops_overflow;
}

// Einsum, evaluated as written: every combination of index values is one
// product of the n operands, n - 1 multiply-adds; one operand (a sum or a
// transposition) costs its input elements in FLOPs.
std::string einsum_cost(const node_context& c, node_cost& cost) {
    std::vector<std::pair<char, quantity>> sizes;
    std::string letters;
    if (std::string why = einsum_indices(c, sizes, letters); !why.empty()) return why;
    quantity combinations(1);
    for (const auto& s : sizes) combinations = times(combinations, s.second);
    if (c.input_count() < 2) {
        cost.macs = quantity(0);
        std::string reason;
        const value_shape* x = ranked_input(c, 0, reason);
        if (!x) return reason;
        cost.flops = x->element_count();
    } else {
        cost.macs = times(combinations, static_cast<std::int64_t>(c.input_count() - 1));
        cost.flops = times(cost.macs, 2);
    }
    return cost.macs.known && cost.flops.known ? std::string() : flops_overflow;
}

// FLOPs per output element of the ops without MACs; -1: not a known op.
std::int64_t flops_per_element(std::string_view op, std::size_t inputs) {
    if (one_of(op, {"Sum", "Mean", "Max", "Min"})) return inputs > 1 ? static_cast<std::int64_t>(inputs) - 1 : 0;
    if (one_of(op, {"Softmax", "LogSoftmax"})) return 3;
    if (op == "BatchNormalization") return 2;
    if (one_of(op, {"LayerNormalization", "InstanceNormalization", "GroupNormalization",
                    "MeanVarianceNormalization"}))
        return 5;
    if (one_of(op, {"Shape", "Size", "Constant", "ConstantOfShape", "Reshape", "Flatten", "Squeeze", "Unsqueeze",
                    "Transpose", "Concat", "Split", "Slice", "Gather", "Expand", "Tile", "Pad", "Range", "Identity",
                    "Dropout", "Cast", "CastLike", "GatherElements", "ScatterElements", "ScatterND", "EyeLike",
                    "DepthToSpace", "SpaceToDepth"}))
        return 0;
    return 1;
}

}  // namespace

std::string node_costs(const node_context& c, const std::vector<value_fact>& outputs, node_cost& cost) {
    const std::string_view op = c.node.op_type();
    if (outputs.empty()) {
        cost.macs = cost.flops = quantity(0);
        return std::string();
    }
    if (c.node.domain() == "com.microsoft") {
        if (std::optional<std::string> r = contrib_costs(c, op, outputs, cost)) return *r;
        return "op not covered: com.microsoft::" + std::string(op);
    }
    if (sequence_op(op)) {
        cost.macs = cost.flops = quantity(std::int64_t{0});
        return std::string();
    }
    const quantity out_elements = outputs[0].shape.element_count();
    if (op == "LSTM" || op == "GRU" || op == "RNN") return recurrent_cost(c, op, cost);
    if (op == "Einsum") return einsum_cost(c, cost);
    if (!out_elements.known) return "output shape not fully known";
    if (one_of(op, {"Conv", "ConvInteger", "QLinearConv", "ConvTranspose", "Gemm", "MatMul", "MatMulInteger",
                    "QLinearMatMul"}))
        return mac_op_cost(c, op, out_elements, cost);
    cost.macs = quantity(0);
    std::string reason;
    if (one_of(op, {"MaxPool", "AveragePool", "LpPool"})) {
        const std::optional<std::vector<std::int64_t>> kernel = c.ints_attribute("kernel_shape");
        quantity window(1);
        for (std::int64_t k : kernel.value_or(std::vector<std::int64_t>())) window = times(window, k);
        cost.flops = times(out_elements, window);
    } else if (op.substr(0, 6) == "Global" || op.substr(0, 6) == "Reduce" || op == "ArgMax" || op == "ArgMin" ||
               op == "SoftmaxCrossEntropyLoss" || op == "NegativeLogLikelihoodLoss" || op == "DynamicQuantizeLinear") {
        // A pass over the input, whatever the output's size (a scalar loss).
        const value_shape* x = ranked_input(c, 0, reason);
        if (!x) return reason;
        cost.flops = x->element_count();
    } else {
        cost.flops = times(out_elements, flops_per_element(op, c.input_count()));
    }
    return cost.flops.known ? std::string() : flops_overflow;
}

}  // namespace profile_detail
}  // namespace onnxview
