// Names of the schema's enum values, as the schema spells them.
#include "onnxview/enums.hpp"

namespace onnxview {

const char* data_type_name(std::int32_t type) noexcept {
    static constexpr const char* names[] = {
        "UNDEFINED", "FLOAT",      "UINT8",        "INT8",           "UINT16",     "INT16",
        "INT32",     "INT64",      "STRING",       "BOOL",           "FLOAT16",    "DOUBLE",
        "UINT32",    "UINT64",     "COMPLEX64",    "COMPLEX128",     "BFLOAT16",   "FLOAT8E4M3FN",
        "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "UINT4",   "INT4",       "FLOAT4E2M1",
        "FLOAT8E8M0", "UINT2",     "INT2"};
    static_assert(sizeof(names) / sizeof(names[0]) == max_data_type + 1, "one name per type");
    return type >= 0 && type <= max_data_type ? names[type] : "UNKNOWN";
}

const char* attribute_type_name(std::int32_t type) noexcept {
    static constexpr const char* names[] = {
        "UNDEFINED", "FLOAT",   "INT",     "STRING",        "TENSOR",         "GRAPH",      "FLOATS",
        "INTS",      "STRINGS", "TENSORS", "GRAPHS",        "SPARSE_TENSOR",  "SPARSE_TENSORS",
        "TYPE_PROTO", "TYPE_PROTOS"};
    return type >= 0 && type <= 14 ? names[type] : "UNKNOWN";
}

}  // namespace onnxview
