// Indexing a message's fields into its view's slots: the one pass that every
// typed view makes over its own fields.
#include "onnxview/view.hpp"

namespace onnxview {
namespace detail {

error index_message(const wire::message& msg, const field_slot* fields, std::size_t n,
                    const std::uint8_t* index_of, slot* slots) noexcept {
    auto cursor = msg.fields();
    wire::field f;
    while (cursor.next(f)) {
        if (f.number >= max_indexed_number) continue;
        const std::uint8_t i = index_of[f.number];
        if (i == no_slot) continue;
        const field_slot& fs = fields[i];
        // A known number with another wire type is an unknown field to libprotobuf.
        if (!wire_type_fits(fs.kind, f.type)) continue;
        slot& s = slots[i];
        switch (fs.kind) {
            case slot_kind::repeated_len:
            case slot_kind::repeated_varint:
            case slot_kind::repeated_fixed32:
            case slot_kind::repeated_fixed64:
                if (s.count == 0) s.ptr = f.tag;
                ++s.count;
                continue;
            case slot_kind::closed_enum: {
                // libprotobuf keeps an undefined value of a proto2 enum as an
                // unknown field: the field keeps its previous value.
                const std::int32_t v = f.as_int32();
                if (v < 0 || v > fs.enum_max) continue;
                break;
            }
            default: break;
        }
        s.ptr = f.payload;
        s.raw = f.raw;
        ++s.count;
        if (fs.oneof >= 0) {  // setting a oneof member clears the others
            for (std::size_t j = 0; j < n; ++j)
                if (j != i && fields[j].oneof == fs.oneof) slots[j] = slot();
        }
    }
    if (cursor.err()) {
        for (std::size_t j = 0; j < n; ++j) slots[j] = slot();
        return cursor.err();
    }
    return error();
}

}  // namespace detail
}  // namespace onnxview
