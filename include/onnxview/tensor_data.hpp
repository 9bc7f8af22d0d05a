// onnxview/tensor_data.hpp - the elements of a tensor, wherever they live.
//
// A TensorProto keeps its payload in one of three places: `raw_data`
// (little-endian fixed-width bytes), a typed repeated field (`float_data`,
// `int32_data`, ... - protobuf varints or fixed32/fixed64), or an external
// file (data_location == EXTERNAL). tensor_data hides the difference:
//
//   auto d = onnxview::tensor_data::make(t);          // t: any tensor_view
//   if (!d) return d.err();                           // size, type, dims checked here
//   for (float x : d->elements<float>()) ...          // natural type, any storage
//   for (double x : d->scalars<double>()) ...         // any numeric type, converted
//   (a range made for the wrong type is empty and carries err())
//   auto s = d->as_span<float>();                     // zero-copy, when possible
//   std::vector<float> v(d->size());
//   d->copy_to(v.data(), v.size());                   // copy-out, any storage
//
// A tensor_view may come from an initializer, an attribute (t / tensors),
// a sparse tensor's values/indices, a sequence/optional, or a standalone
// TensorProto file (parse_tensor); all are the same here.
//
// Natural element types (element_type_t<D> below): FLOAT float; UINT8
// uint8_t; INT8 int8_t; UINT16 uint16_t; INT16 int16_t; INT32 int32_t; INT64
// int64_t; STRING std::string_view; BOOL bool; FLOAT16 and BFLOAT16 the
// uint16_t bit pattern; DOUBLE double; UINT32 uint32_t; UINT64 uint64_t;
// COMPLEX64 std::complex<float>; COMPLEX128 std::complex<double>; the FLOAT8
// types, FLOAT8E8M0 and FLOAT4E2M1 the uint8_t bit pattern; UINT4/UINT2
// uint8_t and INT4/INT2 int8_t, one unpacked (sign-extended) value per
// element. Narrow-float patterns decode with onnxview/float_formats.hpp, or
// all at once through scalars<float/double>() and copy_as().
//
// Strictness (more than onnx.checker, which only asks for "at least"):
//   - element count = product of dims; empty dims = scalar (1 element); a
//     negative dim or a product (or byte size) above 2^64-1 -> bad_dims.
//   - raw_data and external payloads must be EXACTLY ceil(N x bits / 8)
//     bytes (4-bit: ceil(N/2), 2-bit: ceil(N/4)); shorter or longer ->
//     payload_size_mismatch.
//   - the typed field must hold EXACTLY N entries (2N for complex; ceil(N/2)
//     or ceil(N/4) packed bytes, one byte per int32 entry, for the 4-bit and
//     2-bit types as the proto comment and the Python helper write them -
//     the checker's 8-or-16-per-entry lower bound is not accepted);
//     otherwise payload_size_mismatch. N > 0 with no payload at all is a
//     payload_size_mismatch too.
//   - int32_data entries are masked to the element width (low 8 or 16 bits),
//     never range-checked: writers disagree about sign (see the schema notes),
//     and numpy_helper masks too. Padding bits of the last sub-byte byte are
//     ignored.
//   - payload in a typed field that does not belong to the data type (e.g.
//     int64_data for FLOAT) -> bad_data_type; raw_data together with a
//     non-empty typed field, or an EXTERNAL tensor with any inline payload ->
//     payload_size_mismatch; STRING with raw_data or EXTERNAL -> bad_data_type;
//     UNDEFINED (0) or an unknown number (e.g. 99) -> bad_data_type.
//   - an EXTERNAL tensor needs an external_payload_source; without one ->
//     invalid_argument.
//   - `segment` is not interpreted (the inclusivity of its `end` is not
//     specified and numpy_helper refuses such tensors): a segmented tensor
//     is checked against its dims like any other; read t.segment() yourself.
//
// Cost and copies. make() is linear in the tensor's own fields (it counts
// the typed field's entries; raw_data is checked in O(1)); it allocates
// nothing and copies nothing. elements(), scalars() and strings() decode on
// the fly: no copy of the payload, one element at a time (raw: memcpy of one
// little-endian element, so unaligned bytes and big-endian hosts are fine).
// as_span() is the only zero-copy *array* view; copy_to() and copy_as() copy
// into the caller's buffer. at(k) is O(1) for raw/external payloads and
// O(k) for typed ones.
//
// Lifetime: a tensor_data, its ranges and spans are valid while the model
// bytes (and, for external tensors, the bytes returned by the source) are.
#ifndef ONNXVIEW_TENSOR_DATA_HPP
#define ONNXVIEW_TENSOR_DATA_HPP

#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <string_view>
#include <type_traits>

