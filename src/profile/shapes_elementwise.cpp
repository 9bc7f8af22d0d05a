// src/profile/shapes_elementwise.cpp - output shapes of the elementwise ops
// (numpy broadcasting), the unary and activation ops, the normalisations
// and the reductions.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "onnxview/enums.hpp"
#include "rules.hpp"

namespace onnxview {
namespace profile_detail {
namespace {

constexpr std::int32_t bool_type = static_cast<std::int32_t>(data_type::boolean);
constexpr std::int32_t int64_type = static_cast<std::int32_t>(data_type::int64);
constexpr std::int32_t uint8_type = static_cast<std::int32_t>(data_type::uint8);

bool one_of(std::string_view op, std::initializer_list<std::string_view> names) {
    return std::find(names.begin(), names.end(), op) != names.end();
}

// Ops whose output 0 has input 0's shape and type.
bool same_shape_op(std::string_view op) {
    return one_of(op, {"Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Neg", "Abs", "Erf", "Gelu", "LeakyRelu",
                       "Clip", "Identity", "Dropout", "Softmax", "LogSoftmax", "Hardmax", "Reciprocal", "Floor",
                       "Ceil", "Round", "Sign", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh",
                       "Asinh", "Acosh", "Atanh", "Softplus", "Softsign", "Elu", "Selu", "Celu", "HardSigmoid",
                       "HardSwish", "Mish", "ThresholdedRelu", "Shrink", "LRN", "Trilu", "CumSum",
                       "BatchNormalization", "InstanceNormalization", "GroupNormalization", "LayerNormalization",
                       "MeanVarianceNormalization", "LpNormalization", "BitwiseNot", "Swish", "RandomUniformLike",
                       "RandomNormalLike", "EyeLike"});
}

// Ops with numpy broadcasting over all their inputs.
bool broadcasting_op(std::string_view op) {
    return one_of(op, {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Mean", "Sum", "Mod", "PRelu", "BitShift",
                       "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Equal", "Less", "Greater", "LessOrEqual",
                       "GreaterOrEqual", "And", "Or", "Xor", "Where"});
}

bool boolean_result(std::string_view op) {
    return one_of(op, {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor", "Not",
                       "IsNaN", "IsInf"});
}

// Elementwise arithmetic on the known values of small integer tensors (the
// shape arithmetic of exported graphs: Shape -> Gather -> Mul -> Concat).
void fold_values(const node_context& c, std::string_view op, value_fact& y) {
    if (c.input_count() != 2 || !y.shape.complete()) return;
    const value_fact* a = c.input(0);
    const value_fact* b = c.input(1);
    if (!a || !b || !a->values_known || !b->values_known) return;
    const quantity n = y.shape.element_count();
    if (!n.concrete() || n.value.constant_term() > c.max_value_elements) return;
    const std::size_t count = static_cast<std::size_t>(n.value.constant_term());
    // Only equal sizes or a scalar side: enough for shape arithmetic.
    auto at = [count](const value_fact& f, std::size_t i) -> const quantity& {
        return f.values.size() == count ? f.values[i] : f.values[0];
    };
    if ((a->values.size() != count && a->values.size() != 1) || (b->values.size() != count && b->values.size() != 1))
        return;
    std::vector<quantity> values;
    for (std::size_t i = 0; i < count; ++i) {
        const quantity& x = at(*a, i);
        const quantity& z = at(*b, i);
        if (op == "Add") values.push_back(plus(x, z));
        else if (op == "Sub") values.push_back(minus(x, z));
        else if (op == "Mul") values.push_back(times(x, z));
        else if (op == "Div" && z.concrete() && z.value.constant_term() > 0)
            values.push_back(floor_divide(x, z.value.constant_term()));
        else return;
    }
    y.values_known = true;
    y.values = std::move(values);
}

std::string elementwise(const node_context& c, std::string_view op, std::vector<value_fact>& out) {
    if (c.input_count() == 0) return "no inputs";
    value_fact y;
    y.shape.rank_known = true;
    for (std::size_t i = 0; i < c.input_count(); ++i) {
        std::string reason;
        const value_shape* s = ranked_input(c, i, reason);
        if (!s) return reason;
        y.shape = broadcast(y.shape, *s);
    }
    y.elem_type = boolean_result(op) ? bool_type : input_type(c, op == "Where" ? 1 : 0);
    fold_values(c, op, y);
    out[0] = std::move(y);
    return std::string();
}

std::string same_shape(const node_context& c, std::string_view op, std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* x = ranked_input(c, 0, reason);
    if (!x) return reason;
    out[0].shape = *x;
    out[0].elem_type = boolean_result(op) ? bool_type : input_type(c, 0);
    if (op == "Identity" && c.input(0)) out[0] = *c.input(0);
    if (op == "Cast" || op == "CastLike") {
        out[0].elem_type = op == "Cast" ? static_cast<std::int32_t>(c.int_attribute("to", 0)) : input_type(c, 1);
        const value_fact* in = c.input(0);
        if (in && in->values_known &&
            (out[0].elem_type == int64_type || out[0].elem_type == static_cast<std::int32_t>(data_type::int32))) {
            out[0].values_known = true;
            out[0].values = in->values;
        }
    }
    if (op == "QuantizeLinear") out[0].elem_type = c.input(2) ? input_type(c, 2) : uint8_type;
    if (op == "DequantizeLinear") out[0].elem_type = input_type(c, 1);
    if (op == "RandomUniformLike" || op == "RandomNormalLike" || op == "EyeLike")
        out[0].elem_type = static_cast<std::int32_t>(c.int_attribute("dtype", input_type(c, 0)));
    if (op == "Dropout" && out.size() > 1) {
        out[1].shape = *x;
        out[1].elem_type = bool_type;
    }
    if (op == "LayerNormalization" && out.size() > 1) {
        // Mean and InvStdDev: the input's shape with the normalised axes set to 1.
        std::size_t axis = 0;
        if (!normalize_axis(c.int_attribute("axis", -1), x->dims.size(), axis)) return "axis out of range";
        for (std::size_t i = 1; i < out.size() && i < 3; ++i) {
            out[i].shape = *x;
            for (std::size_t k = axis; k < x->dims.size(); ++k) out[i].shape.dims[k] = quantity(1);
            out[i].elem_type = input_type(c, 0);
        }
    }
    if (op == "BatchNormalization" && out.size() > 1) {
        // Training mode's running mean and variance: the shape of the scale input.
        for (std::size_t i = 1; i < out.size() && i < 3; ++i) {
            const value_shape* scale = ranked_input(c, 1, reason);
            if (!scale) return reason;
            out[i].shape = *scale;
            out[i].elem_type = input_type(c, 3);
        }
    }
    return std::string();
}

// Reduce*, ArgMax, ArgMin: the reduced axes removed, or kept as 1.
std::string reduction(const node_context& c, std::string_view op, std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* x = ranked_input(c, 0, reason);
    if (!x) return reason;
    const bool keep = c.int_attribute("keepdims", 1) != 0;
    std::vector<bool> reduced(x->dims.size(), false);
    if (op == "ArgMax" || op == "ArgMin") {
        std::size_t axis = 0;
        if (!normalize_axis(c.int_attribute("axis", 0), x->dims.size(), axis)) return "axis out of range";
        reduced[axis] = true;
    } else {
        bool present = false;
        const std::optional<std::vector<std::int64_t>> axes = ints_from_attribute_or_input(c, "axes", 1, present);
        if (present && !axes) return "axes input not a known constant";
        if (!axes || axes->empty()) {
            if (c.int_attribute("noop_with_empty_axes", 0) != 0) {
                out[0].shape = *x;
                out[0].elem_type = input_type(c, 0);
                return std::string();
            }
            std::fill(reduced.begin(), reduced.end(), true);
        } else {
            for (std::int64_t a : *axes) {
                std::size_t axis = 0;
                if (!normalize_axis(a, x->dims.size(), axis)) return "axis out of range";
                reduced[axis] = true;
            }
        }
    }
    value_fact y;
    y.elem_type = (op == "ArgMax" || op == "ArgMin") ? int64_type : input_type(c, 0);
    y.shape.rank_known = true;
    for (std::size_t i = 0; i < x->dims.size(); ++i) {
        if (!reduced[i]) y.shape.dims.push_back(x->dims[i]);
        else if (keep) y.shape.dims.push_back(quantity(1));
    }
    out[0] = std::move(y);
    return std::string();
}

}  // namespace

rule_outcome infer_elementwise_op(const node_context& c, std::string_view op, std::vector<value_fact>& out) {
    if (broadcasting_op(op)) return elementwise(c, op, out);
    if (same_shape_op(op) || one_of(op, {"Cast", "CastLike", "Not", "IsNaN", "IsInf", "QuantizeLinear",
                                         "DequantizeLinear"}))
        return same_shape(c, op, out);
    if (op.substr(0, 6) == "Reduce" || op == "ArgMax" || op == "ArgMin") return reduction(c, op, out);
    return std::nullopt;
}

}  // namespace profile_detail
}  // namespace onnxview
