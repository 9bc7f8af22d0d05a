// merge_models (onnxview/merge.hpp) and edit_options::prefix (write.hpp) on
// hand-built models: the names prefix renames and the ones it leaves, its
// refusals; a chain of two models merged (nodes, inputs, outputs,
// initializers, opsets, metadata and payloads read back through the views),
// each merge_problem refusal with its name, the weights moved to an external
// sink, and the inputs' own external data fetched through the source of the
// side each tensor came from. Over 600 lines: the cases share the model
// builders at the top, each case with the models it builds.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../wire_builder.hpp"
#include "edit_models.hpp"
#include "onnxview/merge.hpp"
#include "onnxview/model.hpp"
#include "onnxview/traverse.hpp"
#include "onnxview/write.hpp"

using namespace onnxview;
using onnxview::testing::wire_builder;

// merge_problem (a uint8_t) printed as its number and message, not a char.
namespace Catch {
template <>
struct StringMaker<onnxview::merge_problem> {
    static std::string convert(onnxview::merge_problem p) {
        return std::to_string(static_cast<int>(p)) + " (" + onnxview::merge_problem_message(p) + ")";
    }
};
}  // namespace Catch

namespace {

namespace em = onnxview_test::edit_models;
using mt_names = std::vector<std::string>;
using gf = graph_view::field;
using tf = tensor_view::field;

// ---------------------------------------------------------------------------
// Building.

// `n` little-endian floats from `start` (the test hosts are little-endian).
std::string mt_floats(std::size_t n, float start) {
    std::string s(n * 4, '\0');
    for (std::size_t i = 0; i < n; ++i) {
        const float f = start + static_cast<float>(i);
        std::memcpy(&s[i * 4], &f, 4);
    }
    return s;
}

// A FLOAT tensor of dims [payload / 4] holding `payload` in raw_data.
wire_builder mt_tensor(const std::string& name, const std::string& payload) {
    wire_builder t;
    t.field_varint(tf::dims, payload.size() / 4).field_varint(tf::data_type, 1);
    if (!name.empty()) t.field_bytes(tf::name, name);
    t.field_bytes(tf::raw_data, payload);
    return t;
}

wire_builder mt_entry(const std::string& key, const std::string& value) {
    wire_builder e;
    e.field_bytes(1, key).field_bytes(2, value);
    return e;
}

// A FLOAT tensor of `count` elements in another file: data_location EXTERNAL.
wire_builder mt_external(const std::string& name, std::size_t count, const std::string& location,
                         std::uint64_t offset) {
    wire_builder t;
    t.field_varint(tf::dims, count).field_varint(tf::data_type, 1).field_bytes(tf::name, name);
    t.field_message(tf::external_data, mt_entry("location", location));
    t.field_message(tf::external_data, mt_entry("offset", std::to_string(offset)));
    t.field_message(tf::external_data, mt_entry("length", std::to_string(count * 4)));
    t.field_varint(tf::data_location, 1);
    return t;
}

// A sparse tensor of dims [4]: two FLOAT values at the INT64 indices 0 and 2.
wire_builder mt_sparse(const std::string& values_name, const std::string& indices_name) {
    wire_builder values = mt_tensor(values_name, mt_floats(2, 7.0f));
    wire_builder indices;
    std::string idx(16, '\0');
    idx[8] = 2;
    indices.field_varint(tf::dims, 2).field_varint(tf::data_type, 7);
    if (!indices_name.empty()) indices.field_bytes(tf::name, indices_name);
    indices.field_bytes(tf::raw_data, idx);
    wire_builder s;
    s.field_message(1, values).field_message(2, indices).field_varint(3, 4);
    return s;
}

// A TensorAnnotation of `tensor` with one quant parameter entry.
wire_builder mt_annotation(const std::string& tensor, const std::string& scale) {
    wire_builder a;
    a.field_bytes(1, tensor).field_message(2, mt_entry("SCALE_TENSOR", scale));
    return a;
}

// The pieces of a GraphProto, each written in the field order of the lists.
struct mt_graph_parts {
    std::string name = "g";
    std::string doc;
    mt_names inputs, outputs, value_info;
    std::vector<wire_builder> nodes, initializers, sparse;
};

wire_builder mt_graph(const mt_graph_parts& p) {
    wire_builder g;
    for (const wire_builder& n : p.nodes) g.field_message(gf::node, n);
    g.field_bytes(gf::name, p.name);
    for (const wire_builder& t : p.initializers) g.field_message(gf::initializer, t);
    if (!p.doc.empty()) g.field_bytes(gf::doc_string, p.doc);
    for (const std::string& v : p.inputs) g.field_message(gf::input, em::value(v));
    for (const std::string& v : p.outputs) g.field_message(gf::output, em::value(v));
    for (const std::string& v : p.value_info) g.field_message(gf::value_info, em::value(v));
    for (const wire_builder& s : p.sparse) g.field_message(gf::sparse_initializer, s);
    return g;
}

// A ModelProto: ir_version, producer, the graph (when given), opset_import,
// then `extra` (whole fields: metadata_props, functions, ...).
std::string mt_model(const wire_builder* graph, std::int64_t ir_version = 8,
                     const std::vector<std::pair<std::string, std::uint64_t>>& opsets = {{"", 13}},
                     const std::vector<wire_builder>& extra = {}) {
    wire_builder m;
    m.field_varint(model_view::field::ir_version, static_cast<std::uint64_t>(ir_version));
    m.field_bytes(model_view::field::producer_name, "test");
    m.field_varint(model_view::field::model_version, 3);
    m.field_bytes(model_view::field::doc_string, "a model");
    if (graph != nullptr) m.field_message(model_view::field::graph, *graph);
    for (const auto& o : opsets) m.field_message(model_view::field::opset_import, em::opset(o.first, o.second));
    for (const wire_builder& e : extra) m.raw(e.str());
    return m.str();
}

// A ModelProto field: metadata_props entry, or a local function.
wire_builder mt_metadata(const std::string& key, const std::string& value) {
    wire_builder f;
    f.field_message(model_view::field::metadata_props, mt_entry(key, value));
    return f;
}

wire_builder mt_function_field(const std::string& name, const std::string& domain) {
    wire_builder f;
    f.field_message(model_view::field::functions, em::function(name, domain, {em::node("Identity", {"x"}, {"y"})}));
    return f;
}

// A Constant node making `output` from tensor t (attribute `value`).
wire_builder mt_constant(const std::string& output, const wire_builder& t) {
    wire_builder a;
    a.field_bytes(1, "value").field_message(5, t).field_varint(20, 4);  // TENSOR
    return em::node("Constant", {}, {output}).field_message(5, a);
}

// A node whose name field is present and empty.
wire_builder mt_unnamed(const std::string& op, const mt_names& in, const mt_names& out) {
    wire_builder n;
    for (const std::string& i : in) n.field_bytes(1, i);
    for (const std::string& o : out) n.field_bytes(2, o);
    n.field_bytes(3, "").field_bytes(4, op);
    return n;
}

// ---------------------------------------------------------------------------
// Reading back.

mt_names mt_list(const string_range& r) {
    mt_names out;
    for (std::string_view s : r) out.emplace_back(s);
    return out;
}

mt_names mt_value_names(const message_range<value_info_view>& r) {
    mt_names out;
    for (const value_info_view& v : r) out.emplace_back(v.name());
    return out;
}

mt_names mt_tensor_names(const message_range<tensor_view>& r) {
    mt_names out;
    for (const tensor_view& t : r) out.emplace_back(t.name());
    return out;
}

std::vector<node_view> mt_nodes(const graph_view& g) {
    std::vector<node_view> out;
    for (const node_view& n : g.node()) out.push_back(n);
    return out;
}

// The initializer named `name` (the test fails without one).
tensor_view mt_initializer(const graph_view& g, std::string_view name) {
    for (const tensor_view& t : g.initializer())
        if (t.name() == name) return t;
    FAIL("no initializer " << name);
    return tensor_view();
}

// The graph attribute `attribute` of node n.
graph_view mt_subgraph(const node_view& n, std::string_view attribute) {
    for (const attribute_view& a : n.attribute())
        if (a.name() == attribute) return a.g();
    FAIL("no attribute " << attribute);
    return graph_view();
}

mt_names mt_metadata_of(const model_view& m) {
    mt_names out;
    for (const string_entry_view& e : m.metadata_props()) out.push_back(std::string(e.key()) + "=" + std::string(e.value()));
    return out;
}

mt_names mt_opsets_of(const model_view& m) {
    mt_names out;
    for (const opset_id_view& o : m.opset_import()) out.push_back(std::string(o.domain()) + ":" + std::to_string(o.version()));
    return out;
}

mt_names mt_functions_of(const model_view& m) {
    mt_names out;
    for (const function_view& f : m.functions()) out.push_back(std::string(f.domain()) + "/" + std::string(f.name()));
    return out;
}

// ---------------------------------------------------------------------------
// Running.

struct mt_packed {
    error err;
    std::string model;
};

// pack_model with `prefix` (and the rest of `e`), tensors left as they are.
mt_packed mt_prefix(const std::string& in, std::string_view prefix, edit_options e = {}) {
    mt_packed out;
    e.prefix = prefix;
    pack_options po{};
    po.inline_align = 1;
    po.keep_typed = true;
    po.edits = &e;
    out.err = pack_model(in, nullptr, po, write_sink{&out.model, em::append}, nullptr);
    return out;
}

struct mt_merged {
    error err;
    std::string model;
    std::string external;
    merge_report report;
    pack_stats stats;
};

mt_merged mt_merge(const std::string& a, const std::string& b, const std::vector<merge_connection>& io,
                   std::string_view prefix_a = {}, std::string_view prefix_b = {}, const pack_options& po = {},
                   const external_payload_source* source_a = nullptr,
                   const external_payload_source* source_b = nullptr) {
    mt_merged out;
    merge_request r{};
    r.connections = io.data();
    r.connection_count = io.size();
    r.prefix_a = prefix_a;
    r.prefix_b = prefix_b;
    r.report = &out.report;
    const write_sink model_out{&out.model, em::append};
    const write_sink external_out{&out.external, em::append};
    out.err = merge_models(a, source_a, b, source_b, r, po, model_out, &external_out, &out.stats);
    return out;
}

// ---------------------------------------------------------------------------
// The two models of the chain: A computes `out` (and `aux`) from `x`; B
// computes `res` from `in` (connected to A's `out`) and `z`.

const std::string mt_wa = mt_floats(64, 1.0f);     // 256 bytes
const std::string mt_sa = mt_floats(1, 0.5f);      // 4 bytes
const std::string mt_wb = mt_floats(64, 1000.0f);  // 256 bytes
const std::string mt_in_default = mt_floats(64, -5.0f);

std::string mt_model_a(std::vector<wire_builder> extra = {}) {
    mt_graph_parts p;
    p.name = "ga";
    p.doc = "docA";
    p.nodes = {em::node("Mul", {"x", "wa"}, {"m"}), em::node("Add", {"m", "sa"}, {"out"}),
               em::node("Identity", {"m"}, {"aux"})};
    p.initializers = {mt_tensor("wa", mt_wa), mt_tensor("sa", mt_sa)};
    p.inputs = {"x"};
    p.outputs = {"out", "aux"};
    p.value_info = {"m"};
    p.sparse = {mt_sparse("spv", "spi")};
    const wire_builder g = mt_graph(p);
    extra.insert(extra.begin(), {mt_metadata("author", "alice"), mt_metadata("shared", "same"),
                                 mt_metadata(std::string(reference_source_key), "size=1;mtime_ns=2;location=a.onnx"),
                                 mt_function_field("FA", "com.a")});
    return mt_model(&g, 8, {{"", 13}, {"com.a", 1}}, extra);
}

std::string mt_model_b(std::vector<wire_builder> extra = {}) {
    mt_graph_parts p;
    p.name = "gb";
    p.doc = "docB";
    p.nodes = {em::node("Add", {"in", "wb"}, {"n"}), em::node("Mul", {"n", "z"}, {"res"})};
    p.initializers = {mt_tensor("in", mt_in_default), mt_tensor("wb", mt_wb)};
    p.inputs = {"in", "z"};
    p.outputs = {"res"};
    p.value_info = {"in", "n"};
    const wire_builder g = mt_graph(p);
    extra.insert(extra.begin(), {mt_metadata("shared", "same"), mt_metadata("licence", "mit"),
                                 mt_function_field("FB", "com.b")});
    return mt_model(&g, 8, {{"", 13}, {"com.b", 2}}, extra);
}

// A small model: `in` -> Relu -> `middle` -> Neg -> `out`, graph `name`.
std::string mt_small(const std::string& name, const std::string& in, const std::string& middle, const std::string& out) {
    mt_graph_parts p;
    p.name = name;
    p.nodes = {em::node("Relu", {in}, {middle}), em::node("Neg", {middle}, {out})};
    p.inputs = {in};
    p.outputs = {out};
    const wire_builder g = mt_graph(p);
    return mt_model(&g);
}

// A small pair that merges without prefixes: A makes `h` from `x`, B
// makes `y` from `k`; each with one more value named as the arguments say.
std::string mt_small_a(const std::string& extra_value = "ma") { return mt_small("sa", "x", extra_value, "h"); }
std::string mt_small_b(const std::string& extra_value = "mb") { return mt_small("sb", "k", extra_value, "y"); }

// ---------------------------------------------------------------------------
// External data of the inputs: a fake source per side over one in-memory
// "file", logging each request as "<side>:<tensor name>:<expected bytes>".

struct mt_fake_file {
    char side = 0;
    std::string bytes;
    std::vector<std::string>* log = nullptr;
};

result<std::string_view> mt_fake_fetch(void* user, const tensor_view& t, std::uint64_t expected) noexcept {
    const auto* f = static_cast<const mt_fake_file*>(user);
    f->log->push_back(std::string(1, f->side) + ":" + std::string(t.name()) + ":" + std::to_string(expected));
    const std::uint64_t offset = find_external_location(t).offset;
    if (offset > f->bytes.size() || f->bytes.size() - offset < expected) return errc::external_out_of_bounds;
    return std::string_view(f->bytes).substr(offset, expected);
}

// Every request went to the side the tensor came from, and both sides were
// asked (pack_model asks in its first measuring pass and when writing).
void mt_check_sides(const std::vector<std::string>& log) {
    INFO("requests: " << ::Catch::Detail::stringify(log));
    CHECK(std::count(log.begin(), log.end(), "a:a/e:16") >= 1);
    CHECK(std::count(log.begin(), log.end(), "b:b/e:16") >= 1);
    for (const std::string& l : log) CHECK((l == "a:a/e:16" || l == "b:b/e:16"));
}

}  // namespace