#include "onnxview/data_types.hpp"
#include "onnxview/enums.hpp"
#include "onnxview/float_formats.hpp"
#include "onnxview/model.hpp"

namespace onnxview {

// ---------------------------------------------------------------------------
// Where the payload lives.

enum class storage_kind : std::uint8_t {
    none,      // no payload (only for 0 elements)
    raw,       // raw_data
    typed,     // the typed field (float_data, int32_data, ...)
    external,  // an external file (data_location == EXTERNAL)
};
const char* storage_kind_name(storage_kind k) noexcept;  // "none", "raw", "typed", "external"

struct storage_info {
    storage_kind kind = storage_kind::none;
    std::int32_t data_type = 0;
    typed_field field = typed_field::none;  // the typed field of this data type
    std::uint64_t element_count = 0;
    // Bytes of the payload in its raw_data form: ceil(N x bits / 8) (0 for
    // STRING). For raw and external storage this is the stored size.
    std::uint64_t byte_size = 0;
    // typed: entries in the typed field (2N for complex, ceil(N/2) or
    // ceil(N/4) for sub-byte types); STRING: N; else 0.
    std::uint64_t entry_count = 0;
    // raw: offset of raw_data's first byte in the root buffer; typed: offset
    // of the typed field's first tag; external: the `offset` entry (0 when
    // absent or not a decimal number); none: offset of the tensor.
    std::uint64_t offset = 0;
    // raw: the largest power of two (up to 4096) dividing the payload's
    // address; external: the same for the file offset (the address is known
    // only once fetched - see tensor_data::bytes()); typed and none: 0.
    std::uint32_t alignment = 0;
    // external: the `location` entry.
    std::string_view location;
};

// Validates t's type, dims and payload size (all rules at the top of this
// file) and says where the payload lives, without fetching external bytes.
// Linear in the tensor's own fields; allocates nothing.
result<storage_info> describe_storage(const tensor_view& t) noexcept;

// Product of the dims of `dims` (a TensorProto's or SparseTensorProto's).
// Empty: 1. Errors: bad_dims (negative dim, product above 2^64-1), or the
// wire error of a malformed dims field.
result<std::uint64_t> element_count(const wire::repeated<wire::elem_int64>& dims) noexcept;
inline result<std::uint64_t> element_count(const tensor_view& t) noexcept {
    if (!t.ok()) return t.err();
    return element_count(t.dims());
}

// Bytes of `count` elements of a type in raw_data form; bad_dims on overflow,
// bad_data_type for STRING.
result<std::uint64_t> payload_bytes(const data_type_info& info, std::uint64_t count) noexcept;

// The typed fields of TensorProto, in field-number order.
inline constexpr typed_field all_typed_fields[] = {
    typed_field::float_data, typed_field::int32_data,  typed_field::string_data,
    typed_field::int64_data, typed_field::double_data, typed_field::uint64_data,
};

// Entries in t's typed field `f`, packed and unpacked occurrences together
// (string_data: the strings); 0 when the field is absent or f is none.
// Errors: the wire error of a malformed packed chunk. O(1) per fixed-width
// packed chunk, linear in the bytes of a varint one.
result<std::uint64_t> typed_entry_count(const tensor_view& t, typed_field f) noexcept;

// Entries the typed field must hold for `count` elements of a type (the
// rule at the top of this file): count, 2 x count for complex, ceil(count/2)
// or ceil(count/4) packed bytes for the 4-bit and 2-bit types; STRING: one
// string per element. bad_dims on overflow.
result<std::uint64_t> required_typed_entries(const data_type_info& info, std::uint64_t count) noexcept;

// What a tensor's external_data entries say about where its payload lives.
// Only the model's own strings: the io layer (external_data.hpp) applies the
// strict rules when it opens the file. Linear in the entries.
struct external_location {
    bool has_location = false;  // a `location` entry exists (its value may be empty)
    std::string_view location;  // the last `location` entry
    std::uint64_t offset = 0;   // the last `offset` entry; 0 when absent or not a plain decimal
};
external_location find_external_location(const tensor_view& t) noexcept;

// ---------------------------------------------------------------------------
// External payloads. The model layer never opens files: it asks this
// callback for the bytes of an EXTERNAL tensor (see onnxview/external_source.hpp
// for an adapter over external_data_resolver). `fetch` must return exactly
// the tensor's payload (raw_data layout) or an error; the bytes must stay
// valid as long as the tensor_data made from them is used. `expected_bytes`
// is dims x element size (already validated). All-zero: no source.
struct external_payload_source {
    void* user = nullptr;
    result<std::string_view> (*fetch)(void* user, const tensor_view& t,
                                      std::uint64_t expected_bytes) = nullptr;
};

namespace detail {

// 2^k for the largest k with 2^k | v, capped at 4096 (v = 0 gives 4096).
inline std::uint32_t alignment_of(std::uint64_t v) noexcept {
    std::uint32_t a = 1;
    while (a < 4096 && (v & a) == 0) a <<= 1;
    return a;
}

inline std::int64_t sign_extend(std::uint64_t v, unsigned bits) noexcept {
    if (bits >= 64) return static_cast<std::int64_t>(v);
    const std::uint64_t m = std::uint64_t(1) << (bits - 1);
    v &= (m << 1) - 1;
    return static_cast<std::int64_t>((v ^ m) - m);
}

inline std::uint64_t mask_bits(std::uint64_t v, unsigned bits) noexcept {
    return bits >= 64 ? v : v & ((std::uint64_t(1) << bits) - 1);
}

// double -> float without undefined behaviour for values beyond FLT_MAX:
// they round (to nearest even) to +-FLT_MAX or +-inf as IEEE would.
inline float narrow_to_float(double d) noexcept {
    const double a = d < 0 ? -d : d;
    if (a > static_cast<double>(std::numeric_limits<float>::max()) && a == a) {
        const float big = a < 0x1.ffffffp+127 ? std::numeric_limits<float>::max()
                                              : std::numeric_limits<float>::infinity();
        return d < 0 ? -big : big;
    }
    return static_cast<float>(d);
}

// The raw 64-bit values of a repeated scalar field, packed or unpacked,
// `width` 0 (varint), 4 (fixed32) or 8 (fixed64). Same rules as
// wire::repeated (other wire types are skipped), so it yields exactly the
// entries wire::repeated<...>::count() counted. Stops at the first error.
class entry_reader {
public:
    entry_reader() noexcept = default;
    entry_reader(const wire::message& scope, std::uint32_t number, unsigned width) noexcept
        : cursor_(scope.fields()), number_(number), width_(static_cast<std::uint8_t>(width)) {}

