// src/profile/shapes_network.cpp - output shapes of the ops that carry the
// MACs: convolutions and pooling (the output size formulas of the ONNX
// operator spec, auto_pad included), Gemm, MatMul and its integer and
// quantized variants, and the recurrent ops LSTM, GRU and RNN.
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

constexpr std::int32_t int32_type = static_cast<std::int32_t>(data_type::int32);
constexpr std::int32_t int64_type = static_cast<std::int32_t>(data_type::int64);

// Spatial output sizes of a convolution or a pool over `x` ([N, C, D1..Dn])
// with kernel `kernel` (n sizes). Per the spec:
//   NOTSET: floor((D + pad_begin + pad_end - dilation*(k-1) - 1) / stride) + 1
//           (ceil instead of floor with ceil_mode)
//   SAME_UPPER, SAME_LOWER: ceil(D / stride)
//   VALID: ceil((D - dilation*(k-1)) / stride)
std::string spatial_sizes(const node_context& c, const value_shape& x, const std::vector<std::int64_t>& kernel,
                          std::vector<quantity>& out) {
    const std::size_t n = kernel.size();
    if (x.dims.size() != n + 2) return "kernel rank does not match the input's";
    const std::vector<std::int64_t> strides = c.ints_attribute("strides").value_or(std::vector<std::int64_t>(n, 1));
    const std::vector<std::int64_t> dilations =
        c.ints_attribute("dilations").value_or(std::vector<std::int64_t>(n, 1));
    const std::vector<std::int64_t> pads = c.ints_attribute("pads").value_or(std::vector<std::int64_t>(2 * n, 0));
    if (strides.size() != n || dilations.size() != n || pads.size() != 2 * n) return "strides, dilations or pads of the wrong length";
    const std::string_view auto_pad = c.string_attribute("auto_pad", "NOTSET");
    const bool ceil_mode = c.int_attribute("ceil_mode", 0) != 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (strides[i] <= 0 || dilations[i] <= 0 || kernel[i] <= 0) return "non-positive stride, dilation or kernel";
        const quantity& d = x.dims[i + 2];
        // dilation*(k-1) cannot overflow: both are int64 > 0 and checked by times().
        const quantity reach = times(quantity(dilations[i]), quantity(kernel[i] - 1));
        if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
            out.push_back(ceil_divide(d, strides[i]));
        } else if (auto_pad == "VALID") {
            out.push_back(ceil_divide(minus(d, reach), strides[i]));
        } else {
            const quantity span = minus(plus(d, quantity(pads[i])), minus(reach, quantity(pads[i + n]) ));
            const quantity last = minus(span, quantity(1));
            out.push_back(plus(ceil_mode ? ceil_divide(last, strides[i]) : floor_divide(last, strides[i]), quantity(1)));
        }
        if (!out.back().known) return "spatial size not computable";
        if (out.back().value.is_constant() && out.back().value.constant_term() <= 0) return "non-positive output size";
    }
    return std::string();
}

std::string convolution(const node_context& c, std::size_t x_input, std::size_t w_input, std::int32_t out_type,
                        std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* x = ranked_input(c, x_input, reason);
    const value_shape* w = x ? ranked_input(c, w_input, reason) : nullptr;
    if (!w) return reason;
    if (w->dims.size() < 2 || x->dims.size() < 2) return "input or weight of rank below 2";
    std::vector<std::int64_t> kernel;
    if (std::optional<std::vector<std::int64_t>> k = c.ints_attribute("kernel_shape")) {
        kernel = *k;
    } else {
        for (std::size_t i = 2; i < w->dims.size(); ++i) {
            if (!w->dims[i].concrete()) return "kernel size unknown";
            kernel.push_back(w->dims[i].value.constant_term());
        }
    }
    value_fact y;
    y.elem_type = out_type;
    y.shape.rank_known = true;
    y.shape.dims = {x->dims[0], w->dims[0]};
    std::vector<quantity> spatial;
    if (std::string why = spatial_sizes(c, *x, kernel, spatial); !why.empty()) return why;
    y.shape.dims.insert(y.shape.dims.end(), spatial.begin(), spatial.end());
    out[0] = std::move(y);
    return std::string();
}

