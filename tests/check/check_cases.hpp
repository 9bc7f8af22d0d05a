// The checker's test cases: ONNX messages over wire_builder, a small valid
// model (model_spec) to change in one place, and the table of cases (every
// kind of finding with its code, path and what onnx.checker says), which
// check_test.cpp runs through check_model and through onnx.checker.
#ifndef ONNXVIEW_TESTS_CHECK_CHECK_CASES_HPP
#define ONNXVIEW_TESTS_CHECK_CHECK_CASES_HPP

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../wire_builder.hpp"
#include "onnxview/check.hpp"

namespace onnxview {
namespace check_test {

using onnxview::testing::wire_builder;

// --- ONNX messages over wire_builder (field numbers from onnx.proto) ----------

using names = std::initializer_list<std::string_view>;

// TypeProto.Tensor: elem_type 1, shape 2 (TensorShapeProto dim 1, dim_value 1).
inline wire_builder tensor_type(std::int32_t elem = 1, bool with_elem = true, bool with_shape = true) {
    wire_builder tt;
    if (with_elem) tt.field_varint(1, static_cast<std::uint64_t>(elem));
    if (with_shape) tt.field_message(2, wire_builder().field_message(1, wire_builder().field_varint(1, 2)));
    return tt;
}
// TypeProto: tensor_type 1, sequence_type 4, map_type 5, opaque_type 7,
// sparse_tensor_type 8, optional_type 9.
inline wire_builder type_of(std::uint32_t kind, const wire_builder& body) { return wire_builder().field_message(kind, body); }
inline wire_builder float2() { return type_of(1, tensor_type()); }

// ValueInfoProto: name 1, type 2.
inline wire_builder value_info(std::string_view name, const wire_builder& type) {
    return wire_builder().field_bytes(1, name).field_message(2, type);
}
inline wire_builder value_info(std::string_view name) { return value_info(name, float2()); }

// NodeProto: input 1, output 2, name 3, op_type 4, attribute 5, domain 7.
inline wire_builder node(names in, names out, std::string_view op, std::string_view name = {},
                  std::string_view domain = {}) {
    wire_builder n;
    for (std::string_view s : in) n.field_bytes(1, s);
    for (std::string_view s : out) n.field_bytes(2, s);
    if (!name.empty()) n.field_bytes(3, name);
    n.field_bytes(4, op);
    if (!domain.empty()) n.field_bytes(7, domain);
    return n;
}
inline wire_builder with_attr(wire_builder n, const wire_builder& attribute) { return n.field_message(5, attribute); }

// AttributeProto: name 1, f 2, i 3, t 5, g 6, type 20, ref_attr_name 21,
// sparse_tensor 22. AttributeType: FLOAT 1, INT 2, TENSOR 4, GRAPH 5, SPARSE_TENSOR 11.
inline wire_builder attr(std::string_view name, std::int32_t type) {
    wire_builder a;
    if (!name.empty()) a.field_bytes(1, name);
    if (type != 0) a.field_varint(20, static_cast<std::uint64_t>(type));
    return a;
}
inline wire_builder attr_f(std::string_view name, float f) { return attr(name, 1).field_float(2, f); }
inline wire_builder attr_g(std::string_view name, const wire_builder& g) { return attr(name, 5).field_message(6, g); }

// TensorProto: dims 1, data_type 2, float_data 4, int32_data 5, string_data 6,
// int64_data 7, name 8, raw_data 9, external_data 13, data_location 14.
inline wire_builder tensor(std::string_view name, std::int32_t dt, std::initializer_list<std::int64_t> dims) {
    wire_builder t;
    for (std::int64_t d : dims) t.field_varint(1, static_cast<std::uint64_t>(d));
    if (dt >= 0) t.field_varint(2, static_cast<std::uint64_t>(dt));
    if (!name.empty()) t.field_bytes(8, name);
    return t;
}
// A FLOAT [n] tensor with n floats in raw_data.
inline wire_builder float_raw(std::string_view name, std::int64_t n) {
    return tensor(name, 1, {n}).field_bytes(9, std::string(static_cast<std::size_t>(4 * n), '\0'));
}
inline wire_builder int64_typed(std::string_view name, std::initializer_list<std::int64_t> dims,
                         std::initializer_list<std::uint64_t> values) {
    return tensor(name, 7, dims).packed_varint(7, values);
}
inline wire_builder external(wire_builder t, std::initializer_list<std::pair<const char*, const char*>> entries) {
    for (const auto& e : entries) t.field_message(13, wire_builder().field_bytes(1, e.first).field_bytes(2, e.second));
    return t.field_varint(14, 1);
}
// SparseTensorProto: values 1, indices 2, dims 3.
inline wire_builder sparse(const wire_builder* values, const wire_builder* indices, std::initializer_list<std::int64_t> dims) {
    wire_builder s;
    if (values) s.field_message(1, *values);
    if (indices) s.field_message(2, *indices);
    for (std::int64_t d : dims) s.field_varint(3, static_cast<std::uint64_t>(d));
    return s;
}

// GraphProto: node 1, name 2, initializer 5, input 11, output 12, sparse_initializer 15.
// The default is the valid main graph: x -> Relu 'r' -> t -> Neg 'n' -> y.
struct graph_spec {
    std::string name = "g";
    std::vector<wire_builder> inputs{value_info("x")};
    std::vector<wire_builder> outputs{value_info("y")};
    std::vector<wire_builder> nodes{node({"x"}, {"t"}, "Relu", "r"), node({"t"}, {"y"}, "Neg", "n")};
    std::vector<wire_builder> initializers, sparse_initializers;
    wire_builder build() const {
        wire_builder g;
        for (const auto& n : nodes) g.field_message(1, n);
        if (!name.empty()) g.field_bytes(2, name);
        for (const auto& t : initializers) g.field_message(5, t);
        for (const auto& v : inputs) g.field_message(11, v);
        for (const auto& v : outputs) g.field_message(12, v);
        for (const auto& s : sparse_initializers) g.field_message(15, s);
        return g;
    }
};

// FunctionProto: name 1, input 4, output 5, attribute 6, node 7,
// opset_import 9, domain 10. It imports "" 13 and "local" 1.
inline wire_builder function(std::string_view name, std::string_view domain, names in, names out,
                      std::initializer_list<wire_builder> nodes, names attributes = {}) {
    wire_builder f;
    f.field_bytes(1, name);
    for (std::string_view s : in) f.field_bytes(4, s);
    for (std::string_view s : out) f.field_bytes(5, s);
    for (std::string_view s : attributes) f.field_bytes(6, s);
    for (const auto& n : nodes) f.field_message(7, n);
    f.field_message(9, wire_builder().field_bytes(1, "").field_varint(2, 13));
    f.field_message(9, wire_builder().field_bytes(1, "local").field_varint(2, 1));
    if (!domain.empty()) f.field_bytes(10, domain);
    return f;
}

// ModelProto: ir_version 1, graph 7, opset_import 8, metadata_props 14, functions 25.
struct model_spec {
    bool has_ir = true;
    std::int64_t ir = 8;
    std::vector<std::pair<std::string, std::int64_t>> opsets{{"", 13}};
    std::vector<std::pair<std::string, std::string>> metadata;
    bool has_graph = true;
    graph_spec graph;
    std::vector<wire_builder> functions;
    std::string build() const {
        wire_builder m;
        if (has_ir) m.field_varint(1, static_cast<std::uint64_t>(ir));
        m.field_bytes(2, "check_test");
        if (has_graph) m.field_message(7, graph.build());
        for (const auto& o : opsets) m.field_message(8, wire_builder().field_bytes(1, o.first).field_varint(2, static_cast<std::uint64_t>(o.second)));
        for (const auto& kv : metadata)
            m.field_message(14, wire_builder().field_bytes(1, kv.first).field_bytes(2, kv.second));
        for (const auto& f : functions) m.field_message(25, f);
        return m.str();
    }
};

// --- running the checker -------------------------------------------------------

// --- the cases ------------------------------------------------------------------

// What onnx.checker.check_model (onnx 1.12) says about a case.
enum class oracle : std::uint8_t {
    rejects,   // it rejects the model too
    accepts,   // it accepts it: onnxview is stricter here (said why next to the case)
    warning,   // a warning case: the model is valid for both
};

struct check_case {
    std::string id;
    std::string model;
    const char* code;   // the finding expected
    const char* path;   // at this exact path
    check_severity severity;
    bool only;          // and nothing else is reported
    oracle py;
};

inline std::vector<check_case> cases() {
    using sev = check_severity;
    std::vector<check_case> cs;
    auto add = [&](std::string id, const model_spec& m, const char* code, const char* path, bool only = true,
                   oracle py = oracle::rejects, sev s = sev::error) {
        cs.push_back(check_case{std::move(id), m.build(), code, path, s, only, py});
    };
    auto warn = [&](std::string id, const model_spec& m, const char* code, const char* path) {
        add(std::move(id), m, code, path, true, oracle::warning, sev::warning);
    };

    // --- the model ---
    {
        model_spec m;
        m.has_ir = false;
        add("missing_ir_version", m, "missing_ir_version", "model");
        m.has_ir = true;
        m.ir = -1;
        add("bad_ir_version", m, "bad_ir_version", "model", false);  // and, being < 3, opset_import
        m.ir = 99;
        // onnx.checker refuses IR versions newer than itself; onnxview warns
        // (a newer model may well be valid).
        add("new_ir_version", m, "new_ir_version", "model", true, oracle::rejects, sev::warning);
        // The newest IR version is the schema's (newest_ir_version,
        // the largest onnx.Version value); the checker once had 11 of its
        // own, and warned about IR 12 to 14 models its views read. onnx
        // 1.12 knows IR 8 and refuses anything newer, as it does IR 99.
        m.ir = newest_ir_version;
        add("newest_ir_version", m, nullptr, nullptr, true, oracle::rejects);
        m.ir = newest_ir_version + 1;
        add("ir_version_after_newest", m, "new_ir_version", "model", true, oracle::rejects, sev::warning);
    }
    {
        model_spec m;
        m.opsets.clear();
        add("missing_opset_import", m, "missing_opset_import", "model", false);
        m.ir = 2;
        m.opsets = {{"", 1}};
        add("unexpected_opset_import", m, "unexpected_opset_import", "model");
    }
    {
        model_spec m;
        m.opsets.push_back({"ai.onnx", 13});
        warn("duplicate_opset", m, "duplicate_opset", "opset_import[1]");
    }
    {
        model_spec m;
        m.metadata = {{"k", "1"}, {"k", "2"}};
        add("duplicate_metadata_key", m, "duplicate_metadata_key", "metadata_props[1]");
    }
    {
        model_spec m;
        m.has_graph = false;
        add("missing_graph", m, "missing_graph", "model");
    }

    // --- graphs: names, inputs, outputs ---
    {
        model_spec m;
        m.graph.name.clear();
        add("empty_graph_name", m, "empty_graph_name", "graph");
    }
    {
        model_spec m;
        m.graph.inputs = {wire_builder().field_bytes(1, "x")};
        add("input_without_type", m, "missing_type", "graph.input[0] 'x'");
        m.graph.inputs = {value_info("x", type_of(1, tensor_type(1, false, true)))};
        add("missing_elem_type", m, "missing_elem_type", "graph.input[0] 'x'");
        m.graph.inputs = {value_info("x", type_of(1, tensor_type(1, true, false)))};
        add("missing_shape", m, "missing_shape", "graph.input[0] 'x'");
        m.graph.inputs = {value_info("x", wire_builder().field_bytes(6, "denotation only"))};
        add("type_without_kind", m, "missing_type", "graph.input[0] 'x'");
        m.graph.inputs = {value_info("x", type_of(4, wire_builder()))};
        add("sequence_without_elem_type", m, "missing_elem_type", "graph.input[0] 'x'");
        m.graph.inputs = {value_info("x", type_of(9, wire_builder()))};
        add("optional_without_elem_type", m, "missing_elem_type", "graph.input[0] 'x'");
        m.graph.inputs = {value_info("x", type_of(5, wire_builder().field_varint(1, 8)))};
        add("map_without_value_type", m, "missing_elem_type", "graph.input[0] 'x'");
        m.graph.inputs = {value_info("x", type_of(8, tensor_type(1, true, false)))};
        add("sparse_type_without_shape", m, "missing_shape", "graph.input[0] 'x'");
    }
    {
        model_spec m;
        m.graph.inputs = {value_info("x"), value_info("")};
        add("empty_value_info_name", m, "empty_name", "graph.input[1]");
        m.graph.inputs = {value_info("x"), value_info("x")};
        add("duplicate_graph_input", m, "duplicate_input", "graph.input[1] 'x'");
    }
    {
        model_spec m;
        m.graph.outputs.push_back(value_info("z"));
        // onnx 1.12 does not check that graph outputs are produced.
        add("undefined_graph_output", m, "undefined_output", "graph.output[1] 'z'", true, oracle::accepts);
    }

    // --- initializers ---
    {
        model_spec m;
        m.graph.initializers = {float_raw("", 2)};
        add("empty_initializer_name", m, "empty_name", "graph.initializer[0]");
        m.graph.initializers = {float_raw("w", 2), float_raw("w", 2)};
        add("duplicate_initializer", m, "duplicate_initializer", "graph.initializer[1] 'w'");
        m.ir = 3;
        m.graph.initializers = {float_raw("w", 2)};
        add("initializer_not_input", m, "initializer_not_input", "graph.initializer[0] 'w'");
    }
    {
        model_spec m;
        const wire_builder v = float_raw("w", 1), i = int64_typed("", {1}, {0});
        m.graph.initializers = {float_raw("w", 2)};
        m.graph.sparse_initializers = {sparse(&v, &i, {2})};
        add("duplicate_sparse_initializer", m, "duplicate_initializer", "graph.sparse_initializer[0] 'w'");
        const wire_builder unnamed = float_raw("", 1);
        m.graph.initializers.clear();
        m.graph.sparse_initializers = {sparse(&unnamed, &i, {2})};
        add("empty_sparse_initializer_name", m, "empty_name", "graph.sparse_initializer[0]");
    }

    // --- nodes ---
    {
        model_spec m;
        m.graph.nodes[1] = node({"u"}, {"y"}, "Neg", "n");
        add("undefined_input", m, "undefined_input", "graph.node[1] 'n'.input[0]");
        m.graph.nodes = {node({"t"}, {"y"}, "Neg", "n"), node({"x"}, {"t"}, "Relu", "r")};
        add("not_topologically_sorted", m, "undefined_input", "graph.node[0] 'n'.input[0]");
        m.graph.nodes = {node({"x"}, {"y"}, "Relu", "r"), node({"x"}, {"y"}, "Neg", "n")};
        add("value_produced_twice", m, "duplicate_output", "graph.node[1] 'n'.output[0]");
        m.graph.nodes = {node({"x"}, {"x"}, "Relu", "r"), node({"x"}, {"y"}, "Neg", "n")};
        add("output_redefines_input", m, "duplicate_output", "graph.node[0] 'r'.output[0]");
    }
    {
        model_spec m;
        m.graph.nodes[0] = node({"x"}, {"t"}, "", "r");
        add("empty_op_type", m, "empty_op_type", "graph.node[0] 'r'");
        m.graph.nodes.push_back(node({}, {}, "Constant", "c"));
        m.graph.nodes[0] = node({"x"}, {"t"}, "Relu", "r");
        add("no_inputs_outputs", m, "no_inputs_outputs", "graph.node[2] 'c'");
        m.graph.nodes.pop_back();
        m.graph.nodes[0] = node({"x"}, {"t"}, "Relu", "r", "com.example");
        add("domain_not_imported", m, "missing_opset", "graph.node[0] 'r'");
    }

    // --- attributes ---
    {
        model_spec m;
        const wire_builder relu = node({"x"}, {"t"}, "LeakyRelu", "r");
        m.graph.nodes[0] = with_attr(with_attr(relu, attr_f("alpha", 0.1f)), attr_f("alpha", 0.2f));
        add("duplicate_attribute", m, "duplicate_attribute", "graph.node[0] 'r'.attribute[1] 'alpha'");
        m.graph.nodes[0] = with_attr(relu, attr_f("", 0.1f));
        add("empty_attribute_name", m, "empty_name", "graph.node[0] 'r'.attribute[0]");
        m.graph.nodes[0] = with_attr(relu, attr("alpha", 0).field_float(2, 0.1f));
        add("missing_attribute_type", m, "missing_attribute_type", "graph.node[0] 'r'.attribute[0] 'alpha'");
        m.graph.nodes[0] = with_attr(relu, attr("alpha", 2).field_float(2, 0.1f));
        add("attribute_type_mismatch", m, "attribute_type_mismatch", "graph.node[0] 'r'.attribute[0] 'alpha'");
        // Two value fields: the one that does not match the type is named too.
        m.graph.nodes[0] = with_attr(relu, attr_f("alpha", 0.1f).field_varint(3, 1));
        add("attribute_several_values", m, "attribute_several_values", "graph.node[0] 'r'.attribute[0] 'alpha'",
            false);
        m.graph.nodes[0] = with_attr(relu, attr("alpha", 1).field_bytes(21, "a"));
        warn("ref_attr_outside_function", m, "ref_attr_outside_function", "graph.node[0] 'r'.attribute[0] 'alpha'");
        // A typed attribute with no value: proto3 writers omit defaults.
        m.graph.nodes[0] = with_attr(relu, attr("alpha", 1));
        add("attribute_without_value", m, nullptr, nullptr, true, oracle::accepts);
    }

    // --- tensors (in an initializer; the same rules apply in attributes) ---
    {
        auto init = [&](std::string id, const wire_builder& t, const char* code, oracle py = oracle::rejects) {
            model_spec m;
            m.graph.initializers = {t};
            add(std::move(id), m, code, "graph.initializer[0] 'w'", true, py);
        };
        init("missing_data_type", tensor("w", -1, {2}).field_bytes(9, std::string(8, '\0')), "missing_data_type");
        init("undefined_data_type", tensor("w", 0, {2}).field_bytes(9, std::string(8, '\0')), "undefined_data_type");
        // onnx 1.12 only reads data_type as an enum and does not reject 99.
        init("unknown_data_type", tensor("w", 99, {2}).field_bytes(9, std::string(8, '\0')), "unknown_data_type",
             oracle::accepts);
        // onnx 1.12 does not look at the sign of dims.
        init("negative_dim", tensor("w", 1, {-2}).field_bytes(9, std::string(8, '\0')), "negative_dim",
             oracle::accepts);
        init("dims_overflow", tensor("w", 1, {1ll << 40, 1ll << 40}), "dims_overflow", oracle::accepts);
        init("empty_with_data", tensor("w", 1, {0}).field_bytes(9, std::string(4, '\0')), "empty_with_data");
        init("no_value_field", tensor("w", 1, {2}), "value_field_count");
        init("two_value_fields", float_raw("w", 2).packed_fixed32(4, {0, 0}), "value_field_count");
        init("string_in_raw_data", tensor("w", 8, {1}).field_bytes(9, "abcd"), "string_in_raw_data");
        // onnx 1.12 checks payload sizes only for raw_data of fixed-width types... when full_check
        // is off it accepts both of these.
        init("raw_data_size", tensor("w", 1, {3}).field_bytes(9, std::string(8, '\0')), "payload_size_mismatch",
             oracle::accepts);
        init("typed_size", tensor("w", 1, {3}).packed_fixed32(4, {0, 0}), "payload_size_mismatch", oracle::accepts);
        init("wrong_value_field", tensor("w", 1, {2}).packed_varint(7, {1, 2}), "wrong_value_field");
        // INT4 [16] in 16 int32_data entries: the element layer's rule
        // (required_typed_entries in tensor_data.hpp, which the checker
        // uses) wants exactly ceil(16/2). onnx 1.12 predates INT4.
        init("int4_entries", tensor("w", 22, {16}).packed_varint(5, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}),
             "payload_size_mismatch");
        {
            model_spec m;
            m.graph.initializers = {external(float_raw("w", 2), {{"location", "w.bin"}})};
            add("external_with_data", m, "external_with_data", "graph.initializer[0] 'w'", false);  // + not checked
        }
        init("external_no_location", external(tensor("w", 1, {2}), {{"offset", "0"}}), "external_no_location");
        {
            // STRING has no raw form to store externally; the element layer
            // refuses it (and onnx 1.12 rejects the model: w.bin is missing).
            model_spec m;
            m.graph.initializers = {external(tensor("w", 8, {1}), {{"location", "w.bin"}})};
            add("external_string", m, "bad_data_type", "graph.initializer[0] 'w'", false);  // + not checked
        }
        // No model path given: not opened, one warning.
        model_spec m;
        m.graph.initializers = {external(tensor("w", 1, {2}), {{"location", "w.bin"}})};
        add("external_not_checked", m, "external_not_checked", "graph.initializer[0] 'w'", true, oracle::rejects,
            check_severity::warning);
        m.graph.initializers = {float_raw("w", 2).field_message(
            13, wire_builder().field_bytes(1, "location").field_bytes(2, "w.bin"))};
        warn("external_data_ignored", m, "external_data_ignored", "graph.initializer[0] 'w'");
        // A Constant's tensor: the path goes through the attribute.
        m.graph.initializers.clear();
        m.graph.nodes.push_back(with_attr(node({}, {"c"}, "Constant", "k"), attr("value", 4).field_message(5, tensor("w", 1, {3}).field_bytes(9, "12345678"))));
        add("constant_payload_size", m, "payload_size_mismatch", "graph.node[2] 'k'.attribute[0] 'value'.t", true,
            oracle::accepts);
    }

