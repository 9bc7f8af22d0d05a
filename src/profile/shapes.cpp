// src/profile/shapes.cpp - the helpers the shape rules share, and the
// dispatch from a node to its rule family.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rules.hpp"

namespace onnxview {
namespace profile_detail {

const value_shape* ranked_input(const node_context& c, std::size_t i, std::string& reason) {
    const value_fact* f = c.input(i);
    if (f == nullptr) {
        reason = i < c.input_names.size() && !c.input_names[i].empty()
                     ? "input '" + std::string(c.input_names[i]) + "' has no known shape"
                     : "input " + std::to_string(i) + " is missing";
        return nullptr;
    }
    if (!f->shape.rank_known) {
        reason = "input '" + std::string(c.input_names[i]) + "' has no known shape";
        return nullptr;
    }
    if (f->sequence()) {  // its shape is its elements': no tensor rule may take it for a tensor's
        reason = "input '" + std::string(c.input_names[i]) + "' is a sequence";
        return nullptr;
    }
    return &f->shape;
}

bool normalize_axis(std::int64_t axis, std::size_t rank, std::size_t& out) {
    const std::int64_t r = static_cast<std::int64_t>(rank);
    if (axis < -r || axis >= r) return false;
    out = static_cast<std::size_t>(axis < 0 ? axis + r : axis);
    return true;
}

std::optional<std::vector<std::int64_t>> constant_values(const node_context& c, std::size_t i) {
    const value_fact* f = c.input(i);
    if (!f || !f->values_known) return std::nullopt;
    std::vector<std::int64_t> out;
    for (const quantity& q : f->values) {
        if (!q.concrete()) return std::nullopt;
        out.push_back(q.value.constant_term());
    }
    return out;
}

const std::vector<quantity>* known_values(const node_context& c, std::size_t i) {
    const value_fact* f = c.input(i);
    if (!f || !f->values_known) return nullptr;
    for (const quantity& q : f->values)
        if (!q.known) return nullptr;
    return &f->values;
}

std::optional<std::vector<quantity>> quantities_from_attribute_or_input(const node_context& c, std::string_view name,
                                                                        std::size_t input, bool& present) {
    if (std::optional<std::vector<std::int64_t>> a = c.ints_attribute(name)) {
        present = true;
        return std::vector<quantity>(a->begin(), a->end());
    }
    present = input < c.input_names.size() && !c.input_names[input].empty();
    if (!present) return std::nullopt;
    const std::vector<quantity>* v = known_values(c, input);
    return v ? std::optional<std::vector<quantity>>(*v) : std::nullopt;
}

std::optional<std::vector<std::int64_t>> ints_from_attribute_or_input(const node_context& c, std::string_view name,
                                                                      std::size_t input, bool& present) {
    if (std::optional<std::vector<std::int64_t>> a = c.ints_attribute(name)) {
        present = true;
        return a;
    }
    present = input < c.input_names.size() && !c.input_names[input].empty();
    return present ? constant_values(c, input) : std::nullopt;
}

quantity data_dependent(const node_context& c, std::size_t output, std::size_t axis) {
    std::string name;
    std::size_t at = 0;
    for (std::string_view o : c.node.output())
        if (at++ == output) name = std::string(o);
    if (name.empty()) name = std::string(c.node.op_type()) + "_out" + std::to_string(output);
    return quantity(dim_expr::symbol(name + ":" + std::to_string(axis)));
}

quantity data_dependent_count(const node_context& c, std::string_view what) {
    std::string name(c.node.name());
    if (name.empty())
        for (std::string_view o : c.node.output()) {
            name = std::string(o);
            break;
        }
    if (name.empty()) name = std::string(c.node.op_type());
    return quantity(dim_expr::symbol(name + ":" + std::string(what)));
}

void name_unknown_dims(const node_context& c, std::size_t output, value_shape& s) {
    for (std::size_t i = 0; i < s.dims.size(); ++i)
        if (!s.dims[i].known) s.dims[i] = data_dependent(c, output, i);
}

std::optional<std::size_t> vector_length(const node_context& c, std::size_t i) {
    const value_fact* f = c.input(i);
    if (!f || !f->shape.rank_known || f->shape.dims.size() != 1 || !f->shape.dims[0].concrete() ||
        f->shape.dims[0].value.constant_term() < 0 || f->shape.dims[0].value.constant_term() > 4096)
        return std::nullopt;
    return static_cast<std::size_t>(f->shape.dims[0].value.constant_term());
}

value_shape shape_of(const std::vector<quantity>& dims) {
    value_shape s;
    s.rank_known = true;
    s.dims = dims;
    return s;
}

value_shape broadcast(const value_shape& a, const value_shape& b) {
    if (!a.rank_known || !b.rank_known) return value_shape();
    const value_shape& longer = a.dims.size() >= b.dims.size() ? a : b;
    const value_shape& shorter = a.dims.size() >= b.dims.size() ? b : a;
    value_shape out = longer;
    const std::size_t offset = longer.dims.size() - shorter.dims.size();
    for (std::size_t i = 0; i < shorter.dims.size(); ++i) {
        const quantity& x = longer.dims[offset + i];
        const quantity& y = shorter.dims[i];
        quantity& r = out.dims[offset + i];
        const bool x_one = x.concrete() && x.value.constant_term() == 1;
        const bool y_one = y.concrete() && y.value.constant_term() == 1;
        if (y_one) r = x;
        else if (x_one) r = y;
        else if (x.known && y.known && x.value == y.value) r = x;
        // A constant other than 1 against a symbol: the symbol must equal it.
        else if (x.concrete() && y.known) r = x;
        else if (y.concrete() && x.known) r = y;
        else r = quantity();
    }
    return out;
}

std::int32_t input_type(const node_context& c, std::size_t i) {
    const value_fact* f = c.input(i);
    return f ? f->elem_type : 0;
}

namespace {

// Invalid inputs (negative pads, repeats or shape values) can make a rule
// compute a negative size: unknown, never a negative count of bytes.
std::string checked_sizes(std::vector<value_fact>& outputs) {
    for (value_fact& f : outputs)
        for (quantity& d : f.shape.dims)
            if (d.concrete() && d.value.constant_term() < 0) {
                d = quantity();
                return "a negative size computed from the inputs";
            }
    return std::string();
}

}  // namespace

std::string infer_outputs(const node_context& c, std::vector<value_fact>& outputs) {
    const std::string_view domain = c.node.domain();
    const std::string_view op = c.node.op_type();
    // Every rule writes output 0; a node without outputs computes nothing anyone sees.
    if (outputs.empty()) return "node has no outputs";
    if (domain == "com.microsoft") {
        const rule_outcome r = infer_contrib_op(c, op, outputs);
        if (!r) return "op not covered: " + std::string(domain) + "::" + std::string(op);
        if (!r->empty()) return *r;
        return checked_sizes(outputs);
    }
    if (domain == "ai.onnx.preview.training") {
        const rule_outcome r = infer_training_op(c, op, outputs);
        if (!r) return "op not covered: " + std::string(domain) + "::" + std::string(op);
        return r->empty() ? checked_sizes(outputs) : *r;
    }
    if (!domain.empty() && domain != "ai.onnx") return "op not covered: " + std::string(domain) + "::" + std::string(op);
    if (op == "If" || op == "Loop" || op == "Scan" || op == "SequenceMap")
        return "control flow not covered: the subgraph bodies of " + std::string(op) + " are not profiled";
    rule_outcome r = infer_network_op(c, op, outputs);
    if (!r) r = infer_elementwise_op(c, op, outputs);
    if (!r) r = infer_layout_op(c, op, outputs);
    if (!r) r = infer_selection_op(c, op, outputs);
    if (!r) r = infer_training_op(c, op, outputs);
    if (!r) r = infer_signal_op(c, op, outputs);
    if (!r) r = infer_sequence_op(c, op, outputs);
    if (!r) return "op not covered: " + std::string(op);
    if (!r->empty()) return *r;
    return checked_sizes(outputs);
}

}  // namespace profile_detail
}  // namespace onnxview