    bool next(std::uint64_t& raw) noexcept {
        for (;;) {
            if (p_ != end_) {
                if (width_ == 0) {
                    if (wire::decode_varint(p_, end_, raw) != errc::ok) return stop();
                } else if (width_ == 4) {
                    if (end_ - p_ < 4) return stop();
                    raw = wire::load_le32(p_);
                    p_ += 4;
                } else {
                    if (end_ - p_ < 8) return stop();
                    raw = wire::load_le64(p_);
                    p_ += 8;
                }
                return true;
            }
            if (number_ == 0) return false;
            wire::field f;
            if (!cursor_.next(f)) return stop();
            if (f.number != number_) continue;
            if (f.type == wire::wire_type::length_delimited) {
                p_ = f.payload;
                end_ = f.payload + f.raw;
                continue;
            }
            const wire::wire_type want = width_ == 0   ? wire::wire_type::varint
                                         : width_ == 4 ? wire::wire_type::fixed32
                                                       : wire::wire_type::fixed64;
            if (f.type == want) {
                raw = f.raw;
                return true;
            }
        }
    }

private:
    bool stop() noexcept {
        number_ = 0;
        p_ = end_ = nullptr;
        return false;
    }
    wire::message::cursor cursor_;
    const char* p_ = nullptr;
    const char* end_ = nullptr;
    std::uint32_t number_ = 0;
    std::uint8_t width_ = 0;
};

inline unsigned entry_width(typed_field f) noexcept {
    return f == typed_field::float_data ? 4u : f == typed_field::double_data ? 8u : 0u;
}

// Little-endian load of 1, 2, 4 or 8 bytes.
inline std::uint64_t load_le(const char* p, unsigned bytes) noexcept {
    switch (bytes) {
        case 1: return static_cast<unsigned char>(*p);
        case 2:
            return static_cast<std::uint64_t>(static_cast<unsigned char>(p[0])) |
                   static_cast<std::uint64_t>(static_cast<unsigned char>(p[1])) << 8;
        case 4: return wire::load_le32(p);
        default: return wire::load_le64(p);
    }
}

// The bit pattern of one scalar part (an element, or the real or imaginary
// half of a complex) as a double.
double scalar_to_double(const data_type_info& info, std::uint64_t bits) noexcept;

// The same as float (narrow floats and FLOAT exactly; others rounded).
inline float scalar_to_float(const data_type_info& info, std::uint64_t bits) noexcept {
    switch (info.kind) {
        case element_kind::ieee_float:
        case element_kind::complex:
            if (info.part_bits() == 32) return wire::bits_to_float(static_cast<std::uint32_t>(bits));
            return narrow_to_float(wire::bits_to_double(bits));
        case element_kind::unsigned_int: return static_cast<float>(bits);
        case element_kind::signed_int: return static_cast<float>(sign_extend(bits, info.bits));
        case element_kind::boolean: return bits != 0 ? 1.0f : 0.0f;
        case element_kind::narrow_float: {
            float f = 0;
            narrow_float_to_float(info.type, static_cast<std::uint32_t>(bits), f);
            return f;
        }
        default: return 0.0f;
    }
}

template <class D>
D scalar_to(const data_type_info& info, std::uint64_t bits) noexcept {
    if constexpr (std::is_same<D, float>::value)
        return scalar_to_float(info, bits);
    else
        return scalar_to_double(info, bits);
}

// Element bit patterns -> natural type T (T already checked to match).
template <class T>
T from_bits(std::uint64_t lo, std::uint64_t hi, unsigned part_bits) noexcept {
    if constexpr (std::is_same<T, bool>::value) {
        (void)hi, (void)part_bits;
        return lo != 0;
    } else if constexpr (std::is_same<T, float>::value) {
        (void)hi, (void)part_bits;
        return wire::bits_to_float(static_cast<std::uint32_t>(lo));
    } else if constexpr (std::is_same<T, double>::value) {
        (void)hi, (void)part_bits;
        return wire::bits_to_double(lo);
    } else if constexpr (std::is_same<T, std::complex<float>>::value) {
        (void)part_bits;
        return T(wire::bits_to_float(static_cast<std::uint32_t>(lo)),
                 wire::bits_to_float(static_cast<std::uint32_t>(hi)));
    } else if constexpr (std::is_same<T, std::complex<double>>::value) {
        (void)part_bits;
        return T(wire::bits_to_double(lo), wire::bits_to_double(hi));
    } else if constexpr (std::is_signed<T>::value) {
        (void)hi;
        return static_cast<T>(sign_extend(lo, part_bits));
    } else {
        (void)hi, (void)part_bits;
        return static_cast<T>(lo);
    }
}

}  // namespace detail

class tensor_data;
struct tensor_data_builder;

// A tensor's payload as blocks of bytes in raw_data layout (little-endian
// elements back to back), zero-copy: see tensor_data::blocks().
class byte_blocks {
public:
    byte_blocks() noexcept = default;
    explicit byte_blocks(error e) noexcept : err_(e) {}
    explicit byte_blocks(std::string_view whole) noexcept : whole_(whole), single_(true) {}
    byte_blocks(const wire::message& scope, std::uint32_t number, unsigned width) noexcept
        : scope_(scope), number_(number), width_(width) {}