    // --- sparse tensors ---
    {
        auto sp = [&](std::string id, const wire_builder& s, const char* code, oracle py = oracle::rejects) {
            model_spec m;
            m.graph.sparse_initializers = {s};
            add(std::move(id), m, code, "graph.sparse_initializer[0] 'sv'", true, py);
        };
        const wire_builder v2 = float_raw("sv", 2);
        const wire_builder lin = int64_typed("si", {2}, {1, 4});
        sp("sparse_valid_linear", sparse(&v2, &lin, {2, 3}), nullptr, oracle::accepts);
        const wire_builder coo = int64_typed("si", {2, 2}, {0, 1, 1, 1});
        sp("sparse_valid_coordinates", sparse(&v2, &coo, {2, 3}), nullptr, oracle::accepts);
        {
            model_spec m;
            m.graph.sparse_initializers = {sparse(nullptr, &lin, {2, 3})};
            add("sparse_no_values", m, "sparse_no_values", "graph.sparse_initializer[0]", false);  // and no name
        }
        const wire_builder v22 = tensor("sv", 1, {1, 2}).field_bytes(9, std::string(8, '\0'));
        sp("sparse_values_rank", sparse(&v22, &lin, {2, 3}), "sparse_values_rank");
        sp("sparse_rank", sparse(&v2, &lin, {}), "sparse_rank");
        sp("sparse_dims", sparse(&v2, &lin, {2, 0}), "sparse_dims");
        sp("sparse_dims_overflow", sparse(&v2, &lin, {1ll << 40, 1ll << 40}), "dims_overflow");
        sp("sparse_no_indices", sparse(&v2, nullptr, {2, 3}), "sparse_no_indices");
        const wire_builder i32 = tensor("si", 6, {2}).packed_varint(5, {1, 4});
        sp("sparse_indices_type", sparse(&v2, &i32, {2, 3}), "sparse_indices_type");
        const wire_builder r3 = int64_typed("si", {2, 1, 1}, {1, 4});
        sp("sparse_indices_rank", sparse(&v2, &r3, {2, 3}), "sparse_indices_rank");
        const wire_builder three = int64_typed("si", {3}, {1, 2, 4});
        sp("sparse_indices_count", sparse(&v2, &three, {2, 3}), "sparse_indices_count");
        const wire_builder coo3 = int64_typed("si", {2, 3}, {0, 1, 0, 1, 1, 0});
        sp("sparse_indices_second_dim", sparse(&v2, &coo3, {2, 3}), "sparse_indices_rank");
        const wire_builder far = int64_typed("si", {2}, {1, 6});
        sp("sparse_linear_index_range", sparse(&v2, &far, {2, 3}), "sparse_index_range");
        const wire_builder far2 = int64_typed("si", {2, 2}, {0, 1, 1, 3});
        sp("sparse_coordinate_range", sparse(&v2, &far2, {2, 3}), "sparse_index_range");
        const wire_builder down = int64_typed("si", {2}, {4, 1});
        sp("sparse_index_order", sparse(&v2, &down, {2, 3}), "sparse_index_order");
        const wire_builder same = int64_typed("si", {2, 2}, {1, 1, 1, 1});
        sp("sparse_index_repeated", sparse(&v2, &same, {2, 3}), "sparse_index_order");
        // A bad values tensor is reported at the values path.
        const wire_builder bad = tensor("sv", 1, {2}).field_bytes(9, "123");
        model_spec m;
        m.graph.sparse_initializers = {sparse(&bad, &lin, {2, 3})};
        add("sparse_values_payload", m, "payload_size_mismatch", "graph.sparse_initializer[0] 'sv'.values", true,
            oracle::accepts);
        // In a Constant's sparse_value attribute.
        m.graph.sparse_initializers.clear();
        m.graph.nodes.push_back(with_attr(node({}, {"c"}, "Constant", "k"),
                                          attr("sparse_value", 11).field_message(22, sparse(&v2, &down, {2, 3}))));
        add("constant_sparse_value", m, "sparse_index_order", "graph.node[2] 'k'.attribute[0] 'sparse_value'.sparse_tensor");
    }

