// onnxview/view.hpp - the machinery shared by every typed ONNX view.
//
// A view is a small value over the caller's bytes. Creating one scans the
// message's own fields once (nested messages are skipped, not parsed) and
// remembers, per schema field, the last occurrence (singular fields) or the
// first occurrence and the count (repeated fields). After that, singular
// accessors are O(1) and repeated ranges start at their first element, so a
// loop over 100k nodes that also reads graph.name() stays linear.
//
// Protobuf meaning is libprotobuf's: any field order; last occurrence wins
// for singular scalars; several occurrences of a singular message field
// merge; a known field with an unexpected wire type is an unknown field;
// an out-of-range value of a closed enum is an unknown field (the previous
// valid value stays); setting a oneof member clears the others.
//
// Errors: a view made over malformed bytes is empty and carries the error
// (err()); views made from it carry it too, so a chain like
// m.graph().node().at(3).op_type() can be checked once with err() on the last
// view. verify() (onnxview/verify.hpp) checks a whole model up front.
//
// Size: a view is its message handle (three pointers, the depth and one word
// of merge path: merges are rare and handled out of line, see
// onnxview/wire_message.hpp), its error, and a count and a slot per schema
// field. A range iterator holds a cursor that is a reader plus merge state
// touched only in a merged message, and the current element; ranges over
// absent fields build neither.
//
// Lifetime: a view is valid while the bytes it was made over are.
#ifndef ONNXVIEW_VIEW_HPP
#define ONNXVIEW_VIEW_HPP

#include <cstddef>
#include <cstdint>
#include <new>
#include <string_view>
#include <type_traits>

#include "onnxview/options.hpp"
#include "onnxview/wire_repeated.hpp"

