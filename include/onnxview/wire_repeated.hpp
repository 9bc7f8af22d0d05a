// onnxview/wire_repeated.hpp - the elements of a repeated scalar field.
//
// Protobuf parsers must accept a repeated scalar field in packed form (one
// length-delimited chunk of elements), unpacked form (one field per element),
// or any mix of the two, whatever the schema declares; the elements are the
// concatenation in wire order. repeated<Elem> yields exactly that. An
// occurrence with any other wire type is an unknown field to libprotobuf, and
// is skipped here too.
#ifndef ONNXVIEW_WIRE_REPEATED_HPP
#define ONNXVIEW_WIRE_REPEATED_HPP

#include <new>

#include "onnxview/input_iterator.hpp"
#include "onnxview/wire_message.hpp"

namespace onnxview {
namespace wire {

// Element kinds: how a protobuf scalar type sits on the wire and becomes a
// C++ value. `width` is 0 for varints, else the fixed byte width.
template <class T, wire_type W, unsigned Width>
struct elem_kind {
    using value_type = T;
    static constexpr wire_type unpacked_type = W;
    static constexpr unsigned width = Width;
};
struct elem_int64 : elem_kind<std::int64_t, wire_type::varint, 0> {
    static std::int64_t from(std::uint64_t r) noexcept { return static_cast<std::int64_t>(r); }
};
struct elem_uint64 : elem_kind<std::uint64_t, wire_type::varint, 0> {
    static std::uint64_t from(std::uint64_t r) noexcept { return r; }
};
struct elem_int32 : elem_kind<std::int32_t, wire_type::varint, 0> {
    static std::int32_t from(std::uint64_t r) noexcept {
        return static_cast<std::int32_t>(static_cast<std::uint32_t>(r));
    }
};
struct elem_uint32 : elem_kind<std::uint32_t, wire_type::varint, 0> {
    static std::uint32_t from(std::uint64_t r) noexcept { return static_cast<std::uint32_t>(r); }
};
struct elem_bool : elem_kind<bool, wire_type::varint, 0> {
    static bool from(std::uint64_t r) noexcept { return r != 0; }
};
struct elem_sint32 : elem_kind<std::int32_t, wire_type::varint, 0> {
    static std::int32_t from(std::uint64_t r) noexcept {
        return zigzag_decode32(static_cast<std::uint32_t>(r));
    }
};
struct elem_sint64 : elem_kind<std::int64_t, wire_type::varint, 0> {
    static std::int64_t from(std::uint64_t r) noexcept { return zigzag_decode64(r); }
};
struct elem_float : elem_kind<float, wire_type::fixed32, 4> {
    static float from(std::uint64_t r) noexcept { return bits_to_float(static_cast<std::uint32_t>(r)); }
};
struct elem_double : elem_kind<double, wire_type::fixed64, 8> {
    static double from(std::uint64_t r) noexcept { return bits_to_double(r); }
};
struct elem_fixed32 : elem_kind<std::uint32_t, wire_type::fixed32, 4> {
    static std::uint32_t from(std::uint64_t r) noexcept { return static_cast<std::uint32_t>(r); }
};
struct elem_fixed64 : elem_kind<std::uint64_t, wire_type::fixed64, 8> {
    static std::uint64_t from(std::uint64_t r) noexcept { return r; }
};
struct elem_sfixed32 : elem_kind<std::int32_t, wire_type::fixed32, 4> {
    static std::int32_t from(std::uint64_t r) noexcept {
        return static_cast<std::int32_t>(static_cast<std::uint32_t>(r));
    }
};
struct elem_sfixed64 : elem_kind<std::int64_t, wire_type::fixed64, 8> {
    static std::int64_t from(std::uint64_t r) noexcept { return static_cast<std::int64_t>(r); }
};

// A forward range over the elements of repeated scalar field `number` in a
// message. Creating it is O(1); iterating is linear in the message's fields.
// When the caller knows how many occurrences the field has (`occurrences`,
// a packed chunk counting once), iteration stops after the last of them
// instead of reading the rest of the message; 0 means unknown.
// A malformed element ends the iteration early and is reported by err()
// afterwards; count() validates everything and reports the same error.
// The range must outlive its iterators.
template <class Elem>
class repeated {
public:
    using value_type = typename Elem::value_type;