// ===========================================================================
// edit_options::prefix

TEST_CASE("prefix: every value name and node name of the main graph, empty names left") {
    mt_graph_parts p;
    p.nodes = {em::node("Add", {"x", "w"}, {"h"}), mt_unnamed("Clip", {"h", "", ""}, {"c"})};
    p.initializers = {mt_tensor("w", mt_floats(2, 1.0f))};
    p.inputs = {"x"};
    p.outputs = {"c"};
    p.value_info = {"h"};
    p.sparse = {mt_sparse("sv", "si")};
    wire_builder g = mt_graph(p);
    g.field_message(gf::quantization_annotation, mt_annotation("h", "w"));
    const std::string in = mt_model(&g);

    const mt_packed r = mt_prefix(in, "p/");
    REQUIRE(r.err.ok());
    const model_view m = parse_model(r.model.data(), r.model.size());
    REQUIRE(m.ok());
    const graph_view out = m.graph();
    CHECK(out.name() == "g");  // the graph's own name is no value name
    CHECK(mt_value_names(out.input()) == mt_names{"p/x"});
    CHECK(mt_value_names(out.output()) == mt_names{"p/c"});
    CHECK(mt_value_names(out.value_info()) == mt_names{"p/h"});
    CHECK(mt_tensor_names(out.initializer()) == mt_names{"p/w"});
    REQUIRE(out.sparse_initializer().size() == 1);
    const sparse_tensor_view sparse = *out.sparse_initializer().begin();
    CHECK(sparse.values().name() == "p/sv");
    CHECK(sparse.indices().name() == "p/si");

    const std::vector<node_view> nodes = mt_nodes(out);
    REQUIRE(nodes.size() == 2);
    CHECK(nodes[0].name() == "p/h_node");
    CHECK(nodes[0].op_type() == "Add");  // no function of that name: an operator, untouched
    CHECK(mt_list(nodes[0].input()) == mt_names{"p/x", "p/w"});
    CHECK(mt_list(nodes[0].output()) == mt_names{"p/h"});
    // The empty name and the absent optional inputs stay empty.
    CHECK(nodes[1].has_name());
    CHECK(nodes[1].name().empty());
    CHECK(mt_list(nodes[1].input()) == mt_names{"p/h", "", ""});
    CHECK(mt_list(nodes[1].output()) == mt_names{"p/c"});

    REQUIRE(out.quantization_annotation().size() == 1);
    const tensor_annotation_view qa = *out.quantization_annotation().begin();
    CHECK(qa.tensor_name() == "p/h");
    REQUIRE(qa.quant_parameter_tensor_names().size() == 1);
    CHECK(qa.quant_parameter_tensor_names().begin()->key() == "SCALE_TENSOR");  // a key, not a value name
    CHECK(qa.quant_parameter_tensor_names().begin()->value() == "p/w");

    // The payloads and the model's other fields are those of the input.
    CHECK(mt_initializer(out, "p/w").raw_data() == mt_floats(2, 1.0f));
    CHECK(sparse.values().raw_data() == mt_floats(2, 7.0f));
    CHECK(m.ir_version() == 8);
    CHECK(m.producer_name() == "test");
    CHECK(mt_opsets_of(m) == mt_names{":13"});
}

