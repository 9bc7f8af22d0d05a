// onnxview/tensor_data.hpp - the values of a tensor, wherever they live.
//
// A TensorProto keeps its payload in one of three places: `raw_data`
// (little-endian fixed-width bytes), a typed repeated field (`float_data`,
// `int32_data`, ... - protobuf varints or fixed32/fixed64), or an external
// file (data_location == EXTERNAL). tensor_data hides the difference. Every
// read is one of five verbs; each verb has a natural-type form (T = the
// element type below) and, for numbers, a converted form (D = float or
// double, complex elements giving two values, real then imaginary):
//
//   open     auto d = tensor_data::make(t [, ext]);   size, type, dims checked here
//            (model_file::tensor(t) supplies ext; find_initializer(graph,
//            name) finds t; describe_storage(t) says where, without reading)
//   iterate  for (T x : d->elements<T>())             STRING: T = std::string_view
//            for (D x : d->scalars<D>())              any numeric type, converted
//   one      d->at<T>(k)   d->double_at(k, &imag)     O(1) raw/external, O(k) typed
//   view     d->as_span<T>()                          zero-copy array, when possible
//            d->blocks()   d->bytes()                 zero-copy bytes in raw_data layout
//            for_each_raw_chunk(*d, fn, user)         raw_data layout from any storage, in chunks
//   copy     d->copy_to(T* out, n)   d->copy_as(D* out, n)   any storage, into your buffer
//
// A range, span or copy asked for with the wrong type is an error value (a
// range made for the wrong type is empty and carries err()). The lowest
// level, element bit patterns as stored, is element_cursor
// (onnxview/tensor_decode.hpp).
//
// Old names (before the verbs above):
//   copy_elements(t, out, n, ext)  -> tensor_data::make(t, ext)->copy_to(out, n)
//   copy_scalars(t, out, n, ext)   -> tensor_data::make(t, ext)->copy_as(out, n)
//   element_span<T>(t, ext)        -> tensor_data::make(t, ext)->as_span<T>()
//   d.strings()                    -> d.elements<std::string_view>()
//   (a loop over graph.initializer() comparing names -> find_initializer)
//
// A tensor_view may come from an initializer, an attribute (t / tensors),
// a sparse tensor's values/indices (onnxview/sparse_data.hpp), a
// sequence/optional, or a standalone TensorProto file (parse_tensor); all
// are the same here.
//
// Natural element types (element_type_t<D> in data_types.hpp): FLOAT float;
// UINT8 uint8_t; INT8 int8_t; UINT16 uint16_t; INT16 int16_t; INT32 int32_t;
// INT64 int64_t; STRING std::string_view; BOOL bool; FLOAT16 and BFLOAT16
// the uint16_t bit pattern; DOUBLE double; UINT32 uint32_t; UINT64 uint64_t;
// COMPLEX64 std::complex<float>; COMPLEX128 std::complex<double>; the FLOAT8
// types, FLOAT8E8M0 and FLOAT4E2M1 the uint8_t bit pattern; UINT4/UINT2
// uint8_t and INT4/INT2 int8_t, one unpacked (sign-extended) value per
// element. Narrow-float patterns decode with onnxview/float_formats.hpp, or
// all at once through scalars<float/double>() and copy_as().
//
// Validation: the rules of onnxview/tensor_storage.hpp (stricter than
// onnx.checker), applied by make().
//
// Cost and copies. make() is linear in the tensor's own fields (it counts
// the typed field's entries; raw_data is checked in O(1)); it allocates
// nothing and copies nothing. elements() and scalars() decode on the fly:
// no copy of the payload, one element at a time (raw: memcpy of one
// little-endian element, so unaligned bytes and big-endian hosts are fine).
// as_span() is the only zero-copy *array* view; copy_to() and copy_as() copy
// into the caller's buffer.
//
// Lifetime: a tensor_data, its ranges and spans are valid while the model
// bytes (and, for external tensors, the bytes returned by the source) are.
#ifndef ONNXVIEW_TENSOR_DATA_HPP
#define ONNXVIEW_TENSOR_DATA_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

#include "onnxview/data_types.hpp"
#include "onnxview/initializer.hpp"
#include "onnxview/model.hpp"
#include "onnxview/tensor_decode.hpp"
#include "onnxview/tensor_ranges.hpp"
#include "onnxview/tensor_storage.hpp"

namespace onnxview {

// ---------------------------------------------------------------------------
// A validated tensor payload: its type, element count and location. Small
// (no copy of the data); valid while the model bytes (and fetched external
// bytes) are.
class tensor_data {
public:
    tensor_data() noexcept = default;

    // Validates t (the rules of onnxview/tensor_storage.hpp) and locates its
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

    // ITERATE: the elements as natural type T, decoded on the fly (no copy);
    // STRING tensors as std::string_view into the model's bytes. If T is not
    // the natural type the range is empty with err() bad_data_type.
    template <class T>
    element_range<T> elements() const noexcept {
        if (!holds<T>()) return element_range<T>(error(errc::bad_data_type, storage_.offset));
        if constexpr (std::is_same<T, std::string_view>::value)
            return element_range<T>(strings_);
        else
            return element_range<T>(element_cursor(*this), info_->part_bits(), size());
    }

    // ITERATE, converted: every numeric element as float or double (narrow floats
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

    // VIEW the bytes (zero-copy): the payload in raw_data layout as blocks of bytes,
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

    // VIEW the elements (zero-copy): a span over the model (or external) bytes.
    // Only when T is the natural type, the type is at least one byte wide
    // (not UINT4/INT4/FLOAT4E2M1/UINT2/INT2), the payload is raw or external
    // - or a FLOAT/DOUBLE/COMPLEX typed field stored as ONE packed chunk -
    // the host is little-endian (not needed for 1-byte types), and the
    // address is aligned for T. Errors: bad_data_type (wrong T, sub-byte,
    // STRING, varint-encoded typed field, BOOL bytes other than 0/1 - checked
    // in O(N)), not_little_endian, unaligned. On error use copy_to().
    template <class T>
    result<span<const T>> as_span() const noexcept {
        static_assert(!std::is_same<T, std::string_view>::value, "STRING tensors: elements<std::string_view>()");
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
            // Raw and external payloads, and FLOAT/DOUBLE/COMPLEX typed fields
            // in one packed chunk, are already N little-endian T's (as_span()).
            if (!std::is_same<T, bool>::value && !info_->sub_byte() && host_is_little_endian && n != 0) {
                if (const char* p = contiguous_payload()) {
                    std::memcpy(out, p, static_cast<std::size_t>(n) * sizeof(T));
                    return n;
                }
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

    // ONE ELEMENT: element k as natural type T: O(1) for raw/external payloads, O(k) for
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

// Calls chunk(user, data, size) for consecutive pieces of d's payload in
// raw_data layout (little-endian elements, sub-byte elements packed low bits
// first, complex as real then imaginary), byte_size bytes in all, from any
// storage: raw and external payloads as they are, FLOAT/DOUBLE/COMPLEX typed
// fields block by block, the other typed fields through a 4 KiB buffer.
// Stops at the first error chunk returns. Errors: bad_data_type for
// UNDEFINED and STRING, payload_size_mismatch when the typed field holds
// fewer entries than validated. Linear in the payload; no allocation. Used
// by the writer (raw_data out of typed fields) and by digests.
error for_each_raw_chunk(const tensor_data& d, error (*chunk)(void* user, const char* data, std::size_t size),
                         void* user) noexcept;

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

}  // namespace onnxview

#endif  // ONNXVIEW_TENSOR_DATA_HPP
