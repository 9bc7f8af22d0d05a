#!/usr/bin/env python3
"""Generates the typed ONNX views (include/onnxview/views/*.hpp) from the
schema below, which follows the newest ONNX schema (IR 13/14) field for field,
and tests/model/accessors_test.cpp, which checks every accessor against the
independent schema tables of scripts/gen_schema.py.

    scripts/gen_views.py [--check SCHEMA.md]

--check compares every (message, number, name) below with the tables of the
ONNX wire-schema fact sheet and fails on any difference. The output is
committed; run this after changing the schema and commit the result.
"""
import os
import re
import sys

# (onnx message, view class, header group, fields)
# field: (number, name, type[, oneof])
#   types: int32 int64 uint64 float double string bytes enum:<cpp enum>:<max>
#          msg:<Message>  rep:string rep:bytes rep:int64 rep:float rep:msg:<Message>
SCHEMA = [
    ("ModelProto", "model_view", "model", [
        (1, "ir_version", "int64"), (2, "producer_name", "string"), (3, "producer_version", "string"),
        (4, "domain", "string"), (5, "model_version", "int64"), (6, "doc_string", "string"),
        (7, "graph", "msg:GraphProto"), (8, "opset_import", "rep:msg:OperatorSetIdProto"),
        (14, "metadata_props", "rep:msg:StringStringEntryProto"),
        (20, "training_info", "rep:msg:TrainingInfoProto"), (25, "functions", "rep:msg:FunctionProto"),
        (26, "configuration", "rep:msg:DeviceConfigurationProto")]),
    ("GraphProto", "graph_view", "model", [
        (1, "node", "rep:msg:NodeProto"), (2, "name", "string"), (5, "initializer", "rep:msg:TensorProto"),
        (10, "doc_string", "string"), (11, "input", "rep:msg:ValueInfoProto"),
        (12, "output", "rep:msg:ValueInfoProto"), (13, "value_info", "rep:msg:ValueInfoProto"),
        (14, "quantization_annotation", "rep:msg:TensorAnnotation"),
        (15, "sparse_initializer", "rep:msg:SparseTensorProto"),
        (16, "metadata_props", "rep:msg:StringStringEntryProto")]),
    ("OperatorSetIdProto", "opset_id_view", "model", [(1, "domain", "string"), (2, "version", "int64")]),
    ("StringStringEntryProto", "string_entry_view", "model", [(1, "key", "string"), (2, "value", "string")]),
    ("TensorAnnotation", "tensor_annotation_view", "model", [
        (1, "tensor_name", "string"), (2, "quant_parameter_tensor_names", "rep:msg:StringStringEntryProto")]),
    ("TrainingInfoProto", "training_info_view", "function", [
        (1, "initialization", "msg:GraphProto"), (2, "algorithm", "msg:GraphProto"),
        (3, "initialization_binding", "rep:msg:StringStringEntryProto"),
        (4, "update_binding", "rep:msg:StringStringEntryProto")]),
    ("FunctionProto", "function_view", "function", [
        (1, "name", "string"), (4, "input", "rep:string"), (5, "output", "rep:string"),
        (6, "attribute", "rep:string"), (7, "node", "rep:msg:NodeProto"), (8, "doc_string", "string"),
        (9, "opset_import", "rep:msg:OperatorSetIdProto"), (10, "domain", "string"),
        (11, "attribute_proto", "rep:msg:AttributeProto"), (12, "value_info", "rep:msg:ValueInfoProto"),
        (13, "overload", "string"), (14, "metadata_props", "rep:msg:StringStringEntryProto")]),
    ("NodeProto", "node_view", "node", [
        (1, "input", "rep:string"), (2, "output", "rep:string"), (3, "name", "string"),
        (4, "op_type", "string"), (5, "attribute", "rep:msg:AttributeProto"), (6, "doc_string", "string"),
        (7, "domain", "string"), (8, "overload", "string"),
        (9, "metadata_props", "rep:msg:StringStringEntryProto"),
        (10, "device_configurations", "rep:msg:NodeDeviceConfigurationProto")]),
    ("AttributeProto", "attribute_view", "node", [
        (1, "name", "string"), (2, "f", "float"), (3, "i", "int64"), (4, "s", "bytes"),
        (5, "t", "msg:TensorProto"), (6, "g", "msg:GraphProto"), (7, "floats", "rep:float"),
        (8, "ints", "rep:int64"), (9, "strings", "rep:bytes"), (10, "tensors", "rep:msg:TensorProto"),
        (11, "graphs", "rep:msg:GraphProto"), (13, "doc_string", "string"), (14, "tp", "msg:TypeProto"),
        (15, "type_protos", "rep:msg:TypeProto"), (20, "type", "enum:attribute_type:14"),
        (21, "ref_attr_name", "string"), (22, "sparse_tensor", "msg:SparseTensorProto"),
        (23, "sparse_tensors", "rep:msg:SparseTensorProto")]),
    ("TensorProto", "tensor_view", "tensor", [
        (1, "dims", "rep:int64"), (2, "data_type", "int32"), (3, "segment", "msg:TensorProto.Segment"),
        (4, "float_data", "rep:float"), (5, "int32_data", "rep:int32"), (6, "string_data", "rep:bytes"),
        (7, "int64_data", "rep:int64"), (8, "name", "string"), (9, "raw_data", "bytes"),
        (10, "double_data", "rep:double"), (11, "uint64_data", "rep:uint64"), (12, "doc_string", "string"),
        (13, "external_data", "rep:msg:StringStringEntryProto"),
        (14, "data_location", "enum:location_kind:1"),
        (16, "metadata_props", "rep:msg:StringStringEntryProto")]),
    ("TensorProto.Segment", "tensor_segment_view", "tensor", [(1, "begin", "int64"), (2, "end", "int64")]),
    ("SparseTensorProto", "sparse_tensor_view", "tensor", [
        (1, "values", "msg:TensorProto"), (2, "indices", "msg:TensorProto"), (3, "dims", "rep:int64")]),
    ("ValueInfoProto", "value_info_view", "types", [
        (1, "name", "string"), (2, "type", "msg:TypeProto"), (3, "doc_string", "string"),
        (4, "metadata_props", "rep:msg:StringStringEntryProto")]),
    ("TypeProto", "type_view", "types", [
        (1, "tensor_type", "msg:TypeProto.Tensor", 0), (4, "sequence_type", "msg:TypeProto.Sequence", 0),
        (5, "map_type", "msg:TypeProto.Map", 0), (6, "denotation", "string"),
        (7, "opaque_type", "msg:TypeProto.Opaque", 0),
        (8, "sparse_tensor_type", "msg:TypeProto.SparseTensor", 0),
        (9, "optional_type", "msg:TypeProto.Optional", 0)]),
    ("TypeProto.Tensor", "tensor_type_view", "types", [
        (1, "elem_type", "int32"), (2, "shape", "msg:TensorShapeProto")]),
    ("TypeProto.Sequence", "sequence_type_view", "types", [(1, "elem_type", "msg:TypeProto")]),
    ("TypeProto.Map", "map_type_view", "types", [(1, "key_type", "int32"), (2, "value_type", "msg:TypeProto")]),
    ("TypeProto.Optional", "optional_type_view", "types", [(1, "elem_type", "msg:TypeProto")]),
    ("TypeProto.SparseTensor", "sparse_tensor_type_view", "types", [
        (1, "elem_type", "int32"), (2, "shape", "msg:TensorShapeProto")]),
    ("TypeProto.Opaque", "opaque_type_view", "types", [(1, "domain", "string"), (2, "name", "string")]),
    ("TensorShapeProto", "tensor_shape_view", "types", [(1, "dim", "rep:msg:TensorShapeProto.Dimension")]),
    ("TensorShapeProto.Dimension", "dimension_view", "types", [
        (1, "dim_value", "int64", 0), (2, "dim_param", "string", 0), (3, "denotation", "string")]),
    ("IntIntListEntryProto", "int_list_entry_view", "device", [(1, "key", "int64"), (2, "value", "rep:int64")]),
    ("DeviceConfigurationProto", "device_configuration_view", "device", [
        (1, "name", "string"), (2, "num_devices", "int32"), (3, "device", "rep:string")]),
    ("NodeDeviceConfigurationProto", "node_device_configuration_view", "device", [
        (1, "configuration_id", "string"), (2, "sharding_spec", "rep:msg:ShardingSpecProto"),
        (3, "pipeline_stage", "int32")]),
    ("ShardingSpecProto", "sharding_spec_view", "device", [
        (1, "tensor_name", "string"), (2, "device", "rep:int64"),
        (3, "index_to_device_group_map", "rep:msg:IntIntListEntryProto"),
        (4, "sharded_dim", "rep:msg:ShardedDimProto")]),
    ("ShardedDimProto", "sharded_dim_view", "device", [
        (1, "axis", "int64"), (2, "simple_sharding", "rep:msg:SimpleShardedDimProto")]),
    ("SimpleShardedDimProto", "simple_sharded_dim_view", "device", [
        (1, "dim_value", "int64", 0), (2, "dim_param", "string", 0), (3, "num_shards", "int64")]),
    ("SequenceProto", "sequence_view", "data", [
        (1, "name", "string"), (2, "elem_type", "int32"), (3, "tensor_values", "rep:msg:TensorProto"),
        (4, "sparse_tensor_values", "rep:msg:SparseTensorProto"),
        (5, "sequence_values", "rep:msg:SequenceProto"), (6, "map_values", "rep:msg:MapProto"),
        (7, "optional_values", "rep:msg:OptionalProto")]),
    ("MapProto", "map_view", "data", [
        (1, "name", "string"), (2, "key_type", "int32"), (3, "keys", "rep:int64"),
        (4, "string_keys", "rep:bytes"), (5, "values", "msg:SequenceProto")]),
    ("OptionalProto", "optional_view", "data", [
        (1, "name", "string"), (2, "elem_type", "int32"), (3, "tensor_value", "msg:TensorProto"),
        (4, "sparse_tensor_value", "msg:SparseTensorProto"), (5, "sequence_value", "msg:SequenceProto"),
        (6, "map_value", "msg:MapProto"), (7, "optional_value", "msg:OptionalProto")]),
    ("OperatorProto", "operator_view", "data", [
        (1, "op_type", "string"), (2, "since_version", "int64"), (3, "status", "enum:operator_status:1"),
        (10, "doc_string", "string")]),
    ("OperatorSetProto", "operator_set_view", "data", [
        (1, "magic", "string"), (2, "ir_version", "int64"), (3, "ir_version_prerelease", "string"),
        (4, "domain", "string"), (5, "opset_version", "int64"), (6, "doc_string", "string"),
        (7, "ir_build_metadata", "string"), (8, "operator", "rep:msg:OperatorProto"),
        (9, "functions", "rep:msg:FunctionProto")]),
]

