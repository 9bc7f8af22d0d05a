// onnxview/data_types.hpp - what each ONNX data type is on the wire and in
// C++: element bits, the typed field that holds it, its packing, and its
// natural C++ type. Also onnxview::span, the small C++17 span the tensor API
// returns for zero-copy access.
#ifndef ONNXVIEW_DATA_TYPES_HPP
#define ONNXVIEW_DATA_TYPES_HPP

#include <complex>
#include <cstddef>
#include <cstdint>
#include <type_traits>

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

// The typed field that holds a type's payload when raw_data is not used;
// the values are the TensorProto field numbers.
enum class typed_field : std::uint8_t {
    none = 0,
    float_data = 4,
    int32_data = 5,
    string_data = 6,
    int64_data = 7,
    double_data = 10,
    uint64_data = 11,
};
const char* typed_field_name(typed_field f) noexcept;  // "float_data", ...; "none"

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
using dt = data_type;
using tf = typed_field;
using ek = element_kind;
using nt = natural_type;
inline constexpr data_type_info data_type_table[] = {
    {0, "UNDEFINED", 0, tf::none, 0, 0, ek::unsigned_int, nt::u8},  // placeholder, never returned
    {1, "FLOAT", 32, tf::float_data, 1, 1, ek::ieee_float, nt::f32},
    {2, "UINT8", 8, tf::int32_data, 1, 1, ek::unsigned_int, nt::u8},
    {3, "INT8", 8, tf::int32_data, 1, 1, ek::signed_int, nt::i8},
    {4, "UINT16", 16, tf::int32_data, 1, 1, ek::unsigned_int, nt::u16},
    {5, "INT16", 16, tf::int32_data, 1, 1, ek::signed_int, nt::i16},
    {6, "INT32", 32, tf::int32_data, 1, 1, ek::signed_int, nt::i32},
    {7, "INT64", 64, tf::int64_data, 1, 1, ek::signed_int, nt::i64},
    {8, "STRING", 0, tf::string_data, 1, 1, ek::string, nt::string_view},
    {9, "BOOL", 8, tf::int32_data, 1, 1, ek::boolean, nt::boolean},
    {10, "FLOAT16", 16, tf::int32_data, 1, 1, ek::narrow_float, nt::u16},
    {11, "DOUBLE", 64, tf::double_data, 1, 1, ek::ieee_float, nt::f64},
    {12, "UINT32", 32, tf::uint64_data, 1, 1, ek::unsigned_int, nt::u32},
    {13, "UINT64", 64, tf::uint64_data, 1, 1, ek::unsigned_int, nt::u64},
    {14, "COMPLEX64", 64, tf::float_data, 2, 1, ek::complex, nt::c64},
    {15, "COMPLEX128", 128, tf::double_data, 2, 1, ek::complex, nt::c128},
    {16, "BFLOAT16", 16, tf::int32_data, 1, 1, ek::narrow_float, nt::u16},
    {17, "FLOAT8E4M3FN", 8, tf::int32_data, 1, 1, ek::narrow_float, nt::u8},
    {18, "FLOAT8E4M3FNUZ", 8, tf::int32_data, 1, 1, ek::narrow_float, nt::u8},
    {19, "FLOAT8E5M2", 8, tf::int32_data, 1, 1, ek::narrow_float, nt::u8},
    {20, "FLOAT8E5M2FNUZ", 8, tf::int32_data, 1, 1, ek::narrow_float, nt::u8},
    {21, "UINT4", 4, tf::int32_data, 1, 2, ek::unsigned_int, nt::u8},
    {22, "INT4", 4, tf::int32_data, 1, 2, ek::signed_int, nt::i8},
    {23, "FLOAT4E2M1", 4, tf::int32_data, 1, 2, ek::narrow_float, nt::u8},
    {24, "FLOAT8E8M0", 8, tf::int32_data, 1, 1, ek::narrow_float, nt::u8},
    {25, "UINT2", 2, tf::int32_data, 1, 4, ek::unsigned_int, nt::u8},
    {26, "INT2", 2, tf::int32_data, 1, 4, ek::signed_int, nt::i8},
};
static_assert(sizeof(data_type_table) / sizeof(data_type_table[0]) == max_data_type + 1,
              "one row per DataType");
}  // namespace detail

// The facts of DataType `type`; null for UNDEFINED and numbers outside the
// schema. O(1).
constexpr const data_type_info* find_data_type_info(std::int32_t type) noexcept {
    return type >= 1 && type <= max_data_type ? &detail::data_type_table[type] : nullptr;
}

// element_type_t<data_type::float16> is std::uint16_t, and so on.
template <data_type D> struct element_type;
#define ONNXVIEW_ELEMENT_TYPE(D, T) \
    template <> struct element_type<data_type::D> { using type = T; };
ONNXVIEW_ELEMENT_TYPE(float32, float)
ONNXVIEW_ELEMENT_TYPE(uint8, std::uint8_t)
ONNXVIEW_ELEMENT_TYPE(int8, std::int8_t)
ONNXVIEW_ELEMENT_TYPE(uint16, std::uint16_t)
ONNXVIEW_ELEMENT_TYPE(int16, std::int16_t)
ONNXVIEW_ELEMENT_TYPE(int32, std::int32_t)
ONNXVIEW_ELEMENT_TYPE(int64, std::int64_t)
ONNXVIEW_ELEMENT_TYPE(string, std::string_view)
ONNXVIEW_ELEMENT_TYPE(boolean, bool)
ONNXVIEW_ELEMENT_TYPE(float16, std::uint16_t)
ONNXVIEW_ELEMENT_TYPE(float64, double)
ONNXVIEW_ELEMENT_TYPE(uint32, std::uint32_t)
ONNXVIEW_ELEMENT_TYPE(uint64, std::uint64_t)
ONNXVIEW_ELEMENT_TYPE(complex64, std::complex<float>)
ONNXVIEW_ELEMENT_TYPE(complex128, std::complex<double>)
ONNXVIEW_ELEMENT_TYPE(bfloat16, std::uint16_t)
ONNXVIEW_ELEMENT_TYPE(float8e4m3fn, std::uint8_t)
ONNXVIEW_ELEMENT_TYPE(float8e4m3fnuz, std::uint8_t)
ONNXVIEW_ELEMENT_TYPE(float8e5m2, std::uint8_t)
ONNXVIEW_ELEMENT_TYPE(float8e5m2fnuz, std::uint8_t)
ONNXVIEW_ELEMENT_TYPE(uint4, std::uint8_t)
ONNXVIEW_ELEMENT_TYPE(int4, std::int8_t)
ONNXVIEW_ELEMENT_TYPE(float4e2m1, std::uint8_t)
ONNXVIEW_ELEMENT_TYPE(float8e8m0, std::uint8_t)
ONNXVIEW_ELEMENT_TYPE(uint2, std::uint8_t)
ONNXVIEW_ELEMENT_TYPE(int2, std::int8_t)
#undef ONNXVIEW_ELEMENT_TYPE
template <data_type D>
using element_type_t = typename element_type<D>::type;

// The natural_type tag of C++ type T; natural_type_of_v<long double> etc. do not compile.
template <class T> struct natural_type_of;
#define ONNXVIEW_NATURAL(T, N) \
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
template <class T>
constexpr natural_type natural_type_of_v = natural_type_of<T>::value;

}  // namespace onnxview

#endif  // ONNXVIEW_DATA_TYPES_HPP