namespace onnxview {

namespace detail {

// How a schema field may appear on the wire.
enum class slot_kind : std::uint8_t {
    varint,           // int32, int64, uint64, open enums (data_type, elem_type, ...)
    closed_enum,      // a proto2 enum field: out-of-range values are unknown fields
    fixed32,          // float
    fixed64,          // double
    len,              // string, bytes, singular message
    repeated_len,     // repeated string/bytes/message
    repeated_varint,  // repeated int64 etc.: unpacked varints or packed chunks
    repeated_fixed32, // repeated float: unpacked fixed32 or packed chunks
    repeated_fixed64, // repeated double: unpacked fixed64 or packed chunks
};

struct field_slot {
    std::uint32_t number;
    slot_kind kind;
    std::int8_t oneof = -1;     // fields with the same index >= 0 form a oneof
    std::int32_t enum_max = 0;  // closed_enum: valid values are 0..enum_max
};

constexpr std::uint32_t max_indexed_number = 32;  // ONNX field numbers stay below this
constexpr std::uint8_t no_slot = 0xFF;

// What indexing does with a field whose tag is below 256 (numbers 1-31 in
// minimal encoding), decided per layout at compile time so the hot loop makes
// one table lookup per field.
enum class tag_op : std::uint8_t {
    generic,  // groups, bad tags, numbers 0 and >= 32
    skip_varint, skip_fixed64, skip_len, skip_fixed32,              // unknown fields
    store_varint, store_fixed64, store_len, store_fixed32,          // singular: last wins
    repeat_varint, repeat_fixed64, repeat_len, repeat_fixed32,      // repeated: count
    oneof_varint, oneof_fixed64, oneof_len, oneof_fixed32,          // store, clear the others
    closed_enum,                                                     // store when in range
};
constexpr std::uint32_t tag_table_size = 256;

template <std::size_t N>
struct message_layout {
    field_slot fields[N];
    std::uint8_t index_of[max_indexed_number];
    tag_op op_of_tag[tag_table_size];
    std::uint8_t slot_of_tag[tag_table_size];
    // The next member of a field's oneof, in a cycle through the members
    // (the field itself when it is in no oneof): setting a member clears the
    // others without a pass over every slot.
    std::uint8_t oneof_next[N];
};

constexpr wire::wire_type encoding_of(slot_kind kind) noexcept {
    switch (kind) {
        case slot_kind::fixed32:
        case slot_kind::repeated_fixed32: return wire::wire_type::fixed32;
        case slot_kind::fixed64:
        case slot_kind::repeated_fixed64: return wire::wire_type::fixed64;
        case slot_kind::len:
        case slot_kind::repeated_len: return wire::wire_type::length_delimited;
        default: return wire::wire_type::varint;
    }
}

constexpr bool wire_type_fits(slot_kind kind, wire::wire_type t) noexcept {
    const bool packable = kind == slot_kind::repeated_varint || kind == slot_kind::repeated_fixed32 ||
                          kind == slot_kind::repeated_fixed64;
    return wire::takes_wire_type(encoding_of(kind), packable, t);
}

constexpr tag_op op_for(const field_slot* fs, std::uint32_t wt) noexcept {
    // Offsets inside each group of four ops follow the wire type.
    const int by_type = wt == 0 ? 0 : wt == 1 ? 1 : wt == 2 ? 2 : wt == 5 ? 3 : -1;
    if (by_type < 0) return tag_op::generic;  // groups and invalid wire types
    const auto pick = [by_type](tag_op first) {
        return static_cast<tag_op>(static_cast<int>(first) + by_type);
    };
    if (fs == nullptr || !wire_type_fits(fs->kind, static_cast<wire::wire_type>(wt)))
        return pick(tag_op::skip_varint);
    switch (fs->kind) {
        case slot_kind::repeated_len:
        case slot_kind::repeated_varint:
        case slot_kind::repeated_fixed32:
        case slot_kind::repeated_fixed64: return pick(tag_op::repeat_varint);
        case slot_kind::closed_enum: return tag_op::closed_enum;
        default: return pick(fs->oneof >= 0 ? tag_op::oneof_varint : tag_op::store_varint);
    }
}

template <std::size_t N>
constexpr message_layout<N> make_layout(const field_slot (&fields)[N]) {
    message_layout<N> l{};
    for (std::size_t i = 0; i < N; ++i) l.fields[i] = fields[i];
    for (std::uint32_t n = 0; n < max_indexed_number; ++n) l.index_of[n] = no_slot;
    for (std::size_t i = 0; i < N; ++i) l.index_of[fields[i].number] = static_cast<std::uint8_t>(i);
    for (std::size_t i = 0; i < N; ++i) {
        std::size_t next = i;
        if (fields[i].oneof >= 0) {
            do next = (next + 1) % N;
            while (fields[next].oneof != fields[i].oneof);
        }
        l.oneof_next[i] = static_cast<std::uint8_t>(next);
    }
    for (std::uint32_t tag = 0; tag < tag_table_size; ++tag) {
        const std::uint32_t number = tag >> 3;
        const std::uint8_t s = l.index_of[number];
        l.slot_of_tag[tag] = s;
        l.op_of_tag[tag] = number == 0 ? tag_op::generic : op_for(s == no_slot ? nullptr : &l.fields[s], tag & 7);
    }
    return l;
}

// What indexing remembers of one schema field besides its number of
// occurrences (packed chunks count once), which views keep apart: only the
// counts are zeroed when a view is made, and a slot is read only when its
// count is not 0. Zeroing whole slots cost more than the index pass itself
// on attribute-heavy graphs (callgrind, bench/analysis.md).
struct slot {
    const char* ptr;   // singular: payload of the last occurrence; repeated: tag of the first
    std::uint64_t raw; // singular: value or length of the last occurrence
};

// Fills slots from one pass over msg. On error every slot is left empty.
struct layout_ref {
    const field_slot* fields;
    std::size_t count;
    const std::uint8_t* index_of;
    const tag_op* op_of_tag;
    const std::uint8_t* slot_of_tag;
    const std::uint8_t* oneof_next;
};
error index_message(const wire::message& msg, const layout_ref& layout, slot* slots,
                    std::uint32_t* counts) noexcept;

// The merge of the counted occurrences of singular message field `s` (for a
// oneof member: those since another member last cleared it). Out of line:
// merges are rare.
result<wire::message> merged_message(const wire::message& msg, const layout_ref& layout,
                                     std::size_t s) noexcept;

// The value of a singular message field: the one occurrence, all of them
// merged, or an empty message; an errored parent passes its error on.
inline result<wire::message> singular_message(const wire::message& msg, error err, const slot& sl,
                                              std::uint32_t count, const layout_ref& layout,
                                              std::size_t s) noexcept {
    if (!err.ok()) return err;
    // Absent: an empty view, never an error - verify() promises that views
    // over verified bytes report none. A walk must recurse only into present
    // fields (has_x()): the chain of absent fields below an empty view has no
    // end, like the default values it stands for.
    if (count == 0) return wire::message(msg.base(), msg.end(), msg.end(), msg.depth(), msg.max_depth());
    if (count > 1) return merged_message(msg, layout, s);
    wire::field f;
    f.type = wire::wire_type::length_delimited;
    f.tag = sl.ptr;
    f.payload = sl.ptr;
    f.raw = sl.raw;
    return msg.child(f);
}

// The region holding a repeated field: from its first occurrence to the end
// of the message (the whole merged message when it is one).
inline wire::message repeated_scope(const wire::message& msg, const slot& sl,
                                    std::uint32_t count) noexcept {
    if (count == 0 || msg.merged()) return msg;
    return wire::message(msg.base(), sl.ptr, msg.end(), msg.depth(), msg.max_depth());
}

// Storage for a value built in place only when it is needed: ranges and
// iterators over empty fields (most of an attribute's) build no message, no
// cursor and no current view. Even with a 40-byte message and a cursor that
// leaves its merge state unset, building them for every begin() and end()
// of the empty ranges cost 16% more instructions on the metadata walk
// (callgrind, bench/analysis.md).
template <class T>
union in_place {
    static_assert(std::is_trivially_copyable<T>::value && std::is_trivially_destructible<T>::value,
                  "kept in raw storage");
    T v;
    in_place() noexcept {}
};

}  // namespace detail

// A range over the views of a repeated message field, in wire order.
// size() is O(1); iteration is linear in the parent's fields from the first
// element on; at(i) is linear too.
template <class View>
class message_range {
public:
    message_range() noexcept = default;
    message_range(const wire::message& scope, std::uint32_t number, std::uint32_t count) noexcept
        : number_(number), count_(count) {
        if (count_ != 0) ::new (static_cast<void*>(&scope_.v)) wire::message(scope);
    }

