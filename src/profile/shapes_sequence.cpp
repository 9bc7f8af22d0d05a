// src/profile/shapes_sequence.cpp - the sequence and optional ops:
// SequenceConstruct, SequenceEmpty, SequenceInsert, SequenceErase,
// SequenceAt, SequenceLength, SplitToSequence, ConcatFromSequence,
// Optional, OptionalGetElement, OptionalHasElement. A sequence's fact keeps
// its length and, while that is a small constant, each element (facts.hpp);
// an optional is its element.
#include <algorithm>
#include <cstddef>
#include <cstdint>
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
constexpr std::int32_t bool_type = static_cast<std::int32_t>(data_type::boolean);
constexpr std::size_t max_elements_kept = 64;

// What two elements have in common: a dim both give alike, else unknown.
value_fact common(const value_fact& a, const value_fact& b) {
    value_fact out;
    out.elem_type = a.elem_type != 0 ? a.elem_type : b.elem_type;
    if (!a.shape.rank_known || !b.shape.rank_known || a.shape.dims.size() != b.shape.dims.size()) return out;
    out.shape = a.shape;
    for (std::size_t i = 0; i < out.shape.dims.size(); ++i)
        if (!(a.shape.dims[i].known && b.shape.dims[i].known && a.shape.dims[i].value == b.shape.dims[i].value))
            out.shape.dims[i] = quantity();
    return out;
}

// A tensor's fact as an element: its shape and type, no values.
value_fact element_of(const value_fact& f) {
    value_fact e;
    e.shape = f.shape;
    e.elem_type = f.elem_type;
    return e;
}

// The sequence fact of `elements` (each kept when few enough) and the
// output fact around it.
value_fact make_sequence(std::vector<value_fact> elements, quantity length, const value_fact* any = nullptr) {
    value_fact out;
    if (!elements.empty()) {
        out = elements[0];
        for (const value_fact& e : elements) out = common(out, e);
    } else if (any != nullptr) {
        out = element_of(*any);
    }
    value_extras extras;
    sequence_fact& s = extras.sequence.emplace();
    s.length = std::move(length);
    if (s.length.concrete() && elements.size() <= max_elements_kept &&
        static_cast<std::size_t>(s.length.value.constant_term()) == elements.size())
        s.elements = std::move(elements);
    out.values_known = false;
    out.values.clear();
    out.extras = std::make_shared<const value_extras>(std::move(extras));
    return out;
}

const value_fact* sequence_input(const node_context& c, std::size_t i, std::string& reason) {
    const value_fact* f = c.input(i);
    if (f == nullptr || !f->sequence()) {
        reason = "input " + std::to_string(i) + " is not a known sequence";
        return nullptr;
    }
    return f;
}

// A position input (SequenceAt, SequenceInsert, SequenceErase) within a
// sequence of `length` elements: nullopt when not a constant or outside.
std::optional<std::size_t> position(const node_context& c, std::size_t i, std::size_t length) {
    const std::optional<std::vector<std::int64_t>> p = constant_values(c, i);
    if (!p || p->size() != 1) return std::nullopt;
    const std::int64_t n = static_cast<std::int64_t>(length);
    const std::int64_t at = (*p)[0] < 0 ? (*p)[0] + n : (*p)[0];
    if (at < 0 || at > n) return std::nullopt;
    return static_cast<std::size_t>(at);
}

// The elements of a sequence one by one when they are known.
const std::vector<value_fact>* known_elements(const value_fact& s) {
    return s.sequence()->length.concrete() &&
                   s.sequence()->elements.size() == static_cast<std::size_t>(s.sequence()->length.value.constant_term())
               ? &s.sequence()->elements
               : nullptr;
}