GROUPS = {
    "model": "ModelProto, GraphProto and the small messages they hold",
    "function": "FunctionProto and TrainingInfoProto",
    "node": "NodeProto and AttributeProto",
    "tensor": "TensorProto, its Segment and SparseTensorProto",
    "types": "ValueInfoProto, TypeProto and its kinds, TensorShapeProto",
    "device": "multi-device configuration and sharding messages",
    "data": "onnx-data (SequenceProto, MapProto, OptionalProto) and onnx-operators messages",
}

CPP_KEYWORDS = {"operator"}
VIEW = {m: v for m, v, _, _ in SCHEMA}
SCALAR = {
    "int32": ("std::int32_t", "varint", "int32_"),
    "int64": ("std::int64_t", "varint", "int64_"),
    "uint64": ("std::uint64_t", "varint", "raw_"),
    "float": ("float", "fixed32", "float_"),
    "double": ("double", "fixed64", "double_"),
}
REPEATED_SCALAR = {
    "int64": ("wire::elem_int64", "repeated_varint"),
    "int32": ("wire::elem_int32", "repeated_varint"),
    "uint64": ("wire::elem_uint64", "repeated_varint"),
    "float": ("wire::elem_float", "repeated_fixed32"),
    "double": ("wire::elem_double", "repeated_fixed64"),
}