    class iterator : public detail::input_iterator<iterator, View, const View&> {
    public:
        iterator() noexcept = default;
        explicit iterator(const message_range& r) noexcept
            : number_(r.number_), remaining_(r.count_) {
            if (remaining_ != 0) {  // an empty range builds no cursor
                ::new (static_cast<void*>(&cursor_.v)) wire::message::cursor(r.scope_.v);
                advance();
            }
        }
        // Valid while the iterator is not at the end.
        const View& operator*() const noexcept {
            ONNXVIEW_ASSERT(!done_, "dereferencing an end iterator");
            return current_.v;
        }
        const View* operator->() const noexcept {
            ONNXVIEW_ASSERT(!done_, "dereferencing an end iterator");
            return &current_.v;
        }

    private:
        friend detail::input_iterator<iterator, View, const View&>;
        bool at_end() const noexcept { return done_; }
        void advance() noexcept {
            if (remaining_ == 0) {
                done_ = true;
                return;
            }
            wire::field f;
            while (cursor_.v.next(f)) {
                if (f.number == number_ && f.type == wire::wire_type::length_delimited) {
                    --remaining_;
                    ::new (static_cast<void*>(&current_.v)) View(cursor_.v.child(f));
                    done_ = false;
                    return;
                }
            }
            done_ = true;  // the scope was validated when the parent was indexed
        }

        detail::in_place<wire::message::cursor> cursor_;  // built when the range is not empty
        std::uint32_t number_ = 0;
        std::uint32_t remaining_ = 0;
        bool done_ = true;
        // The current element, built in place by advance() and not before:
        // default-constructing a view (its counts zeroed) for every begin() and
        // end(), most of them over empty ranges, cost about a tenth of a
        // metadata walk (callgrind, bench/analysis.md).
        detail::in_place<View> current_;
    };

    iterator begin() const noexcept { return iterator(*this); }
    iterator end() const noexcept { return iterator(); }
    std::size_t size() const noexcept { return count_; }
    bool empty() const noexcept { return count_ == 0; }
    // The i-th element (linear); an empty view with errc::not_found past the end.
    View at(std::size_t i) const noexcept {
        for (const View& v : *this) {
            if (i-- == 0) return v;
        }
        return View(result<wire::message>(error(errc::not_found, 0)));
    }

private:
    detail::in_place<wire::message> scope_;  // built when count_ != 0
    std::uint32_t number_ = 0;
    std::uint32_t count_ = 0;
};

// A range over a repeated string/bytes field, as views into the buffer.
class string_range {
public:
    string_range() noexcept = default;
    string_range(const wire::message& scope, std::uint32_t number, std::uint32_t count) noexcept
        : number_(number), count_(count) {
        if (count_ != 0) ::new (static_cast<void*>(&scope_.v)) wire::message(scope);
    }

    class iterator : public detail::input_iterator<iterator, std::string_view> {
    public:
        iterator() noexcept = default;
        explicit iterator(const string_range& r) noexcept
            : number_(r.number_), remaining_(r.count_) {
            if (remaining_ != 0) {  // an empty range builds no cursor
                ::new (static_cast<void*>(&cursor_.v)) wire::message::cursor(r.scope_.v);
                advance();
            }
        }
        std::string_view operator*() const noexcept {
            ONNXVIEW_ASSERT(!done_, "dereferencing an end iterator");
            return current_;
        }

    private:
        friend detail::input_iterator<iterator, std::string_view>;
        bool at_end() const noexcept { return done_; }
        void advance() noexcept {
            if (remaining_ == 0) {
                done_ = true;
                return;
            }
            wire::field f;
            while (cursor_.v.next(f)) {
                if (f.number == number_ && f.type == wire::wire_type::length_delimited) {
                    --remaining_;
                    current_ = f.bytes();
                    done_ = false;
                    return;
                }
            }
            done_ = true;
        }