std::string insert_or_erase(const node_context& c, std::string_view op, std::vector<value_fact>& out) {
    std::string reason;
    const value_fact* s = sequence_input(c, 0, reason);
    if (!s) return reason;
    const bool insert = op == "SequenceInsert";
    const value_fact* t = insert ? c.input(1) : nullptr;
    if (insert && (!t || t->sequence())) return "the inserted value is not a known tensor";
    const quantity length = plus(s->sequence()->length, quantity(std::int64_t{insert ? 1 : -1}));
    const std::size_t at_input = insert ? 2 : 1;
    const std::vector<value_fact>* elements = known_elements(*s);
    if (elements) {
        std::vector<value_fact> next = *elements;
        const bool given = at_input < c.input_names.size() && !c.input_names[at_input].empty();
        const std::optional<std::size_t> at =
            given ? position(c, at_input, next.size()) : std::optional<std::size_t>(insert ? next.size() : next.size() - 1);
        if (at && (insert || (*at < next.size()))) {
            if (insert) next.insert(next.begin() + static_cast<std::ptrdiff_t>(*at), element_of(*t));
            else next.erase(next.begin() + static_cast<std::ptrdiff_t>(*at));
            out[0] = make_sequence(std::move(next), length);
            return std::string();
        }
    }
    value_fact any = element_of(*s);
    if (insert) any = s->sequence()->length.concrete() && s->sequence()->length.value.constant_term() == 0
                          ? element_of(*t)
                          : common(any, *t);
    out[0] = make_sequence({}, length, &any);
    return std::string();
}

// SplitToSequence(input, split, axis, keepdims): split absent, one element
// per index of the axis (the axis kept as 1 or dropped); a scalar split,
// parts of that size and the rest last; a vector, those sizes.
std::string split_to_sequence(const node_context& c, std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* x = ranked_input(c, 0, reason);
    if (!x) return reason;
    std::size_t axis = 0;
    if (!normalize_axis(c.int_attribute("axis", 0), x->dims.size(), axis)) return "axis out of range";
    const quantity& d = x->dims[axis];
    value_fact part;
    part.elem_type = input_type(c, 0);
    part.shape = *x;
    const bool given = c.input_count() > 1 && !c.input_names[1].empty();
    if (!given) {
        if (c.int_attribute("keepdims", 1) != 0) part.shape.dims[axis] = quantity(std::int64_t{1});
        else part.shape.dims.erase(part.shape.dims.begin() + static_cast<std::ptrdiff_t>(axis));
        std::vector<value_fact> elements;
        if (d.concrete() && d.value.constant_term() <= static_cast<std::int64_t>(max_elements_kept))
            elements.assign(static_cast<std::size_t>(d.value.constant_term()), part);
        out[0] = make_sequence(std::move(elements), d, &part);
        return std::string();
    }
    const value_fact* split = c.input(1);
    const std::vector<quantity>* sizes = known_values(c, 1);
    if (!split || !sizes) {
        part.shape.dims[axis] = quantity();
        out[0] = make_sequence({}, data_dependent(c, 0, 0), &part);
        return std::string();
    }
    std::vector<value_fact> elements;
    if (split->shape.rank_known && split->shape.dims.empty() && sizes->size() == 1) {
        // A scalar: parts of that size, the last what remains.
        const quantity& s = (*sizes)[0];
        if (!s.concrete() || s.value.constant_term() <= 0) return "split size not a positive constant";
        const std::int64_t each = s.value.constant_term();
        const quantity count = ceil_divide(d, each);
        if (!d.concrete()) {
            part.shape.dims[axis] = quantity();
            out[0] = make_sequence({}, count, &part);
            return std::string();
        }
        const std::int64_t whole = d.value.constant_term();
        for (std::int64_t at = 0; at < whole && elements.size() <= max_elements_kept; at += each) {
            part.shape.dims[axis] = quantity(std::min(each, whole - at));
            elements.push_back(part);
        }
        out[0] = make_sequence(std::move(elements), count, &part);
        return std::string();
    }
    for (const quantity& s : *sizes) {
        part.shape.dims[axis] = s;
        elements.push_back(part);
    }
    const quantity count(static_cast<std::int64_t>(sizes->size()));
    out[0] = make_sequence(std::move(elements), count);
    return std::string();
}

