// Which value fields an AttributeProto holds (onnxview/attribute_values.hpp).
// Field numbers here are onnx.proto's, written out, not the generated ones.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "../wire_builder.hpp"
#include "onnxview/attribute_values.hpp"
#include "onnxview/model.hpp"

using namespace onnxview;
using onnxview::testing::wire_builder;

namespace {

struct seen {
    std::vector<attribute_type> types;
    std::vector<std::uint32_t> numbers;
    std::vector<std::string> names;
};

seen fields_of(const std::string& bytes) {
    const auto a = parse_as<attribute_view>(bytes.data(), bytes.size());
    REQUIRE(a.ok());
    seen s;
    for_each_value_field(a, [&](const attribute_value_field& f) {
        s.types.push_back(f.type);
        s.numbers.push_back(f.number);
        s.names.emplace_back(f.name);
    });
    return s;
}

attribute_type effective(const std::string& bytes) {
    return effective_attribute_type(parse_as<attribute_view>(bytes.data(), bytes.size()));
}

}  // namespace

TEST_CASE("each value field names its attribute type") {
    struct row {
        std::uint32_t number;
        bool repeated;
        attribute_type type;
        const char* name;
    };
    const row rows[] = {
        {2, false, attribute_type::float32, "f"},          {3, false, attribute_type::int64, "i"},
        {4, false, attribute_type::string, "s"},           {5, false, attribute_type::tensor, "t"},
        {6, false, attribute_type::graph, "g"},            {7, true, attribute_type::floats, "floats"},
        {8, true, attribute_type::ints, "ints"},           {9, true, attribute_type::strings, "strings"},
        {10, true, attribute_type::tensors, "tensors"},    {11, true, attribute_type::graphs, "graphs"},
        {14, false, attribute_type::type_proto, "tp"},     {15, true, attribute_type::type_protos, "type_protos"},
        {22, false, attribute_type::sparse_tensor, "sparse_tensor"},
        {23, true, attribute_type::sparse_tensors, "sparse_tensors"},
    };
    for (const row& r : rows) {
        INFO(r.name);
        wire_builder a;
        a.field_bytes(1, "x");
        if (r.number == 2) a.field_float(2, 1.5f);
        else if (r.number == 7) a.packed_fixed32(7, {0x3f800000u});
        else if (r.number == 3) a.field_varint(3, 7);
        else if (r.number == 8) a.packed_varint(8, {1, 2});
        else if (r.number == 4 || r.number == 9) a.field_bytes(r.number, "v");
        else a.field_message(r.number, wire_builder());
        const seen s = fields_of(a.str());
        REQUIRE(s.types.size() == 1);
        CHECK(s.types[0] == r.type);
        CHECK(s.numbers[0] == r.number);
        CHECK(s.names[0] == r.name);
        CHECK(effective(a.str()) == r.type);
    }
}

TEST_CASE("an empty packed record holds no value; several fields are all reported in type order") {
    wire_builder empty;
    empty.field_bytes(1, "x").field_bytes(7, "");  // floats: packed, zero elements
    CHECK(fields_of(empty.str()).types.empty());
    CHECK(effective(empty.str()) == attribute_type::undefined);

    wire_builder two;
    two.field_bytes(1, "x").packed_varint(8, {1}).field_float(2, 2.0f);  // ints, then f on the wire
    const seen s = fields_of(two.str());
    CHECK(s.names == std::vector<std::string>{"f", "ints"});
    CHECK(effective(two.str()) == attribute_type::float32);
}

TEST_CASE("the type field wins over the value fields unless it is UNDEFINED") {
    wire_builder typed;
    typed.field_bytes(1, "x").field_float(2, 1.0f).field_varint(20, 7);  // says INTS, holds f
    CHECK(effective(typed.str()) == attribute_type::ints);
    wire_builder undefined;
    undefined.field_bytes(1, "x").field_varint(3, 4).field_varint(20, 0);
    CHECK(effective(undefined.str()) == attribute_type::int64);
}