TEST_CASE("prefix: a subgraph's references to main-graph values prefixed, its own names kept") {
    // then_branch reads the main graph's `h` and `w`, declares `local` (an
    // initializer) and `t`, `u` (node outputs); an inner Loop-like body
    // reads `t` (its parent's) and `h` (the main graph's).
    mt_graph_parts inner;
    inner.name = "inner";
    inner.nodes = {em::node("Add", {"t", "h"}, {"deep"})};
    inner.outputs = {"deep"};
    mt_graph_parts then_parts;
    then_parts.name = "then";
    then_parts.nodes = {em::node("Identity", {"h"}, {"t"}),
                        em::with_graph(em::node("If", {"t"}, {"u"}), "then_branch", mt_graph(inner)),
                        em::node("Add", {"u", "local"}, {"v"}), em::node("Mul", {"v", "w"}, {"r"})};
    then_parts.initializers = {mt_tensor("local", mt_floats(1, 3.0f))};
    then_parts.outputs = {"r"};
    then_parts.value_info = {"t", "h"};  // its own value, and one of the main graph

    mt_graph_parts p;
    p.nodes = {em::node("Add", {"x", "w"}, {"h"}),
               em::with_graph(em::node("If", {"cond"}, {"y"}), "then_branch", mt_graph(then_parts))};
    p.initializers = {mt_tensor("w", mt_floats(1, 2.0f))};
    p.inputs = {"x", "cond"};
    p.outputs = {"y"};
    const wire_builder g = mt_graph(p);
    const std::string in = mt_model(&g);

    const mt_packed r = mt_prefix(in, "p/");
    REQUIRE(r.err.ok());
    const model_view m = parse_model(r.model.data(), r.model.size());
    REQUIRE(m.ok());
    const std::vector<node_view> nodes = mt_nodes(m.graph());
    REQUIRE(nodes.size() == 2);
    CHECK(nodes[1].name() == "p/y_node");
    CHECK(mt_list(nodes[1].input()) == mt_names{"p/cond"});
    CHECK(mt_list(nodes[1].output()) == mt_names{"p/y"});

    const graph_view branch = mt_subgraph(nodes[1], "then_branch");
    CHECK(branch.name() == "then");
    CHECK(mt_tensor_names(branch.initializer()) == mt_names{"local"});
    CHECK(mt_value_names(branch.output()) == mt_names{"r"});
    CHECK(mt_value_names(branch.value_info()) == mt_names{"t", "p/h"});
    const std::vector<node_view> bn = mt_nodes(branch);
    REQUIRE(bn.size() == 4);
    CHECK(mt_list(bn[0].input()) == mt_names{"p/h"});  // the main graph's value
    CHECK(mt_list(bn[0].output()) == mt_names{"t"});
    CHECK(bn[0].name() == "t_node");  // subgraph node names are not prefixed
    CHECK(bn[1].name() == "u_node");
    CHECK(mt_list(bn[2].input()) == mt_names{"u", "local"});
    CHECK(mt_list(bn[3].input()) == mt_names{"v", "p/w"});
    CHECK(mt_list(bn[3].output()) == mt_names{"r"});

    const graph_view deep = mt_subgraph(bn[1], "then_branch");
    const std::vector<node_view> dn = mt_nodes(deep);
    REQUIRE(dn.size() == 1);
    CHECK(mt_list(dn[0].input()) == mt_names{"t", "p/h"});  // the parent's `t`, the main graph's `h`
    CHECK(mt_list(dn[0].output()) == mt_names{"deep"});
    CHECK(dn[0].name() == "deep_node");
}

TEST_CASE("prefix: a subgraph shadowing a main-graph name keeps its references") {
    // The branch declares `h` itself (a node output): its reads of `h` are its own.
    mt_graph_parts then_parts;
    then_parts.nodes = {em::node("Identity", {"x"}, {"h"}), em::node("Neg", {"h"}, {"r"})};
    then_parts.outputs = {"r"};
    mt_graph_parts p;
    p.nodes = {em::node("Relu", {"x"}, {"h"}),
               em::with_graph(em::node("If", {"h"}, {"y"}), "then_branch", mt_graph(then_parts))};
    p.inputs = {"x"};
    p.outputs = {"y"};
    const wire_builder g = mt_graph(p);
    const mt_packed r = mt_prefix(mt_model(&g), "p/");
    REQUIRE(r.err.ok());
    const model_view m = parse_model(r.model.data(), r.model.size());
    const std::vector<node_view> nodes = mt_nodes(m.graph());
    REQUIRE(nodes.size() == 2);
    CHECK(mt_list(nodes[1].input()) == mt_names{"p/h"});
    const std::vector<node_view> bn = mt_nodes(mt_subgraph(nodes[1], "then_branch"));
    REQUIRE(bn.size() == 2);
    CHECK(mt_list(bn[0].input()) == mt_names{"p/x"});  // not declared there: the main graph's
    CHECK(mt_list(bn[0].output()) == mt_names{"h"});
    CHECK(mt_list(bn[1].input()) == mt_names{"h"});
}