def slot_kind(t):
    if t in SCALAR:
        return SCALAR[t][1]
    if t.startswith("enum:"):
        return "closed_enum"
    if t in ("string", "bytes") or t.startswith("msg:"):
        return "len"
    if t in ("rep:string", "rep:bytes") or t.startswith("rep:msg:"):
        return "repeated_len"
    return REPEATED_SCALAR[t[4:]][1]


def gen_class(msg, view, fields):
    layout = f"{view}_layout"
    out = []
    slots = []
    for f in fields:
        number, name, t = f[0], f[1], f[2]
        oneof = f[3] if len(f) > 3 else -1
        extra = ""
        if t.startswith("enum:"):
            extra = f", {t.split(':')[2]}"
        if oneof >= 0 or extra:
            slots.append(f"{{{number}, slot_kind::{slot_kind(t)}, {oneof}{extra}}}")
        else:
            slots.append(f"{{{number}, slot_kind::{slot_kind(t)}}}")
    out.append(f"namespace detail {{\ninline constexpr field_slot {view}_fields[] = {{\n    " +
               ",\n    ".join(slots) + "};\n"
               f"inline constexpr auto {layout} = make_layout({view}_fields);\n}}  // namespace detail\n")
    out.append(f"// A view of onnx.{msg}. Making one scans its own fields once (linear in\n"
               f"// their count, nested messages skipped); every accessor below is O(1)\n"
               f"// unless it says otherwise. Valid while the underlying bytes are.\n"
               f"class {view} : public detail::view_base<detail::{layout}> {{\n"
               f"public:\n"
               f"    {view}() noexcept = default;\n"
               f"    explicit {view}(const result<wire::message>& m) noexcept : view_base(m) {{}}\n")
    names = []
    for f in fields:
        name = f[1] + ("_" if f[1] in CPP_KEYWORDS else "")
        names.append(f"{name} = {f[0]}")
    out.append(f"    // Field numbers, as cursor<{view}>::next() returns them (onnxview/cursor.hpp).\n"
               f"    struct field {{\n        enum : std::uint32_t {{ " + ", ".join(names) + " };\n    };\n")
    defs = []
    for i, f in enumerate(fields):
        number, name, t = f[0], f[1], f[2]
        if name in CPP_KEYWORDS:
            name += "_"  # a C++ keyword; the field keeps its schema name on the wire
        where = f"`{name}` (field {number})"
        if t in SCALAR:
            cpp, _, getter = SCALAR[t]
            out.append(f"    // {where}; 0 when absent (last occurrence wins).\n"
                       f"    {cpp} {name}() const noexcept {{ return {getter}({i}); }}\n"
                       f"    bool has_{name}() const noexcept {{ return has_({i}); }}\n")
        elif t in ("string", "bytes"):
            out.append(f"    // {where}; a view into the buffer, empty when absent.\n"
                       f"    std::string_view {name}() const noexcept {{ return string_({i}); }}\n"
                       f"    bool has_{name}() const noexcept {{ return has_({i}); }}\n")
        elif t.startswith("enum:"):
            enum = t.split(":")[1]
            out.append(f"    // {where}, a closed enum: out-of-range numbers are unknown fields, so the\n"
                       f"    // last valid one wins; {name}_raw() gives the last number seen (linear).\n"
                       f"    {enum} {name}() const noexcept {{ return static_cast<{enum}>(int32_({i})); }}\n"
                       f"    bool has_{name}() const noexcept {{ return has_({i}); }}\n"
                       f"    std::int32_t {name}_raw() const noexcept {{ return enum_raw_({i}); }}\n")
        elif t.startswith("msg:"):
            child = VIEW[t[4:]]
            out.append(f"    // {where}; all occurrences merged; an empty view when absent.\n"
                       f"    {child} {name}() const noexcept;\n"
                       f"    bool has_{name}() const noexcept {{ return has_({i}); }}\n")
            defs.append(f"inline {child} {view}::{name}() const noexcept {{ return message_<{child}>({i}); }}\n")
        elif t.startswith("rep:msg:"):
            child = VIEW[t[8:]]
            out.append(f"    // {where}; iteration is linear from the first element; size() O(1).\n"
                       f"    message_range<{child}> {name}() const noexcept;\n")
            defs.append(f"inline message_range<{child}> {view}::{name}() const noexcept {{\n"
                        f"    return messages_<{child}>({i});\n}}\n")
        elif t in ("rep:string", "rep:bytes"):
            out.append(f"    // {where}; views into the buffer; size() O(1).\n"
                       f"    string_range {name}() const noexcept {{ return strings_({i}); }}\n")
        else:
            elem = REPEATED_SCALAR[t[4:]][0]
            out.append(f"    // {where}; packed and unpacked occurrences in wire order.\n"
                       f"    wire::repeated<{elem}> {name}() const noexcept {{ return scalars_<{elem}>({i}); }}\n")
    out.append("};\n")
    return "".join(out), "".join(defs)


