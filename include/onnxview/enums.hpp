// onnxview/enums.hpp - the enums of the ONNX schema.
//
// data_type is stored on the wire as a plain int32 (any number may appear);
// the others are proto2 enums. Values are the schema's numbers.
#ifndef ONNXVIEW_ENUMS_HPP
#define ONNXVIEW_ENUMS_HPP

#include <cstdint>

namespace onnxview {

// TensorProto.DataType.
enum class data_type : std::int32_t {
    undefined = 0,
    float32 = 1,
    uint8 = 2,
    int8 = 3,
    uint16 = 4,
    int16 = 5,
    int32 = 6,
    int64 = 7,
    string = 8,
    boolean = 9,
    float16 = 10,
    float64 = 11,
    uint32 = 12,
    uint64 = 13,
    complex64 = 14,
    complex128 = 15,
    bfloat16 = 16,
    float8e4m3fn = 17,
    float8e4m3fnuz = 18,
    float8e5m2 = 19,
    float8e5m2fnuz = 20,
    uint4 = 21,
    int4 = 22,
    float4e2m1 = 23,
    float8e8m0 = 24,
    uint2 = 25,
    int2 = 26,
};
constexpr std::int32_t max_data_type = 26;

// The schema's name of a data type ("FLOAT", "BFLOAT16", ...); "UNKNOWN" for
// numbers the schema does not define.
const char* data_type_name(std::int32_t type) noexcept;

// AttributeProto.AttributeType.
enum class attribute_type : std::int32_t {
    undefined = 0,
    float32 = 1,
    int64 = 2,
    string = 3,
    tensor = 4,
    graph = 5,
    floats = 6,
    ints = 7,
    strings = 8,
    tensors = 9,
    graphs = 10,
    sparse_tensor = 11,
    sparse_tensors = 12,
    type_proto = 13,
    type_protos = 14,
};
// "FLOAT", "INTS", ...; "UNKNOWN" outside the schema.
const char* attribute_type_name(std::int32_t type) noexcept;

// TensorProto.DataLocation.
enum class location_kind : std::int32_t { default_location = 0, external = 1 };

// OperatorStatus.
enum class operator_status : std::int32_t { experimental = 0, stable = 1 };

// SequenceProto.DataType and OptionalProto.DataType (elem_type fields).
enum class value_kind : std::int32_t {
    undefined = 0,
    tensor = 1,
    sparse_tensor = 2,
    sequence = 3,
    map = 4,
    optional = 5,
};

}  // namespace onnxview

#endif  // ONNXVIEW_ENUMS_HPP
