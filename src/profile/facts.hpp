// src/profile/facts.hpp - what the profiler knows of each value, and the
// context a shape or cost rule is given for one node. Private to
// src/profile/.
#ifndef ONNXVIEW_SRC_PROFILE_FACTS_HPP
#define ONNXVIEW_SRC_PROFILE_FACTS_HPP

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "onnxview/enums.hpp"
#include "onnxview/model.hpp"
#include "onnxview/profile.hpp"

namespace onnxview {
namespace profile_detail {

struct value_extras;
struct sequence_fact;

// One value of the graph: its type, shape and, for small integer tensors,
// its elements (row-major), each possibly symbolic (what Shape makes).
// The small members last, side by side: one per value name of a scope.
struct value_fact {
    value_shape shape;
    std::vector<quantity> values;
    // What few values have (value_extras), one pointer for all of it: a
    // 100k-node model keeps 300k facts. Shared when the fact is copied.
    std::shared_ptr<const value_extras> extras;
    // The elements of a small float tensor stored in the model (Resize's
    // scales); null otherwise.
    const std::vector<double>* reals() const noexcept;
    // A sequence (SequenceConstruct, SplitToSequence, a sequence_type
    // input): its length and elements; `shape` and `elem_type` are then what
    // every element has (a dim unknown where they differ). Null for a tensor.
    const sequence_fact* sequence() const noexcept;
    std::int32_t elem_type = 0;
    bool values_known = false;
};

struct sequence_fact {
    quantity length;
    // Each element, when the length is a constant of at most 64; else empty.
    std::vector<value_fact> elements;
};

struct value_extras {
    std::optional<std::vector<double>> reals;
    std::optional<sequence_fact> sequence;
};

inline const std::vector<double>* value_fact::reals() const noexcept {
    return extras && extras->reals ? &*extras->reals : nullptr;
}
inline const sequence_fact* value_fact::sequence() const noexcept {
    return extras && extras->sequence ? &*extras->sequence : nullptr;
}

// A call of a model-local function being expanded: the body's attribute
// references (AttributeProto.ref_attr_name) name the call's attributes, or
// else the function's defaults (FunctionProto.attribute_proto).
struct function_call {
    node_view call;
    function_view function;
    const function_call* outer = nullptr;  // the call this one is expanded in
    // The attribute `ref` refers to; nullopt when neither the call nor the
    // function gives it (the attribute is then absent, as the spec says).
    std::optional<attribute_view> resolve(std::string_view ref) const;
};

// The facts of the node's inputs (null: absent optional input, or a value
// nothing is known of) and its attributes, for the rules.
struct node_context {
    node_view node;
    const function_call* call = nullptr;  // inside a function's expansion
    // The model's opset of the default domain (0 when it imports none):
    // for the ops whose inputs changed (Scan 8 has a batch axis).
    std::int64_t opset = 0;
    std::vector<const value_fact*> inputs;
    std::vector<std::string_view> input_names;
    std::uint32_t max_value_elements = 64;

    std::size_t input_count() const noexcept { return inputs.size(); }
    // Input i when present, else null.
    const value_fact* input(std::size_t i) const noexcept { return i < inputs.size() ? inputs[i] : nullptr; }
    // The attribute called `name`, when the node has one (a reference
    // resolved through `call`).
    std::optional<attribute_view> attribute(std::string_view name) const;
    std::int64_t int_attribute(std::string_view name, std::int64_t fallback) const;
    float float_attribute(std::string_view name, float fallback) const;
    std::string_view string_attribute(std::string_view name, std::string_view fallback) const;
    // The attribute's ints, or nullopt when the node has no such attribute.
    std::optional<std::vector<std::int64_t>> ints_attribute(std::string_view name) const;
};

// Quantity arithmetic: unknown when an operand is unknown or the result
// overflows or grows past dim_expr's limits.
quantity plus(const quantity& a, const quantity& b);
quantity minus(const quantity& a, const quantity& b);
quantity times(const quantity& a, const quantity& b);
quantity times(const quantity& a, std::int64_t b);
// floor(a / d) and ceil(a / d) for d > 0: exact when d divides a; a new
// symbol named after the expression ("floor((H - 1)/2)") when a is symbolic.
quantity floor_divide(const quantity& a, std::int64_t d);
quantity ceil_divide(const quantity& a, std::int64_t d);
// a / b when b is a non-zero constant or a single term dividing every term
// of a (Reshape's -1); unknown otherwise.
quantity divide_exactly(const quantity& a, const quantity& b);

// The values of a stored tensor with at most `max_elements` integer
// elements stored in the model itself; nullopt otherwise (external data,
// too large, not an integer type).
std::optional<std::vector<quantity>> small_integer_values(const tensor_view& t, std::uint32_t max_elements);
// The elements of a FLOAT or DOUBLE tensor stored in the model itself with
// at most `max_elements` elements; null otherwise.
std::shared_ptr<const std::vector<double>> small_real_values(const tensor_view& t, std::uint32_t max_elements);
// The fact of a stored tensor: its type and dims, and its values when small.
value_fact stored_tensor_fact(const tensor_view& t, std::uint32_t max_elements);
// opts.inputs made dim bindings too: each dim_param an input declares takes
// the value given at its axis. Errors: not_found (no graph input of that
// name), invalid_argument (another rank, a negative size, a size against a
// dim_value or against another binding of the same dim_param).
error bind_inputs(const graph_view& g, profile_options& opts);

// What each dim_param stands for: its value when profile_options::dims
// binds it, else its symbol. Made once per name and then shared (a
// 100k-node model names `N` 400k times); names are views into the model.
class dim_params {
public:
    explicit dim_params(const std::vector<dim_binding>& bindings) : bindings_(bindings) {}
    const quantity& of(std::string_view name);

private:
    const std::vector<dim_binding>& bindings_;
    std::unordered_map<std::string_view, quantity> made_;
};

// The fact of a declared type (value_info, graph input/output), with the
// dim_params as `params` gives them.
value_fact declared_fact(const type_view& t, dim_params& params);

// Fills `outputs` (one per node output) with what the op's rule gives.
// Returns the reason when the rule cannot (op not covered, an input whose
// shape is unknown, a value that is data-dependent); empty when it could.
std::string infer_outputs(const node_context& c, std::vector<value_fact>& outputs);

// MACs and FLOPs of the node from its inputs and inferred outputs; the
// reason when either is unknown (empty otherwise).
struct node_cost {
    quantity macs;
    quantity flops;
};
std::string node_costs(const node_context& c, const std::vector<value_fact>& outputs, node_cost& out);

// Bytes of a value: its elements' at the type's width; a sequence's
// elements' together.
quantity fact_bytes(const value_fact& f);

// Bytes of `elements` values of DataType `type` at its bit width (4-bit and
// 2-bit types packed, rounded up); unknown for STRING and unknown types.
quantity value_bytes(const quantity& elements, std::int32_t type);

}  // namespace profile_detail
}  // namespace onnxview

#endif  // ONNXVIEW_SRC_PROFILE_FACTS_HPP
