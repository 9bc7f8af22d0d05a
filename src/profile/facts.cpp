// src/profile/facts.cpp - attribute lookups, quantity arithmetic and the
// facts of stored tensors and declared types.
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "facts.hpp"
#include "onnxview/data_types.hpp"
#include "onnxview/tensor_data.hpp"
#include "onnxview/tensor_storage.hpp"

namespace onnxview {
namespace profile_detail {

namespace {

// The last attribute of a name wins, as onnx's attribute map keeps it.
std::optional<attribute_view> last_named(message_range<attribute_view> attributes, std::string_view name) {
    std::optional<attribute_view> found;
    for (const attribute_view& a : attributes)
        if (a.name() == name) found = a;
    return found;
}

}  // namespace

std::optional<attribute_view> function_call::resolve(std::string_view ref) const {
    if (std::optional<attribute_view> given = last_named(call.attribute(), ref)) {
        // The call itself sits in a function body and passes its own caller's attribute on.
        if (given->has_ref_attr_name()) return outer ? outer->resolve(given->ref_attr_name()) : std::nullopt;
        return given;
    }
    return last_named(function.attribute_proto(), ref);
}

std::optional<attribute_view> node_context::attribute(std::string_view name) const {
    std::optional<attribute_view> found = last_named(node.attribute(), name);
    if (found && found->has_ref_attr_name()) return call ? call->resolve(found->ref_attr_name()) : std::nullopt;
    return found;
}

std::int64_t node_context::int_attribute(std::string_view name, std::int64_t fallback) const {
    const std::optional<attribute_view> a = attribute(name);
    return a && a->has_i() ? a->i() : fallback;
}

float node_context::float_attribute(std::string_view name, float fallback) const {
    const std::optional<attribute_view> a = attribute(name);
    return a && a->has_f() ? a->f() : fallback;
}

std::string_view node_context::string_attribute(std::string_view name, std::string_view fallback) const {
    const std::optional<attribute_view> a = attribute(name);
    return a && a->has_s() ? a->s() : fallback;
}

std::optional<std::vector<std::int64_t>> node_context::ints_attribute(std::string_view name) const {
    const std::optional<attribute_view> a = attribute(name);
    if (!a) return std::nullopt;
    std::vector<std::int64_t> out;
    const auto ints = a->ints();
    for (std::int64_t v : ints) {
        // A hostile attribute may hold millions of ints; no rule needs more than a rank's worth.
        if (out.size() >= 4096) return std::nullopt;
        out.push_back(v);
    }
    if (!ints.err().ok()) return std::nullopt;
    return out;
}

quantity plus(const quantity& a, const quantity& b) {
    if (!a.known || !b.known) return quantity();
    std::optional<dim_expr> r = add(a.value, b.value);
    return r ? quantity(std::move(*r)) : quantity();
}

quantity minus(const quantity& a, const quantity& b) {
    if (!a.known || !b.known) return quantity();
    std::optional<dim_expr> r = subtract(a.value, b.value);
    return r ? quantity(std::move(*r)) : quantity();
}

quantity times(const quantity& a, const quantity& b) {
    if (!a.known || !b.known) return quantity();
    std::optional<dim_expr> r = multiply(a.value, b.value);
    return r ? quantity(std::move(*r)) : quantity();
}

quantity times(const quantity& a, std::int64_t b) { return times(a, quantity(b)); }

namespace {

// Floor division of constants, rounding toward negative infinity.
std::int64_t floor_of(std::int64_t a, std::int64_t d) {
    const std::int64_t q = a / d;
    return (a % d != 0 && ((a < 0) != (d < 0))) ? q - 1 : q;
}

quantity rounded_divide(const quantity& a, std::int64_t d, bool ceiling) {
    if (!a.known || d <= 0) return quantity();
    if (a.value.is_constant()) {
        const std::int64_t v = a.value.constant_term();
        if (ceiling) {
            // ceil(v/d) = -floor(-v/d); -INT64_MIN does not exist.
            if (v == std::numeric_limits<std::int64_t>::min()) return quantity();
            return quantity(-floor_of(-v, d));
        }
        return quantity(floor_of(v, d));
    }
    if (std::optional<dim_expr> exact = divide_exact(a.value, d)) return quantity(std::move(*exact));
    // Not a polynomial any more: the rounded quotient becomes a symbol of its own.
    return quantity(dim_expr::symbol(std::string(ceiling ? "ceil((" : "floor((") + a.value.str() + ")/" +
                                     std::to_string(d) + ")"));
}

}  // namespace

quantity floor_divide(const quantity& a, std::int64_t d) { return rounded_divide(a, d, false); }
quantity ceil_divide(const quantity& a, std::int64_t d) { return rounded_divide(a, d, true); }

quantity divide_exactly(const quantity& a, const quantity& b) {
    if (!a.known || !b.known) return quantity();
    // The divisor: one term, a constant or a monomial.
    dim_term divisor;
    if (b.value.is_constant()) divisor.coefficient = b.value.constant_term();
    else if (b.value.terms().size() == 1 && b.value.constant_term() == 0) divisor = b.value.terms()[0];
    if (divisor.coefficient == 0) return quantity();
    std::vector<dim_term> dividend = a.value.terms();
    if (a.value.constant_term() != 0) dividend.push_back(dim_term{{}, a.value.constant_term()});
    dim_expr quotient;
    for (const dim_term& t : dividend) {
        if (t.coefficient % divisor.coefficient != 0) return quantity();
        // Divide the monomial: every factor of the divisor must appear with at least its power.
        dim_expr term(t.coefficient / divisor.coefficient);
        for (const dim_factor& f : t.factors) {
            std::uint32_t power = f.power;
            for (const dim_factor& g : divisor.factors)
                if (g.name == f.name) {
                    if (g.power > power) return quantity();
                    power -= g.power;
                }
            for (std::uint32_t k = 0; k < power; ++k) {
                std::optional<dim_expr> p = multiply(term, dim_expr::symbol(f.name));
                if (!p) return quantity();
                term = std::move(*p);
            }
        }
        for (const dim_factor& g : divisor.factors) {
            bool present = false;
            for (const dim_factor& f : t.factors) present = present || f.name == g.name;
            if (!present) return quantity();
        }
        std::optional<dim_expr> s = add(quotient, term);
        if (!s) return quantity();
        quotient = std::move(*s);
    }
    return quantity(std::move(quotient));
}

std::optional<std::vector<quantity>> small_integer_values(const tensor_view& t, std::uint32_t max_elements) {
    const std::int32_t type = t.data_type();
    const bool boolean = type == static_cast<std::int32_t>(data_type::boolean);  // 0 and 1: a Loop's cond, Where's
    if (type != static_cast<std::int32_t>(data_type::int64) && type != static_cast<std::int32_t>(data_type::int32) &&
        !boolean)
        return std::nullopt;
    if (t.data_location() == location_kind::external) return std::nullopt;
    const result<std::uint64_t> count = element_count(t);
    if (!count || *count > max_elements) return std::nullopt;
    const result<tensor_data> d = tensor_data::make(t);
    if (!d) return std::nullopt;
    std::vector<quantity> out;
    if (type == static_cast<std::int32_t>(data_type::int64)) {
        const auto r = d->elements<std::int64_t>();
        for (std::int64_t v : r) out.emplace_back(v);
        if (!r.ok()) return std::nullopt;
    } else if (boolean) {
        const auto r = d->elements<bool>();
        for (bool v : r) out.emplace_back(std::int64_t{v ? 1 : 0});
        if (!r.ok()) return std::nullopt;
    } else {
        const auto r = d->elements<std::int32_t>();
        for (std::int32_t v : r) out.emplace_back(static_cast<std::int64_t>(v));
        if (!r.ok()) return std::nullopt;
    }
    if (out.size() != *count) return std::nullopt;
    return out;
}

std::shared_ptr<const std::vector<double>> small_real_values(const tensor_view& t, std::uint32_t max_elements) {
    const std::int32_t type = t.data_type();
    const bool single = type == static_cast<std::int32_t>(data_type::float32);
    if ((!single && type != static_cast<std::int32_t>(data_type::float64)) ||
        t.data_location() == location_kind::external)
        return nullptr;
    const result<std::uint64_t> count = element_count(t);
    if (!count || *count > max_elements) return nullptr;
    const result<tensor_data> d = tensor_data::make(t);
    if (!d) return nullptr;
    auto out = std::make_shared<std::vector<double>>();
    if (single) {
        const auto r = d->elements<float>();
        for (float v : r) out->push_back(static_cast<double>(v));
        if (!r.ok()) return nullptr;
    } else {
        const auto r = d->elements<double>();
        for (double v : r) out->push_back(v);
        if (!r.ok()) return nullptr;
    }
    if (out->size() != *count) return nullptr;
    return out;
}

value_fact stored_tensor_fact(const tensor_view& t, std::uint32_t max_elements) {
    value_fact f;
    f.elem_type = t.data_type();
    f.shape.rank_known = true;
    for (std::int64_t d : t.dims()) {
        if (f.shape.dims.size() >= 4096) return value_fact();
        f.shape.dims.push_back(d >= 0 ? quantity(d) : quantity());
    }
    if (std::optional<std::vector<quantity>> v = small_integer_values(t, max_elements)) {
        f.values_known = true;
        f.values = std::move(*v);
    }
    if (std::shared_ptr<const std::vector<double>> reals = small_real_values(t, max_elements)) {
        value_extras extras;
        extras.reals = *reals;
        f.extras = std::make_shared<const value_extras>(std::move(extras));
    }
    return f;
}

error bind_inputs(const graph_view& g, profile_options& opts) {
    for (const input_binding& b : opts.inputs) {
        bool found = false;
        for (const value_info_view& v : g.input()) {
            if (v.name() != b.name) continue;
            found = true;
            const tensor_type_view tt = v.type().tensor_type();
            if (tt.has_shape() && tt.shape().dim().size() != b.dims.size()) return error(errc::invalid_argument);
            std::size_t axis = 0;
            for (const dimension_view& d : tt.shape().dim()) {
                const std::int64_t value = b.dims[axis++];
                if (value < 0) return error(errc::invalid_argument);
                if (d.has_dim_value() && d.dim_value() != value) return error(errc::invalid_argument);
                if (!d.has_dim_param() || d.dim_param().empty()) continue;
                for (const dim_binding& known : opts.dims)
                    if (known.name == d.dim_param() && known.value != value) return error(errc::invalid_argument);
                opts.dims.push_back({std::string(d.dim_param()), value});
            }
        }
        if (!found) return error(errc::not_found);
    }
    return error();
}

const quantity& dim_params::of(std::string_view name) {
    const auto found = made_.find(name);
    if (found != made_.end()) return found->second;
    quantity q(dim_expr::symbol(name));
    for (const dim_binding& b : bindings_)
        if (b.name == name) q = quantity(b.value);
    return made_.emplace(name, std::move(q)).first->second;
}

value_fact declared_fact(const type_view& t, dim_params& params) {
    value_fact f;
    // An optional is its element when present; a sequence of unknown length has its element type's facts.
    if (t.has_optional_type() && t.optional_type().has_elem_type()) return declared_fact(t.optional_type().elem_type(), params);
    if (t.has_sequence_type() && t.sequence_type().has_elem_type()) {
        f = declared_fact(t.sequence_type().elem_type(), params);
        value_extras extras;
        extras.sequence.emplace();
        f.extras = std::make_shared<const value_extras>(std::move(extras));
        return f;
    }
    if (!t.has_tensor_type()) return f;
    const tensor_type_view tt = t.tensor_type();
    f.elem_type = tt.elem_type();
    if (!tt.has_shape()) return f;
    f.shape.rank_known = true;
    for (const dimension_view& d : tt.shape().dim()) {
        if (f.shape.dims.size() >= 4096) return value_fact();
        quantity q;
        if (d.has_dim_value()) {
            if (d.dim_value() >= 0) q = quantity(d.dim_value());
        } else if (d.has_dim_param() && !d.dim_param().empty()) {
            q = params.of(d.dim_param());
        }
        f.shape.dims.push_back(std::move(q));
    }
    return f;
}

quantity fact_bytes(const value_fact& f) {
    const sequence_fact* s = f.sequence();
    if (s == nullptr) return value_bytes(f.shape.element_count(), f.elem_type);
    if (!s->elements.empty() || (s->length.concrete() && s->length.value.constant_term() == 0)) {
        quantity total(std::int64_t{0});
        for (const value_fact& e : s->elements) total = plus(total, fact_bytes(e));
        return total;
    }
    return times(value_bytes(f.shape.element_count(), f.elem_type), s->length);
}

quantity value_bytes(const quantity& elements, std::int32_t type) {
    const data_type_info* info = find_data_type_info(type);
    if (info == nullptr || info->bits == 0 || !elements.known) return quantity();
    if (info->bits % 8 == 0) return times(elements, static_cast<std::int64_t>(info->bits / 8));
    // Sub-byte types are packed: elements_per_entry to a byte, the last byte padded.
    return ceil_divide(elements, info->elements_per_entry);
}

}  // namespace profile_detail
}  // namespace onnxview
