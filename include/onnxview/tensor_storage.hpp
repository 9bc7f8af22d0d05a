// onnxview/tensor_storage.hpp - where a tensor's payload lives, and the rules
// a payload must follow before any of its values is read.
//
// describe_storage(t) applies every rule below and says where the payload
// lives (raw_data, a typed field, an external file) without reading it;
// tensor_data::make (onnxview/tensor_data.hpp) applies the same rules and
// then reads. The counting helpers are those rules' parts, for a checker
// that reports each one on its own.
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
#ifndef ONNXVIEW_TENSOR_STORAGE_HPP
#define ONNXVIEW_TENSOR_STORAGE_HPP

#include <cstdint>
#include <string_view>

#include "onnxview/data_types.hpp"
#include "onnxview/enums.hpp"
#include "onnxview/model.hpp"

namespace onnxview {

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

}  // namespace onnxview

#endif  // ONNXVIEW_TENSOR_STORAGE_HPP