HEADER = """// Generated by scripts/gen_views.py from the ONNX schema; do not edit.
// {what}.
// Include onnxview/model.hpp rather than this file.
"""


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        return check(sys.argv[2])
    outdir = os.path.join(root, "include", "onnxview", "views")
    os.makedirs(outdir, exist_ok=True)
    all_defs = []
    fwd = []
    for group, what in GROUPS.items():
        body = []
        for msg, view, g, fields in SCHEMA:
            if g != group:
                continue
            cls, defs = gen_class(msg, view, fields)
            body.append(cls)
            all_defs.append(defs)
        guard = f"ONNXVIEW_VIEWS_{group.upper()}_HPP"
        text = (HEADER.format(what=what) + f"#ifndef {guard}\n#define {guard}\n\n"
                '#include "onnxview/views/forward.hpp"\n\n'
                "namespace onnxview {\n\n" + "\n".join(body) + "\n}  // namespace onnxview\n\n"
                f"#endif  // {guard}\n")
        open(os.path.join(outdir, f"{group}.hpp"), "w").write(text)
    for msg, view, g, fields in SCHEMA:
        fwd.append(f"class {view};  // onnx.{msg}\n")
    text = (HEADER.format(what="forward declarations of every view") +
            "#ifndef ONNXVIEW_VIEWS_FORWARD_HPP\n#define ONNXVIEW_VIEWS_FORWARD_HPP\n\n"
            '#include "onnxview/enums.hpp"\n#include "onnxview/view.hpp"\n\n'
            "namespace onnxview {\n\n" + "".join(fwd) + "\n}  // namespace onnxview\n\n"
            "#endif  // ONNXVIEW_VIEWS_FORWARD_HPP\n")
    open(os.path.join(outdir, "forward.hpp"), "w").write(text)
    includes = "".join(f'#include "onnxview/views/{g}.hpp"\n' for g in GROUPS)
    text = (HEADER.format(what="accessors that return other views (defined once all are complete)") +
            "#ifndef ONNXVIEW_VIEWS_ACCESSORS_HPP\n#define ONNXVIEW_VIEWS_ACCESSORS_HPP\n\n" + includes +
            "\nnamespace onnxview {\n\n" + "".join(all_defs) + "\n}  // namespace onnxview\n\n"
            "#endif  // ONNXVIEW_VIEWS_ACCESSORS_HPP\n")
    open(os.path.join(outdir, "accessors.hpp"), "w").write(text)
    open(os.path.join(root, "tests", "model", "accessors_test.cpp"), "w").write(gen_accessor_test())
    open(os.path.join(root, "fuzz", "cursor_walk.hpp"), "w").write(gen_cursor_walk())
    return 0


