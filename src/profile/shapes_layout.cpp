// src/profile/shapes_layout.cpp - output shapes of the ops that move data
// and build shapes: Shape, Size, Constant, ConstantOfShape, Reshape,
// Flatten, Squeeze, Unsqueeze, Transpose, Concat, Split, Slice, Gather,
// Expand, Tile, Pad, Range, DepthToSpace, SpaceToDepth. The values of small integer tensors go through
// them too, so that a Shape -> Gather -> Concat -> Reshape chain ends in a
// known shape.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "onnxview/enums.hpp"
#include "rules.hpp"

namespace onnxview {
namespace profile_detail {
namespace {

constexpr std::int32_t int64_type = static_cast<std::int32_t>(data_type::int64);
constexpr std::int32_t float_type = static_cast<std::int32_t>(data_type::float32);

// The input's values carried to the output when the element count stays
// (Reshape, Squeeze, Unsqueeze, Flatten).
void carry_values(const node_context& c, value_fact& y) {
    if (const value_fact* x = c.input(0); x && x->values_known) {
        y.values_known = true;
        y.values = x->values;
    }
}

value_fact int64_vector(std::vector<quantity> values) {
    value_fact f;
    f.elem_type = int64_type;
    f.shape = shape_of({quantity(static_cast<std::int64_t>(values.size()))});
    f.values_known = true;
    f.values = std::move(values);
    return f;
}

std::string shape_op(const node_context& c, std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* x = ranked_input(c, 0, reason);
    if (!x) return reason;
    const std::int64_t rank = static_cast<std::int64_t>(x->dims.size());
    // Opset 15's start and end, clamped as the spec says.
    auto clamp = [rank](std::int64_t v) { return v < 0 ? std::max<std::int64_t>(v + rank, 0) : std::min(v, rank); };
    const std::int64_t start = clamp(c.int_attribute("start", 0));
    const std::int64_t end = clamp(c.int_attribute("end", rank));
    std::vector<quantity> dims;
    for (std::int64_t i = start; i < end; ++i) dims.push_back(x->dims[static_cast<std::size_t>(i)]);
    out[0] = int64_vector(std::move(dims));
    return std::string();
}

std::string constant_op(const node_context& c, std::vector<value_fact>& out) {
    if (std::optional<attribute_view> v = c.attribute("value"); v && v->has_t()) {
        out[0] = stored_tensor_fact(v->t(), c.max_value_elements);
        return out[0].shape.rank_known ? std::string() : "Constant with invalid dims";
    }
    if (std::optional<attribute_view> v = c.attribute("value_int")) {
        out[0] = int64_vector({quantity(v->i())});
        out[0].shape.dims.clear();
        return std::string();
    }
    if (std::optional<std::vector<std::int64_t>> v = c.ints_attribute("value_ints")) {
        std::vector<quantity> values;
        for (std::int64_t x : *v) values.emplace_back(x);
        out[0] = int64_vector(std::move(values));
        return std::string();
    }
    if (std::optional<attribute_view> v = c.attribute("value_float")) {
        out[0].elem_type = float_type;
        out[0].shape = shape_of({});
        return std::string();
    }
    if (std::optional<attribute_view> v = c.attribute("value_floats")) {
        out[0].elem_type = float_type;
        out[0].shape = shape_of({quantity(static_cast<std::int64_t>(v->floats().count().value_or(0)))});
        if (out[0].shape.dims[0].value.constant_term() <= c.max_value_elements) {
            value_extras extras;
            extras.reals.emplace();
            for (float f : v->floats()) extras.reals->push_back(static_cast<double>(f));
            out[0].extras = std::make_shared<const value_extras>(std::move(extras));
        }
        return std::string();
    }
    if (std::optional<attribute_view> v = c.attribute("sparse_value"); v && v->has_sparse_tensor()) {
        // A sparse Constant produces the dense tensor its dims describe.
        out[0].elem_type = v->sparse_tensor().values().data_type();
        out[0].shape.rank_known = true;
        for (std::int64_t d : v->sparse_tensor().dims()) out[0].shape.dims.push_back(d >= 0 ? quantity(d) : quantity());
        return std::string();
    }
    return "Constant without a value";
}

std::string constant_of_shape(const node_context& c, std::vector<value_fact>& out) {
    const value_fact* s = c.input(0);
    if (s && s->values_known) out[0].shape = shape_of(s->values);
    else if (const std::optional<std::size_t> rank = vector_length(c, 0))
        out[0].shape = shape_of(std::vector<quantity>(*rank));
    else return "shape input of no known length";
    name_unknown_dims(c, 0, out[0].shape);
    out[0].elem_type = float_type;
    std::optional<std::vector<quantity>> fill = std::vector<quantity>{};  // float 0 by default: not followed
    if (std::optional<attribute_view> v = c.attribute("value"); v && v->has_t()) {
        out[0].elem_type = v->t().data_type();
        fill = small_integer_values(v->t(), 1);
    } else {
        fill.reset();
    }
    // A small integer fill (ConstantOfShape(Unsqueeze(n)) of ones in expanded functions): its values.
    const quantity count = out[0].shape.element_count();
    if (fill && fill->size() == 1 && count.concrete() && count.value.constant_term() <= c.max_value_elements) {
        out[0].values_known = true;
        out[0].values.assign(static_cast<std::size_t>(count.value.constant_term()), (*fill)[0]);
    }
    return std::string();
}

std::string reshape(const node_context& c, std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* x = ranked_input(c, 0, reason);
    if (!x) return reason;
    const value_fact* s = c.input(1);
    if (!s || !s->values_known) {
        const std::optional<std::size_t> rank = vector_length(c, 1);
        if (!rank) return "shape input of no known length";
        out[0].elem_type = input_type(c, 0);
        out[0].shape = shape_of(std::vector<quantity>(*rank));
        name_unknown_dims(c, 0, out[0].shape);
        return std::string();
    }
    const bool allow_zero = c.int_attribute("allowzero", 0) != 0;
    value_fact y;
    y.elem_type = input_type(c, 0);
    y.shape.rank_known = true;
    std::size_t inferred = s->values.size();
    quantity others(1);
    for (std::size_t i = 0; i < s->values.size(); ++i) {
        quantity d = s->values[i];
        if (d.concrete() && d.value.constant_term() == 0 && !allow_zero) {
            if (i >= x->dims.size()) return "0 in the shape beyond the input's rank";
            d = x->dims[i];
        } else if (d.concrete() && d.value.constant_term() == -1) {
            if (inferred != s->values.size()) return "two -1 in the shape";
            inferred = i;
            y.shape.dims.emplace_back();
            continue;
        } else if (d.concrete() && d.value.constant_term() < 0) {
            return "negative size in the shape";
        }
        others = times(others, d);
        y.shape.dims.push_back(std::move(d));
    }
    if (inferred != s->values.size()) y.shape.dims[inferred] = divide_exactly(x->element_count(), others);
    // Elements of a computed shape the profile could not follow (Concat of a known and an unknown part).
    for (std::size_t i = 0; i < y.shape.dims.size(); ++i)
        if (!y.shape.dims[i].known && i < s->values.size() && !s->values[i].known)
            y.shape.dims[i] = data_dependent(c, 0, i);
    carry_values(c, y);
    out[0] = std::move(y);
    return std::string();
}

std::string flatten(const node_context& c, std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* x = ranked_input(c, 0, reason);
    if (!x) return reason;
    std::int64_t axis = c.int_attribute("axis", 1);
    const std::int64_t rank = static_cast<std::int64_t>(x->dims.size());
    if (axis < -rank || axis > rank) return "axis out of range";
    if (axis < 0) axis += rank;
    quantity outer(1), inner(1);
    for (std::int64_t i = 0; i < rank; ++i)
        (i < axis ? outer : inner) = times(i < axis ? outer : inner, x->dims[static_cast<std::size_t>(i)]);
    out[0].elem_type = input_type(c, 0);
    out[0].shape = shape_of({outer, inner});
    carry_values(c, out[0]);
    return std::string();
}

std::string squeeze(const node_context& c, std::string_view op, std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* x = ranked_input(c, 0, reason);
    if (!x) return reason;
    bool present = false;
    const std::optional<std::vector<std::int64_t>> axes = ints_from_attribute_or_input(c, "axes", 1, present);
    value_fact y;
    y.elem_type = input_type(c, 0);
    y.shape.rank_known = true;
    if (present && !axes) {
        // Axes the profile cannot follow, of a known count: the rank is known, which dims go where is not.
        const std::optional<std::size_t> n = vector_length(c, 1);
        if (!n || (op == "Squeeze" && *n > x->dims.size())) return "axes input of no known length";
        y.shape.dims.resize(op == "Squeeze" ? x->dims.size() - *n : x->dims.size() + *n);
        name_unknown_dims(c, 0, y.shape);
        out[0] = std::move(y);
        return std::string();
    }
    if (op == "Squeeze") {
        std::vector<bool> drop(x->dims.size(), false);
        if (axes) {
            for (std::int64_t a : *axes) {
                std::size_t axis = 0;
                if (!normalize_axis(a, x->dims.size(), axis)) return "axis out of range";
                drop[axis] = true;
            }
        } else {
            for (std::size_t i = 0; i < x->dims.size(); ++i) {
                if (!x->dims[i].concrete()) return "Squeeze without axes of a symbolic shape";
                drop[i] = x->dims[i].value.constant_term() == 1;
            }
        }
        for (std::size_t i = 0; i < x->dims.size(); ++i)
            if (!drop[i]) y.shape.dims.push_back(x->dims[i]);
    } else {
        if (!axes) return "Unsqueeze without axes";
        const std::size_t rank = x->dims.size() + axes->size();
        std::vector<bool> inserted(rank, false);
        for (std::int64_t a : *axes) {
            std::size_t axis = 0;
            if (!normalize_axis(a, rank, axis) || inserted[axis]) return "axis out of range or repeated";
            inserted[axis] = true;
        }
        std::size_t next = 0;
        for (std::size_t i = 0; i < rank; ++i) y.shape.dims.push_back(inserted[i] ? quantity(1) : x->dims[next++]);
    }
    carry_values(c, y);
    out[0] = std::move(y);
    return std::string();
}

std::string transpose(const node_context& c, std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* x = ranked_input(c, 0, reason);
    if (!x) return reason;
    std::vector<std::int64_t> perm;
    if (std::optional<std::vector<std::int64_t>> p = c.ints_attribute("perm")) perm = *p;
    else
        for (std::size_t i = x->dims.size(); i-- > 0;) perm.push_back(static_cast<std::int64_t>(i));
    if (perm.size() != x->dims.size()) return "perm of the wrong length";
    out[0].elem_type = input_type(c, 0);
    out[0].shape.rank_known = true;
    for (std::int64_t p : perm) {
        std::size_t axis = 0;
        if (!normalize_axis(p, x->dims.size(), axis)) return "perm out of range";
        out[0].shape.dims.push_back(x->dims[axis]);
    }
    return std::string();
}

std::string concat(const node_context& c, std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* first = ranked_input(c, 0, reason);
    if (!first) return reason;
    std::size_t axis = 0;
    if (!normalize_axis(c.int_attribute("axis", 0), first->dims.size(), axis)) return "axis out of range";
    value_fact y;
    y.elem_type = input_type(c, 0);
    y.shape = *first;
    y.values_known = true;
    for (std::size_t i = 0; i < c.input_count(); ++i) {
        const value_shape* s = ranked_input(c, i, reason);
        if (!s) return reason;
        if (s->dims.size() != first->dims.size()) return "inputs of different ranks";
        if (i > 0) y.shape.dims[axis] = plus(y.shape.dims[axis], s->dims[axis]);
        for (std::size_t k = 0; k < s->dims.size(); ++k)
            if (k != axis && !y.shape.dims[k].known) y.shape.dims[k] = s->dims[k];
        if (c.input(i)->values_known && first->dims.size() == 1) {
            y.values.insert(y.values.end(), c.input(i)->values.begin(), c.input(i)->values.end());
        } else if (const std::optional<std::size_t> n = vector_length(c, i); n && first->dims.size() == 1) {
            // A part whose values are not followed: unknown elements, so that Reshape knows the others.
            y.values.resize(y.values.size() + *n);
        } else {
            y.values_known = false;
        }
    }
    if (!y.values_known || y.values.size() > c.max_value_elements) {
        y.values_known = false;
        y.values.clear();
    }
    out[0] = std::move(y);
    return std::string();
}

std::string split(const node_context& c, std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* x = ranked_input(c, 0, reason);
    if (!x) return reason;
    std::size_t axis = 0;
    if (!normalize_axis(c.int_attribute("axis", 0), x->dims.size(), axis)) return "axis out of range";
    bool present = false;
    const std::optional<std::vector<quantity>> sizes = quantities_from_attribute_or_input(c, "split", 1, present);
    if (present && !sizes) {
        // Sizes the profile cannot follow: each part's size along the axis is the values' to decide.
        for (std::size_t i = 0; i < out.size(); ++i) {
            out[i].elem_type = input_type(c, 0);
            out[i].shape = *x;
            out[i].shape.dims[axis] = data_dependent(c, i, axis);
        }
        return std::string();
    }
    if (sizes && sizes->size() != out.size()) return "split sizes do not match the outputs";
    const std::int64_t parts = static_cast<std::int64_t>(out.size());
    for (std::size_t i = 0; i < out.size(); ++i) {
        out[i].elem_type = input_type(c, 0);
        out[i].shape = *x;
        quantity& d = out[i].shape.dims[axis];
        if (sizes) {
            d = (*sizes)[i];
        } else if (x->dims[axis].concrete()) {
            // Opset 18: every part ceil(D/n), the last what remains.
            const std::int64_t whole = x->dims[axis].value.constant_term();
            const std::int64_t part = whole / parts + (whole % parts != 0);
            d = quantity(i + 1 < out.size() ? part : whole - part * (parts - 1));
        } else {
            d = divide_exactly(x->dims[axis], quantity(parts));
        }
    }
    return std::string();
}

// One axis of Slice in a dim of constant size n: the number of elements
// from `start` to `end` by `step`, with the spec's clamping.
std::int64_t slice_length(std::int64_t n, std::int64_t start, std::int64_t end, std::int64_t step) {
    auto clamp = [](std::int64_t v, std::int64_t lo, std::int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); };
    if (start < 0) start = start < -n ? -1 : start + n;  // -1 below: clamped next
    if (end < 0) end = end < -n ? -1 : end + n;
    if (step > 0) {
        start = clamp(start, 0, n);
        end = clamp(end, 0, n);
        return end > start ? (end - start - 1) / step + 1 : 0;
    }
    start = clamp(start, 0, n - 1);
    end = clamp(end, -1, n - 1);
    // step < 0: count of start, start+step, ... above end. -step cannot overflow past INT64_MIN's guard.
    if (step == std::numeric_limits<std::int64_t>::min()) return start > end ? 1 : 0;
    return start > end ? (start - end - 1) / -step + 1 : 0;
}

// The same in a dim of symbolic size d, or with symbolic bounds (Slice(x,
// 0, Shape(x)[1])): the slices whose clamping does not depend on the dims'
// values, taking each dim >= 1 and a negative bound within the dim (what a
// valid model's slice of it means); unknown otherwise.
quantity slice_length(const quantity& d, const quantity& start, const quantity& end, std::int64_t step) {
    if (!d.known || !start.known || !end.known || step == 0) return quantity();
    if (d.concrete() && start.concrete() && end.concrete())
        return quantity(slice_length(d.value.constant_term(), start.value.constant_term(), end.value.constant_term(), step));
    constexpr std::int64_t far = std::numeric_limits<std::int32_t>::max();
    auto constant = [](const quantity& q, std::int64_t& v) {
        if (q.concrete()) v = q.value.constant_term();
        return q.concrete();
    };
    std::int64_t s = 0, e = 0;
    if (step < 0) {
        // The whole dim reversed (x[::-1], x[::-2]).
        if (constant(start, s) && (s == -1 || s >= far) && constant(end, e) && e <= -far) return ceil_divide(d, -step);
        return quantity();
    }
    quantity from, to;
    if (constant(start, s)) from = s >= 0 ? quantity(s) : plus(d, quantity(s));
    else from = start;
    if (constant(end, e)) {
        if (e >= far) to = d;
        else if (e < 0) to = plus(d, quantity(e));
        else return quantity();  // min(e, d) with d unknown
    } else {
        const dim_order o = compare(end.value, d.value);
        if (o == dim_order::unordered) return quantity();
        to = o == dim_order::greater_or_equal ? d : end;
    }
    return step == 1 ? minus(to, from) : ceil_divide(minus(to, from), step);
}

std::string slice(const node_context& c, std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* x = ranked_input(c, 0, reason);
    if (!x) return reason;
    bool present = false;
    const std::optional<std::vector<quantity>> starts = quantities_from_attribute_or_input(c, "starts", 1, present);
    const std::optional<std::vector<quantity>> ends = quantities_from_attribute_or_input(c, "ends", 2, present);
    std::optional<std::vector<std::int64_t>> axes = ints_from_attribute_or_input(c, "axes", 3, present);
    if (present && !axes) {
        // Axes the profile cannot follow: any dim may be the one sliced.
        value_fact y;
        y.elem_type = input_type(c, 0);
        y.shape = shape_of(std::vector<quantity>(x->dims.size()));
        name_unknown_dims(c, 0, y.shape);
        out[0] = std::move(y);
        return std::string();
    }
    if (!starts || !ends) {
        // Bounds the profile cannot follow: the sliced axes' sizes are the values' to decide.
        const std::optional<std::size_t> n = starts ? std::optional<std::size_t>(starts->size()) : vector_length(c, 1);
        if (!n) return "starts or ends of no known length";
        value_fact y;
        y.elem_type = input_type(c, 0);
        y.shape = *x;
        for (std::size_t i = 0; i < *n; ++i) {
            std::size_t axis = 0;
            if (!normalize_axis(axes ? (i < axes->size() ? (*axes)[i] : -1 - static_cast<std::int64_t>(x->dims.size()))
                                     : static_cast<std::int64_t>(i),
                                x->dims.size(), axis))
                return "axis out of range";
            y.shape.dims[axis] = data_dependent(c, 0, axis);
        }
        out[0] = std::move(y);
        return std::string();
    }
    if (starts->size() != ends->size()) return "starts and ends of different lengths";
    std::optional<std::vector<std::int64_t>> steps = ints_from_attribute_or_input(c, "steps", 4, present);
    if (present && !steps) return "steps input not a known constant";
    if (!axes) {
        axes.emplace();
        for (std::size_t i = 0; i < starts->size(); ++i) axes->push_back(static_cast<std::int64_t>(i));
    }
    if (!steps) steps.emplace(starts->size(), 1);
    if (axes->size() != starts->size() || steps->size() != starts->size()) return "starts, axes, steps of different lengths";
    value_fact y;
    y.elem_type = input_type(c, 0);
    y.shape = *x;
    for (std::size_t i = 0; i < axes->size(); ++i) {
        std::size_t axis = 0;
        if (!normalize_axis((*axes)[i], x->dims.size(), axis)) return "axis out of range";
        y.shape.dims[axis] = slice_length(x->dims[axis], (*starts)[i], (*ends)[i], (*steps)[i]);
    }
    // Slicing a shape vector (Shape -> Slice): the values follow.
    const value_fact* in = c.input(0);
    if (in && in->values_known && x->dims.size() == 1 && (*starts)[0].concrete() && (*ends)[0].concrete()) {
        const std::int64_t n = static_cast<std::int64_t>(in->values.size());
        std::int64_t at = (*starts)[0].value.constant_term(), step = (*steps)[0];
        const std::int64_t len = slice_length(n, at, (*ends)[0].value.constant_term(), step);
        if (len > 0) {  // n >= 1: the clamps' bounds are ordered
            at = at < 0 ? std::max<std::int64_t>(at + n, step > 0 ? 0 : -1) : at;
            at = step > 0 ? std::clamp<std::int64_t>(at, 0, n) : std::clamp<std::int64_t>(at, 0, n - 1);
        }
        y.values_known = true;
        for (std::int64_t k = 0; k < len; ++k) y.values.push_back(in->values[static_cast<std::size_t>(at + k * step)]);
    }
    out[0] = std::move(y);
    return std::string();
}

std::string gather(const node_context& c, std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* data = ranked_input(c, 0, reason);
    const value_shape* indices = data ? ranked_input(c, 1, reason) : nullptr;
    if (!indices) return reason;
    std::size_t axis = 0;
    if (!normalize_axis(c.int_attribute("axis", 0), data->dims.size(), axis)) return "axis out of range";
    value_fact y;
    y.elem_type = input_type(c, 0);
    y.shape.rank_known = true;
    y.shape.dims.assign(data->dims.begin(), data->dims.begin() + static_cast<std::ptrdiff_t>(axis));
    y.shape.dims.insert(y.shape.dims.end(), indices->dims.begin(), indices->dims.end());
    y.shape.dims.insert(y.shape.dims.end(), data->dims.begin() + static_cast<std::ptrdiff_t>(axis) + 1, data->dims.end());
    const std::optional<std::vector<std::int64_t>> picks = constant_values(c, 1);
    if (c.input(0)->values_known && data->dims.size() == 1 && picks) {
        const std::int64_t n = static_cast<std::int64_t>(c.input(0)->values.size());
        y.values_known = true;
        for (std::int64_t p : *picks) {
            if (p < -n || p >= n) return "index out of range";
            y.values.push_back(c.input(0)->values[static_cast<std::size_t>(p < 0 ? p + n : p)]);
        }
    }
    out[0] = std::move(y);
    return std::string();
}

std::string expand_tile_pad(const node_context& c, std::string_view op, std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* x = ranked_input(c, 0, reason);
    if (!x) return reason;
    value_fact y;
    y.elem_type = input_type(c, 0);
    if (op == "Expand") {
        const value_fact* s = c.input(1);
        std::vector<quantity> target;
        if (s && s->values_known) target = s->values;
        else if (const std::optional<std::size_t> rank = vector_length(c, 1)) target.resize(*rank);
        else return "shape input of no known length";
        y.shape = broadcast(*x, shape_of(target));
        // Where the target is unknown the output is max(its size, the input's): the values decide.
        const std::size_t offset = y.shape.dims.size() - target.size();
        for (std::size_t i = 0; i < target.size(); ++i)
            if (!target[i].known && !y.shape.dims[offset + i].known) y.shape.dims[offset + i] = data_dependent(c, 0, offset + i);
    } else if (op == "Tile") {
        const std::vector<quantity>* repeats = known_values(c, 1);
        y.shape = *x;
        if (!repeats) {
            if (vector_length(c, 1) != x->dims.size()) return "repeats of no known length";
            for (std::size_t i = 0; i < x->dims.size(); ++i) y.shape.dims[i] = data_dependent(c, 0, i);
        } else {
            if (repeats->size() != x->dims.size()) return "repeats of the wrong length";
            for (std::size_t i = 0; i < repeats->size(); ++i) y.shape.dims[i] = times(x->dims[i], (*repeats)[i]);
        }
    } else {  // Pad
        bool present = false;
        std::optional<std::vector<quantity>> pads = quantities_from_attribute_or_input(c, "pads", 1, present);
        // Pads the profile cannot follow: the padded dims are the values' to decide.
        if (!pads && present && vector_length(c, 1)) pads.emplace(*vector_length(c, 1));
        if (!pads) return "pads not known";
        std::vector<std::int64_t> axes;
        if (const std::optional<std::vector<std::int64_t>> a = constant_values(c, 3)) axes = *a;
        else if (c.input_count() > 3 && !c.input_names[3].empty()) return "axes input not a known constant";
        else
            for (std::size_t i = 0; i < x->dims.size(); ++i) axes.push_back(static_cast<std::int64_t>(i));
        if (pads->size() != 2 * axes.size()) return "pads of the wrong length";
        y.shape = *x;
        for (std::size_t i = 0; i < axes.size(); ++i) {
            std::size_t axis = 0;
            if (!normalize_axis(axes[i], x->dims.size(), axis)) return "axis out of range";
            y.shape.dims[axis] = plus(x->dims[axis], plus((*pads)[i], (*pads)[i + axes.size()]));
            if (!(*pads)[i].known || !(*pads)[i + axes.size()].known) y.shape.dims[axis] = data_dependent(c, 0, axis);
        }
    }
    out[0] = std::move(y);
    return std::string();
}

std::string range(const node_context& c, std::vector<value_fact>& out) {
    const std::vector<quantity>* start = known_values(c, 0);
    const std::vector<quantity>* limit = known_values(c, 1);
    const std::optional<std::vector<std::int64_t>> delta = constant_values(c, 2);
    out[0].elem_type = input_type(c, 0);
    if (!start || !limit || !delta || start->size() != 1 || limit->size() != 1 || delta->size() != 1 ||
        (*delta)[0] == 0) {
        out[0].shape = shape_of({data_dependent(c, 0, 0)});
        return std::string();
    }
    const std::int64_t d = (*delta)[0];
    if ((*start)[0].concrete() && (*limit)[0].concrete()) {
        // max(ceil((limit - start) / delta), 0), in a wider type against overflow.
        const long double span = static_cast<long double>((*limit)[0].value.constant_term()) -
                                 static_cast<long double>((*start)[0].value.constant_term());
        const long double steps = span / static_cast<long double>(d);
        const std::int64_t n =
            steps <= 0 ? 0 : static_cast<std::int64_t>(steps) + (steps != static_cast<std::int64_t>(steps));
        out[0].shape = shape_of({quantity(n)});
        // A short integer range (axes built with Range): its values.
        if (n <= static_cast<std::int64_t>(c.max_value_elements)) {
            out[0].values_known = true;
            for (std::int64_t i = 0; i < n; ++i) out[0].values.push_back(plus((*start)[0], times(quantity(i), d)));
        }
        return std::string();
    }
    // Symbolic (Range(0, Shape(x)[1], 1)): the span taken as not negative, as a dim is.
    const quantity span = d > 0 ? minus((*limit)[0], (*start)[0]) : minus((*start)[0], (*limit)[0]);
    out[0].shape = shape_of({d == 1 || d == -1 ? span : ceil_divide(span, d > 0 ? d : -d)});
    return std::string();
}

// DepthToSpace: (N, C, H, W) to (N, C/b^2, H*b, W*b); SpaceToDepth the
// other way (b: blocksize).
std::string depth_space(const node_context& c, std::string_view op, std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* x = ranked_input(c, 0, reason);
    if (!x) return reason;
    const std::int64_t b = c.int_attribute("blocksize", 0);
    if (x->dims.size() != 4 || b <= 0) return "needs a rank-4 input and a positive blocksize";
    value_fact y;
    y.elem_type = input_type(c, 0);
    y.shape = *x;
    if (op == "DepthToSpace") {
        y.shape.dims[1] = divide_exactly(x->dims[1], quantity(b * b));
        y.shape.dims[2] = times(x->dims[2], b);
        y.shape.dims[3] = times(x->dims[3], b);
    } else {
        y.shape.dims[1] = times(x->dims[1], b * b);
        y.shape.dims[2] = divide_exactly(x->dims[2], quantity(b));
        y.shape.dims[3] = divide_exactly(x->dims[3], quantity(b));
    }
    out[0] = std::move(y);
    return std::string();
}

}  // namespace

rule_outcome infer_layout_op(const node_context& c, std::string_view op, std::vector<value_fact>& out) {
    if (op == "Shape") return shape_op(c, out);
    if (op == "Size") {
        std::string reason;
        const value_shape* x = ranked_input(c, 0, reason);
        if (!x) return reason;
        out[0] = int64_vector({x->element_count()});
        out[0].shape.dims.clear();
        return std::string();
    }
    if (op == "Constant") return constant_op(c, out);
    if (op == "ConstantOfShape") return constant_of_shape(c, out);
    if (op == "Reshape") return reshape(c, out);
    if (op == "Flatten") return flatten(c, out);
    if (op == "Squeeze" || op == "Unsqueeze") return squeeze(c, op, out);
    if (op == "Transpose") return transpose(c, out);
    if (op == "Concat") return concat(c, out);
    if (op == "Split") return split(c, out);
    if (op == "Slice") return slice(c, out);
    if (op == "Gather") return gather(c, out);
    if (op == "Expand" || op == "Tile" || op == "Pad") return expand_tile_pad(c, op, out);
    if (op == "Range") return range(c, out);
    if (op == "GatherElements" || op == "ScatterElements" || op == "ScatterND") {
        // GatherElements has its indices' shape; the scatters their data's.
        std::string reason;
        const value_shape* s = ranked_input(c, op == "GatherElements" ? 1 : 0, reason);
        if (!s) return reason;
        out[0].shape = *s;
        out[0].elem_type = input_type(c, 0);
        return std::string();
    }
    if (op == "DepthToSpace" || op == "SpaceToDepth") return depth_space(c, op, out);
    return std::nullopt;
}

}  // namespace profile_detail
}  // namespace onnxview