    class iterator {
    public:
        using iterator_category = std::input_iterator_tag;
        using value_type = std::string_view;
        using difference_type = std::ptrdiff_t;
        using pointer = const std::string_view*;
        using reference = std::string_view;

        iterator() noexcept = default;  // the end
        explicit iterator(const byte_blocks& b) noexcept : owner_(&b) {
            if (b.single_) {
                current_ = b.whole_;
                if (current_.empty()) owner_ = nullptr;
                return;
            }
            cursor_ = b.scope_.fields();
            advance();
        }
        std::string_view operator*() const noexcept { return current_; }
        iterator& operator++() noexcept {
            if (owner_ != nullptr && owner_->single_) owner_ = nullptr;
            else advance();
            return *this;
        }
        friend bool operator==(const iterator& a, const iterator& b) noexcept { return a.owner_ == b.owner_; }
        friend bool operator!=(const iterator& a, const iterator& b) noexcept { return !(a == b); }

    private:
        void advance() noexcept {
            wire::field f;
            while (owner_ != nullptr && cursor_.next(f)) {
                if (f.number != owner_->number_) continue;
                const bool unpacked = (owner_->width_ == 4 && f.type == wire::wire_type::fixed32) ||
                                      (owner_->width_ == 8 && f.type == wire::wire_type::fixed64);
                if (unpacked) current_ = std::string_view(f.payload, owner_->width_);
                else if (f.type == wire::wire_type::length_delimited) current_ = f.bytes();
                else continue;  // another wire type: an unknown field
                return;
            }
            owner_ = nullptr;  // validated by tensor_data::make: no error to report
        }
        const byte_blocks* owner_ = nullptr;
        wire::message::cursor cursor_;
        std::string_view current_;
    };

    // The range must outlive its iterators.
    iterator begin() const noexcept { return err_.ok() ? iterator(*this) : iterator(); }
    iterator end() const noexcept { return iterator(); }
    error err() const noexcept { return err_; }
    bool ok() const noexcept { return err_.ok(); }

private:
    error err_;
    std::string_view whole_;
    bool single_ = false;
    wire::message scope_;
    std::uint32_t number_ = 0;
    unsigned width_ = 0;
};

// Decodes a tensor's elements one at a time as bit patterns: `lo` holds the
// element (zero-extended, masked to its width; sub-byte types unpacked),
// `hi` the imaginary part of a complex. Copying it saves the position.
class element_cursor {
public:
    element_cursor() noexcept = default;
    explicit element_cursor(const tensor_data& d) noexcept;

