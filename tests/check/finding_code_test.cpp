// The finding codes and the newest IR version of onnxview/check.hpp: every
// code has one name, the names are the identifiers the CLI has always
// printed, and the IR version comes from the schema's onnx.Version enum.
#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include "onnxview/check.hpp"
#include "onnxview/schema.hpp"

using namespace onnxview;

TEST_CASE("finding codes: one distinct name per code, 'unknown' past the last") {
    std::set<std::string> names;
    for (std::size_t i = 0; i < finding_code_count; ++i) {
        const std::string name = finding_code_name(static_cast<finding_code>(i));
        INFO("code " << i << ": " << name);
        CHECK(name != "unknown");
        CHECK(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") == std::string::npos);
        CHECK(names.insert(name).second);
    }
    CHECK(names.size() == finding_code_count);
    CHECK(std::string(finding_code_name(static_cast<finding_code>(finding_code_count))) == "unknown");
    CHECK(std::string(finding_code_name(static_cast<finding_code>(255))) == "unknown");
}

TEST_CASE("finding codes: the identifiers output and scripts rely on") {
    // Every code `onnxview check` printed when the codes were strings, plus
    // the two errc names the element layer could add (bad_data_type, bad_dims).
    const std::set<std::string> expected = {
        "attribute_several_values", "attribute_type_mismatch", "bad_data_type", "bad_dims", "bad_ir_version",
        "dims_overflow", "duplicate_attribute", "duplicate_function", "duplicate_initializer", "duplicate_input",
        "duplicate_metadata_key", "duplicate_opset", "duplicate_output", "empty_graph_name", "empty_name",
        "empty_op_type", "empty_with_data", "external_base", "external_data", "external_data_ignored",
        "external_no_location", "external_not_checked", "external_with_data", "function_no_domain",
        "initializer_not_input", "missing_attribute_type", "missing_data_type", "missing_elem_type", "missing_graph",
        "missing_ir_version", "missing_opset", "missing_opset_import", "missing_shape", "missing_type",
        "negative_dim", "new_ir_version", "no_inputs_outputs", "payload_size_mismatch", "recursive_function",
        "ref_attr_outside_function", "ref_attr_with_value", "sparse_dims", "sparse_index_order",
        "sparse_index_range", "sparse_indices_count", "sparse_indices_rank", "sparse_indices_type",
        "sparse_no_indices", "sparse_no_values", "sparse_rank", "sparse_values_rank", "string_in_raw_data",
        "too_deep", "undefined_data_type", "undefined_input", "undefined_output", "unexpected_opset_import",
        "unknown_data_type", "value_field_count", "wire_format", "wrong_value_field",
    };
    REQUIRE(expected.size() == 61);
    std::set<std::string> names;
    for (std::size_t i = 0; i < finding_code_count; ++i) names.insert(finding_code_name(static_cast<finding_code>(i)));
    CHECK(names == expected);
    CHECK(std::string(finding_code_name(finding_code::undefined_input)) == "undefined_input");
    CHECK(std::string(finding_code_name(finding_code::wire_format)) == "wire_format");
}

TEST_CASE("newest_ir_version: the largest onnx.Version value") {
    const std::int64_t newest = newest_ir_version;
    CHECK(newest >= 11);  // the checker's constant before it came from the schema
    const schema::enum_desc& versions = schema::enum_Version;
    REQUIRE(versions.find(static_cast<std::int32_t>(newest)) != nullptr);
    for (std::uint16_t i = 0; i < versions.value_count; ++i) CHECK(versions.values[i].number <= newest);
}