def cpp_message_name(msg):
    return "onnx." + msg


def gen_accessor_test():
    """tests/model/accessors_test.cpp: for every field of every view, a message
    with that field set (its number taken at run time from the schema tables of
    scripts/gen_schema.py, an independent reading of the same fact sheet) must
    read back through the generated accessor."""
    out = [HEADER.format(what="a test per accessor: each reads the field the schema tables name").replace(
        "// Include onnxview/model.hpp rather than this file.\n", ""),
        '#include <catch2/catch.hpp>\n\n#include <string>\n#include <vector>\n\n'
        '#include "../wire_builder.hpp"\n#include "onnxview/cursor.hpp"\n#include "onnxview/model.hpp"\n#include "onnxview/schema.hpp"\n\n'
        'using namespace onnxview;\nusing onnxview::testing::wire_builder;\n\nnamespace {\n'
        'std::uint32_t number_of(const char* message, const char* field) {\n'
        '    const schema::message_desc* m = schema::find_message(message);\n'
        '    REQUIRE(m != nullptr);\n    const schema::field_desc* f = m->find(std::string_view(field));\n'
        '    REQUIRE(f != nullptr);\n    return f->number;\n}\n'
        'template <class View>\nView view_of(const std::string& bytes) {\n'
        '    return parse_as<View>(bytes.data(), bytes.size());\n}\n}  // namespace\n']
    for msg, view, _, fields in SCHEMA:
        full = cpp_message_name(msg)
        out.append(f'\nTEST_CASE("{full}: every accessor reads its field") {{\n'
                   f'    const schema::message_desc* desc = schema::find_message("{full}");\n'
                   f'    REQUIRE(desc != nullptr);\n'
                   f'    CHECK(desc->field_count == {len(fields)});  // every field has an accessor\n')
        for f in fields:
            name, t = f[1], f[2]
            acc = name + "_" if name in CPP_KEYWORDS else name
            n = f'number_of("{full}", "{name}")'
            out.append(f'    SECTION("{name}") {{\n        wire_builder b;\n')
            if t in ("int32", "int64", "uint64"):
                out.append(f'        b.field_varint({n}, 123);\n        const auto v = view_of<{view}>(b.str());\n'
                           f'        CHECK(v.{acc}() == 123);\n        CHECK(v.has_{acc}());\n')
            elif t.startswith("enum:"):
                out.append(f'        b.field_varint({n}, 1);\n        const auto v = view_of<{view}>(b.str());\n'
                           f'        CHECK(static_cast<int>(v.{acc}()) == 1);\n        CHECK(v.{acc}_raw() == 1);\n')
            elif t == "float":
                out.append(f'        b.field_float({n}, 1.5f);\n        const auto v = view_of<{view}>(b.str());\n'
                           f'        CHECK(v.{acc}() == 1.5f);\n        CHECK(v.has_{acc}());\n')
            elif t == "double":
                out.append(f'        b.field_double({n}, 2.5);\n        const auto v = view_of<{view}>(b.str());\n'
                           f'        CHECK(v.{acc}() == 2.5);\n        CHECK(v.has_{acc}());\n')
            elif t in ("string", "bytes"):
                out.append(f'        b.field_bytes({n}, "abc");\n        const auto v = view_of<{view}>(b.str());\n'
                           f'        CHECK(v.{acc}() == "abc");\n        CHECK(v.has_{acc}());\n')
            elif t.startswith("msg:"):
                out.append(f'        b.field_message({n}, wire_builder().field_varint(999, 7));\n'
                           f'        const auto v = view_of<{view}>(b.str());\n        CHECK(v.has_{acc}());\n'
                           f'        CHECK(v.{acc}().ok());\n        CHECK(v.{acc}().wire_message().bytes().size() == 3);\n')
            elif t.startswith("rep:msg:"):
                out.append(f'        b.field_message({n}, wire_builder()).field_message({n}, wire_builder().field_varint(999, 7));\n'
                           f'        const auto v = view_of<{view}>(b.str());\n        CHECK(v.{acc}().size() == 2);\n'
                           f'        CHECK(v.{acc}().at(1).wire_message().bytes().size() == 3);\n')
            elif t in ("rep:string", "rep:bytes"):
                out.append(f'        b.field_bytes({n}, "a").field_bytes({n}, "bc");\n'
                           f'        const auto v = view_of<{view}>(b.str());\n        CHECK(v.{acc}().size() == 2);\n'
                           f'        CHECK(v.{acc}().at(1) == "bc");\n')
            elif t in ("rep:int64", "rep:int32", "rep:uint64"):
                out.append(f'        b.unpacked_varint({n}, {{1}}).packed_varint({n}, {{2, 3}});\n'
                           f'        const auto v = view_of<{view}>(b.str());\n        std::vector<long long> got;\n'
                           f'        for (auto x : v.{acc}()) got.push_back(static_cast<long long>(x));\n'
                           f'        CHECK(got == std::vector<long long>{{1, 2, 3}});\n')
            elif t in ("rep:float", "rep:double"):
                fn = "field_float" if t == "rep:float" else "field_double"
                out.append(f'        b.{fn}({n}, 1.5).{fn}({n}, -2);\n'
                           f'        const auto v = view_of<{view}>(b.str());\n        std::vector<double> got;\n'
                           f'        for (auto x : v.{acc}()) got.push_back(static_cast<double>(x));\n'
                           f'        CHECK(got == std::vector<double>{{1.5, -2}});\n')
            else:
                raise SystemExit(f"no test for {msg}.{name} {t}")
            # The field-number constant, and the cursor yields the field.
            out.append(f'        CHECK({view}::field::{acc} == {n});\n'
                       f'        auto c = cursor_as<{view}>(b.str().data(), b.str().size());\n'
                       f'        CHECK(c.next() == {n});\n        CHECK(c.ok());\n')
            out.append('    }\n')
        out.append('}\n')
    return "".join(out)


