// onnxview/attribute_values.hpp - which value field of an AttributeProto
// holds a value of each AttributeType, from the schema's facts.
//
// An attribute names its type in `type` (IR >= 2) and holds its value in one
// field of fourteen (`f`, `ints`, `tp`, ...). Which field goes with which type
// is a schema fact (the field= facts of AttributeType in schema/onnx.schema,
// generated into ONNXVIEW_ATTRIBUTE_VALUE_FIELDS); the checker, the bindings
// and the tools ask here instead of listing the fields again.
//
//   onnxview::for_each_value_field(attr, [](const onnxview::attribute_value_field& f) {
//       std::printf("holds %s (type %s)\n", f.name, onnxview::attribute_type_name(int32_t(f.type)));
//   });
//
// Cost: each call reads only the attribute's indexed fields (a repeated field
// is "set" when it has an element: a packed record of length 0 holds none).
#ifndef ONNXVIEW_ATTRIBUTE_VALUES_HPP
#define ONNXVIEW_ATTRIBUTE_VALUES_HPP

#include <cstdint>

#include "onnxview/enums.hpp"
#include "onnxview/views/node.hpp"

namespace onnxview {

// A value field of AttributeProto and the attribute type it holds.
struct attribute_value_field {
    attribute_type type;
    std::uint32_t number;  // its field number (attribute_view::field::...)
    const char* name;      // its schema name ("f", "type_protos")
};

namespace detail {
template <class Range>
bool has_element(const Range& r) noexcept {
    return r.begin() != r.end();
}
}  // namespace detail

// Calls fn(const attribute_value_field&) for each value field `a` holds, in
// AttributeType order. More than one is a malformed attribute (the checker's
// attribute_several_values).
template <class Fn>
void for_each_value_field(const attribute_view& a, Fn&& fn) {
#define ONNXVIEW_VALUE_FIELD_SET_optional(member) a.has_##member()
#define ONNXVIEW_VALUE_FIELD_SET_repeated(member) detail::has_element(a.member())
#define ONNXVIEW_VALUE_FIELD_VISIT(type_, member, label)                                             \
    if (ONNXVIEW_VALUE_FIELD_SET_##label(member))                                                   \
        fn(attribute_value_field{attribute_type::type_, attribute_view::field::member, #member});
    ONNXVIEW_ATTRIBUTE_VALUE_FIELDS(ONNXVIEW_VALUE_FIELD_VISIT)
#undef ONNXVIEW_VALUE_FIELD_VISIT
#undef ONNXVIEW_VALUE_FIELD_SET_repeated
#undef ONNXVIEW_VALUE_FIELD_SET_optional
}

// The attribute's type: `type` when it is set and not UNDEFINED; otherwise,
// as IR 1 writers leave `type` unset, the type of the first value field it
// holds; UNDEFINED when it holds none.
inline attribute_type effective_attribute_type(const attribute_view& a) noexcept {
    if (a.has_type() && a.type() != attribute_type::undefined) return a.type();
    attribute_type found = attribute_type::undefined;
    for_each_value_field(a, [&](const attribute_value_field& f) {
        if (found == attribute_type::undefined) found = f.type;
    });
    return found;
}

}  // namespace onnxview

#endif  // ONNXVIEW_ATTRIBUTE_VALUES_HPP