TEST_CASE("prefix: local functions and the op_type of the nodes calling them") {
    mt_graph_parts then_parts;
    then_parts.nodes = {em::node("F", {"x"}, {"t"}, "com.f")};
    then_parts.outputs = {"t"};
    mt_graph_parts p;
    p.nodes = {em::node("F", {"x"}, {"a"}, "com.f"), em::node("F", {"a"}, {"b"}, "com.other"),
               em::node("G", {"b"}, {"c"}, "com.f"),
               em::with_graph(em::node("If", {"c"}, {"y"}), "then_branch", mt_graph(then_parts))};
    p.inputs = {"x"};
    p.outputs = {"y"};
    const wire_builder g = mt_graph(p);
    // F's body calls F2, another local function of com.f.
    wire_builder fns;
    fns.field_message(model_view::field::functions,
                      em::function("F", "com.f", {em::node("F2", {"x"}, {"y"}, "com.f")}));
    fns.field_message(model_view::field::functions, em::function("F2", "com.f", {em::node("Relu", {"x"}, {"y"})}));
    const std::string in = mt_model(&g, 8, {{"", 13}, {"com.f", 1}, {"com.other", 1}}, {fns});

    const mt_packed r = mt_prefix(in, "p/");
    REQUIRE(r.err.ok());
    const model_view m = parse_model(r.model.data(), r.model.size());
    REQUIRE(m.ok());
    CHECK(mt_functions_of(m) == mt_names{"com.f/p/F", "com.f/p/F2"});
    std::vector<function_view> fs;
    for (const function_view& f : m.functions()) fs.push_back(f);
    REQUIRE(fs.size() == 2);
    // A function's own scope is untouched: its inputs, outputs, node names.
    CHECK(mt_list(fs[0].input()) == mt_names{"x"});
    CHECK(mt_list(fs[0].output()) == mt_names{"y"});
    REQUIRE(fs[0].node().size() == 1);
    const node_view call = *fs[0].node().begin();
    CHECK(call.op_type() == "p/F2");  // a call of a local function, inside a function
    CHECK(mt_list(call.input()) == mt_names{"x"});
    CHECK(call.name() == "y_node");
    CHECK(fs[1].node().begin()->op_type() == "Relu");

    const std::vector<node_view> nodes = mt_nodes(m.graph());
    REQUIRE(nodes.size() == 4);
    CHECK(nodes[0].op_type() == "p/F");
    CHECK(nodes[0].domain() == "com.f");
    CHECK(nodes[1].op_type() == "F");  // another domain: an operator of com.other
    CHECK(nodes[1].domain() == "com.other");
    CHECK(nodes[1].name() == "p/b_node");
    CHECK(nodes[2].op_type() == "G");  // com.f has no function G
    const std::vector<node_view> bn = mt_nodes(mt_subgraph(nodes[3], "then_branch"));
    REQUIRE(bn.size() == 1);
    CHECK(bn[0].op_type() == "p/F");  // calls in subgraphs too
    CHECK(bn[0].name() == "t_node");
}

TEST_CASE("prefix: a subgraph declaring the prefixed name of a value it reads is refused") {
    SECTION("declared by a node output") {
        mt_graph_parts then_parts;
        then_parts.nodes = {em::node("Identity", {"h"}, {"p/h"})};  // reads main `h`, declares `p/h`
        then_parts.outputs = {"p/h"};
        mt_graph_parts p;
        p.nodes = {em::node("Relu", {"x"}, {"h"}),
                   em::with_graph(em::node("If", {"h"}, {"y"}), "then_branch", mt_graph(then_parts))};
        p.inputs = {"x"};
        p.outputs = {"y"};
        const wire_builder g = mt_graph(p);
        const std::string in = mt_model(&g);
        const mt_packed r = mt_prefix(in, "p/");
        CHECK(r.err.code == errc::invalid_argument);
        CHECK(r.model.empty());
        // Another prefix captures nothing.
        CHECK(mt_prefix(in, "q/").err.ok());
    }
    SECTION("declared by an initializer") {
        mt_graph_parts then_parts;
        then_parts.nodes = {em::node("Add", {"x", "p/x"}, {"r"})};
        then_parts.initializers = {mt_tensor("p/x", mt_floats(1, 1.0f))};
        then_parts.outputs = {"r"};
        mt_graph_parts p;
        p.nodes = {em::with_graph(em::node("If", {"x"}, {"y"}), "then_branch", mt_graph(then_parts))};
        p.inputs = {"x"};
        p.outputs = {"y"};
        const wire_builder g = mt_graph(p);
        CHECK(mt_prefix(mt_model(&g), "p/").err.code == errc::invalid_argument);
    }
    SECTION("a subgraph declaring the prefixed name without reading the value is no capture") {
        mt_graph_parts then_parts;
        then_parts.nodes = {em::node("Identity", {"c"}, {"p/h"})};
        then_parts.outputs = {"p/h"};
        mt_graph_parts p;
        p.nodes = {em::node("Relu", {"x"}, {"h"}),
                   em::with_graph(em::node("If", {"h"}, {"y"}), "then_branch", mt_graph(then_parts))};
        p.inputs = {"x", "c"};
        p.outputs = {"y"};
        const wire_builder g = mt_graph(p);
        const mt_packed r = mt_prefix(mt_model(&g), "p/");
        REQUIRE(r.err.ok());
        const model_view m = parse_model(r.model.data(), r.model.size());
        const std::vector<node_view> nodes = mt_nodes(m.graph());
        REQUIRE(nodes.size() == 2);
        const std::vector<node_view> bn = mt_nodes(mt_subgraph(nodes[1], "then_branch"));
        REQUIRE(bn.size() == 1);
        CHECK(mt_list(bn[0].input()) == mt_names{"p/c"});
        CHECK(mt_list(bn[0].output()) == mt_names{"p/h"});
    }
}

TEST_CASE("prefix: not with renames nor extract") {
    mt_graph_parts p;
    p.nodes = {em::node("Relu", {"x"}, {"y"})};
    p.inputs = {"x"};
    p.outputs = {"y"};
    const wire_builder g = mt_graph(p);
    const std::string in = mt_model(&g);
    REQUIRE(mt_prefix(in, "p/").err.ok());

    const name_change change[] = {{"x", "x2"}};
    edit_options with_renames{};
    with_renames.renames = change;
    with_renames.rename_count = 1;
    const mt_packed r = mt_prefix(in, "p/", with_renames);
    CHECK(r.err.code == errc::invalid_argument);
    CHECK(r.model.empty());

    const std::string_view outs[] = {"y"};
    extract_request x{};
    x.outputs = outs;
    x.output_count = 1;
    edit_options with_extract{};
    with_extract.extract = &x;
    CHECK(mt_prefix(in, "p/", with_extract).err.code == errc::invalid_argument);
}

// ===========================================================================
// merge_models