def gen_cursor_walk():
    """fuzz/cursor_walk.hpp: a walk with cursors over every field of every
    message reachable from a root, for the fuzz contract and the hostile tests."""
    out = [HEADER.format(what="a cursor walk over every field of every message").replace(
        "// Include onnxview/model.hpp rather than this file.\n",
        "//\n// walk_fields(c, stats) reads every field the cursor yields: each string's\n"
        "// bytes, each scalar, each element of a repeated scalar, and every nested\n"
        "// message with a cursor of its own type; it returns the first error met\n"
        "// (the cursor's or a nested one's). Used by fuzz_model and tests/hostile.\n"),
        "#ifndef ONNXVIEW_FUZZ_CURSOR_WALK_HPP\n#define ONNXVIEW_FUZZ_CURSOR_WALK_HPP\n\n"
        '#include <cstdint>\n\n#include "onnxview/cursor.hpp"\n\n'
        "namespace onnxview {\nnamespace fuzzing {\n\n"
        "struct cursor_walk_stats {\n    std::uint64_t fields = 0;\n    std::uint64_t checksum = 0;\n"
        "    void add(std::uint64_t v) noexcept {\n        ++fields;\n        checksum = checksum * 31 + v;\n    }\n"
        "    void add(std::string_view s) noexcept {\n        add(s.size());\n"
        "        if (!s.empty()) checksum += static_cast<unsigned char>(s[s.size() - 1]);\n    }\n};\n\n"]
    for msg, view, _, fields in SCHEMA:
        out.append(f"inline error walk_fields(cursor<{view}> c, cursor_walk_stats& s) noexcept;\n")
    for msg, view, _, fields in SCHEMA:
        out.append(f"\ninline error walk_fields(cursor<{view}> c, cursor_walk_stats& s) noexcept {{\n"
                   f"    while (const std::uint32_t n = c.next()) {{\n        switch (n) {{\n")
        for f in fields:
            name, t = f[1], f[2]
            acc = name + "_" if name in CPP_KEYWORDS else name
            case = f"            case {view}::field::{acc}:"
            if t.startswith("msg:") or t.startswith("rep:msg:"):
                child = VIEW[t.split(":")[-1]]
                out.append(f"{case}\n                if (const error e = walk_fields(c.message<{child}>(), s)) return e;\n"
                           f"                break;\n")
            elif t in ("string", "bytes", "rep:string", "rep:bytes"):
                out.append(f"{case} s.add(c.as_string()); break;\n")
            elif t.startswith("rep:"):
                elem = REPEATED_SCALAR[t[4:]][0]
                value = "v != 0" if t[4:] in ("float", "double") else "v"  # floats: no UB on conversion
                out.append(f"{case}\n                for (auto v : c.elements<{elem}>()) s.add(static_cast<std::uint64_t>({value}));\n"
                           f"                break;\n")
            elif t == "float":
                out.append(f"{case} s.add(static_cast<std::uint64_t>(c.as_float() != 0)); break;\n")
            elif t == "double":
                out.append(f"{case} s.add(static_cast<std::uint64_t>(c.as_double() != 0)); break;\n")
            else:  # varint scalars and enums
                out.append(f"{case} s.add(c.as_uint64()); break;\n")
        out.append("            default: return error(errc::not_found, c.offset());  // a number outside the schema\n"
                   "        }\n    }\n    return c.err();\n}\n")
    out.append("\n}  // namespace fuzzing\n}  // namespace onnxview\n\n#endif  // ONNXVIEW_FUZZ_CURSOR_WALK_HPP\n")
    return "".join(out)


