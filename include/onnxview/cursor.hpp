// onnxview/cursor.hpp - one forward pass over a model, each field decoded once.
//
// Views (onnxview/model.hpp) index a message when they are made, so that any
// accessor in any order is O(1); a walk over everything then decodes each
// repeated element twice (once by the index, once by the range). A cursor is
// the other way round: it hands out a message's schema fields in wire order,
// one at a time, and decodes each exactly once - the fastest way to visit a
// whole model (bench/RESULTS.md). Nothing is copied or allocated.
//
//   auto c = onnxview::model_cursor(data, size);
//   while (std::uint32_t n = c.next()) {
//       switch (n) {
//           case model_view::field::producer_name: use(c.as_string()); break;
//           case model_view::field::graph: walk_graph(c.message<graph_view>()); break;
//       }
//   }
//   if (!c.ok()) { /* c.err().code, c.err().offset */ }
//
// What next() yields: the fields of View's schema whose wire type that schema
// reads, as libprotobuf does. Unknown fields, known fields with another wire
// type and out-of-range values of closed enums are unknown fields to
// libprotobuf, and are skipped. A packed chunk of a repeated scalar is checked
// before its elements are read: a fixed-width one must hold whole elements
// (checked when it is yielded), a varint one complete varints (checked by
// elements(), so that a walk that skips the chunk does not read it). What a
// walk does not read it does not check: verify() checks everything.
//
// What the caller applies, because a cursor keeps no state across fields:
//   * a singular field may occur more than once: the last occurrence wins;
//   * a singular message field that occurs more than once means the merge of
//     its occurrences; the cursor yields each occurrence;
//   * a oneof member clears the others: the last member yielded wins.
// Views apply all three (onnxview/view.hpp); a cursor and a view can be mixed:
// message_view<T>() makes a view of the current field, view() of the
// message being walked.
//
// Errors: next() returns 0 at the end of the message and on malformed bytes;
// err() then tells which (error code, offset of the offending byte from the
// start of the root buffer). A child cursor reports its own errors; nesting
// deeper than options::max_message_depth makes a child that fails with
// depth_exceeded. A cursor is valid while the bytes are.
#ifndef ONNXVIEW_CURSOR_HPP
#define ONNXVIEW_CURSOR_HPP

#include "onnxview/model.hpp"

// Keeps a cold path out of the loop it is called from.
#if defined(_MSC_VER)
#define ONNXVIEW_NOINLINE __declspec(noinline)
#elif defined(__GNUC__)
#define ONNXVIEW_NOINLINE __attribute__((noinline))
#else
#define ONNXVIEW_NOINLINE
#endif

namespace onnxview {

// The elements of one occurrence of a repeated scalar field: one unpacked
// element, or a packed chunk already checked by the cursor that made it.
// Elem is one of wire::elem_int64, elem_int32, elem_uint64, elem_float,
// elem_double (see onnxview/wire_repeated.hpp).
template <class Elem>
class occurrence {
public:
    using value_type = typename Elem::value_type;

    occurrence() noexcept = default;
    // One unpacked element with this raw value.
    explicit occurrence(std::uint64_t raw) noexcept : single_(raw), has_single_(true) {}
    // The packed elements in [begin, end).
    occurrence(const char* begin, const char* end) noexcept : begin_(begin), end_(end) {}

    class iterator : public detail::input_iterator<iterator, value_type> {
    public:
        iterator() noexcept = default;
        explicit iterator(const occurrence& o) noexcept
            : p_(o.begin_), end_(o.end_), raw_(o.single_), single_left_(o.has_single_), done_(false) {
            advance();
        }
        value_type operator*() const noexcept { return Elem::from(raw_); }

    private:
        friend detail::input_iterator<iterator, value_type>;
        bool at_end() const noexcept { return done_; }
        void advance() noexcept {
            if (single_left_) {
                single_left_ = false;
                return;
            }
            // A whole element left, whatever the chunk: elements() may be
            // called on a field that is not a checked chunk (a malformed
            // element ends it; never one elements() checked).
            done_ = p_ == end_ || wire::next_packed(p_, end_, Elem::width, raw_) != errc::ok;
        }