// ConcatFromSequence(input_sequence; axis, new_axis): the elements joined
// along `axis`, or stacked on a new one.
std::string concat_from_sequence(const node_context& c, std::vector<value_fact>& out) {
    std::string reason;
    const value_fact* s = sequence_input(c, 0, reason);
    if (!s) return reason;
    if (!s->shape.rank_known) return "the elements have no known rank";
    const bool stack = c.int_attribute("new_axis", 0) != 0;
    const std::size_t rank = s->shape.dims.size() + (stack ? 1 : 0);
    std::size_t axis = 0;
    if (!normalize_axis(c.int_attribute("axis", 0), rank, axis)) return "axis out of range";
    out[0].elem_type = s->elem_type;
    out[0].shape = s->shape;
    if (stack) {
        out[0].shape.dims.insert(out[0].shape.dims.begin() + static_cast<std::ptrdiff_t>(axis), s->sequence()->length);
        return std::string();
    }
    quantity joined(std::int64_t{0});
    if (const std::vector<value_fact>* elements = known_elements(*s)) {
        for (const value_fact& e : *elements)
            joined = e.shape.rank_known && e.shape.dims.size() == rank ? plus(joined, e.shape.dims[axis]) : quantity();
    } else {
        joined = times(s->sequence()->length, s->shape.dims[axis]);
    }
    out[0].shape.dims[axis] = joined;
    return std::string();
}

}  // namespace

bool sequence_op(std::string_view op) {
    for (std::string_view s : {"SequenceConstruct", "SequenceEmpty", "SequenceInsert", "SequenceErase", "SequenceAt",
                               "SequenceLength", "SplitToSequence", "ConcatFromSequence", "Optional",
                               "OptionalGetElement", "OptionalHasElement"})
        if (op == s) return true;
    return false;
}

rule_outcome infer_sequence_op(const node_context& c, std::string_view op, std::vector<value_fact>& out) {
    std::string reason;
    if (op == "SequenceConstruct") {
        std::vector<value_fact> elements;
        for (std::size_t i = 0; i < c.input_count(); ++i) {
            const value_fact* f = c.input(i);
            if (!f || f->sequence()) return "input " + std::to_string(i) + " is not a known tensor";
            elements.push_back(element_of(*f));
        }
        const quantity count(static_cast<std::int64_t>(elements.size()));
        out[0] = make_sequence(std::move(elements), count);
        return std::string();
    }
    if (op == "SequenceEmpty") {
        value_fact none;
        none.elem_type = static_cast<std::int32_t>(c.int_attribute("dtype", static_cast<std::int64_t>(data_type::float32)));
        out[0] = make_sequence({}, quantity(std::int64_t{0}), &none);
        return std::string();
    }
    if (op == "SequenceInsert" || op == "SequenceErase") return insert_or_erase(c, op, out);
    if (op == "SequenceAt") {
        const value_fact* s = sequence_input(c, 0, reason);
        if (!s) return reason;
        const std::vector<value_fact>* elements = known_elements(*s);
        const std::optional<std::size_t> at = elements ? position(c, 1, elements->size()) : std::nullopt;
        out[0] = at && *at < elements->size() ? (*elements)[*at] : element_of(*s);
        out[0].extras = nullptr;
        return std::string();
    }
    if (op == "SequenceLength") {
        const value_fact* s = sequence_input(c, 0, reason);
        if (!s) return reason;
        out[0].elem_type = int64_type;
        out[0].shape = shape_of({});
        if (s->sequence()->length.known) {
            out[0].values_known = true;
            out[0].values = {s->sequence()->length};
        }
        return std::string();
    }
    if (op == "SplitToSequence") return split_to_sequence(c, out);
    if (op == "ConcatFromSequence") return concat_from_sequence(c, out);
    if (op == "Optional" || op == "OptionalGetElement") {
        // An optional is its element: what flows through is the value itself.
        const value_fact* f = c.input(0);
        if (!f) return op == "Optional" ? "an empty Optional has no element to profile" : "input 0 unknown";
        out[0] = *f;
        return std::string();
    }
    if (op == "OptionalHasElement") {
        out[0].elem_type = bool_type;
        out[0].shape = shape_of({});
        return std::string();
    }
    return std::nullopt;
}

}  // namespace profile_detail
}  // namespace onnxview