    repeated() noexcept = default;
    repeated(const message& m, std::uint32_t number, std::uint32_t occurrences = 0) noexcept
        : msg_(m), number_(number), occurrences_(occurrences) {}

    class iterator : public detail::input_iterator<iterator, value_type> {
    public:
        iterator() noexcept = default;  // the end iterator
        explicit iterator(const repeated* owner) noexcept
            : owner_(owner), remaining_(owner->occurrences_ != 0 ? owner->occurrences_ + 1u : 0u) {
            if (owner->msg_.empty()) {  // an empty range (or field) builds no cursor
                owner_ = nullptr;
                return;
            }
            ::new (static_cast<void*>(&cursor_.c)) message::cursor(owner->msg_);
            advance();
        }
        value_type operator*() const noexcept {
            ONNXVIEW_ASSERT(owner_ != nullptr, "dereferencing an end iterator");
            return value_;
        }

    private:
        friend detail::input_iterator<iterator, value_type>;
        bool at_end() const noexcept { return owner_ == nullptr; }
        void advance() noexcept {
            for (;;) {
                if (p_ != packed_end_) {  // fixed-width chunks were checked to hold whole elements
                    std::uint64_t raw;
                    const errc e = next_packed(p_, packed_end_, Elem::width, raw);
                    if (e != errc::ok) return fail(error(e, owner_->msg_.offset_of(p_)));
                    value_ = Elem::from(raw);
                    return;
                }
                if (remaining_ == 1) return fail(error());  // the last occurrence is done
                field f;
                if (!cursor_.c.next(f)) return fail(cursor_.c.err());
                if (f.number != owner_->number_) continue;
                if (f.type == Elem::unpacked_type) {
                    if (remaining_ != 0) --remaining_;
                    value_ = Elem::from(f.raw);
                    return;
                }
                if (f.type == wire_type::length_delimited) {
                    if (remaining_ != 0) --remaining_;
                    if (Elem::width != 0 && f.raw % Elem::width != 0)
                        return fail(error(errc::bad_packed_length, owner_->msg_.offset_of(f.tag)));
                    p_ = f.payload;
                    packed_end_ = f.payload + f.raw;
                }
                // Any other wire type: an unknown field to libprotobuf; skip it.
            }
        }
        void fail(error e) noexcept {
            owner_->err_ = e;
            owner_ = nullptr;
        }

        // Built in place when the range is not empty: see begin().
        union cursor_storage {
            message::cursor c;
            cursor_storage() noexcept {}
        };
        const repeated* owner_ = nullptr;
        cursor_storage cursor_;
        const char* p_ = nullptr;
        const char* packed_end_ = nullptr;
        // Occurrences not yet started, plus one (0: unknown, read to the end).
        std::uint32_t remaining_ = 0;
        value_type value_{};
    };

    iterator begin() const noexcept {
        err_ = error();
        return iterator(this);
    }
    iterator end() const noexcept { return iterator(); }

    // The error that ended the last iteration early, if any.
    error err() const noexcept { return err_; }

    // Number of elements; validates every element. Linear in the message's
    // fields (packed fixed-width chunks count in O(1)).
    result<std::uint64_t> count() const noexcept {
        std::uint64_t n = 0;
        auto c = msg_.fields();
        field f;
        while (c.next(f)) {
            if (f.number != number_) continue;
            if (f.type == Elem::unpacked_type) {
                ++n;
            } else if (f.type == wire_type::length_delimited) {
                if (Elem::width != 0) {
                    if (f.raw % Elem::width != 0)
                        return error(errc::bad_packed_length, msg_.offset_of(f.tag));
                    n += f.raw / Elem::width;
                } else {
                    const char* p = f.payload;
                    const char* e = f.payload + f.raw;
                    while (p != e) {
                        std::uint64_t v;
                        const char* at = p;
                        const errc ec = decode_varint(p, e, v);
                        if (ec != errc::ok) return error(ec, msg_.offset_of(at));
                        ++n;
                    }
                }
            }
        }
        if (c.err()) return c.err();
        return n;
    }

    const message& msg() const noexcept { return msg_; }
    std::uint32_t number() const noexcept { return number_; }

private:
    message msg_;
    std::uint32_t number_ = 0;
    std::uint32_t occurrences_ = 0;
    mutable error err_;
};

}  // namespace wire
}  // namespace onnxview

#endif  // ONNXVIEW_WIRE_REPEATED_HPP