        const char* p_ = nullptr;
        const char* end_ = nullptr;
        std::uint64_t raw_ = 0;
        bool single_left_ = false;
        bool done_ = true;
    };

    iterator begin() const noexcept { return iterator(*this); }
    iterator end() const noexcept { return iterator(); }
    // The number of elements: O(1), except for packed varints (linear in the
    // chunk).
    std::size_t size() const noexcept {
        if (has_single_) return 1;
        if (Elem::width != 0) return static_cast<std::size_t>(end_ - begin_) / Elem::width;
        std::size_t n = 0;
        for (const char* p = begin_; p != end_; ++p) n += static_cast<std::uint8_t>(*p) < 0x80;
        return n;
    }

private:
    const char* begin_ = nullptr;
    const char* end_ = nullptr;
    std::uint64_t single_ = 0;
    bool has_single_ = false;
};

namespace detail {

// What cursor::next() does with a field whose tag is below 256, per view.
enum class cursor_step : std::uint8_t {
    generic,                                                  // the reader's path
    skip_varint, skip_fixed64, skip_len, skip_fixed32,        // unknown fields
    varint, fixed64, len, fixed32,                            // yield as it is
    closed_enum,  // yield when the value is in range
    packed,       // a packed chunk of fixed-width scalars: yield when its elements are whole
    // (a packed chunk of varints is yielded as `len`: elements() checks it)
};

struct cursor_steps {
    cursor_step of_tag[tag_table_size];
    // Values of one or two varint bytes that next() yields inline: all of
    // them for a varint field, those in range for a closed enum, none for
    // the other steps. One comparison instead of a branch per kind: fields
    // of both kinds alternate in an attribute.
    std::uint16_t varint_limit[tag_table_size];
};

template <std::size_t N>
constexpr cursor_steps make_cursor_steps(const message_layout<N>& l) {
    cursor_steps s{};
    for (std::uint32_t tag = 0; tag < tag_table_size; ++tag) {
        const tag_op op = l.op_of_tag[tag];
        const std::uint32_t wt = tag & 7;
        const int by_type = wt == 0 ? 0 : wt == 1 ? 1 : wt == 2 ? 2 : 3;
        if (op == tag_op::generic) {
            s.of_tag[tag] = cursor_step::generic;
        } else if (op <= tag_op::skip_fixed32) {
            s.of_tag[tag] = static_cast<cursor_step>(static_cast<int>(cursor_step::skip_varint) + by_type);
        } else {
            const field_slot& f = l.fields[l.slot_of_tag[tag]];
            if (f.kind == slot_kind::closed_enum) {
                s.of_tag[tag] = cursor_step::closed_enum;
                // The values closed_enum_takes() accepts that fit in two varint bytes.
                s.varint_limit[tag] = static_cast<std::uint16_t>(f.enum_max >= 16383 ? 16384 : f.enum_max + 1);
            } else if (wt == 2 && (f.kind == slot_kind::repeated_fixed32 || f.kind == slot_kind::repeated_fixed64)) {
                s.of_tag[tag] = cursor_step::packed;
            } else {
                s.of_tag[tag] = static_cast<cursor_step>(static_cast<int>(cursor_step::varint) + by_type);
                if (wt == 0) s.varint_limit[tag] = 16384;  // every value of two varint bytes
            }
        }
    }
    return s;
}

}  // namespace detail

// A forward cursor over the schema fields of one message of type View
// (model_view, graph_view, node_view, ...). Trivially copyable: a copy
// remembers the position.
template <class View>
class cursor {
    static constexpr const auto& layout = View::schema_layout;
    using step = detail::cursor_step;
    static constexpr detail::cursor_steps steps = detail::make_cursor_steps(layout);

public:
    // A cursor with no fields.
    cursor() noexcept = default;
    // A cursor that yields nothing and reports e.
    explicit cursor(error e) noexcept : err_(e) {}
    // The message in [begin, end) at nesting depth `depth` (root = 0); base is
    // the start of the root buffer, from which error offsets count.
    cursor(const char* base, const char* begin, const char* end, std::uint32_t depth = 0,
           std::uint32_t max_depth = wire::default_max_depth) noexcept
        : base_(base), begin_(begin), p_(begin), end_(end), depth_(depth), max_depth_(max_depth) {}

