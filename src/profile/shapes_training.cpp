// Shape rules of the losses, the optimizers, dynamic quantization and grid sampling
// (ONNX operator spec: SoftmaxCrossEntropyLoss 12+, NegativeLogLikelihoodLoss
// 12+, DynamicQuantizeLinear 11, GridSample 16+): ops whose outputs are not
// their inputs' shape, found in training graphs and quantized exports.
#include <string>
#include <string_view>
#include <vector>

#include "onnxview/data_types.hpp"
#include "rules.hpp"

namespace onnxview {
namespace profile_detail {
namespace {

constexpr std::int32_t float_type = static_cast<std::int32_t>(data_type::float32);
constexpr std::int32_t uint8_type = static_cast<std::int32_t>(data_type::uint8);

// The losses: reduction "none" keeps the target's shape (N, d1, ...), the
// others ("mean", the default, and "sum") give a scalar; SoftmaxCrossEntropy's
// optional log_prob has the scores' shape.
std::string loss(const node_context& c, std::string_view op, std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* scores = ranked_input(c, 0, reason);
    if (!scores) return reason;
    const value_shape* target = ranked_input(c, 1, reason);
    if (!target) return reason;
    const std::string_view reduction = c.string_attribute("reduction", "mean");
    out[0].elem_type = input_type(c, 0);
    if (reduction == "none") out[0].shape = *target;
    else if (reduction == "mean" || reduction == "sum") out[0].shape = shape_of({});
    else return "reduction '" + std::string(reduction) + "' is none of none, mean, sum";
    if (op == "SoftmaxCrossEntropyLoss" && out.size() > 1) {
        out[1].shape = *scores;
        out[1].elem_type = input_type(c, 0);
    }
    return std::string();
}

// y the input's shape in uint8, its scale and zero point scalars.
std::string dynamic_quantize(const node_context& c, std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* x = ranked_input(c, 0, reason);
    if (!x) return reason;
    out[0].shape = *x;
    out[0].elem_type = uint8_type;
    if (out.size() > 1) out[1].shape = shape_of({}), out[1].elem_type = float_type;
    if (out.size() > 2) out[2].shape = shape_of({}), out[2].elem_type = uint8_type;
    return std::string();
}

// X (N, C, D1..Dr) sampled at grid (N, D1_out..Dr_out, r): (N, C, D1_out..Dr_out).
std::string grid_sample(const node_context& c, std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* x = ranked_input(c, 0, reason);
    if (!x) return reason;
    const value_shape* grid = ranked_input(c, 1, reason);
    if (!grid) return reason;
    if (x->dims.size() < 3 || grid->dims.size() != x->dims.size()) return "grid's rank differs from X's";
    value_fact y;
    y.elem_type = input_type(c, 0);
    y.shape.rank_known = true;
    y.shape.dims = {x->dims[0], x->dims[1]};
    for (std::size_t i = 1; i + 1 < grid->dims.size(); ++i) y.shape.dims.push_back(grid->dims[i]);
    out[0] = std::move(y);
    return std::string();
}

// The optimizers of ai.onnx.preview.training (R, T, then n tensors of each
// group: Adagrad X, G, H; Momentum X, G, V; Adam X, G, V, H): their outputs
// are the new X (and the new H, V), output j shaped as X number j mod n.
std::string optimizer(const node_context& c, std::string_view op, std::vector<value_fact>& out) {
    const std::size_t groups = op == "Adam" ? 4 : 3;
    if (c.input_count() < 2 + groups || (c.input_count() - 2) % groups != 0) return "inputs not R, T and whole groups";
    const std::size_t n = (c.input_count() - 2) / groups;
    for (std::size_t j = 0; j < out.size(); ++j) {
        std::string reason;
        const value_shape* x = ranked_input(c, 2 + j % n, reason);
        if (!x) return reason;
        out[j].shape = *x;
        out[j].elem_type = input_type(c, 2 + j % n);
    }
    return std::string();
}

}  // namespace

rule_outcome infer_training_op(const node_context& c, std::string_view op, std::vector<value_fact>& out) {
    if (op == "SoftmaxCrossEntropyLoss" || op == "NegativeLogLikelihoodLoss") return loss(c, op, out);
    if (op == "DynamicQuantizeLinear") return dynamic_quantize(c, out);
    if (op == "GridSample") return grid_sample(c, out);
    if (c.node.domain() == "ai.onnx.preview.training" && (op == "Adagrad" || op == "Momentum" || op == "Adam"))
        return optimizer(c, op, out);
    return std::nullopt;
}

}  // namespace profile_detail
}  // namespace onnxview