    // False at the end (or if the bytes changed since validation).
    bool next(std::uint64_t& lo, std::uint64_t& hi) noexcept {
        if (remaining_ == 0) return false;
        --remaining_;
        hi = 0;
        if (per_byte_ > 1) {
            if (sub_ == 0) {
                if (typed_) {
                    std::uint64_t r;
                    if (!entries_.next(r)) return stop();
                    byte_ = static_cast<std::uint8_t>(r);
                } else {
                    byte_ = static_cast<std::uint8_t>(*p_++);
                }
            }
            lo = (byte_ >> (sub_ * bits_)) & ((1u << bits_) - 1u);
            if (++sub_ == per_byte_) sub_ = 0;
            return true;
        }
        if (typed_) {
            if (!entries_.next(lo)) return stop();
            if (complex_) {
                if (!entries_.next(hi)) return stop();
                if (part_bytes_ == 4) {
                    lo &= 0xFFFFFFFFu;
                    hi &= 0xFFFFFFFFu;
                }
            } else if (boolean_) {
                lo = lo != 0;  // any non-zero entry is true, as numpy_helper reads it
            } else {
                lo = detail::mask_bits(lo, bits_);
            }
            return true;
        }
        if (complex_) {
            lo = detail::load_le(p_, part_bytes_);
            hi = detail::load_le(p_ + part_bytes_, part_bytes_);
            p_ += 2u * part_bytes_;
        } else {
            lo = detail::load_le(p_, part_bytes_);
            p_ += part_bytes_;
        }
        return true;
    }
    // Elements not yet returned.
    std::uint64_t remaining() const noexcept { return remaining_; }

private:
    bool stop() noexcept {
        remaining_ = 0;
        return false;
    }
    detail::entry_reader entries_;
    const char* p_ = nullptr;
    std::uint64_t remaining_ = 0;
    std::uint8_t bits_ = 0;        // element bits (non-complex)
    std::uint8_t part_bytes_ = 0;  // raw: bytes per element (complex: per part)
    std::uint8_t per_byte_ = 1;    // elements per byte/entry for sub-byte types
    std::uint8_t sub_ = 0;
    std::uint8_t byte_ = 0;
    bool typed_ = false;
    bool complex_ = false;
    bool boolean_ = false;
};

// The elements of a tensor as their natural type T; an input range. A range
// made for the wrong T is empty and carries the error (err()), so it can be
// used directly in a range-for.
template <class T>
class element_range {
public:
    element_range() noexcept = default;
    explicit element_range(error e) noexcept : err_(e) {}
    element_range(const element_cursor& c, unsigned part_bits, std::uint64_t n) noexcept
        : cursor_(c), part_bits_(part_bits), size_(n) {}
    error err() const noexcept { return err_; }
    bool ok() const noexcept { return err_.ok(); }

    class iterator {
    public:
        using iterator_category = std::input_iterator_tag;
        using value_type = T;
        using difference_type = std::ptrdiff_t;
        using pointer = const T*;
        using reference = T;

        iterator() noexcept = default;
        iterator(const element_cursor& c, unsigned part_bits) noexcept
            : cursor_(c), part_bits_(part_bits), done_(false) {
            advance();
        }
        T operator*() const noexcept { return value_; }
        iterator& operator++() noexcept {
            advance();
            return *this;
        }
        void operator++(int) noexcept { advance(); }
        friend bool operator==(const iterator& a, const iterator& b) noexcept { return a.done_ == b.done_; }
        friend bool operator!=(const iterator& a, const iterator& b) noexcept { return !(a == b); }

    private:
        void advance() noexcept {
            std::uint64_t lo, hi;
            if (!cursor_.next(lo, hi)) {
                done_ = true;
                return;
            }
            value_ = detail::from_bits<T>(lo, hi, part_bits_);
        }
        element_cursor cursor_;
        unsigned part_bits_ = 0;
        bool done_ = true;
        T value_{};
    };