def check(md_path):
    """Every field above must match the fact sheet's table (number, name, label)."""
    text = open(md_path, encoding="utf-8").read()
    tables = {}
    for m in re.finditer(r"^### ([A-Za-z.]+)\n(.*?)(?=^###|^## )", text, re.S | re.M):
        rows = re.findall(r"^\| (\d+) \| `(\w+)` \| ([^|]+) \| ([^|]+) \|", m.group(2), re.M)
        if rows:
            tables[m.group(1)] = {int(n): (name, ptype.strip(), label.strip()) for n, name, ptype, label in rows}
    bad = 0
    for msg, view, g, fields in SCHEMA:
        want = tables.get(msg)
        if want is None:
            print(f"missing in fact sheet: {msg}")
            bad += 1
            continue
        have = {f[0]: f for f in fields}
        if set(have) != set(want):
            print(f"{msg}: numbers differ: ours {sorted(have)} sheet {sorted(want)}")
            bad += 1
        for n, f in have.items():
            if n not in want:
                continue
            name, ptype, label = want[n]
            repeated = label.startswith("repeated")
            if f[1] != name or f[2].startswith("rep:") != repeated:
                print(f"{msg}.{n}: ours {f[1]} {f[2]} sheet {name} {ptype} {label}")
                bad += 1
            ours = f[2][4:] if f[2].startswith("rep:") else f[2]
            ours = ours[4:] if ours.startswith("msg:") else ours
            if ours.startswith("enum:"):
                ok_type = not ptype[0].islower()
            else:
                ok_type = ptype == ours or ptype.endswith("." + ours) or ours.endswith("." + ptype)
            if not ok_type:
                print(f"{msg}.{n}: type ours {f[2]} sheet {ptype}")
                bad += 1
            if (len(f) > 3) != label.startswith("oneof"):
                print(f"{msg}.{n}: oneof mismatch")
                bad += 1
    missing = set(tables) - {m for m, _, _, _ in SCHEMA}
    for m in sorted(missing):
        print(f"not generated: {m}")
        bad += 1
    print("schema check:", "ok" if bad == 0 else f"{bad} differences")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
