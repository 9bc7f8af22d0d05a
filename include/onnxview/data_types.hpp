// onnxview/data_types.hpp - what each ONNX data type is on the wire and in
// C++: element bits, the typed field that holds it, its packing, and its
// natural C++ type. Also onnxview::span, the small C++17 span the tensor API
// returns for zero-copy access.
#ifndef ONNXVIEW_DATA_TYPES_HPP
#define ONNXVIEW_DATA_TYPES_HPP

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "onnxview/data_type_table.hpp"
#include "onnxview/enums.hpp"

namespace onnxview {

// ---------------------------------------------------------------------------
// Host byte order (raw_data is little-endian on every host).
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__)
constexpr bool host_is_little_endian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
#elif defined(_WIN32)
constexpr bool host_is_little_endian = true;
#else
constexpr bool host_is_little_endian = false;  // unknown: no zero-copy spans, copies still correct
#endif

// A read-only contiguous view of T (C++17 has no std::span). Does not own.
template <class T>
class span {
public:
    using element_type = T;
    using value_type = std::remove_cv_t<T>;
    using iterator = T*;

    constexpr span() noexcept = default;
    constexpr span(T* data, std::size_t size) noexcept : data_(data), size_(size) {}
    constexpr T* data() const noexcept { return data_; }
    constexpr std::size_t size() const noexcept { return size_; }
    constexpr bool empty() const noexcept { return size_ == 0; }
    constexpr T* begin() const noexcept { return data_; }
    constexpr T* end() const noexcept { return data_ + size_; }
    constexpr T& operator[](std::size_t i) const noexcept { return data_[i]; }

private:
    T* data_ = nullptr;
    std::size_t size_ = 0;
};

// ---------------------------------------------------------------------------
// Per-type facts.

// What an element is, for conversions.
enum class element_kind : std::uint8_t {
    unsigned_int,  // UINT8/16/32/64, UINT4, UINT2
    signed_int,    // INT8/16/32/64, INT4, INT2 (two's complement)
    boolean,       // BOOL
    ieee_float,    // FLOAT, DOUBLE
    narrow_float,  // FLOAT16, BFLOAT16, FLOAT8*, FLOAT8E8M0, FLOAT4E2M1
    complex,       // COMPLEX64, COMPLEX128 (real then imaginary)
    string,        // STRING
};

// The natural C++ type of an element (see the top of this file).
enum class natural_type : std::uint8_t {
    f32, u8, i8, u16, i16, i32, i64, string_view, boolean, f64, u32, u64, c64, c128,
};

struct data_type_info {
    std::int32_t type;                // the DataType number
    const char* name;                 // "FLOAT", ...
    std::uint16_t bits;               // bits per element in raw_data (COMPLEX128: 128); 0 for STRING
    typed_field field;                // where it lives when raw_data is not used
    std::uint8_t entries_per_element; // typed field entries per element: 2 for complex, else 1
    std::uint8_t elements_per_entry;  // elements per typed entry (and per raw byte): 2 for 4-bit, 4 for 2-bit, else 1
    element_kind kind;
    natural_type natural;
    // Bits of one scalar part: bits, or bits / 2 for complex.
    constexpr unsigned part_bits() const noexcept { return kind == element_kind::complex ? bits / 2u : bits; }
    constexpr bool sub_byte() const noexcept { return elements_per_entry > 1; }
    // Bytes of one element in raw_data (0 for sub-byte types and STRING).
    constexpr unsigned element_bytes() const noexcept { return bits >= 8 ? bits / 8u : 0u; }
};

namespace detail {
// Row 0 is a placeholder for UNDEFINED (never returned); the others come
// from the schema (onnxview/data_type_table.hpp, generated).
inline constexpr data_type_info data_type_table[] = {
    {0, "UNDEFINED", 0, typed_field::none, 0, 0, element_kind::unsigned_int, natural_type::u8},
#define ONNXVIEW_DATA_TYPE_ROW(number, enumerator, name, bits, field, entries, per_entry, kind, natural) \
    {number, name, bits, typed_field::field, entries, per_entry, element_kind::kind, natural_type::natural},
    ONNXVIEW_DATA_TYPE_ROWS(ONNXVIEW_DATA_TYPE_ROW)
#undef ONNXVIEW_DATA_TYPE_ROW
};
static_assert(sizeof(data_type_table) / sizeof(data_type_table[0]) == max_data_type + 1,
              "one row per DataType");
}  // namespace detail

// The facts of DataType `type`; null for UNDEFINED and numbers outside the
// schema. O(1).
constexpr const data_type_info* find_data_type_info(std::int32_t type) noexcept {
    return type >= 1 && type <= max_data_type ? &detail::data_type_table[type] : nullptr;
}

// The C++ type of each natural_type (natural_cpp_type), and the natural_type
// of a C++ type (natural_type_of; natural_type_of_v<long double> etc. do not
// compile).
template <natural_type N> struct natural_cpp_type;
template <class T> struct natural_type_of;
#define ONNXVIEW_NATURAL(T, N)                                                        \
    template <> struct natural_cpp_type<natural_type::N> { using type = T; };         \
    template <> struct natural_type_of<T> { static constexpr natural_type value = natural_type::N; };
ONNXVIEW_NATURAL(float, f32)
ONNXVIEW_NATURAL(std::uint8_t, u8)
ONNXVIEW_NATURAL(std::int8_t, i8)
ONNXVIEW_NATURAL(std::uint16_t, u16)
ONNXVIEW_NATURAL(std::int16_t, i16)
ONNXVIEW_NATURAL(std::int32_t, i32)
ONNXVIEW_NATURAL(std::int64_t, i64)
ONNXVIEW_NATURAL(std::string_view, string_view)
ONNXVIEW_NATURAL(bool, boolean)
ONNXVIEW_NATURAL(double, f64)
ONNXVIEW_NATURAL(std::uint32_t, u32)
ONNXVIEW_NATURAL(std::uint64_t, u64)
ONNXVIEW_NATURAL(std::complex<float>, c64)
ONNXVIEW_NATURAL(std::complex<double>, c128)
#undef ONNXVIEW_NATURAL

// element_type_t<data_type::float16> is std::uint16_t, and so on: the C++
// type of the type's natural_type in the table.
template <data_type D>
struct element_type {
    // A range check, not find_data_type_info() != nullptr: gcc's UBSan
    // makes a table element's address a non-constant expression.
    static_assert(static_cast<std::int32_t>(D) >= 1 && static_cast<std::int32_t>(D) <= max_data_type,
                  "UNDEFINED and numbers outside the schema have no element type");
    using type = typename natural_cpp_type<detail::data_type_table[static_cast<int>(D)].natural>::type;
};
template <data_type D>
using element_type_t = typename element_type<D>::type;

template <class T>
constexpr natural_type natural_type_of_v = natural_type_of<T>::value;

}  // namespace onnxview

#endif  // ONNXVIEW_DATA_TYPES_HPP
