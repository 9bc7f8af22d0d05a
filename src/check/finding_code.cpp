// finding_code.cpp - the stable identifiers of the checker's findings.
#include "onnxview/check.hpp"

namespace onnxview {

// No default: the compiler names an enumerator this switch misses.
const char* finding_code_name(finding_code code) noexcept {
    switch (code) {
        case finding_code::wire_format: return "wire_format";
        case finding_code::missing_ir_version: return "missing_ir_version";
        case finding_code::bad_ir_version: return "bad_ir_version";
        case finding_code::new_ir_version: return "new_ir_version";
        case finding_code::duplicate_metadata_key: return "duplicate_metadata_key";
        case finding_code::duplicate_opset: return "duplicate_opset";
        case finding_code::missing_opset_import: return "missing_opset_import";
        case finding_code::unexpected_opset_import: return "unexpected_opset_import";
        case finding_code::missing_graph: return "missing_graph";
        case finding_code::too_deep: return "too_deep";
        case finding_code::empty_graph_name: return "empty_graph_name";
        case finding_code::empty_name: return "empty_name";
        case finding_code::missing_type: return "missing_type";
        case finding_code::missing_elem_type: return "missing_elem_type";
        case finding_code::missing_shape: return "missing_shape";
        case finding_code::duplicate_input: return "duplicate_input";
        case finding_code::duplicate_output: return "duplicate_output";
        case finding_code::duplicate_initializer: return "duplicate_initializer";
        case finding_code::initializer_not_input: return "initializer_not_input";
        case finding_code::undefined_input: return "undefined_input";
        case finding_code::undefined_output: return "undefined_output";
        case finding_code::empty_op_type: return "empty_op_type";
        case finding_code::no_inputs_outputs: return "no_inputs_outputs";
        case finding_code::missing_opset: return "missing_opset";
        case finding_code::duplicate_attribute: return "duplicate_attribute";
        case finding_code::missing_attribute_type: return "missing_attribute_type";
        case finding_code::attribute_type_mismatch: return "attribute_type_mismatch";
        case finding_code::attribute_several_values: return "attribute_several_values";
        case finding_code::ref_attr_outside_function: return "ref_attr_outside_function";
        case finding_code::ref_attr_with_value: return "ref_attr_with_value";
        case finding_code::missing_data_type: return "missing_data_type";
        case finding_code::undefined_data_type: return "undefined_data_type";
        case finding_code::unknown_data_type: return "unknown_data_type";
        case finding_code::negative_dim: return "negative_dim";
        case finding_code::dims_overflow: return "dims_overflow";
        case finding_code::empty_with_data: return "empty_with_data";
        case finding_code::value_field_count: return "value_field_count";
        case finding_code::string_in_raw_data: return "string_in_raw_data";
        case finding_code::wrong_value_field: return "wrong_value_field";
        case finding_code::payload_size_mismatch: return "payload_size_mismatch";
        case finding_code::bad_data_type: return "bad_data_type";
        case finding_code::bad_dims: return "bad_dims";
        case finding_code::external_with_data: return "external_with_data";
        case finding_code::external_data_ignored: return "external_data_ignored";
        case finding_code::external_no_location: return "external_no_location";
        case finding_code::external_base: return "external_base";
        case finding_code::external_not_checked: return "external_not_checked";
        case finding_code::external_data: return "external_data";
        case finding_code::sparse_no_values: return "sparse_no_values";
        case finding_code::sparse_values_rank: return "sparse_values_rank";
        case finding_code::sparse_rank: return "sparse_rank";
        case finding_code::sparse_dims: return "sparse_dims";
        case finding_code::sparse_no_indices: return "sparse_no_indices";
        case finding_code::sparse_indices_type: return "sparse_indices_type";
        case finding_code::sparse_indices_rank: return "sparse_indices_rank";
        case finding_code::sparse_indices_count: return "sparse_indices_count";
        case finding_code::sparse_index_range: return "sparse_index_range";
        case finding_code::sparse_index_order: return "sparse_index_order";
        case finding_code::function_no_domain: return "function_no_domain";
        case finding_code::duplicate_function: return "duplicate_function";
        case finding_code::recursive_function: return "recursive_function";
    }
    return "unknown";
}

}  // namespace onnxview