TEST_CASE("merge_models: a chain A -> B, prefixed, read back") {
    const std::string a = mt_model_a(), b = mt_model_b();
    pack_options po{};
    po.threshold = 64;  // wa and wb referenced by the proxies, fetched from A's and B's bytes
    const mt_merged r = mt_merge(a, b, {{"out", "in"}}, "a/", "b/", po);
    REQUIRE(r.err.ok());
    CHECK(r.report.problem == merge_problem::none);
    CHECK(r.external.empty());
    const model_view m = parse_model(r.model.data(), r.model.size());
    REQUIRE(m.ok());

    CHECK(m.ir_version() == 8);
    CHECK(m.producer_name() == "onnxview merge");
    CHECK(m.model_version() == 1);
    CHECK_FALSE(m.has_doc_string());
    CHECK(mt_opsets_of(m) == mt_names{":13", "com.a:1", "com.b:2"});
    CHECK(mt_metadata_of(m) == mt_names{"author=alice", "shared=same", "licence=mit"});
    for (const string_entry_view& e : m.metadata_props()) CHECK(e.key() != reference_source_key);
    CHECK(mt_functions_of(m) == mt_names{"com.a/a/FA", "com.b/b/FB"});

    const graph_view g = m.graph();
    CHECK(g.name() == "ga_gb");
    CHECK(g.doc_string() == "Graph combining ga and gb\nga\n\ndocA\n\ngb\n\ndocB");
    CHECK(mt_value_names(g.input()) == mt_names{"a/x", "b/z"});
    CHECK(mt_value_names(g.output()) == mt_names{"a/aux", "b/res"});
    CHECK(mt_value_names(g.value_info()) == mt_names{"a/m", "b/n"});
    CHECK(mt_tensor_names(g.initializer()) == mt_names{"a/wa", "a/sa", "b/wb"});
    REQUIRE(g.sparse_initializer().size() == 1);
    CHECK(g.sparse_initializer().begin()->values().name() == "a/spv");
    CHECK(g.sparse_initializer().begin()->indices().name() == "a/spi");

    const std::vector<node_view> nodes = mt_nodes(g);
    REQUIRE(nodes.size() == 5);
    CHECK(nodes[0].name() == "a/m_node");
    CHECK(mt_list(nodes[0].input()) == mt_names{"a/x", "a/wa"});
    CHECK(mt_list(nodes[1].output()) == mt_names{"a/out"});
    CHECK(nodes[2].op_type() == "Identity");
    CHECK(nodes[3].name() == "b/n_node");
    CHECK(mt_list(nodes[3].input()) == mt_names{"a/out", "b/wb"});  // B's read of `in`: A's `out`
    CHECK(mt_list(nodes[3].output()) == mt_names{"b/n"});
    CHECK(mt_list(nodes[4].input()) == mt_names{"b/n", "b/z"});
    CHECK(mt_list(nodes[4].output()) == mt_names{"b/res"});

    // Every payload from its own input, inline.
    CHECK(mt_initializer(g, "a/wa").raw_data() == mt_wa);
    CHECK(mt_initializer(g, "a/sa").raw_data() == mt_sa);
    CHECK(mt_initializer(g, "b/wb").raw_data() == mt_wb);
    CHECK(g.sparse_initializer().begin()->values().raw_data() == mt_floats(2, 7.0f));
    for (const tensor_view& t : g.initializer()) CHECK(t.data_location() == location_kind::default_location);
    CHECK(r.model.find(mt_in_default) == std::string::npos);  // the connected input's default is gone

    CHECK(r.report.nodes == 5);
    CHECK(r.report.initializers == 4);
    CHECK(r.report.functions == 2);
    CHECK(r.stats.model_bytes == r.model.size());
}

TEST_CASE("merge_models: the default threshold copies the small tensors as they are") {
    // Below 1 KiB nothing is referenced: the payloads travel in the proxies.
    const std::string a = mt_model_a(), b = mt_model_b();
    const mt_merged r = mt_merge(a, b, {{"out", "in"}}, "a/", "b/");
    REQUIRE(r.err.ok());
    const model_view m = parse_model(r.model.data(), r.model.size());
    const graph_view g = m.graph();
    CHECK(mt_tensor_names(g.initializer()) == mt_names{"a/wa", "a/sa", "b/wb"});
    CHECK(mt_initializer(g, "a/wa").raw_data() == mt_wa);
    CHECK(mt_initializer(g, "b/wb").raw_data() == mt_wb);
}

TEST_CASE("merge_models: connections without prefixes, and B's subgraphs reading the connected input") {
    // B's If branch reads `k` from B's main graph; k is connected to A's `h`.
    mt_graph_parts then_parts;
    then_parts.nodes = {em::node("Neg", {"k"}, {"t"})};
    then_parts.outputs = {"t"};
    mt_graph_parts pb;
    pb.name = "sb";
    pb.nodes = {em::node("Relu", {"k"}, {"mb"}),
                em::with_graph(em::node("If", {"mb"}, {"y"}), "then_branch", mt_graph(then_parts))};
    pb.inputs = {"k"};
    pb.outputs = {"y"};
    pb.value_info = {"k"};
    const wire_builder gb = mt_graph(pb);
    const std::string b = mt_model(&gb);
    const std::string a = mt_small_a();

    SECTION("different names: B's reads renamed, in its subgraphs too") {
        const mt_merged r = mt_merge(a, b, {{"h", "k"}});
        REQUIRE(r.err.ok());
        const model_view m = parse_model(r.model.data(), r.model.size());
        const graph_view g = m.graph();
        CHECK(mt_value_names(g.input()) == mt_names{"x"});
        CHECK(mt_value_names(g.output()) == mt_names{"y"});
        CHECK(mt_value_names(g.value_info()).empty());
        const std::vector<node_view> nodes = mt_nodes(g);
        REQUIRE(nodes.size() == 4);
        CHECK(mt_list(nodes[2].input()) == mt_names{"h"});
        CHECK(nodes[2].name() == "mb_node");  // no prefix: names as they were
        const std::vector<node_view> bn = mt_nodes(mt_subgraph(nodes[3], "then_branch"));
        REQUIRE(bn.size() == 1);
        CHECK(mt_list(bn[0].input()) == mt_names{"h"});
    }
    SECTION("prefixed: B's subgraph reads A's prefixed output") {
        const mt_merged r = mt_merge(a, b, {{"h", "k"}}, "a/", "b/");
        REQUIRE(r.err.ok());
        const model_view m = parse_model(r.model.data(), r.model.size());
        CHECK(mt_value_names(m.graph().input()) == mt_names{"a/x"});
        CHECK(mt_value_names(m.graph().output()) == mt_names{"b/y"});
        const std::vector<node_view> nodes = mt_nodes(m.graph());
        REQUIRE(nodes.size() == 4);
        CHECK(mt_list(nodes[2].input()) == mt_names{"a/h"});
        CHECK(mt_list(nodes[2].output()) == mt_names{"b/mb"});
        const std::vector<node_view> bn = mt_nodes(mt_subgraph(nodes[3], "then_branch"));
        REQUIRE(bn.size() == 1);
        CHECK(mt_list(bn[0].input()) == mt_names{"a/h"});
        CHECK(mt_list(bn[0].output()) == mt_names{"t"});  // the branch's own name
    }
    SECTION("the connected input's name may be a name of A: B reads A's output instead") {
        const mt_merged r = mt_merge(mt_small_a("k"), b, {{"h", "k"}});
        REQUIRE(r.err.ok());
        const model_view m = parse_model(r.model.data(), r.model.size());
        const std::vector<node_view> nodes = mt_nodes(m.graph());
        REQUIRE(nodes.size() == 4);
        CHECK(mt_list(nodes[0].output()) == mt_names{"k"});  // A's own `k`
        CHECK(mt_list(nodes[1].input()) == mt_names{"k"});
        CHECK(mt_list(nodes[2].input()) == mt_names{"h"});  // B's `k`, now A's `h`
        CHECK(mt_list(mt_nodes(mt_subgraph(nodes[3], "then_branch"))[0].input()) == mt_names{"h"});
    }
    SECTION("the same name on both sides") {
        mt_graph_parts pa;
        pa.name = "sa";
        pa.nodes = {em::node("Relu", {"x"}, {"k"})};
        pa.inputs = {"x"};
        pa.outputs = {"k"};
        const wire_builder ga = mt_graph(pa);
        const mt_merged r = mt_merge(mt_model(&ga), b, {{"k", "k"}});
        REQUIRE(r.err.ok());
        const model_view m = parse_model(r.model.data(), r.model.size());
        CHECK(mt_value_names(m.graph().input()) == mt_names{"x"});
        CHECK(mt_value_names(m.graph().output()) == mt_names{"y"});
        CHECK(mt_value_names(m.graph().value_info()).empty());
        CHECK(mt_nodes(m.graph()).size() == 3);
    }
}

