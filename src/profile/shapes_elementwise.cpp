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
                       "RandomNormalLike", "EyeLike", "ReverseSequence", "Scatter", "Bernoulli", "RegexFullMatch"});
}

// Ops with numpy broadcasting over all their inputs.
bool broadcasting_op(std::string_view op) {
    return one_of(op, {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Mean", "Sum", "Mod", "PRelu", "BitShift", "StringConcat",
                       "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Equal", "Less", "Greater", "LessOrEqual",
                       "GreaterOrEqual", "And", "Or", "Xor", "Where"});
}

bool boolean_result(std::string_view op) {
    return one_of(op, {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor", "Not",
                       "IsNaN", "IsInf", "RegexFullMatch"});
}

bool integer_type(std::int32_t t) {
    switch (static_cast<data_type>(t)) {
        case data_type::int64: case data_type::int32: case data_type::int16: case data_type::int8:
        case data_type::uint64: case data_type::uint32: case data_type::uint16: case data_type::uint8:
        case data_type::boolean:
            return true;
        default:
            return false;
    }
}

quantity truth(bool b) { return quantity(std::int64_t{b ? 1 : 0}); }

// One element of a binary op on known values; unknown when the op or the
// operands are beyond what shape arithmetic needs.
quantity fold_one(std::string_view op, const quantity& x, const quantity& z) {
    if (op == "Add") return plus(x, z);
    if (op == "Sub") return minus(x, z);
    if (op == "Mul") return times(x, z);
    const bool divisor = z.concrete() && z.value.constant_term() > 0;
    if (op == "Div" && divisor) return floor_divide(x, z.value.constant_term());
    if (op == "Min" || op == "Max") {
        if (!x.known || !z.known) return quantity();
        const dim_order o = compare(x.value, z.value);
        if (o == dim_order::unordered) return quantity();
        return (o == dim_order::greater_or_equal) == (op == "Max") ? x : z;
    }
    if (!x.concrete() || !z.concrete()) {
        // Symbolic (Equal(Shape(x), -1)): decided when it holds for every value of the dims (each >= 1).
        if (!x.known || !z.known) return quantity();
        const bool same = x.value == z.value;
        const quantity z1 = plus(z, quantity(std::int64_t{1})), x1 = plus(x, quantity(std::int64_t{1}));
        const bool above = z1.known && compare(x.value, z1.value) == dim_order::greater_or_equal;  // x > z
        const bool below = x1.known && compare(x1.value, z.value) == dim_order::less_or_equal;     // x < z
        const bool at_least = same || above, at_most = same || below;
        if (op == "Equal" && (same || above || below)) return truth(same);
        if ((op == "Less" || op == "GreaterOrEqual") && (below || at_least)) return truth((op == "Less") == below);
        if ((op == "Greater" || op == "LessOrEqual") && (above || at_most)) return truth((op == "Greater") == above);
        return quantity();
    }
    const std::int64_t a = x.value.constant_term(), b = z.value.constant_term();
    if (op == "Mod" && b > 0) return quantity(((a % b) + b) % b);
    if (op == "Equal") return truth(a == b);
    if (op == "Less") return truth(a < b);
    if (op == "Greater") return truth(a > b);
    if (op == "LessOrEqual") return truth(a <= b);
    if (op == "GreaterOrEqual") return truth(a >= b);
    return quantity();
}