    // Moves to the next schema field and returns its number (View::field::x);
    // 0 at the end of the message or on an error (see err()).
    std::uint32_t next() noexcept {
        while (p_ != end_) {
            // Most ONNX fields are strings, messages or small varints with a
            // tag of one or two bytes and a length or value of one or two:
            // decoded here, one table lookup deciding. The rest is out of line.
            const char* q = p_;
            std::uint32_t tag;
            const bool tabled = wire::decode_short_tag(q, end_, tag);
            std::uint64_t raw;
            if (tabled && wire::decode_short_varint(q, end_, raw)) {
                const step s = steps.of_tag[tag];
                // Compare with the bytes remaining, never form q + raw first.
                if (s == step::len && raw <= static_cast<std::uint64_t>(end_ - q)) {
                    yield(p_, tag >> 3, q, raw, wire::wire_type::length_delimited);
                    p_ = q + raw;
                    return number_;
                }
                if (raw < steps.varint_limit[tag]) {  // a varint field, an enum in range
                    yield(p_, tag >> 3, q, raw, wire::wire_type::varint);
                    p_ = q;
                    return number_;
                }
            }
            const slow_field f = next_slow(base_, p_, end_, depth_, max_depth_);
            if (!f.err.ok()) return stop(f.err);
            p_ = f.next;
            if (f.number == skipped) continue;
            yield(f.tag, f.number, f.payload, f.raw, f.type);
            return number_;
        }
        return 0;
    }

    // The current field (after next() returned its number).
    std::uint32_t number() const noexcept { return number_; }
    wire::wire_type type() const noexcept { return type_; }
    // string and bytes fields (and packed chunks): the payload; empty for
    // fields of other wire types.
    std::string_view as_string() const noexcept {
        ONNXVIEW_ASSERT(number_ != 0, "reading a cursor's field before next() returned one");
        if (type_ != wire::wire_type::length_delimited) return std::string_view();
        return std::string_view(payload_, static_cast<std::size_t>(raw_));
    }
    // Scalar fields, as protobuf converts them (int32 and enums: the low 32
    // bits of a possibly 64-bit varint). Closed enums are in range.
    std::int64_t as_int64() const noexcept { return static_cast<std::int64_t>(current_raw()); }
    std::uint64_t as_uint64() const noexcept { return current_raw(); }
    std::int32_t as_int32() const noexcept {
        return static_cast<std::int32_t>(static_cast<std::uint32_t>(current_raw()));
    }
    float as_float() const noexcept { return wire::bits_to_float(static_cast<std::uint32_t>(current_raw())); }
    double as_double() const noexcept { return wire::bits_to_double(current_raw()); }
    // A repeated scalar field's occurrence: one element or a packed chunk
    // (on another length-delimited field, its bytes read as a chunk).
    // A chunk of varints is checked here rather than by next(), so that a
    // walk pays only for the chunks it reads: a malformed one is then the
    // cursor's error (no elements; next() returns 0).
    template <class Elem>
    occurrence<Elem> elements() noexcept {
        ONNXVIEW_ASSERT(number_ != 0, "reading a cursor's field before next() returned one");
        if (type_ == wire::wire_type::length_delimited) {
            const char* bad = nullptr;
            const errc e = Elem::width == 0 ? wire::check_varints(payload_, payload_ + raw_, bad) : errc::ok;
            if (e != errc::ok) {
                stop(error(e, static_cast<std::uint64_t>(bad - base_)));
                return occurrence<Elem>();
            }
            return occurrence<Elem>(payload_, payload_ + raw_);
        }
        if (type_ == Elem::unpacked_type) return occurrence<Elem>(raw_);
        return occurrence<Elem>();
    }
    // A message field's occurrence, as a cursor over its fields (the checks
    // of wire::message::child(), without building a message).
    template <class Child>
    cursor<Child> message() const noexcept {
        ONNXVIEW_ASSERT(number_ != 0, "reading a cursor's field before next() returned one");
        if (type_ != wire::wire_type::length_delimited) return cursor<Child>(error(errc::bad_wire_type, offset()));
        if (depth_ + 1 > max_depth_) return cursor<Child>(error(errc::depth_exceeded, offset()));
        return cursor<Child>(base_, payload_, payload_ + raw_, depth_ + 1, max_depth_);
    }
    // A message field's occurrence, as a view (indexed now, O(1) accessors).
    template <class Child>
    Child message_view() const noexcept {
        ONNXVIEW_ASSERT(number_ != 0, "reading a cursor's field before next() returned one");
        wire::field f;
        f.tag = tag_;
        f.payload = payload_;
        f.raw = raw_;
        f.type = type_;
        f.number = number_;
        return Child(wire::message(base_, begin_, end_, depth_, max_depth_).child(f));
    }
    // The message this cursor walks, as a view.
    View view() const noexcept {
        if (!err_.ok()) return View(result<wire::message>(err_));
        return View(result<wire::message>(wire::message(base_, begin_, end_, depth_, max_depth_)));
    }