TEST_CASE("merge_models: no connection, both sides prefixed, every output kept") {
    const std::string a = mt_small_a("v"), b = mt_small_b("v");
    const mt_merged r = mt_merge(a, b, {}, "a/", "b/");
    REQUIRE(r.err.ok());
    const model_view m = parse_model(r.model.data(), r.model.size());
    const graph_view g = m.graph();
    CHECK(mt_value_names(g.input()) == mt_names{"a/x", "b/k"});
    CHECK(mt_value_names(g.output()) == mt_names{"a/h", "b/y"});
    mt_names outs;
    for (const node_view& n : g.node())
        for (std::string_view o : n.output()) outs.emplace_back(o);
    CHECK(outs == mt_names{"a/v", "a/h", "b/v", "b/y"});
    CHECK(mt_opsets_of(m) == mt_names{":13"});  // one entry for the domain both import
    CHECK(r.report.nodes == 4);
}

TEST_CASE("merge_models: refusals, each with its problem and name") {
    const std::string a = mt_model_a(), b = mt_model_b();
    const auto refused = [](const mt_merged& r, merge_problem p, std::string_view name) {
        CHECK(r.err.code == errc::invalid_argument);
        CHECK(r.report.problem == p);
        CHECK(std::string_view(r.report.name) == name);
        CHECK(r.model.empty());
        CHECK(r.external.empty());
        const char* why = merge_problem_message(p);
        REQUIRE(why != nullptr);
        CHECK(std::strlen(why) > 0);
    };

    SECTION("ir_version_differs") {
        mt_graph_parts p;
        p.nodes = {em::node("Relu", {"k"}, {"y"})};
        p.inputs = {"k"};
        p.outputs = {"y"};
        const wire_builder g = mt_graph(p);
        const mt_merged r = mt_merge(mt_small_a(), mt_model(&g, 7), {{"h", "k"}});
        refused(r, merge_problem::ir_version_differs, "");
    }
    SECTION("opset_differs") {
        const wire_builder ga = mt_graph(mt_graph_parts{});
        const std::string a2 = mt_model(&ga, 8, {{"", 13}, {"com.x", 1}});
        const std::string b2 = mt_model(&ga, 8, {{"", 13}, {"com.x", 2}});
        refused(mt_merge(a2, b2, {}, "a/", "b/"), merge_problem::opset_differs, "com.x");
        const std::string b3 = mt_model(&ga, 8, {{"", 14}});
        refused(mt_merge(a2, b3, {}, "a/", "b/"), merge_problem::opset_differs, "");
        // The same versions are one import, in A's order, then B's new domains.
        const std::string b4 = mt_model(&ga, 8, {{"com.y", 3}, {"com.x", 1}, {"", 13}, {"com.y", 3}});
        const mt_merged r = mt_merge(a2, b4, {}, "a/", "b/");
        REQUIRE(r.err.ok());
        const model_view m = parse_model(r.model.data(), r.model.size());
        CHECK(mt_opsets_of(m) == mt_names{":13", "com.x:1", "com.y:3"});
    }
    SECTION("not_an_output") {
        refused(mt_merge(a, b, {{"nope", "in"}}, "a/", "b/"), merge_problem::not_an_output, "nope");
        // A value of A that is not a graph output.
        const mt_merged r = mt_merge(a, b, {{"m", "in"}}, "a/", "b/");
        refused(r, merge_problem::not_an_output, "m");
        CHECK(r.report.side == 'a');
    }
    SECTION("not_an_input") {
        refused(mt_merge(a, b, {{"out", "nope"}}, "a/", "b/"), merge_problem::not_an_input, "nope");
        // An initializer of B that is not a graph input.
        const mt_merged r = mt_merge(a, b, {{"out", "wb"}}, "a/", "b/");
        refused(r, merge_problem::not_an_input, "wb");
        CHECK(r.report.side == 'b');
    }
    SECTION("connected_twice") {
        refused(mt_merge(a, b, {{"out", "in"}, {"aux", "in"}}, "a/", "b/"), merge_problem::connected_twice, "in");
    }
    SECTION("a name longer than the report's is cut at 255 bytes") {
        const std::string long_name(300, 'n');
        const mt_merged r = mt_merge(a, b, {{long_name, "in"}}, "a/", "b/");
        CHECK(r.report.problem == merge_problem::not_an_output);
        CHECK(std::string_view(r.report.name) == long_name.substr(0, 255));
    }
    SECTION("name_clash") {
        // `v` is a node output in both; B's `k` is no name of A.
        const mt_merged r = mt_merge(mt_small_a("v"), mt_small_b("v"), {{"h", "k"}});
        refused(r, merge_problem::name_clash, "v");
        // The same prefix on both sides: the clash is of the prefixed name.
        refused(mt_merge(mt_small_a("v"), mt_small_b("v"), {{"h", "k"}}, "p/", "p/"), merge_problem::name_clash,
                "p/v");
        // A's graph input, a node output of B.
        refused(mt_merge(mt_small_a(), mt_small_b("x"), {}), merge_problem::name_clash, "x");
        // One prefix is enough.
        CHECK(mt_merge(mt_small_a("v"), mt_small_b("v"), {{"h", "k"}}, "", "b/").err.ok());
    }
    SECTION("function_clash") {
        const wire_builder g1 = mt_graph(mt_graph_parts{});
        const std::string fa = mt_model(&g1, 8, {{"", 13}, {"com.f", 1}}, {mt_function_field("F", "com.f")});
        const std::string fb = mt_model(&g1, 8, {{"", 13}, {"com.f", 1}}, {mt_function_field("F", "com.f")});
        refused(mt_merge(fa, fb, {}), merge_problem::function_clash, "F");
        // Prefixes, or another domain, make them two functions.
        CHECK(mt_merge(fa, fb, {}, "a/", "b/").err.ok());
        const std::string fc = mt_model(&g1, 8, {{"", 13}, {"com.g", 1}}, {mt_function_field("F", "com.g")});
        const mt_merged r = mt_merge(fa, fc, {});
        REQUIRE(r.err.ok());
        const model_view m = parse_model(r.model.data(), r.model.size());
        CHECK(mt_functions_of(m) == mt_names{"com.f/F", "com.g/F"});
    }
    SECTION("metadata_differs") {
        const std::string b2 = mt_model_b({mt_metadata("author", "bob")});
        refused(mt_merge(a, b2, {{"out", "in"}}, "a/", "b/"), merge_problem::metadata_differs, "author");
        // The same value twice is one entry.
        const std::string b3 = mt_model_b({mt_metadata("author", "alice")});
        const mt_merged r = mt_merge(a, b3, {{"out", "in"}}, "a/", "b/");
        REQUIRE(r.err.ok());
        const model_view m = parse_model(r.model.data(), r.model.size());
        CHECK(mt_metadata_of(m) == mt_names{"author=alice", "shared=same", "licence=mit"});
    }
    SECTION("no_graph") {
        const std::string none = mt_model(nullptr);
        const mt_merged ra = mt_merge(none, mt_small_b(), {});
        refused(ra, merge_problem::no_graph, "");
        CHECK(ra.report.side == 'a');
        // Two graph fields (protobuf would merge them).
        const wire_builder g1 = mt_graph(mt_graph_parts{});
        const std::string twice = mt_model(&g1, 8, {{"", 13}}, {wire_builder().field_message(7, g1)});
        const mt_merged rb = mt_merge(mt_small_a(), twice, {}, "a/", "b/");
        refused(rb, merge_problem::no_graph, "");
        CHECK(rb.report.side == 'b');
    }
    SECTION("prefix_capture") {
        mt_graph_parts then_parts;
        then_parts.nodes = {em::node("Identity", {"k"}, {"b/k"})};
        then_parts.outputs = {"b/k"};
        mt_graph_parts p;
        p.nodes = {em::with_graph(em::node("If", {"k"}, {"y"}), "then_branch", mt_graph(then_parts))};
        p.inputs = {"k"};
        p.outputs = {"y"};
        const wire_builder g = mt_graph(p);
        const mt_merged r = mt_merge(mt_small_a(), mt_model(&g), {}, "a/", "b/");
        CHECK(r.err.code == errc::invalid_argument);
        CHECK(r.report.problem == merge_problem::prefix_capture);
        CHECK(r.report.side == 'b');
    }
    SECTION("edits are refused") {
        edit_options e{};
        pack_options po{};
        po.edits = &e;
        CHECK(mt_merge(a, b, {{"out", "in"}}, "a/", "b/", po).err.code == errc::invalid_argument);
    }
}