// ConvTranspose: W is [C, M/group, k...]. Per the spec, without output_shape:
//   out = stride*(D-1) + output_padding + (k-1)*dilation + 1 - pad_begin - pad_end
// (SAME_*: D*stride); with output_shape, those sizes.
std::string conv_transpose(const node_context& c, std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* x = ranked_input(c, 0, reason);
    const value_shape* w = x ? ranked_input(c, 1, reason) : nullptr;
    if (!w) return reason;
    if (w->dims.size() < 2 || x->dims.size() != w->dims.size()) return "weight rank does not match the input's";
    const std::size_t n = x->dims.size() - 2;
    value_fact y;
    y.elem_type = input_type(c, 0);
    y.shape.rank_known = true;
    y.shape.dims = {x->dims[0], times(w->dims[1], c.int_attribute("group", 1))};
    if (std::optional<std::vector<std::int64_t>> shape = c.ints_attribute("output_shape")) {
        if (shape->size() != n) return "output_shape of the wrong length";
        for (std::int64_t d : *shape) y.shape.dims.push_back(quantity(d));
        out[0] = std::move(y);
        return std::string();
    }
    std::vector<std::int64_t> kernel;
    for (std::size_t i = 2; i < w->dims.size(); ++i) {
        if (!w->dims[i].concrete()) return "kernel size unknown";
        kernel.push_back(w->dims[i].value.constant_term());
    }
    if (std::optional<std::vector<std::int64_t>> k = c.ints_attribute("kernel_shape")) kernel = *k;
    const std::vector<std::int64_t> ones(n, 1);
    const std::vector<std::int64_t> strides = c.ints_attribute("strides").value_or(ones);
    const std::vector<std::int64_t> dilations = c.ints_attribute("dilations").value_or(ones);
    const std::vector<std::int64_t> pads = c.ints_attribute("pads").value_or(std::vector<std::int64_t>(2 * n, 0));
    const std::vector<std::int64_t> output_padding =
        c.ints_attribute("output_padding").value_or(std::vector<std::int64_t>(n, 0));
    if (kernel.size() != n || strides.size() != n || dilations.size() != n || pads.size() != 2 * n ||
        output_padding.size() != n)
        return "kernel, strides, dilations or pads of the wrong length";
    const std::string_view auto_pad = c.string_attribute("auto_pad", "NOTSET");
    for (std::size_t i = 0; i < n; ++i) {
        const quantity& d = x->dims[i + 2];
        if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
            y.shape.dims.push_back(times(d, strides[i]));
            continue;
        }
        quantity size = times(minus(d, quantity(1)), strides[i]);
        size = plus(size, quantity(output_padding[i]));
        size = plus(size, plus(times(quantity(kernel[i] - 1), dilations[i]), quantity(1)));
        size = minus(size, plus(quantity(pads[i]), quantity(pads[i + n])));
        if (!size.known) return "spatial size not computable";
        y.shape.dims.push_back(std::move(size));
    }
    out[0] = std::move(y);
    return std::string();
}

std::string pool(const node_context& c, std::string_view op, std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* x = ranked_input(c, 0, reason);
    if (!x) return reason;
    if (x->dims.size() < 2) return "input of rank below 2";
    value_fact y;
    y.elem_type = input_type(c, 0);
    y.shape.rank_known = true;
    y.shape.dims = {x->dims[0], x->dims[1]};
    if (op.substr(0, 6) == "Global") {
        y.shape.dims.resize(x->dims.size(), quantity(1));
    } else {
        const std::optional<std::vector<std::int64_t>> kernel = c.ints_attribute("kernel_shape");
        if (!kernel) return "no kernel_shape";
        std::vector<quantity> spatial;
        if (std::string why = spatial_sizes(c, *x, *kernel, spatial); !why.empty()) return why;
        y.shape.dims.insert(y.shape.dims.end(), spatial.begin(), spatial.end());
    }
    for (std::size_t i = 0; i < out.size() && i < 2; ++i) out[i] = y;
    if (out.size() > 1) out[1].elem_type = int64_type;  // MaxPool's Indices
    return std::string();
}

std::string gemm(const node_context& c, std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* a = ranked_input(c, 0, reason);
    const value_shape* b = a ? ranked_input(c, 1, reason) : nullptr;
    if (!b) return reason;
    if (a->dims.size() != 2 || b->dims.size() != 2) return "Gemm inputs not of rank 2";
    const bool trans_a = c.int_attribute("transA", 0) != 0;
    const bool trans_b = c.int_attribute("transB", 0) != 0;
    value_fact y;
    y.elem_type = input_type(c, 0);
    y.shape.rank_known = true;
    y.shape.dims = {a->dims[trans_a ? 1 : 0], b->dims[trans_b ? 0 : 1]};
    out[0] = std::move(y);
    return std::string();
}