        detail::in_place<wire::message::cursor> cursor_;  // built when the range is not empty
        std::uint32_t number_ = 0;
        std::uint32_t remaining_ = 0;
        bool done_ = true;
        std::string_view current_;
    };

    iterator begin() const noexcept { return iterator(*this); }
    iterator end() const noexcept { return iterator(); }
    std::size_t size() const noexcept { return count_; }
    bool empty() const noexcept { return count_ == 0; }
    // The i-th string (linear); empty past the end.
    std::string_view at(std::size_t i) const noexcept {
        for (std::string_view s : *this) {
            if (i-- == 0) return s;
        }
        return std::string_view();
    }

private:
    detail::in_place<wire::message> scope_;  // built when count_ != 0
    std::uint32_t number_ = 0;
    std::uint32_t count_ = 0;
};

namespace detail {

// The common base of every typed view: the message, its error and its slots.
template <const auto& Layout>
class view_base {
public:
    static constexpr std::size_t slot_count = sizeof(Layout.fields) / sizeof(Layout.fields[0]);
    // The view's schema table, which cursor<View> (onnxview/cursor.hpp) reads too.
    static constexpr const auto& schema_layout = Layout;

    view_base() noexcept = default;
    explicit view_base(const result<wire::message>& m) noexcept {
        if (!m.ok()) {
            err_ = m.err();
            return;
        }
        msg_ = m.value();
        err_ = index_message(msg_, layout_, slots_.s, counts_);
    }

    // The first error met making this view or the views it was made from.
    error err() const noexcept { return err_; }
    bool ok() const noexcept { return err_.ok(); }
    // The underlying wire message (for printers and unknown fields).
    const wire::message& wire_message() const noexcept { return msg_; }

protected:
    bool has_(std::size_t s) const noexcept { return counts_[s] != 0; }
    std::uint64_t raw_(std::size_t s) const noexcept { return counts_[s] ? slots_.s[s].raw : 0; }
    std::int64_t int64_(std::size_t s) const noexcept { return static_cast<std::int64_t>(raw_(s)); }
    std::int32_t int32_(std::size_t s) const noexcept {
        return static_cast<std::int32_t>(static_cast<std::uint32_t>(raw_(s)));
    }
    float float_(std::size_t s) const noexcept {
        return wire::bits_to_float(static_cast<std::uint32_t>(raw_(s)));
    }
    double double_(std::size_t s) const noexcept { return wire::bits_to_double(raw_(s)); }
    std::string_view string_(std::size_t s) const noexcept {
        return counts_[s] ? std::string_view(slots_.s[s].ptr, static_cast<std::size_t>(slots_.s[s].raw))
                          : std::string_view();
    }
    // The raw number of a closed enum's last occurrence, valid or not (linear).
    std::int32_t enum_raw_(std::size_t s) const noexcept {
        field_scan f;
        bool found = false;
        if (msg_.find_last(Layout.fields[s].number, f, found).ok() && found &&
            f.type == wire::wire_type::varint)
            return f.as_int32();
        return int32_(s);
    }
    // A singular message field, merged over its occurrences.
    template <class View>
    View message_(std::size_t s) const noexcept {
        return View(singular_message(msg_, err_, slots_.s[s], counts_[s], layout_, s));
    }
    // The region holding a repeated field, starting at its first occurrence.
    wire::message scope_(std::size_t s) const noexcept {
        return repeated_scope(msg_, slots_.s[s], counts_[s]);
    }
    template <class View>
    message_range<View> messages_(std::size_t s) const noexcept {
        if (counts_[s] == 0) return message_range<View>();
        return message_range<View>(scope_(s), Layout.fields[s].number, counts_[s]);
    }
    string_range strings_(std::size_t s) const noexcept {
        if (counts_[s] == 0) return string_range();
        return string_range(scope_(s), Layout.fields[s].number, counts_[s]);
    }
    template <class Elem>
    wire::repeated<Elem> scalars_(std::size_t s) const noexcept {
        if (counts_[s] == 0) return wire::repeated<Elem>();
        return wire::repeated<Elem>(scope_(s), Layout.fields[s].number, counts_[s]);
    }

    using field_scan = wire::field;
    static constexpr layout_ref layout_ = {Layout.fields, slot_count, Layout.index_of, Layout.op_of_tag,
                                           Layout.slot_of_tag, Layout.oneof_next};
    wire::message msg_;
    error err_;
    std::uint32_t counts_[slot_count] = {};
    // Written by indexing where counts_ is not 0, never read elsewhere.
    union slot_storage {
        slot s[slot_count];
        slot_storage() noexcept {}
    } slots_;
};

}  // namespace detail
}  // namespace onnxview

#endif  // ONNXVIEW_VIEW_HPP