    error err() const noexcept { return err_; }
    bool ok() const noexcept { return err_.ok(); }
    // Offset of the current field's tag in the root buffer.
    std::uint64_t offset() const noexcept { return static_cast<std::uint64_t>(tag_ - base_); }
    std::uint32_t depth() const noexcept { return depth_; }

private:
    static constexpr std::uint32_t skipped = ~std::uint32_t(0);

    std::uint64_t current_raw() const noexcept {
        ONNXVIEW_ASSERT(number_ != 0, "reading a cursor's field before next() returned one");
        return raw_;
    }

    // A field decoded out of line: where the next one starts, and the field
    // (number == skipped: an unknown field) or the error.
    struct slow_field {
        const char* next;
        const char* tag;
        const char* payload;
        std::uint64_t raw;
        std::uint32_t number;
        wire::wire_type type;
        error err;
    };

    // One field that next() does not decode inline. Static, and the state
    // passed by value, so that the cursor's own fields can stay in registers
    // in the caller's loop (a member function would take its address).
    static ONNXVIEW_NOINLINE slow_field next_slow(const char* base, const char* p, const char* end,
                                                  std::uint32_t depth, std::uint32_t max_depth) noexcept {
        const char* q = p;
        std::uint32_t tag;
        if (!wire::decode_short_tag(q, end, tag)) return generic_step(base, p, end, depth, max_depth);
        const step s = steps.of_tag[tag];
        // Groups, numbers 0 and 32 and up, malformed values: the reader,
        // which also names the error.
        if (s == step::generic) return generic_step(base, p, end, depth, max_depth);
        slow_field f{nullptr, p, q, 0, skipped, static_cast<wire::wire_type>(tag & 7), error()};
        if (!decode_value(tag & 7, q, end, f.payload, f.raw)) return generic_step(base, p, end, depth, max_depth);
        f.next = q;
        if (s <= step::skip_fixed32) return f;  // an unknown field
        accept(f, layout.fields[layout.slot_of_tag[tag]], base);
        return f;
    }

    // The reader's path: decodes the field at p (or names its error) and
    // classifies it as next_slow() does. Out of line: it is rare (groups,
    // long tags, malformed input), and inlined it made next_slow() call the
    // varint decoder out of line instead (bench/analysis.md, 2026-12-06).
    static ONNXVIEW_NOINLINE slow_field generic_step(const char* base, const char* p, const char* end,
                                                     std::uint32_t depth, std::uint32_t max_depth) noexcept {
        wire::reader r(base, p, end, depth, max_depth);
        wire::field wf;
        slow_field f{nullptr, nullptr, nullptr, 0, skipped, wire::wire_type::varint, r.next(wf)};
        if (!f.err.ok()) return f;
        f.next = r.position();
        f.tag = wf.tag;
        f.payload = wf.payload;
        f.raw = wf.raw;
        f.type = wf.type;
        if (wf.number >= detail::max_indexed_number) return f;
        const std::uint8_t i = layout.index_of[wf.number];
        if (i == detail::no_slot || !detail::wire_type_fits(layout.fields[i].kind, wf.type)) return f;
        accept(f, layout.fields[i], base);
        return f;
    }