TEST_CASE("merge_models: a connected output's prefixed name already one of B's is a name clash") {
    // A's `h` feeds B's `k`; B has a value `h` of its own. With one prefix
    // on both sides B's `p/h` would join A's `p/h`.
    const std::string a = mt_small_a(), b = mt_small_b("h");
    SECTION("without prefixes") {
        const mt_merged r = mt_merge(a, b, {{"h", "k"}});
        CHECK(r.err.code == errc::invalid_argument);
        CHECK(r.report.problem == merge_problem::name_clash);
        CHECK(std::string_view(r.report.name) == "h");
    }
    SECTION("with the same prefix on both sides") {
        // Regression: the connection's rename refused under a prefix was
        // reported as prefix_capture, with the prefix as the name.
        const mt_merged r = mt_merge(a, b, {{"h", "k"}}, "p/", "p/");
        CHECK(r.err.code == errc::invalid_argument);
        CHECK(r.report.problem == merge_problem::name_clash);
        CHECK(std::string_view(r.report.name) == "p/h");
    }
}

TEST_CASE("merge_models: tensors of at least the threshold go to the external sink") {
    const std::string a = mt_model_a(), b = mt_model_b();
    std::vector<char> model_buf(1 << 16), external_buf(1 << 16);
    memory_sink_state model_state{model_buf.data(), model_buf.size(), 0};
    memory_sink_state external_state{external_buf.data(), external_buf.size(), 0};
    const write_sink model_out = memory_sink(model_state);
    const write_sink external_out = memory_sink(external_state);
    const merge_connection io[] = {{"out", "in"}};
    merge_report report;
    merge_request req{};
    req.connections = io;
    req.connection_count = 1;
    req.prefix_a = "a/";
    req.prefix_b = "b/";
    req.report = &report;
    pack_options po{};
    po.threshold = 64;
    po.external_location = "merged.data";
    po.external_align = 128;
    pack_stats stats;
    const error e = merge_models(a, nullptr, b, nullptr, req, po, model_out, &external_out, &stats);
    REQUIRE(e.ok());
    CHECK(report.problem == merge_problem::none);
    const std::string model(model_buf.data(), model_state.used);
    const std::string external(external_buf.data(), external_state.used);
    CHECK(stats.model_bytes == model.size());
    CHECK(stats.external_bytes == external.size());
    CHECK(stats.externalized == 2);

    const model_view m = parse_model(model.data(), model.size());
    REQUIRE(m.ok());
    const graph_view g = m.graph();
    CHECK(mt_tensor_names(g.initializer()) == mt_names{"a/wa", "a/sa", "b/wb"});
    for (const auto& expected : {std::make_pair("a/wa", &mt_wa), std::make_pair("b/wb", &mt_wb)}) {
        INFO(expected.first);
        const tensor_view t = mt_initializer(g, expected.first);
        CHECK(t.data_location() == location_kind::external);
        CHECK(t.raw_data().empty());
        CHECK(em::external_entry_text(t, "location") == "merged.data");
        const std::uint64_t offset = std::stoull(em::external_entry_text(t, "offset"));
        const std::uint64_t length = std::stoull(em::external_entry_text(t, "length"));
        CHECK(offset % 128 == 0);
        CHECK(length == expected.second->size());
        REQUIRE(offset + length <= external.size());
        CHECK(external.substr(offset, length) == *expected.second);
    }
    // Below the threshold: inline.
    const tensor_view sa = mt_initializer(g, "a/sa");
    CHECK(sa.data_location() == location_kind::default_location);
    CHECK(sa.raw_data() == mt_sa);
    CHECK(model.find(mt_wa) == std::string::npos);
    CHECK(model.find(mt_wb) == std::string::npos);
    CHECK(external.find(mt_in_default) == std::string::npos);

    SECTION("a sink too small refuses with buffer_too_small") {
        char small[16];
        memory_sink_state st{small, sizeof small, 0};
        model_state.used = external_state.used = 0;
        CHECK(merge_models(a, nullptr, b, nullptr, req, po, memory_sink(st), &external_out, nullptr).code ==
              errc::buffer_too_small);
    }
}

TEST_CASE("merge_models: the inputs' external tensors fetched through their own side's source") {
    // Both inputs reference the same location and offset: only the side
    // each tensor came from tells the two files apart.
    const std::string file_a = mt_floats(8, 100.0f), file_b = mt_floats(8, 200.0f);
    const auto with_external = [](const std::string& graph_name, const std::string& tensor_name,
                                  const std::string& in, const std::string& out) {
        mt_graph_parts p;
        p.name = graph_name;
        p.nodes = {em::node("Add", {in, tensor_name}, {out})};
        p.initializers = {mt_external(tensor_name, 4, "weights.bin", 16)};
        p.inputs = {in};
        p.outputs = {out};
        const wire_builder g = mt_graph(p);
        return mt_model(&g);
    };
    const std::string a = with_external("ga", "e", "x", "h");
    const std::string b = with_external("gb", "e", "k", "y");
    std::vector<std::string> log;
    mt_fake_file fa{'a', file_a, &log}, fb{'b', file_b, &log};
    const external_payload_source sa{&fa, mt_fake_fetch}, sb{&fb, mt_fake_fetch};

    SECTION("internalized") {
        const mt_merged r = mt_merge(a, b, {{"h", "k"}}, "a/", "b/", pack_options{}, &sa, &sb);
        REQUIRE(r.err.ok());
        mt_check_sides(log);
        const model_view m = parse_model(r.model.data(), r.model.size());
        const graph_view g = m.graph();
        CHECK(mt_tensor_names(g.initializer()) == mt_names{"a/e", "b/e"});
        const tensor_view ea = mt_initializer(g, "a/e"), eb = mt_initializer(g, "b/e");
        CHECK(ea.data_location() == location_kind::default_location);
        CHECK(ea.external_data().size() == 0);
        CHECK(ea.raw_data() == file_a.substr(16, 16));
        CHECK(eb.raw_data() == file_b.substr(16, 16));
        CHECK(r.stats.internalized == 2);
    }
    SECTION("to the external sink") {
        pack_options po{};
        po.threshold = 8;
        po.external_location = "merged.data";
        const mt_merged r = mt_merge(a, b, {{"h", "k"}}, "a/", "b/", po, &sa, &sb);
        REQUIRE(r.err.ok());
        mt_check_sides(log);
        const model_view m = parse_model(r.model.data(), r.model.size());
        const graph_view g = m.graph();
        const tensor_view ea = mt_initializer(g, "a/e"), eb = mt_initializer(g, "b/e");
        CHECK(em::external_entry_text(ea, "location") == "merged.data");
        const std::uint64_t oa = std::stoull(em::external_entry_text(ea, "offset"));
        const std::uint64_t ob = std::stoull(em::external_entry_text(eb, "offset"));
        REQUIRE(oa + 16 <= r.external.size());
        REQUIRE(ob + 16 <= r.external.size());
        CHECK(r.external.substr(oa, 16) == file_a.substr(16, 16));
        CHECK(r.external.substr(ob, 16) == file_b.substr(16, 16));
    }
    SECTION("a side without a source cannot be read") {
        const mt_merged r = mt_merge(a, b, {{"h", "k"}}, "a/", "b/", pack_options{}, &sa, nullptr);
        CHECK(r.err.code == errc::invalid_argument);
        CHECK(r.report.problem == merge_problem::none);  // not a merge problem
        for (const std::string& l : log) CHECK(l.rfind("b:", 0) != 0);
    }
    SECTION("a source's error is the merge's") {
        mt_fake_file short_b{'b', std::string(8, '\0'), &log};
        const external_payload_source sb_short{&short_b, mt_fake_fetch};
        const mt_merged r = mt_merge(a, b, {{"h", "k"}}, "a/", "b/", pack_options{}, &sa, &sb_short);
        CHECK(r.err.code == errc::external_out_of_bounds);
        CHECK(std::find(log.begin(), log.end(), "b:b/e:16") != log.end());
    }
}