    iterator begin() const noexcept { return iterator(cursor_, part_bits_); }
    iterator end() const noexcept { return iterator(); }
    std::uint64_t size() const noexcept { return size_; }
    bool empty() const noexcept { return size_ == 0; }

private:
    element_cursor cursor_;
    unsigned part_bits_ = 0;
    std::uint64_t size_ = 0;
    error err_;
};

// The scalars of a numeric tensor converted to D (float or double): one per
// element, two (real, imaginary) per complex element. An input range.
template <class D>
class scalar_range {
    static_assert(std::is_same<D, float>::value || std::is_same<D, double>::value,
                  "scalars are float or double");

public:
    scalar_range() noexcept = default;
    explicit scalar_range(error e) noexcept : err_(e) {}
    scalar_range(const element_cursor& c, const data_type_info* info, std::uint64_t n) noexcept
        : cursor_(c), info_(info), size_(n) {}
    error err() const noexcept { return err_; }
    bool ok() const noexcept { return err_.ok(); }

    class iterator {
    public:
        using iterator_category = std::input_iterator_tag;
        using value_type = D;
        using difference_type = std::ptrdiff_t;
        using pointer = const D*;
        using reference = D;

        iterator() noexcept = default;
        iterator(const element_cursor& c, const data_type_info* info) noexcept
            : cursor_(c), info_(info), done_(false) {
            advance();
        }
        D operator*() const noexcept { return value_; }
        iterator& operator++() noexcept {
            advance();
            return *this;
        }
        void operator++(int) noexcept { advance(); }
        friend bool operator==(const iterator& a, const iterator& b) noexcept { return a.done_ == b.done_; }
        friend bool operator!=(const iterator& a, const iterator& b) noexcept { return !(a == b); }

    private:
        void advance() noexcept {
            if (pending_) {
                pending_ = false;
                value_ = detail::scalar_to<D>(*info_, imag_);
                return;
            }
            std::uint64_t lo;
            if (!cursor_.next(lo, imag_)) {
                done_ = true;
                return;
            }
            pending_ = info_->kind == element_kind::complex;
            value_ = detail::scalar_to<D>(*info_, lo);
        }
        element_cursor cursor_;
        const data_type_info* info_ = nullptr;
        std::uint64_t imag_ = 0;
        bool pending_ = false;
        bool done_ = true;
        D value_{};
    };

    iterator begin() const noexcept { return iterator(cursor_, info_); }
    iterator end() const noexcept { return iterator(); }
    // Number of scalars: N, or 2N for complex.
    std::uint64_t size() const noexcept { return size_; }
    bool empty() const noexcept { return size_ == 0; }

private:
    element_cursor cursor_;
    const data_type_info* info_ = nullptr;
    std::uint64_t size_ = 0;
    error err_;
};

// ---------------------------------------------------------------------------
// A validated tensor payload: its type, element count and location. Small
// (no copy of the data); valid while the model bytes (and fetched external
// bytes) are.
class tensor_data {
public:
    tensor_data() noexcept = default;

    // Validates t (all rules at the top of this file) and locates its
    // payload; EXTERNAL tensors are fetched through `ext` (required for them,
    // ignored otherwise). Linear in t's own fields; allocates nothing.
    static result<tensor_data> make(const tensor_view& t,
                                    const external_payload_source* ext = nullptr) noexcept;
    static result<tensor_data> make(const tensor_view& t, const external_payload_source& ext) noexcept {
        return make(t, &ext);
    }

    std::int32_t type() const noexcept { return info_ ? info_->type : 0; }
    const data_type_info& info() const noexcept { return *info_; }
    // Number of elements (product of dims).
    std::uint64_t size() const noexcept { return storage_.element_count; }
    bool empty() const noexcept { return storage_.element_count == 0; }
    storage_kind storage() const noexcept { return storage_.kind; }
    const storage_info& describe() const noexcept { return storage_; }
    // Raw/external payload bytes in raw_data layout (zero-copy; empty for
    // typed storage). For external tensors storage_info::alignment is that
    // of the file offset; use bytes().data() for the actual address.
    std::string_view bytes() const noexcept { return bytes_; }

    // True when T is the natural element type of this tensor's data type.
    template <class T>
    bool holds() const noexcept {
        return info_ != nullptr && info_->natural == natural_type_of_v<T>;
    }

    // The elements as natural type T, decoded on the fly (no copy). If T is
    // not the natural type the range is empty with err() bad_data_type
    // (STRING: use strings()).
    template <class T>
    element_range<T> elements() const noexcept {
        static_assert(!std::is_same<T, std::string_view>::value, "use strings() for STRING tensors");
        if (!holds<T>()) return element_range<T>(error(errc::bad_data_type, storage_.offset));
        return element_range<T>(element_cursor(*this), info_->part_bits(), size());
    }

