// Indexing a message's fields into its view's slots: the one pass that every
// typed view makes over its own fields.
#include "onnxview/view.hpp"

namespace onnxview {
namespace detail {
namespace {

// The schema slot of a field, or nullptr when it has none.
inline const field_slot* slot_of(const wire::field& f, const layout_ref& layout) noexcept {
    if (f.number >= max_indexed_number) return nullptr;
    const std::uint8_t i = layout.index_of[f.number];
    return i == no_slot ? nullptr : &layout.fields[i];
}

// Whether libprotobuf takes this occurrence as the field of its slot; if not,
// it is an unknown field: a wire-type mismatch, or an undefined value of a
// proto2 enum (the field keeps its previous value).
inline bool accepted(const field_slot& fs, const wire::field& f) noexcept {
    if (!wire_type_fits(fs.kind, f.type)) return false;
    return fs.kind != slot_kind::closed_enum || wire::closed_enum_takes(f.raw, fs.enum_max);
}

// Setting a oneof member clears the others (nothing for a field in no oneof).
inline void clear_oneof(const layout_ref& layout, std::size_t i, std::uint32_t* counts) noexcept {
    for (std::size_t j = layout.oneof_next[i]; j != i; j = layout.oneof_next[j]) counts[j] = 0;
}

// Applies one decoded field to the slots, with every rule of libprotobuf's
// meaning (see accepted(); a oneof member clears the others).
inline void index_field(const wire::field& f, const layout_ref& layout, slot* slots,
                        std::uint32_t* counts) noexcept {
    const field_slot* found = slot_of(f, layout);
    if (found == nullptr || !accepted(*found, f)) return;
    const field_slot& fs = *found;
    const auto i = static_cast<std::size_t>(found - layout.fields);
    slot& s = slots[i];
    switch (fs.kind) {
        case slot_kind::repeated_len:
        case slot_kind::repeated_varint:
        case slot_kind::repeated_fixed32:
        case slot_kind::repeated_fixed64:
            if (counts[i]++ == 0) s.ptr = f.tag;
            return;
        default: break;
    }
    s.ptr = f.payload;
    s.raw = f.raw;
    ++counts[i];
    clear_oneof(layout, i, counts);
}

error index_merged(const wire::message& msg, const layout_ref& layout, slot* slots,
                   std::uint32_t* counts) noexcept {
    auto cursor = msg.fields();
    wire::field f;
    while (cursor.next(f)) index_field(f, layout, slots, counts);
    return cursor.err();
}

template <wire::wire_type W>
inline bool quick_skip(const char*& p, const char* q, const char* end) noexcept {
    const char* payload;
    std::uint64_t v;
    if (!wire::decode_value<W>(q, end, payload, v)) return false;
    p = q;
    return true;
}

template <wire::wire_type W>
inline bool quick_store(const char*& p, const char* q, const char* end, slot& s,
                        std::uint32_t& count) noexcept {
    const char* payload;
    std::uint64_t v;
    if (!wire::decode_value<W>(q, end, payload, v)) return false;
    s.ptr = payload;
    s.raw = v;
    ++count;
    p = q;
    return true;
}

template <wire::wire_type W>
inline bool quick_repeat(const char*& p, const char* q, const char* end, slot& s,
                         std::uint32_t& count) noexcept {
    const char* payload;
    std::uint64_t v;
    if (!wire::decode_value<W>(q, end, payload, v)) return false;
    if (count++ == 0) s.ptr = p;
    p = q;
    return true;
}

template <wire::wire_type W>
inline bool quick_oneof(const char*& p, const char* q, const char* end, const layout_ref& layout,
                        std::uint8_t i, slot* slots, std::uint32_t* counts) noexcept {
    if (!quick_store<W>(p, q, end, slots[i], counts[i])) return false;
    clear_oneof(layout, i, counts);
    return true;
}

// The tables of make_layout hold only tag_op values: no range check before
// the switch's jump (two instructions per field of every message).
[[noreturn]] inline void op_table_holds_no_other_value() noexcept {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_unreachable();
#elif defined(_MSC_VER)
    __assume(0);
#else
    for (;;) {
    }
#endif
}

// Decodes and indexes the field at p when it is an ordinary one (a tag below
// 256 in minimal encoding, a well-formed value within the message) and moves
// p past it; returns false, leaving p, for everything else. One switch on
// the layout's action for the tag: a second one on the wire type cost a
// mispredicted branch per field.
inline bool index_quick(const char*& p, const char* end, const layout_ref& layout, slot* slots,
                        std::uint32_t* counts) noexcept {
    using wt = wire::wire_type;
    const char* q = p;
    std::uint32_t tag;
    if (!wire::decode_short_tag(q, end, tag)) return false;
    const std::uint8_t i = layout.slot_of_tag[tag];
    switch (layout.op_of_tag[tag]) {
        case tag_op::skip_varint: return quick_skip<wt::varint>(p, q, end);
        case tag_op::skip_fixed64: return quick_skip<wt::fixed64>(p, q, end);
        case tag_op::skip_len: return quick_skip<wt::length_delimited>(p, q, end);
        case tag_op::skip_fixed32: return quick_skip<wt::fixed32>(p, q, end);
        case tag_op::store_varint: return quick_store<wt::varint>(p, q, end, slots[i], counts[i]);
        case tag_op::store_fixed64: return quick_store<wt::fixed64>(p, q, end, slots[i], counts[i]);
        case tag_op::store_len:
            return quick_store<wt::length_delimited>(p, q, end, slots[i], counts[i]);
        case tag_op::store_fixed32: return quick_store<wt::fixed32>(p, q, end, slots[i], counts[i]);
        case tag_op::repeat_varint: return quick_repeat<wt::varint>(p, q, end, slots[i], counts[i]);
        case tag_op::repeat_fixed64: return quick_repeat<wt::fixed64>(p, q, end, slots[i], counts[i]);
        case tag_op::repeat_len:
            return quick_repeat<wt::length_delimited>(p, q, end, slots[i], counts[i]);
        case tag_op::repeat_fixed32: return quick_repeat<wt::fixed32>(p, q, end, slots[i], counts[i]);
        case tag_op::oneof_varint: return quick_oneof<wt::varint>(p, q, end, layout, i, slots, counts);
        case tag_op::oneof_fixed64: return quick_oneof<wt::fixed64>(p, q, end, layout, i, slots, counts);
        case tag_op::oneof_len:
            return quick_oneof<wt::length_delimited>(p, q, end, layout, i, slots, counts);
        case tag_op::oneof_fixed32: return quick_oneof<wt::fixed32>(p, q, end, layout, i, slots, counts);
        case tag_op::closed_enum: {
            const char* payload;
            std::uint64_t v;
            if (!wire::decode_value<wt::varint>(q, end, payload, v)) return false;
            if (wire::closed_enum_takes(v, layout.fields[i].enum_max)) {
                slots[i].ptr = payload;
                slots[i].raw = v;
                ++counts[i];
            }
            p = q;
            return true;
        }
        case tag_op::generic: break;
        default: op_table_holds_no_other_value();
    }
    return false;
}

// Indexing a large message (a graph of 100k nodes) is a chain of dependent
// loads: the next tag's address is known only once this field's length is
// read, and the fields lie far enough apart that each one misses the cache.
// The lines prefetch_distance bytes ahead are asked for in order, so the
// misses overlap: 100k nodes (31 MB) index in 7 ms instead of 16 (3 ms
// instead of 12 when mapped already). Messages under prefetch_from pay one
// predicted branch per field.
constexpr std::size_t prefetch_from = std::size_t(64) << 10;
constexpr std::size_t prefetch_distance = 1024;
constexpr std::size_t cache_line = 64;
inline void prefetch_line(const char* p) noexcept {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(p);
#else
    (void)p;  // a hint only
#endif
}
inline void prefetch_ahead(const char* p, const char* end, const char*& ahead) noexcept {
    if (ahead < p) ahead = p;  // a skipped payload is not fetched
    const char* const want = static_cast<std::size_t>(end - p) > prefetch_distance ? p + prefetch_distance : end;
    while (ahead < want) {
        prefetch_line(ahead);
        // Never past end (a pointer beyond it is undefined); at end the loop stops asking.
        ahead = static_cast<std::size_t>(end - ahead) > cache_line ? ahead + cache_line : end;
    }
}

// The plain (not merged) case: ordinary fields through the layout's table;
// every other field, and every malformed one, through the reader, so that
// the errors are the reader's.
error index_plain(const wire::message& msg, const layout_ref& layout, slot* slots,
                  std::uint32_t* counts) noexcept {
    const char* p = msg.begin();
    const char* const end = msg.end();
    const char* ahead = static_cast<std::size_t>(end - p) >= prefetch_from ? p : end;
    while (p != end) {
        if (ahead != end) prefetch_ahead(p, end, ahead);
        if (index_quick(p, end, layout, slots, counts)) continue;
        wire::reader r(msg.base(), p, end, msg.depth(), msg.max_depth());
        wire::field f;
        const error e = r.next(f);
        if (!e.ok()) return e;
        index_field(f, layout, slots, counts);
        p = r.position();
    }
    return error();
}

}  // namespace

result<wire::message> merged_message(const wire::message& msg, const layout_ref& layout,
                                     std::size_t s) noexcept {
    const field_slot& member = layout.fields[s];
    const char* from = nullptr;
    if (member.oneof >= 0) {  // since the last time another member cleared it
        bool cleared = false;
        const char* first = nullptr;
        auto c = msg.fields();
        wire::field f;
        while (c.next(f)) {
            const field_slot* fs = slot_of(f, layout);
            if (fs == nullptr || fs->oneof != member.oneof || !accepted(*fs, f)) continue;
            if (fs != &member) {
                cleared = true;
                first = nullptr;
            } else if (first == nullptr) {
                first = f.tag;
            }
        }
        if (c.err()) return c.err();
        if (cleared) from = first;
    }
    return msg.merged_child(member.number, nullptr, 0, from);
}

error index_message(const wire::message& msg, const layout_ref& layout, slot* slots,
                    std::uint32_t* counts) noexcept {
    const error e = msg.merged() ? index_merged(msg, layout, slots, counts)
                                 : index_plain(msg, layout, slots, counts);
    if (!e.ok()) {
        for (std::size_t j = 0; j < layout.count; ++j) counts[j] = 0;
    }
    return e;
}

}  // namespace detail
}  // namespace onnxview