    // --- subgraphs ---
    {
        // An If whose branches read main-graph values (outer scope): valid.
        graph_spec then_g;
        then_g.name = "then";
        then_g.inputs.clear();
        then_g.outputs = {value_info("a")};
        then_g.nodes = {node({"t"}, {"a"}, "Identity", "ti")};
        graph_spec else_g = then_g;
        else_g.name = "else";
        else_g.nodes = {node({"x"}, {"a"}, "Identity", "ei")};  // the same name in a sibling branch is fine
        model_spec m;
        m.graph.initializers = {float_raw("c", 1)};
        m.graph.inputs.push_back(value_info("c", type_of(1, tensor_type(9))));
        m.graph.nodes[1] = with_attr(with_attr(node({"c"}, {"y"}, "If", "if"), attr_g("then_branch", then_g.build())),
                                     attr_g("else_branch", else_g.build()));
        add("subgraph_outer_scope", m, nullptr, nullptr, true, oracle::accepts);
        // ... but a later main-graph value is not visible yet.
        then_g.nodes = {node({"y"}, {"a"}, "Identity", "ti")};
        m.graph.nodes[1] = with_attr(with_attr(node({"c"}, {"y"}, "If", "if"), attr_g("then_branch", then_g.build())),
                                     attr_g("else_branch", else_g.build()));
        add("subgraph_undefined", m, "undefined_input", "graph.node[1] 'if'.attribute[0] 'then_branch'.g.node[0] 'ti'.input[0]");
        // ... and a subgraph may not redefine an outer value (SSA includes enclosing graphs).
        then_g.nodes = {node({"t"}, {"x"}, "Identity", "ti")};
        then_g.outputs = {value_info("x")};
        m.graph.nodes[1] = with_attr(with_attr(node({"c"}, {"y"}, "If", "if"), attr_g("then_branch", then_g.build())),
                                     attr_g("else_branch", else_g.build()));
        add("subgraph_redefines_outer", m, "duplicate_output",
            "graph.node[1] 'if'.attribute[0] 'then_branch'.g.node[0] 'ti'.output[0]");
        // Subgraph inputs and outputs need no types (onnx relaxes them), and
        // "" is an omitted optional input.
        then_g.nodes = {node({"t", "", ""}, {"a"}, "Clip", "ti")};
        then_g.outputs = {wire_builder().field_bytes(1, "a")};
        m.graph.nodes[1] = with_attr(with_attr(node({"c"}, {"y"}, "If", "if"), attr_g("then_branch", then_g.build())),
                                     attr_g("else_branch", else_g.build()));
        add("subgraph_untyped_outputs", m, nullptr, nullptr, true, oracle::accepts);
    }

