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
// Lifetime: a view is valid while the bytes it was made over are.
#ifndef ONNXVIEW_VIEW_HPP
#define ONNXVIEW_VIEW_HPP

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <new>
#include <type_traits>
#include <string_view>

#include "onnxview/wire_repeated.hpp"

namespace onnxview {

// Options for opening a model; all-zero means the defaults.
struct parse_options {
    // Deepest message nesting accepted (root = 0). 0: 100, libprotobuf's
    // default, which also bounds subgraph and TypeProto nesting.
    std::uint32_t max_depth = 0;
};

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

template <std::size_t N>
struct message_layout {
    field_slot fields[N];
    std::uint8_t index_of[max_indexed_number];
};

template <std::size_t N>
constexpr message_layout<N> make_layout(const field_slot (&fields)[N]) {
    message_layout<N> l{};
    for (std::size_t i = 0; i < N; ++i) l.fields[i] = fields[i];
    for (std::uint32_t n = 0; n < max_indexed_number; ++n) l.index_of[n] = no_slot;
    for (std::size_t i = 0; i < N; ++i) l.index_of[fields[i].number] = static_cast<std::uint8_t>(i);
    return l;
}

// What indexing remembers of one schema field.
struct slot {
    const char* ptr = nullptr;  // singular: payload of the last occurrence; repeated: tag of the first
    std::uint64_t raw = 0;      // singular: value or length of the last occurrence
    std::uint32_t count = 0;    // number of occurrences (packed chunks count once)
};

// Whether a field's wire type is one libprotobuf reads for this kind of
// field (anything else makes the occurrence an unknown field).
inline bool wire_type_fits(slot_kind kind, wire::wire_type t) noexcept {
    using wt = wire::wire_type;
    switch (kind) {
        case slot_kind::varint:
        case slot_kind::closed_enum: return t == wt::varint;
        case slot_kind::fixed32: return t == wt::fixed32;
        case slot_kind::fixed64: return t == wt::fixed64;
        case slot_kind::len:
        case slot_kind::repeated_len: return t == wt::length_delimited;
        // Packable fields: protobuf parsers accept both encodings.
        case slot_kind::repeated_varint: return t == wt::varint || t == wt::length_delimited;
        case slot_kind::repeated_fixed32: return t == wt::fixed32 || t == wt::length_delimited;
        case slot_kind::repeated_fixed64: return t == wt::fixed64 || t == wt::length_delimited;
    }
    return false;
}

// The value of a singular message field: the one occurrence, all of them
// merged, or an empty message; an errored parent passes its error on.
inline result<wire::message> singular_message(const wire::message& msg, error err, const slot& sl,
                                              std::uint32_t number) noexcept {
    if (!err.ok()) return err;
    // Absent: an empty view, never an error - verify() promises that views
    // over verified bytes report none. A walk must recurse only into present
    // fields (has_x()): the chain of absent fields below an empty view has no
    // end, like the default values it stands for.
    if (sl.count == 0) return wire::message(msg.base(), msg.end(), msg.end(), msg.depth(), msg.max_depth());
    if (sl.count > 1) return msg.merged_child(number);
    wire::field f;
    f.type = wire::wire_type::length_delimited;
    f.tag = sl.ptr;
    f.payload = sl.ptr;
    f.raw = sl.raw;
    return msg.child(f);
}

// The region holding a repeated field: from its first occurrence to the end
// of the message (the whole merged message when it is one).
inline wire::message repeated_scope(const wire::message& msg, const slot& sl) noexcept {
    if (sl.count == 0 || msg.merged()) return msg;
    return wire::message(msg.base(), sl.ptr, msg.end(), msg.depth(), msg.max_depth());
}

// Fills slots from one pass over msg. On error every slot is left empty.
error index_message(const wire::message& msg, const field_slot* fields, std::size_t n,
                    const std::uint8_t* index_of, slot* slots) noexcept;

}  // namespace detail

// A range over the views of a repeated message field, in wire order.
// size() is O(1); iteration is linear in the parent's fields from the first
// element on; at(i) is linear too.
template <class View>
class message_range {
public:
    message_range() noexcept = default;
    message_range(const wire::message& scope, std::uint32_t number, std::uint32_t count) noexcept
        : scope_(scope), number_(number), count_(count) {}

    class iterator {
    public:
        using iterator_category = std::input_iterator_tag;
        using value_type = View;
        using difference_type = std::ptrdiff_t;
        using pointer = const View*;
        using reference = const View&;

        iterator() noexcept = default;
        explicit iterator(const message_range& r) noexcept
            : scope_(r.scope_), number_(r.number_), remaining_(r.count_) {
            if (remaining_ != 0) {  // an empty range builds no cursor
                cursor_ = r.scope_.fields();
                advance();
            }
        }
        // Valid while the iterator is not at the end.
        const View& operator*() const noexcept { return current_.v; }
        const View* operator->() const noexcept { return &current_.v; }
        iterator& operator++() noexcept {
            advance();
            return *this;
        }
        void operator++(int) noexcept { advance(); }
        friend bool operator==(const iterator& a, const iterator& b) noexcept {
            return a.done_ == b.done_;
        }
        friend bool operator!=(const iterator& a, const iterator& b) noexcept { return !(a == b); }