// numpy.matmul: 1-D operands are promoted (a row for A, a column for B) and
// the added axis removed again; batch axes broadcast.
std::string matmul(const node_context& c, std::size_t a_input, std::size_t b_input, std::int32_t out_type,
                   std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* a = ranked_input(c, a_input, reason);
    const value_shape* b = a ? ranked_input(c, b_input, reason) : nullptr;
    if (!b) return reason;
    if (a->dims.empty() || b->dims.empty()) return "MatMul of a scalar";
    value_shape batch_a, batch_b;
    batch_a.rank_known = batch_b.rank_known = true;
    if (a->dims.size() > 2) batch_a.dims.assign(a->dims.begin(), a->dims.end() - 2);
    if (b->dims.size() > 2) batch_b.dims.assign(b->dims.begin(), b->dims.end() - 2);
    value_fact y;
    y.elem_type = out_type;
    y.shape = broadcast(batch_a, batch_b);
    if (a->dims.size() >= 2) y.shape.dims.push_back(a->dims[a->dims.size() - 2]);
    if (b->dims.size() >= 2) y.shape.dims.push_back(b->dims.back());
    out[0] = std::move(y);
    return std::string();
}

// LSTM, GRU, RNN: X is [seq, batch, input] (layout 0) or [batch, seq, input];
// Y is [seq, directions, batch, hidden] (or [batch, seq, directions, hidden]),
// Y_h and Y_c [directions, batch, hidden] (or [batch, directions, hidden]).
std::string recurrent(const node_context& c, std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* x = ranked_input(c, 0, reason);
    if (!x) return reason;
    if (x->dims.size() != 3) return "input not of rank 3";
    const std::optional<attribute_view> hidden_attr = c.attribute("hidden_size");
    if (!hidden_attr || !hidden_attr->has_i()) return "no hidden_size";
    const quantity hidden(hidden_attr->i());
    const quantity directions(c.string_attribute("direction", "forward") == "bidirectional" ? 2 : 1);
    const bool batch_first = c.int_attribute("layout", 0) != 0;
    const quantity& seq = x->dims[batch_first ? 1 : 0];
    const quantity& batch = x->dims[batch_first ? 0 : 1];
    const std::int32_t type = input_type(c, 0);
    if (!out.empty()) {
        out[0].elem_type = type;
        out[0].shape = shape_of(batch_first ? std::vector<quantity>{batch, seq, directions, hidden}
                                            : std::vector<quantity>{seq, directions, batch, hidden});
    }
    for (std::size_t i = 1; i < out.size() && i < 3; ++i) {
        out[i].elem_type = type;
        out[i].shape = shape_of(batch_first ? std::vector<quantity>{batch, directions, hidden}
                                            : std::vector<quantity>{directions, batch, hidden});
    }
    return std::string();
}

std::string einsum(const node_context& c, std::vector<value_fact>& out) {
    std::vector<std::pair<char, quantity>> sizes;
    std::string letters;
    if (std::string why = einsum_indices(c, sizes, letters); !why.empty()) return why;
    value_fact y;
    y.elem_type = input_type(c, 0);
    y.shape.rank_known = true;
    for (char l : letters)
        for (const auto& s : sizes)
            if (s.first == l) y.shape.dims.push_back(s.second);
    if (y.shape.dims.size() != letters.size()) return "output index not among the inputs'";
    out[0] = std::move(y);
    return std::string();
}

}  // namespace

namespace {

// The equation with each "..." written as letters the equation does not
// use: the broadcast axes, right-aligned as numpy aligns them ("...ij,jk"
// over ranks 4 and 2 is "ABij,jk"; the implicit output puts them first).
// Empty `why` on success.
std::string spell_ellipses(const node_context& c, std::string_view equation, std::string& why) {
    std::string unused;
    for (char l = 'A'; l <= 'z'; ++l)
        if (((l >= 'a' && l <= 'z') || (l >= 'A' && l <= 'Z')) && equation.find(l) == std::string_view::npos) unused += l;
    const std::size_t arrow = equation.find("->");
    const std::string_view inputs = equation.substr(0, arrow);
    // Each term's ellipsis rank: its input's rank less its letters.
    std::vector<std::size_t> ranks;
    std::size_t widest = 0, start = 0;
    for (std::size_t operand = 0; start <= inputs.size(); ++operand) {
        const std::size_t comma = std::min(inputs.find(',', start), inputs.size());
        const std::string_view term = inputs.substr(start, comma - start);
        start = comma + 1;
        if (term.find("...") == std::string_view::npos) {
            ranks.push_back(0);
            continue;
        }
        std::string reason;
        const value_shape* shape = ranked_input(c, operand, reason);
        if (!shape) {
            why = reason;
            return std::string();
        }
        const std::size_t letters = static_cast<std::size_t>(
            std::count_if(term.begin(), term.end(), [](char l) { return l != '.' && l != ' '; }));
        if (shape->dims.size() < letters) {
            why = "Einsum term and input rank differ";
            return std::string();
        }
        ranks.push_back(shape->dims.size() - letters);
        widest = std::max(widest, ranks.back());
    }
    if (widest > unused.size()) {
        why = "Einsum with too many axes";
        return std::string();
    }
    const std::string all = unused.substr(0, widest);
    std::string out;
    std::size_t operand = 0;
    for (std::size_t i = 0; i < equation.size(); ++i) {
        if (equation.compare(i, 3, "...") == 0) {
            out += i < arrow ? all.substr(widest - ranks[operand]) : all;
            i += 2;
            continue;
        }
        if (equation[i] == ',') ++operand;
        out += equation[i];
    }
    // Implicit output: the broadcast axes first, then the letters used once (sorted, by the caller).
    if (arrow == std::string_view::npos) out += "->" + all + "*";
    return out;
}

}  // namespace