    // Every numeric element converted to float or double (narrow floats
    // exactly; int64 and double to float rounded to nearest); complex
    // elements give two scalars, real then imaginary. No copy. For STRING
    // the range is empty with err() bad_data_type.
    template <class D>
    scalar_range<D> scalars() const noexcept {
        if (info_ == nullptr || info_->kind == element_kind::string)
            return scalar_range<D>(error(errc::bad_data_type, storage_.offset));
        return scalar_range<D>(element_cursor(*this), info_, scalar_count());
    }
    // N, or 2N for complex: the number of values scalars() and copy_as() give.
    std::uint64_t scalar_count() const noexcept {
        return info_ && info_->kind == element_kind::complex ? 2 * size() : size();
    }

    // The strings of a STRING tensor (views into the buffer, no copy); an
    // empty range for other types (check holds<std::string_view>()).
    string_range strings() const noexcept { return strings_; }

    // BLOCKS (zero-copy): the payload in raw_data layout as blocks of bytes,
    // for loops that convert many elements at a time: raw and external
    // storage give bytes() as one block; FLOAT, DOUBLE and COMPLEX typed
    // fields give each packed chunk of float_data/double_data (and each
    // unpacked element) as a block, in wire order. Any alignment. Errors
    // (an empty range with err()): bad_data_type for STRING and for typed
    // fields stored as varints (use scalars()). Valid while t's bytes are.
    byte_blocks blocks() const noexcept {
        if (info_ == nullptr || info_->kind == element_kind::string)
            return byte_blocks(error(errc::bad_data_type, storage_.offset));
        if (storage_.kind == storage_kind::raw || storage_.kind == storage_kind::external)
            return byte_blocks(bytes_);
        if (storage_.kind != storage_kind::typed) return byte_blocks();  // no payload: no blocks
        const unsigned width = detail::entry_width(info_->field);
        if (width == 0) return byte_blocks(error(errc::bad_data_type, storage_.offset));
        return byte_blocks(typed_scope_, typed_number_, width);
    }

    // ZERO-COPY: the elements as a span over the model (or external) bytes.
    // Only when T is the natural type, the type is at least one byte wide
    // (not UINT4/INT4/FLOAT4E2M1/UINT2/INT2), the payload is raw or external
    // - or a FLOAT/DOUBLE/COMPLEX typed field stored as ONE packed chunk -
    // the host is little-endian (not needed for 1-byte types), and the
    // address is aligned for T. Errors: bad_data_type (wrong T, sub-byte,
    // STRING, varint-encoded typed field, BOOL bytes other than 0/1 - checked
    // in O(N)), not_little_endian, unaligned. On error use copy_to().
    template <class T>
    result<span<const T>> as_span() const noexcept {
        static_assert(!std::is_same<T, std::string_view>::value, "use strings() for STRING tensors");
        if (!holds<T>() || info_->sub_byte()) return error(errc::bad_data_type, storage_.offset);
        if (size() == 0) return span<const T>();
        const char* p = contiguous_payload();
        if (p == nullptr) return error(errc::bad_data_type, storage_.offset);
        if (sizeof(T) > 1 && !host_is_little_endian) return error(errc::not_little_endian, storage_.offset);
        if (reinterpret_cast<std::uintptr_t>(p) % alignof(T) != 0) return error(errc::unaligned, storage_.offset);
        if constexpr (std::is_same<T, bool>::value) {
            for (std::uint64_t i = 0; i < size(); ++i)
                if (static_cast<unsigned char>(p[i]) > 1) return error(errc::bad_data_type, storage_.offset);
        }
        // The payload bytes are the object representation of N T's
        // (validated size, little-endian host, aligned): FlatBuffers' rule.
        return span<const T>(reinterpret_cast<const T*>(p), static_cast<std::size_t>(size()));
    }

    // COPY: writes the N elements as natural type T into out[0..N). Returns
    // N. Errors: bad_data_type (wrong T; STRING copies string_views),
    // buffer_too_small (capacity < N; nothing is written). Works for every
    // storage, alignment and host byte order.
    template <class T>
    result<std::uint64_t> copy_to(T* out, std::size_t capacity) const noexcept {
        if (!holds<T>()) return error(errc::bad_data_type, storage_.offset);
        const std::uint64_t n = size();
        if (capacity < n) return error(errc::buffer_too_small, storage_.offset);
        if constexpr (std::is_same<T, std::string_view>::value) {
            std::uint64_t i = 0;
            for (std::string_view s : strings_) out[i++] = s;
            return i == n ? result<std::uint64_t>(n) : result<std::uint64_t>(errc::payload_size_mismatch, storage_.offset);
        } else {
            if (!std::is_same<T, bool>::value && !info_->sub_byte() && host_is_little_endian &&
                (storage_.kind == storage_kind::raw || storage_.kind == storage_kind::external)) {
                if (n != 0) std::memcpy(out, bytes_.data(), static_cast<std::size_t>(n) * sizeof(T));
                return n;
            }
            element_cursor c(*this);
            const unsigned pb = info_->part_bits();
            std::uint64_t lo, hi, i = 0;
            while (c.next(lo, hi)) out[i++] = detail::from_bits<T>(lo, hi, pb);
            if (i != n) return error(errc::payload_size_mismatch, storage_.offset);
            return n;
        }
    }