    private:
        void advance() noexcept {
            if (remaining_ == 0) {
                done_ = true;
                return;
            }
            wire::field f;
            while (cursor_.next(f)) {
                if (f.number == number_ && f.type == wire::wire_type::length_delimited) {
                    --remaining_;
                    ::new (static_cast<void*>(&current_.v)) View(scope_.child(f));
                    done_ = false;
                    return;
                }
            }
            done_ = true;  // the scope was validated when the parent was indexed
        }

        // The current element, built in place by advance() and not before:
        // default-constructing a view (its slots zeroed) for every begin() and
        // end(), most of them over empty ranges, cost about a tenth of a
        // metadata walk (callgrind, bench/analysis.md). Views are trivially
        // copyable and destructible.
        static_assert(std::is_trivially_copyable<View>::value &&
                          std::is_trivially_destructible<View>::value,
                      "views are kept in raw storage");
        union element {
            View v;
            element() noexcept {}
        };
        wire::message scope_;
        wire::message::cursor cursor_;
        std::uint32_t number_ = 0;
        std::uint32_t remaining_ = 0;
        bool done_ = true;
        element current_;
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
    wire::message scope_;
    std::uint32_t number_ = 0;
    std::uint32_t count_ = 0;
};

// A range over a repeated string/bytes field, as views into the buffer.
class string_range {
public:
    string_range() noexcept = default;
    string_range(const wire::message& scope, std::uint32_t number, std::uint32_t count) noexcept
        : scope_(scope), number_(number), count_(count) {}

    class iterator {
    public:
        using iterator_category = std::input_iterator_tag;
        using value_type = std::string_view;
        using difference_type = std::ptrdiff_t;
        using pointer = const std::string_view*;
        using reference = std::string_view;

        iterator() noexcept = default;
        explicit iterator(const string_range& r) noexcept
            : number_(r.number_), remaining_(r.count_) {
            if (remaining_ != 0) {  // an empty range builds no cursor
                cursor_ = r.scope_.fields();
                advance();
            }
        }
        std::string_view operator*() const noexcept { return current_; }
        iterator& operator++() noexcept {
            advance();
            return *this;
        }
        void operator++(int) noexcept { advance(); }
        friend bool operator==(const iterator& a, const iterator& b) noexcept {
            return a.done_ == b.done_;
        }
        friend bool operator!=(const iterator& a, const iterator& b) noexcept { return !(a == b); }

    private:
        void advance() noexcept {
            if (remaining_ == 0) {
                done_ = true;
                return;
            }
            wire::field f;
            while (cursor_.next(f)) {
                if (f.number == number_ && f.type == wire::wire_type::length_delimited) {
                    --remaining_;
                    current_ = f.bytes();
                    done_ = false;
                    return;
                }
            }
            done_ = true;
        }

        wire::message::cursor cursor_;
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
    wire::message scope_;
    std::uint32_t number_ = 0;
    std::uint32_t count_ = 0;
};

namespace detail {

// The common base of every typed view: the message, its error and its slots.
template <const auto& Layout>
class view_base {
public:
    static constexpr std::size_t slot_count = sizeof(Layout.fields) / sizeof(Layout.fields[0]);

    view_base() noexcept = default;
    explicit view_base(const result<wire::message>& m) noexcept {
        if (!m.ok()) {
            err_ = m.err();
            return;
        }
        msg_ = m.value();
        err_ = index_message(msg_, Layout.fields, slot_count, Layout.index_of, slots_);
    }

    // The first error met making this view or the views it was made from.
    error err() const noexcept { return err_; }
    bool ok() const noexcept { return err_.ok(); }
    // The underlying wire message (for printers and unknown fields).
    const wire::message& wire_message() const noexcept { return msg_; }

protected:
    bool has_(std::size_t s) const noexcept { return slots_[s].count != 0; }
    std::uint64_t raw_(std::size_t s) const noexcept { return slots_[s].raw; }
    std::int64_t int64_(std::size_t s) const noexcept {
        return static_cast<std::int64_t>(slots_[s].raw);
    }
    std::int32_t int32_(std::size_t s) const noexcept {
        return static_cast<std::int32_t>(static_cast<std::uint32_t>(slots_[s].raw));
    }
    float float_(std::size_t s) const noexcept {
        return wire::bits_to_float(static_cast<std::uint32_t>(slots_[s].raw));
    }
    double double_(std::size_t s) const noexcept { return wire::bits_to_double(slots_[s].raw); }
    std::string_view string_(std::size_t s) const noexcept {
        return slots_[s].count ? std::string_view(slots_[s].ptr, static_cast<std::size_t>(slots_[s].raw))
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
        return View(singular_message(msg_, err_, slots_[s], Layout.fields[s].number));
    }
    // The region holding a repeated field, starting at its first occurrence.
    wire::message scope_(std::size_t s) const noexcept { return repeated_scope(msg_, slots_[s]); }
    template <class View>
    message_range<View> messages_(std::size_t s) const noexcept {
        return message_range<View>(scope_(s), Layout.fields[s].number, slots_[s].count);
    }
    string_range strings_(std::size_t s) const noexcept {
        return string_range(scope_(s), Layout.fields[s].number, slots_[s].count);
    }
    template <class Elem>
    wire::repeated<Elem> scalars_(std::size_t s) const noexcept {
        if (slots_[s].count == 0) return wire::repeated<Elem>();
        return wire::repeated<Elem>(scope_(s), Layout.fields[s].number);
    }

    using field_scan = wire::field;
    wire::message msg_;
    error err_;
    slot slots_[slot_count];
};

}  // namespace detail
}  // namespace onnxview

#endif  // ONNXVIEW_VIEW_HPP