    // Makes f View's field fs when libprotobuf would read it so: its number;
    // otherwise it stays skipped, or gets an error for a bad packed chunk.
    static void accept(slow_field& f, const detail::field_slot& fs, const char* base) noexcept {
        using detail::slot_kind;
        if (fs.kind == slot_kind::closed_enum) {
            if (!wire::closed_enum_takes(f.raw, fs.enum_max)) return;
        } else if (f.type == wire::wire_type::length_delimited && fs.kind != slot_kind::len &&
                   fs.kind != slot_kind::repeated_len) {
            f.err = check_packed(fs.kind, f.tag, f.payload, f.payload + f.raw, base);
            if (!f.err.ok()) return;
        }
        f.number = fs.number;
    }

    // A packed fixed-width chunk must hold whole elements, as libprotobuf
    // requires (varint chunks are checked by elements()).
    static error check_packed(detail::slot_kind kind, const char* tag, const char* p, const char* end,
                              const char* base) noexcept {
        const auto size = static_cast<std::uint64_t>(end - p);
        if ((kind == detail::slot_kind::repeated_fixed32 && size % 4 != 0) ||
            (kind == detail::slot_kind::repeated_fixed64 && size % 8 != 0))
            return error(errc::bad_packed_length, static_cast<std::uint64_t>(tag - base));
        return error();
    }

    // The value of a field of wire type wt (0, 1, 2 or 5) that starts at q.
    static bool decode_value(std::uint32_t wt, const char*& q, const char* end, const char*& payload,
                             std::uint64_t& raw) noexcept {
        using wire::wire_type;
        switch (wt) {
            case 0: return wire::decode_value<wire_type::varint>(q, end, payload, raw);
            case 1: return wire::decode_value<wire_type::fixed64>(q, end, payload, raw);
            case 2: return wire::decode_value<wire_type::length_delimited>(q, end, payload, raw);
            default: return wire::decode_value<wire_type::fixed32>(q, end, payload, raw);  // the table sends 3, 4, 6, 7 to the reader
        }
    }

    void yield(const char* tag, std::uint32_t number, const char* payload, std::uint64_t raw,
               wire::wire_type type) noexcept {
        tag_ = tag;
        payload_ = payload;
        raw_ = raw;
        type_ = type;
        number_ = number;
    }

    // Ends the walk with e: next() returns 0 from now on.
    std::uint32_t stop(error e) noexcept {
        err_ = e;
        p_ = end_;
        number_ = 0;
        return 0;
    }

    const char* base_ = nullptr;
    const char* begin_ = nullptr;
    const char* p_ = nullptr;
    const char* end_ = nullptr;
    const char* tag_ = nullptr;
    const char* payload_ = nullptr;
    std::uint64_t raw_ = 0;
    std::uint32_t number_ = 0;
    wire::wire_type type_ = wire::wire_type::varint;
    std::uint32_t depth_ = 0;
    std::uint32_t max_depth_ = wire::default_max_depth;
    error err_;
};

// A cursor over a root message of type View in [data, data + size).
template <class View>
cursor<View> cursor_as(const void* data, std::size_t size, const options& opts = {}) noexcept {
    const char* p = static_cast<const char*>(data);
    return cursor<View>(p, p, p + size, 0, wire::effective_max_depth(opts.max_message_depth));
}
inline cursor<model_view> model_cursor(const void* data, std::size_t size,
                                       const options& opts = {}) noexcept {
    return cursor_as<model_view>(data, size, opts);
}

}  // namespace onnxview

#undef ONNXVIEW_NOINLINE

#endif  // ONNXVIEW_CURSOR_HPP