std::string einsum_indices(const node_context& c, std::vector<std::pair<char, quantity>>& sizes,
                           std::string& output_letters) {
    std::string spelled;
    std::string_view equation = c.string_attribute("equation", "");
    if (equation.find('.') != std::string_view::npos) {
        std::string why;
        spelled = spell_ellipses(c, equation, why);
        if (!why.empty()) return why;
        equation = spelled;
    }
    const std::size_t arrow = equation.find("->");
    const std::string_view inputs = equation.substr(0, arrow);
    std::size_t operand = 0, axis = 0;
    std::string seen_once, seen_more;
    std::string reason;
    const value_shape* shape = ranked_input(c, 0, reason);
    if (!shape) return reason;
    for (char l : inputs) {
        if (l == ' ') continue;
        if (l == ',') {
            if (axis != shape->dims.size()) return "Einsum term and input rank differ";
            shape = ranked_input(c, ++operand, reason);
            if (!shape) return reason;
            axis = 0;
            continue;
        }
        if (!((l >= 'a' && l <= 'z') || (l >= 'A' && l <= 'Z'))) return "Einsum equation not understood";
        if (axis >= shape->dims.size()) return "Einsum term and input rank differ";
        const quantity& d = shape->dims[axis++];
        bool known = false;
        for (auto& s : sizes) {
            if (s.first != l) continue;
            known = true;
            // Broadcast a 1 against the other size; keep a concrete size over a symbol.
            if (!s.second.known || (s.second.concrete() && s.second.value.constant_term() == 1)) s.second = d;
        }
        if (!known) sizes.emplace_back(l, d);
        if (seen_more.find(l) != std::string::npos) continue;
        if (seen_once.find(l) != std::string::npos) seen_more += l;
        else seen_once += l;
    }
    if (axis != shape->dims.size() || operand + 1 != c.input_count()) return "Einsum terms and inputs differ";
    output_letters.clear();
    if (arrow != std::string_view::npos && equation.back() == '*') {
        // An implicit output with ellipses: their letters, then the letters used once, sorted.
        const std::string_view head = equation.substr(arrow + 2, equation.size() - arrow - 3);
        std::string once;
        for (char l : seen_once)
            if (seen_more.find(l) == std::string::npos && head.find(l) == std::string_view::npos) once += l;
        std::sort(once.begin(), once.end());
        output_letters = std::string(head) + once;
    } else if (arrow != std::string_view::npos) {
        for (char l : equation.substr(arrow + 2))
            if (l != ' ') output_letters += l;
    } else {
        for (char l : seen_once)
            if (seen_more.find(l) == std::string::npos) output_letters += l;
        std::sort(output_letters.begin(), output_letters.end());
    }
    return std::string();
}

rule_outcome infer_network_op(const node_context& c, std::string_view op, std::vector<value_fact>& out) {
    if (op == "Conv") return convolution(c, 0, 1, input_type(c, 0), out);
    if (op == "ConvInteger") return convolution(c, 0, 1, int32_type, out);
    // QLinearConv(x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B)
    if (op == "QLinearConv") return convolution(c, 0, 3, input_type(c, 7), out);
    if (op == "ConvTranspose") return conv_transpose(c, out);
    if (op == "MaxPool" || op == "AveragePool" || op == "LpPool" || op == "GlobalAveragePool" ||
        op == "GlobalMaxPool" || op == "GlobalLpPool")
        return pool(c, op, out);
    if (op == "Gemm") return gemm(c, out);
    if (op == "MatMul") return matmul(c, 0, 1, input_type(c, 0), out);
    if (op == "MatMulInteger") return matmul(c, 0, 1, int32_type, out);
    // QLinearMatMul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point)
    if (op == "QLinearMatMul") return matmul(c, 0, 3, input_type(c, 7), out);
    if (op == "LSTM" || op == "GRU" || op == "RNN") return recurrent(c, out);
    if (op == "Einsum") return einsum(c, out);
    return std::nullopt;
}

}  // namespace profile_detail
}  // namespace onnxview