// Elementwise ops on the known values of small integer tensors (the shape
// arithmetic of exported graphs: Shape -> Gather -> Mul -> Concat, Where
// (Equal(shape, -1), Shape(x), shape)): equal sizes or a one-element side.
void fold_values(const node_context& c, std::string_view op, value_fact& y) {
    const std::size_t arity = op == "Where" ? 3 : 2;
    if (c.input_count() != arity || !y.shape.complete() || !integer_type(y.elem_type)) return;
    const quantity n = y.shape.element_count();
    if (!n.concrete() || n.value.constant_term() > c.max_value_elements) return;
    const std::size_t count = static_cast<std::size_t>(n.value.constant_term());
    for (std::size_t i = 0; i < arity; ++i) {
        const value_fact* f = c.input(i);
        if (!f || !f->values_known || (f->values.size() != count && f->values.size() != 1)) return;
    }
    auto at = [count](const value_fact& f, std::size_t i) -> const quantity& {
        return f.values.size() == count ? f.values[i] : f.values[0];
    };
    std::vector<quantity> values;
    for (std::size_t i = 0; i < count; ++i) {
        if (op == "Where") {
            const quantity& cond = at(*c.input(0), i);
            if (!cond.concrete()) return;
            values.push_back(at(*c.input(cond.value.constant_term() != 0 ? 1 : 2), i));
        } else {
            // An element that cannot be folded stays unknown (min(B, 4)): the others still count.
            values.push_back(fold_one(op, at(*c.input(0), i), at(*c.input(1), i)));
        }
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
    if ((op == "Neg" || op == "Abs") && c.input(0) && c.input(0)->values_known && integer_type(out[0].elem_type)) {
        // Shape arithmetic of expanded functions (LayerNormalization's Neg of the axis count).
        out[0].values_known = true;
        for (const quantity& v : c.input(0)->values) {
            quantity r = v.known ? minus(quantity(std::int64_t{0}), v) : quantity();
            if (op == "Abs" && v.concrete()) r = v.value.constant_term() < 0 ? r : v;
            else if (op == "Abs") r = quantity();
            out[0].values.push_back(r);
        }
    }
    if (op == "Cast" || op == "CastLike") {
        out[0].elem_type = op == "Cast" ? static_cast<std::int32_t>(c.int_attribute("to", 0)) : input_type(c, 1);
        const value_fact* in = c.input(0);
        // Integer values survive a float in between (Cast(Cast(shape, FLOAT), INT64)); arithmetic on them
        // is folded only where the type is an integer's (fold_values).
        const data_type to = static_cast<data_type>(out[0].elem_type);
        if (in && in->values_known && to != data_type::boolean &&
            (integer_type(out[0].elem_type) || to == data_type::float32 || to == data_type::float64)) {
            out[0].values_known = true;
            out[0].values = in->values;
        }
    }
    if (op == "QuantizeLinear") out[0].elem_type = c.input(2) ? input_type(c, 2) : uint8_type;
    if (op == "DequantizeLinear") out[0].elem_type = input_type(c, 1);
    if (op == "RandomUniformLike" || op == "RandomNormalLike" || op == "EyeLike" || op == "Bernoulli")
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
        if (present && !axes) {
            // Axes the profile cannot follow: kept, each dim is 1 or itself as they say; dropped, the
            // rank is known when their count is.
            const std::optional<std::size_t> n = vector_length(c, 1);
            const bool noop = n == std::size_t{0} && c.int_attribute("noop_with_empty_axes", 0) != 0;
            if (!n || *n > x->dims.size()) return "axes input of no known length";
            value_fact y;
            y.elem_type = input_type(c, 0);
            y.shape = *x;
            if (noop) {
                out[0] = std::move(y);
                return std::string();
            }
            if (!keep) y.shape.dims.resize(*n == 0 ? 0 : x->dims.size() - *n);
            for (std::size_t i = 0; i < y.shape.dims.size(); ++i)
                if (!keep || !(x->dims[i].concrete() && x->dims[i].value.constant_term() == 1))
                    y.shape.dims[i] = data_dependent(c, 0, i);
            out[0] = std::move(y);
            return std::string();
        }
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
    // ReduceProd(Shape(x)) and friends on a shape vector: one value.
    const value_fact* in = c.input(0);
    if (in && in->values_known && x->dims.size() == 1 && reduced[0] && !in->values.empty() &&
        (op == "ReduceProd" || op == "ReduceSum" || op == "ReduceMax" || op == "ReduceMin")) {
        quantity v = in->values[0];
        for (std::size_t i = 1; i < in->values.size() && v.known; ++i)
            v = op == "ReduceProd" ? times(v, in->values[i])
                : op == "ReduceSum" ? plus(v, in->values[i])
                                    : fold_one(op == "ReduceMax" ? "Max" : "Min", v, in->values[i]);
        if (v.known) {
            y.values_known = true;
            y.values = {v};
        }
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
    if (op == "Det") {
        // [*, M, M] -> [*]
        std::string reason;
        const value_shape* x = ranked_input(c, 0, reason);
        if (!x) return reason;
        if (x->dims.size() < 2) return "input of rank below 2";
        out[0].elem_type = input_type(c, 0);
        out[0].shape = shape_of(std::vector<quantity>(x->dims.begin(), x->dims.end() - 2));
        return std::string();
    }
    return std::nullopt;
}

}  // namespace profile_detail
}  // namespace onnxview
