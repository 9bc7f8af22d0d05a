// src/profile/rules.hpp - the shape rules, by family, and the helpers they
// share. Private to src/profile/.
#ifndef ONNXVIEW_SRC_PROFILE_RULES_HPP
#define ONNXVIEW_SRC_PROFILE_RULES_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "facts.hpp"

namespace onnxview {
namespace profile_detail {

// Each family returns nullopt when the op is not one of its own, otherwise
// the rule's outcome: empty on success, or why it could not infer.
using rule_outcome = std::optional<std::string>;
// Conv, ConvTranspose, QLinearConv, ConvInteger, pooling, Gemm, MatMul and
// its variants, LSTM, GRU, RNN (shapes_network.cpp).
rule_outcome infer_network_op(const node_context& c, std::string_view op, std::vector<value_fact>& out);
// Elementwise, unary, normalisation, reductions (shapes_elementwise.cpp).
rule_outcome infer_elementwise_op(const node_context& c, std::string_view op, std::vector<value_fact>& out);
// Shape, Reshape, Concat, Gather, Slice and the other tensor manipulations
// (shapes_layout.cpp).
rule_outcome infer_layout_op(const node_context& c, std::string_view op, std::vector<value_fact>& out);

// The sequence and optional ops (shapes_sequence.cpp).
rule_outcome infer_sequence_op(const node_context& c, std::string_view op, std::vector<value_fact>& out);
// Whether `op` is one of them: data movement, no FLOPs.
bool sequence_op(std::string_view op);
// DFT, STFT, the windows, MelWeightMatrix, TfIdfVectorizer
// (shapes_signal.cpp).
rule_outcome infer_signal_op(const node_context& c, std::string_view op, std::vector<value_fact>& out);
// TopK, Resize, Upsample, OneHot, NonZero, Unique, Compress,
// NonMaxSuppression, StringNormalizer (shapes_selection.cpp).
rule_outcome infer_selection_op(const node_context& c, std::string_view op, std::vector<value_fact>& out);

// Einsum's equation read against the input shapes: the size of every index
// letter (`sizes`, by letter) and the output's letters (explicit after "->",
// or the letters used once, in alphabetical order). Ellipses are not read.
// Returns why not, or empty.
std::string einsum_indices(const node_context& c, std::vector<std::pair<char, quantity>>& sizes,
                           std::string& output_letters);

// SoftmaxCrossEntropyLoss, NegativeLogLikelihoodLoss, DynamicQuantizeLinear,
// GridSample, and ai.onnx.preview.training's Adagrad, Momentum and Adam
// (shapes_training.cpp).
rule_outcome infer_training_op(const node_context& c, std::string_view op, std::vector<value_fact>& out);

// The com.microsoft ops of exported transformers (shapes_contrib.cpp):
// their shapes, and their costs (nullopt: not one of them).
rule_outcome infer_contrib_op(const node_context& c, std::string_view op, std::vector<value_fact>& out);
std::optional<std::string> contrib_costs(const node_context& c, std::string_view op,
                                         const std::vector<value_fact>& outputs, node_cost& cost);

// The shape of input i when its rank is known; otherwise null and `reason`
// says which input is missing or unknown.
const value_shape* ranked_input(const node_context& c, std::size_t i, std::string& reason);
// Axis `axis` of a rank-`rank` value, negative counted from the end; false
// when outside [-rank, rank).
bool normalize_axis(std::int64_t axis, std::size_t rank, std::size_t& out);
// An int list from attribute `name`, or else from the known values of input
// `input` (opsets that moved attributes to inputs); nullopt when neither.
// `present` tells whether either was given at all.
std::optional<std::vector<std::int64_t>> ints_from_attribute_or_input(const node_context& c, std::string_view name,
                                                                      std::size_t input, bool& present);
// The known values of input i, all constant; nullopt otherwise.
std::optional<std::vector<std::int64_t>> constant_values(const node_context& c, std::size_t i);
// The known values of input i, each known but possibly symbolic (what Shape
// makes of a symbolic dim); null otherwise.
const std::vector<quantity>* known_values(const node_context& c, std::size_t i);
// ints_from_attribute_or_input, the input's values possibly symbolic.
std::optional<std::vector<quantity>> quantities_from_attribute_or_input(const node_context& c, std::string_view name,
                                                                        std::size_t input, bool& present);
// A dim that tensor values decide, values the profile does not follow (a
// graph input's, NonZero's count of non-zeros, Reshape by a computed shape
// it could not compute): a fresh symbol named after the node's output and
// the axis, "nz_out:1" (docs/profile.md, "Data-dependent dims").
quantity data_dependent(const node_context& c, std::size_t output, std::size_t axis);
// A count the data decides that is no output's dim (a Loop's iterations): a
// fresh symbol named after the node (its name, else its first output) and
// `what`, "/Loop_3:iterations".
quantity data_dependent_count(const node_context& c, std::string_view what);
// Each unknown dim of `s`, output `output`'s, made data_dependent.
void name_unknown_dims(const node_context& c, std::size_t output, value_shape& s);
// The length of input i when it is a vector of a constant length (a shape
// input whose values are not known); nullopt otherwise.
std::optional<std::size_t> vector_length(const node_context& c, std::size_t i);
// A shape of constant dims.
value_shape shape_of(const std::vector<quantity>& dims);
// Numpy broadcasting of two shapes; unknown rank when either is, an unknown
// dim where the two cannot be matched (two different symbols).
value_shape broadcast(const value_shape& a, const value_shape& b);
// Element type of input i, 0 when unknown.
std::int32_t input_type(const node_context& c, std::size_t i);

}  // namespace profile_detail
}  // namespace onnxview

#endif  // ONNXVIEW_SRC_PROFILE_RULES_HPP