    // COPY with conversion: writes scalar_count() values (float or double,
    // as scalars()) into out. Errors: bad_data_type (STRING),
    // buffer_too_small (nothing written).
    template <class D>
    result<std::uint64_t> copy_as(D* out, std::size_t capacity) const noexcept {
        const scalar_range<D> r = scalars<D>();
        if (!r.ok()) return r.err();
        const std::uint64_t n = scalar_count();
        if (capacity < n) return error(errc::buffer_too_small, storage_.offset);
        std::uint64_t i = 0;
        for (D v : r) out[i++] = v;
        if (i != n) return error(errc::payload_size_mismatch, storage_.offset);
        return n;
    }

    // Element k as natural type T: O(1) for raw/external payloads, O(k) for
    // typed ones. Errors: bad_data_type (wrong T), not_found (k >= N).
    template <class T>
    result<T> at(std::uint64_t k) const noexcept {
        if (!holds<T>()) return error(errc::bad_data_type, storage_.offset);
        if (k >= size()) return error(errc::not_found, storage_.offset);
        if constexpr (std::is_same<T, std::string_view>::value) {
            for (std::string_view s : strings_)
                if (k-- == 0) return s;
            return error(errc::payload_size_mismatch, storage_.offset);
        } else {
            std::uint64_t lo = 0, hi = 0;
            if (!bit_pattern_at(k, lo, hi)) return error(errc::payload_size_mismatch, storage_.offset);
            return detail::from_bits<T>(lo, hi, info_->part_bits());
        }
    }
    // Element k converted to double (complex: `imag` receives the imaginary
    // part when not null). Same cost and errors as at() (STRING: bad_data_type).
    result<double> double_at(std::uint64_t k, double* imag = nullptr) const noexcept;

private:
    friend class element_cursor;
    friend struct tensor_data_builder;
    // Bit patterns of element k (see element_cursor::next).
    bool bit_pattern_at(std::uint64_t k, std::uint64_t& lo, std::uint64_t& hi) const noexcept;
    // The first byte of a contiguous little-endian array of the elements, or null.
    const char* contiguous_payload() const noexcept;

    const data_type_info* info_ = nullptr;
    storage_info storage_;
    std::string_view bytes_;     // raw / external payload
    wire::message typed_scope_;  // typed: the region holding the typed field
    std::uint32_t typed_number_ = 0;
    string_range strings_;       // STRING: string_data
};

inline element_cursor::element_cursor(const tensor_data& d) noexcept {
    if (d.info_ == nullptr) return;
    const data_type_info& info = *d.info_;
    remaining_ = d.size();
    bits_ = static_cast<std::uint8_t>(info.bits <= 64 ? info.bits : 64);
    per_byte_ = info.elements_per_entry;
    complex_ = info.kind == element_kind::complex;
    boolean_ = info.kind == element_kind::boolean;
    part_bytes_ = static_cast<std::uint8_t>(info.part_bits() / 8);
    typed_ = d.storage_.kind == storage_kind::typed;
    if (typed_)
        entries_ = detail::entry_reader(d.typed_scope_, d.typed_number_, detail::entry_width(info.field));
    else
        p_ = d.bytes_.data();
    if (d.storage_.kind == storage_kind::none) remaining_ = 0;
}

// --- Free-function forms (each validates the tensor like tensor_data::make) ---

// COPY: as tensor_data::copy_to. The most direct "give me the numbers" call.
template <class T>
result<std::uint64_t> copy_elements(const tensor_view& t, T* out, std::size_t capacity,
                                    const external_payload_source* ext = nullptr) noexcept {
    auto d = tensor_data::make(t, ext);
    if (!d) return d.err();
    return d->copy_to(out, capacity);
}
// COPY with conversion: as tensor_data::copy_as.
template <class D>
result<std::uint64_t> copy_scalars(const tensor_view& t, D* out, std::size_t capacity,
                                   const external_payload_source* ext = nullptr) noexcept {
    auto d = tensor_data::make(t, ext);
    if (!d) return d.err();
    return d->copy_as(out, capacity);
}
// ZERO-COPY: as tensor_data::as_span.
template <class T>
result<span<const T>> element_span(const tensor_view& t,
                                   const external_payload_source* ext = nullptr) noexcept {
    auto d = tensor_data::make(t, ext);
    if (!d) return d.err();
    return d->as_span<T>();
}

}  // namespace onnxview

#endif  // ONNXVIEW_TENSOR_DATA_HPP