    // --- model-local functions ---
    {
        auto fmodel = [](std::initializer_list<wire_builder> fs) {
            model_spec m;
            m.opsets.push_back({"local", 1});
            m.graph.nodes[1] = node({"t"}, {"y"}, "F", "call", "local");
            m.functions = fs;
            return m;
        };
        const wire_builder body = node({"a"}, {"b"}, "Relu", "fr");
        add("function_valid", fmodel({function("F", "local", {"a"}, {"b"}, {body})}), nullptr, nullptr, true,
            oracle::accepts);
        add("function_empty_name", fmodel({function("F", "local", {"a"}, {"b"}, {body}), function("", "local", {"a"}, {"b"}, {body})}),
            "empty_name", "functions[1]");
        add("function_no_domain", fmodel({function("F", "local", {"a"}, {"b"}, {body}), function("G", "", {"a"}, {"b"}, {body})}),
            "function_no_domain", "functions[1] 'G'");
        // onnx 1.12 does not compare functions with each other, nor check
        // their outputs or ref_attr_name.
        add("duplicate_function", fmodel({function("F", "local", {"a"}, {"b"}, {body}), function("F", "local", {"a"}, {"b"}, {body})}),
            "duplicate_function", "functions[1] 'F'", true, oracle::accepts);
        add("function_duplicate_input", fmodel({function("F", "local", {"a", "a"}, {"b"}, {body})}), "duplicate_input",
            "functions[0] 'F'");
        add("function_duplicate_output", fmodel({function("F", "local", {"a"}, {"b", "b"}, {body})}), "duplicate_output",
            "functions[0] 'F'");
        add("function_duplicate_attribute", fmodel({function("F", "local", {"a"}, {"b"}, {body}, {"k", "k"})}),
            "duplicate_attribute", "functions[0] 'F'");
        // A function sees only its own inputs: 'x' of the main graph is not visible.
        add("function_undefined_input", fmodel({function("F", "local", {"a"}, {"b"}, {node({"x"}, {"b"}, "Relu", "fr")})}),
            "undefined_input", "functions[0] 'F'.node[0] 'fr'.input[0]");
        add("function_value_produced_twice",
            fmodel({function("F", "local", {"a"}, {"b"}, {node({"a"}, {"b"}, "Relu", "fr"), node({"a"}, {"b"}, "Neg", "fn")})}),
            "duplicate_output", "functions[0] 'F'.node[1] 'fn'.output[0]");
        add("function_undefined_output", fmodel({function("F", "local", {"a"}, {"b", "c"}, {body})}), "undefined_output",
            "functions[0] 'F'.output[1]", true, oracle::accepts);
        add("function_ref_attr_with_value",
            fmodel({function("F", "local", {"a"}, {"b"}, {with_attr(node({"a"}, {"b"}, "LeakyRelu", "fr"), attr_f("alpha", 0.1f).field_bytes(21, "k"))}, {"k"})}),
            "ref_attr_with_value", "functions[0] 'F'.node[0] 'fr'.attribute[0] 'alpha'", true, oracle::accepts);
        // A function body's subgraph: its nodes see the body's values defined
        // before the node holding it, as in a graph.
        {
            graph_spec then_g;
            then_g.name = "then";
            then_g.inputs.clear();
            then_g.outputs = {value_info("t")};
            then_g.nodes = {node({"b"}, {"t"}, "Identity", "ti")};  // `b` is the If's own output
            graph_spec else_g = then_g;
            else_g.name = "else";
            else_g.nodes = {node({"a"}, {"t"}, "Identity", "ei")};
            const wire_builder holder =
                with_attr(with_attr(node({"a"}, {"b"}, "If", "fi"), attr_g("then_branch", then_g.build())),
                          attr_g("else_branch", else_g.build()));
            add("function_subgraph_undefined", fmodel({function("F", "local", {"a"}, {"b"}, {holder})}),
                "undefined_input", "functions[0] 'F'.node[0] 'fi'.attribute[0] 'then_branch'.g.node[0] 'ti'.input[0]");
        }
        // onnx 1.12 does not look for call cycles (it would recurse while
        // inlining); the model is not executable.
        add("recursive_function", fmodel({function("F", "local", {"a"}, {"b"}, {node({"a"}, {"b"}, "F", "self", "local")})}),
            "recursive_function", "functions[0] 'F'", true, oracle::accepts);
        add("mutually_recursive_functions",
            fmodel({function("F", "local", {"a"}, {"b"}, {node({"a"}, {"b"}, "G", "g", "local")}),
                    function("G", "local", {"a"}, {"b"}, {node({"a"}, {"b"}, "F", "f", "local")})}),
            "recursive_function", "functions[0] 'F'", true, oracle::accepts);
    }

    // --- wire format ---
    {
        model_spec m;
        std::string bytes = m.build();
        bytes.push_back('\x3a');  // field 7 (graph), length 100, 1 byte present
        bytes.push_back('\x64');
        bytes.push_back('\x01');
        cs.push_back(check_case{"wire_format", bytes, "wire_format", "graph", check_severity::error, true, oracle::rejects});
    }
    return cs;
}

}  // namespace check_test
}  // namespace onnxview

#endif  // ONNXVIEW_TESTS_CHECK_CHECK_CASES_HPP