TEST_CASE("merge_models: tensors in attributes and subgraphs read from their own side") {
    // Constants of at least the threshold in A's main graph and in B's If
    // branch: the proxies reference them in A's and B's bytes.
    const std::string ca = mt_floats(32, 10.0f), cb = mt_floats(32, 20.0f), cb_small = mt_floats(2, 30.0f);
    mt_graph_parts pa;
    pa.name = "ga";
    pa.nodes = {mt_constant("c", mt_tensor("ca", ca)), em::node("Add", {"x", "c"}, {"h"})};
    pa.inputs = {"x"};
    pa.outputs = {"h"};
    const wire_builder ga = mt_graph(pa);
    mt_graph_parts then_parts;
    then_parts.nodes = {mt_constant("t", mt_tensor("cb", cb)), mt_constant("s", mt_tensor("cs", cb_small)),
                        em::node("Sum", {"t", "s", "k"}, {"r"})};
    then_parts.outputs = {"r"};
    mt_graph_parts pb;
    pb.name = "gb";
    pb.nodes = {em::with_graph(em::node("If", {"k"}, {"y"}), "then_branch", mt_graph(then_parts))};
    pb.inputs = {"k"};
    pb.outputs = {"y"};
    const wire_builder gb = mt_graph(pb);
    const std::string a = mt_model(&ga), b = mt_model(&gb);

    pack_options po{};
    po.threshold = 64;
    const mt_merged r = mt_merge(a, b, {{"h", "k"}}, "a/", "b/", po);
    REQUIRE(r.err.ok());
    const model_view m = parse_model(r.model.data(), r.model.size());
    REQUIRE(m.ok());
    std::vector<std::pair<std::string, std::string>> found;
    const error e = for_each_tensor(m, [&](const stored_tensor& st) {
        found.emplace_back(std::string(st.tensor.name()), std::string(st.tensor.raw_data()));
        CHECK(st.tensor.data_location() == location_kind::default_location);
    });
    REQUIRE(e.ok());
    // An attribute tensor's name is no value name: kept, as compose.add_prefix keeps it.
    REQUIRE(found.size() == 3);
    CHECK(found[0].first == "ca");
    CHECK(found[1].first == "cb");
    CHECK(found[2].first == "cs");
    CHECK(found[0].second == ca);
    CHECK(found[1].second == cb);
    CHECK(found[2].second == cb_small);
    const std::vector<node_view> nodes = mt_nodes(m.graph());
    REQUIRE(nodes.size() == 3);
    const std::vector<node_view> bn = mt_nodes(mt_subgraph(nodes[2], "then_branch"));
    REQUIRE(bn.size() == 3);
    CHECK(mt_list(bn[2].input()) == mt_names{"t", "s", "a/h"});
}

TEST_CASE("merge_models: one output of A feeding two inputs of B") {
    const std::string a = mt_model_a(), b = mt_model_b();
    const mt_merged r = mt_merge(a, b, {{"out", "in"}, {"out", "z"}}, "a/", "b/");
    REQUIRE(r.err.ok());
    const model_view m = parse_model(r.model.data(), r.model.size());
    const graph_view g = m.graph();
    CHECK(mt_value_names(g.input()) == mt_names{"a/x"});
    CHECK(mt_value_names(g.output()) == mt_names{"a/aux", "b/res"});
    CHECK(mt_value_names(g.value_info()) == mt_names{"a/m", "b/n"});
    CHECK(mt_tensor_names(g.initializer()) == mt_names{"a/wa", "a/sa", "b/wb"});
    const std::vector<node_view> nodes = mt_nodes(g);
    REQUIRE(nodes.size() == 5);
    CHECK(mt_list(nodes[3].input()) == mt_names{"a/out", "b/wb"});
    CHECK(mt_list(nodes[4].input()) == mt_names{"b/n", "a/out"});
}

TEST_CASE("merge_models: the connected input's sparse initializer dropped, its annotation renamed") {
    mt_graph_parts pb;
    pb.name = "gb";
    pb.nodes = {em::node("Relu", {"k"}, {"y"})};
    pb.inputs = {"k"};
    pb.outputs = {"y"};
    pb.value_info = {"y"};
    pb.sparse = {mt_sparse("k", "k_indices"), mt_sparse("other", "other_indices")};
    wire_builder gb = mt_graph(pb);
    gb.field_message(gf::quantization_annotation, mt_annotation("k", "k_scale"));
    const std::string b = mt_model(&gb);
    const mt_merged r = mt_merge(mt_small_a(), b, {{"h", "k"}}, "", "b/");
    REQUIRE(r.err.ok());
    const model_view m = parse_model(r.model.data(), r.model.size());
    const graph_view g = m.graph();
    mt_names sparse;
    for (const sparse_tensor_view& s : g.sparse_initializer()) sparse.emplace_back(s.values().name());
    CHECK(sparse == mt_names{"b/other"});
    CHECK(mt_value_names(g.value_info()) == mt_names{"b/y"});
    REQUIRE(g.quantization_annotation().size() == 1);
    CHECK(g.quantization_annotation().begin()->tensor_name() == "h");
    CHECK(g.quantization_annotation().begin()->quant_parameter_tensor_names().begin()->value() == "b/k_scale");
    CHECK(r.report.initializers == 1);
}

TEST_CASE("merge_models: \"ai.onnx\" and \"\" are one domain of the opsets") {
    mt_graph_parts p;
    p.name = "g";
    p.nodes = {em::node("Relu", {"k"}, {"y"})};
    p.inputs = {"k"};
    p.outputs = {"y"};
    const wire_builder g = mt_graph(p);
    const std::string a = mt_small_a();
    const mt_merged same = mt_merge(a, mt_model(&g, 8, {{"ai.onnx", 13}}), {{"h", "k"}});
    REQUIRE(same.err.ok());
    const model_view m = parse_model(same.model.data(), same.model.size());
    CHECK(mt_opsets_of(m) == mt_names{":13"});
    const mt_merged other = mt_merge(a, mt_model(&g, 8, {{"ai.onnx", 14}}), {{"h", "k"}});
    CHECK(other.err.code == errc::invalid_argument);
    CHECK(other.report.problem == merge_problem::opset_differs);
    CHECK(std::string(other.report.name) == "ai.onnx");
}
