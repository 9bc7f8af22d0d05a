// edit_options::extract (onnxview/write.hpp) on hand-built models: what a
// cut keeps, in which order, and each refusal. onnx.utils.extract_model,
// onnx.checker and onnxruntime check real models in
// tests/oracle/extract_oracle.py.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "../new_counter.hpp"
#include "../tally_memory.hpp"
#include "../wire_builder.hpp"
#include "edit_models.hpp"
#include "onnxview/model.hpp"
#include "onnxview/verify.hpp"
#include "onnxview/write.hpp"

using namespace onnxview;
using onnxview::testing::wire_builder;

namespace {

using namespace onnxview_test::edit_models;

struct cut {
    error err;
    std::string model;
    extract_report report;
    std::string name, node;  // report's, which may point into the request
    pack_stats stats;
};

// `memory`: options::memory, and no call of the global operator new allowed
// while pack_model runs. `max_graph_depth`: options::max_graph_depth.
cut extract(const std::string& in, const names& inputs, const names& outputs, edit_options edits = {},
            onnxview_test::tally_memory* memory = nullptr, std::uint32_t max_graph_depth = 0) {
    std::vector<std::string_view> in_views(inputs.begin(), inputs.end()), out_views(outputs.begin(), outputs.end());
    cut c;
    extract_request r{};
    r.inputs = in_views.data();
    r.input_count = in_views.size();
    r.outputs = out_views.data();
    r.output_count = out_views.size();
    r.report = &c.report;
    edits.extract = &r;
    pack_options po{};
    po.inline_align = 1;
    po.keep_typed = true;
    po.edits = &edits;
    po.read_options.max_graph_depth = max_graph_depth;
    const write_sink sink{&c.model, append};
    if (memory == nullptr) {
        c.err = pack_model(in, nullptr, po, sink, nullptr, &c.stats);
        c.name = std::string(c.report.name);
        c.node = std::string(c.report.node);
        return c;
    }
    po.read_options.memory = memory->hooks();
    c.model.reserve(1 << 16);  // the sink appends without allocating
    const unsigned long before = onnxview_test::new_calls();
    {
        onnxview_test::counting_new counting;
        c.err = pack_model(in, nullptr, po, sink, nullptr, &c.stats);
    }
    CHECK(onnxview_test::new_calls() == before);
    return c;
}

// The result, as lists of names.
struct summary {
    names nodes, inputs, outputs, initializers, value_info, functions, opsets;
};
summary summarize(const std::string& bytes) {
    REQUIRE(verify(bytes.data(), bytes.size(), schema::msg_ModelProto, options{}).ok());
    const model_view m = parse_model(bytes.data(), bytes.size());
    const graph_view g = m.graph();
    summary s;
    for (const node_view& n : g.node()) s.nodes.emplace_back(n.name());
    for (const value_info_view& v : g.input()) s.inputs.emplace_back(v.name());
    for (const value_info_view& v : g.output()) s.outputs.emplace_back(v.name());
    for (const tensor_view& t : g.initializer()) s.initializers.emplace_back(t.name());
    for (const sparse_tensor_view& t : g.sparse_initializer()) s.initializers.emplace_back(t.values().name());
    for (const value_info_view& v : g.value_info()) s.value_info.emplace_back(v.name());
    for (const function_view& f : m.functions()) s.functions.emplace_back(f.name());
    for (const opset_id_view& o : m.opset_import()) s.opsets.emplace_back(o.domain());
    return s;
}

// x -A-> a -B-> b -C-> c, value_info for a and b.
wire_builder chain() {
    wire_builder g;
    g.field_message(1, node("Relu", {"x"}, {"a"})).field_message(1, node("Neg", {"a"}, {"b"}))
        .field_message(1, node("Abs", {"b"}, {"c"})).field_bytes(2, "chain").field_message(11, value("x"))
        .field_message(12, value("c")).field_message(13, value("a")).field_message(13, value("b"));
    return g;
}

}  // namespace

TEST_CASE("extract: a chain cut in the middle keeps the nodes between, inputs and outputs from value_info") {
    const std::string in = model(chain());
    const cut c = extract(in, {"a"}, {"b"});
    REQUIRE(c.err.ok());
    const summary s = summarize(c.model);
    CHECK(s.nodes == names{"b_node"});
    CHECK(s.inputs == names{"a"});
    CHECK(s.outputs == names{"b"});
    CHECK(s.value_info == names{"a", "b"});  // as onnx keeps them: named by a kept node
    CHECK(s.opsets == names{""});
    CHECK(c.report.nodes == 1);
    CHECK(c.report.nodes_before == 3);
    CHECK(parse_model(c.model.data(), c.model.size()).graph().name() == "chain");

    // The whole graph: the same fields, inputs and outputs moved to the end.
    const cut whole = extract(in, {"x"}, {"c"});
    REQUIRE(whole.err.ok());
    CHECK(whole.model.size() == in.size());
    CHECK(summarize(whole.model).nodes == names{"a_node", "b_node", "c_node"});

    // Several outputs, in the order given; a passthrough input.
    const cut two = extract(in, {"x"}, {"c", "a", "x"});
    REQUIRE(two.err.ok());
    CHECK(summarize(two.model).outputs == names{"c", "a", "x"});
}

TEST_CASE("extract: branches and a diamond keep what the outputs need, in graph order") {
    wire_builder g;
    g.field_message(1, node("Relu", {"x"}, {"a"})).field_message(1, node("Neg", {"a"}, {"b"}))
        .field_message(1, node("Abs", {"a"}, {"c"})).field_message(1, node("Exp", {"x"}, {"e"}))
        .field_message(1, node("Add", {"c", "b"}, {"d"})).field_message(11, value("x"))
        .field_message(12, value("d")).field_message(12, value("e")).field_message(13, value("b"))
        .field_message(13, value("c"));
    const std::string in = model(g);
    const cut diamond = extract(in, {"x"}, {"d"});
    REQUIRE(diamond.err.ok());
    CHECK(summarize(diamond.model).nodes == names{"a_node", "b_node", "c_node", "d_node"});
    const cut branch = extract(in, {"x"}, {"e", "b"});
    REQUIRE(branch.err.ok());
    const summary s = summarize(branch.model);
    CHECK(s.nodes == names{"a_node", "b_node", "e_node"});
    CHECK(s.outputs == names{"e", "b"});
    // A cut at b and c: the diamond's bottom only.
    const cut bottom = extract(in, {"c", "b"}, {"d"});
    REQUIRE(bottom.err.ok());
    CHECK(summarize(bottom.model).nodes == names{"d_node"});
    CHECK(summarize(bottom.model).inputs == names{"c", "b"});
}

TEST_CASE("extract: initializers, sparse initializers, value_info and annotations stay when a kept node names them") {
    wire_builder sparse_values = tensor("s", 2.0f);
    wire_builder sparse;
    sparse.field_message(1, sparse_values).packed_varint(3, {4});
    wire_builder used_annotation, unused_annotation;
    used_annotation.field_bytes(1, "w");
    unused_annotation.field_bytes(1, "v");
    wire_builder g;
    g.field_message(1, node("Add", {"x", "w"}, {"a"})).field_message(1, node("Mul", {"a", "s"}, {"b"}))
        .field_message(1, node("Sub", {"x", "v"}, {"u"})).field_message(5, tensor("v", 1.0f))
        .field_message(5, tensor("w", 3.0f)).field_message(15, sparse).field_message(11, value("x"))
        .field_message(12, value("b")).field_message(12, value("u")).field_message(13, value("u"))
        .field_message(13, value("a")).field_message(14, unused_annotation).field_message(14, used_annotation);
    const std::string in = model(g);
    const cut c = extract(in, {"x"}, {"b"});
    REQUIRE(c.err.ok());
    const summary s = summarize(c.model);
    CHECK(s.nodes == names{"a_node", "b_node"});
    CHECK(s.initializers == names{"w", "s"});
    CHECK(s.value_info == names{"a"});
    CHECK(c.report.initializers == 2);
    const graph_view out = parse_model(c.model.data(), c.model.size()).graph();
    REQUIRE(out.quantization_annotation().size() == 1);
    CHECK((*out.quantization_annotation().begin()).tensor_name() == "w");
    // The payload is the input's bytes.
    const tensor_view w = *out.initializer().begin();
    const std::string want = tensor("w", 3.0f).str();
    CHECK(std::string(w.wire_message().begin(), w.wire_message().end()) == want);

    // An initializer that is itself an output stays, with no node.
    wire_builder g2;
    g2.field_message(5, tensor("w", 3.0f)).field_message(12, value("w")).field_message(11, value("x"));
    const cut c2 = extract(model(g2), {}, {"w"});
    REQUIRE(c2.err.ok());
    CHECK(summarize(c2.model).initializers == names{"w"});
}

TEST_CASE("extract: a subgraph's outer-scope names keep their producers, shadowing respected") {
    // then_branch reads `o` from outside and defines its own `s`.
    wire_builder then_branch;
    then_branch.field_message(1, node("Neg", {"o"}, {"s"})).field_message(1, node("Add", {"s", "w"}, {"t"}))
        .field_message(12, value("t"));
    wire_builder else_branch;  // its output is an outer value, directly
    else_branch.field_message(12, value("p"));
    wire_builder g;
    g.field_message(1, node("Relu", {"x"}, {"o"})).field_message(1, node("Abs", {"x"}, {"s"}))
        .field_message(1, node("Exp", {"x"}, {"p"}))
        .field_message(1, with_graph(with_graph(node("If", {"cond"}, {"r"}), "then_branch", then_branch),
                                     "else_branch", else_branch))
        .field_message(5, tensor("w", 1.0f)).field_message(11, value("x")).field_message(11, value("cond"))
        .field_message(12, value("r"));
    const cut c = extract(model(g), {"x", "cond"}, {"r"});
    REQUIRE(c.err.ok());
    const summary s = summarize(c.model);
    CHECK(s.nodes == names{"o_node", "p_node", "r_node"});  // not s_node: the branch's own `s` shadows it
    CHECK(s.initializers == names{"w"});

    // Without `x`, the outer value cannot be computed.
    const std::string in = model(g);  // the names point into it
    const cut missing = extract(in, {"cond"}, {"r"});
    CHECK(missing.err.code == errc::not_found);
    CHECK(missing.report.problem == extract_problem::missing_input);
    CHECK(missing.name == "x");
}

TEST_CASE("extract: functions called by kept nodes, transitively, and the opsets kept nodes use") {
    wire_builder g;
    g.field_message(1, node("F", {"x"}, {"a"}, "local")).field_message(1, node("Other", {"x"}, {"b"}, "other"))
        .field_message(11, value("x")).field_message(12, value("a")).field_message(12, value("b"));
    wire_builder extra;
    extra.field_message(8, opset("local", 1)).field_message(8, opset("other", 1)).field_message(8, opset("unused", 1))
        .field_message(8, opset("ai.onnx.ml", 3));
    extra.field_message(25, function("H", "local", {node("Relu", {"x"}, {"y"})}));
    extra.field_message(25, function("G", "local", {node("Relu", {"x"}, {"y"}, "ai.onnx.ml")}));
    extra.field_message(25, function("F", "local", {node("G", {"x"}, {"y"}, "local")}));
    const std::string in = model(g, {extra});
    const cut c = extract(in, {"x"}, {"a"});
    REQUIRE(c.err.ok());
    const summary s = summarize(c.model);
    CHECK(s.nodes == names{"a_node"});
    CHECK(s.functions == names{"G", "F"});  // the model's order
    CHECK(s.opsets == names{"", "local", "ai.onnx.ml"});
    CHECK(c.report.functions == 2);
    CHECK(c.report.opsets == 3);
}

TEST_CASE("extract: subgraphs nested deeper than max_graph_depth are refused, at the limit searched") {
    // r = If(cond) whose then_branch holds an If whose then_branch ... `levels`
    // deep; the innermost reads the outer `o`, so its producer must stay.
    const auto nested = [](int levels) {
        wire_builder inner;
        inner.field_message(1, node("Neg", {"o"}, {"s"})).field_message(12, value("s"));
        for (int i = 1; i < levels; ++i) {
            wire_builder around;
            around.field_message(1, with_graph(node("If", {"cond"}, {"s"}), "then_branch", inner))
                .field_message(12, value("s"));
            inner = around;
        }
        wire_builder g;
        g.field_message(1, node("Relu", {"x"}, {"o"}))
            .field_message(1, with_graph(node("If", {"cond"}, {"r"}), "then_branch", inner))
            .field_message(11, value("x")).field_message(11, value("cond")).field_message(12, value("r"));
        return model(g);
    };
    const std::string at_limit = nested(3), beyond = nested(4);
    const cut kept = extract(at_limit, {"x", "cond"}, {"r"}, {}, nullptr, 3);
    REQUIRE(kept.err.ok());
    CHECK(summarize(kept.model).nodes == names{"o_node", "r_node"});
    CHECK(extract(beyond, {"x", "cond"}, {"r"}, {}, nullptr, 3).err.code == errc::depth_exceeded);
}

TEST_CASE("extract: other edits apply to the new inputs and outputs") {
    const std::string in = model(chain());
    const dim_change dims[] = {{"a", 0, true, 0, "N"}};
    edit_options edits{};
    edits.dims = dims;
    edits.dim_count = 1;
    edits.strip_doc_strings = true;
    // `a` comes from value_info, where --set-dim does not reach, and becomes an input, where it does.
    const cut c = extract(in, {"a"}, {"b"}, edits);
    REQUIRE(c.err.ok());
    CHECK(c.stats.dims_set == 1);
    const graph_view g = parse_model(c.model.data(), c.model.size()).graph();
    CHECK((*(*g.input().begin()).type().tensor_type().shape().dim().begin()).dim_param() == "N");
    CHECK((*(*g.value_info().begin()).type().tensor_type().shape().dim().begin()).dim_value() == 4);
}

TEST_CASE("extract: not combined with renames, which would have to follow the cut") {
    const std::string in = model(chain());
    const name_change renames[] = {{"a", "renamed"}};
    edit_options edits{};
    edits.renames = renames;
    edits.rename_count = 1;
    const cut c = extract(in, {"a"}, {"b"}, edits);
    CHECK(c.err.code == errc::invalid_argument);
    CHECK(c.model.empty());
}

TEST_CASE("extract: refusals name the value") {
    const std::string in = model(chain());
    const auto refused = [&](const names& inputs, const names& outputs, errc code, extract_problem p,
                             const std::string& name, const std::string& node = {}) {
        const cut c = extract(in, inputs, outputs);
        CHECK(c.err.code == code);
        CHECK(c.report.problem == p);
        CHECK(c.name == name);
        CHECK(c.node == node);
        CHECK(c.model.empty());
    };
    refused({"x"}, {}, errc::invalid_argument, extract_problem::no_outputs, "");
    refused({"x"}, {"nothing"}, errc::not_found, extract_problem::unknown_name, "nothing");
    refused({"nowhere"}, {"c"}, errc::not_found, extract_problem::unknown_name, "nowhere");
    refused({"x", "x"}, {"c"}, errc::invalid_argument, extract_problem::repeated_name, "x");
    refused({"x"}, {"c", "c"}, errc::invalid_argument, extract_problem::repeated_name, "c");
    refused({"a"}, {"x"}, errc::not_found, extract_problem::missing_input, "x");
    refused({}, {"b"}, errc::not_found, extract_problem::missing_input, "x", "a_node");

    wire_builder untyped = chain();
    untyped.field_message(13, value("c2", false)).field_message(1, node("Neg", {"c"}, {"c2"}));
    const std::string untyped_model = model(untyped);
    const cut no_type = extract(untyped_model, {"x"}, {"c2"});
    CHECK(no_type.err.code == errc::invalid_argument);
    CHECK(no_type.report.problem == extract_problem::no_type);
    CHECK(no_type.name == "c2");
    wire_builder no_value_info;
    no_value_info.field_message(1, node("Relu", {"x"}, {"a"})).field_message(11, value("x"));
    CHECK(extract(model(no_value_info), {"x"}, {"a"}).report.problem == extract_problem::no_type);
    wire_builder tensor_type, type, shapeless;  // FLOAT, no shape: incomplete for onnx.checker
    tensor_type.field_varint(1, 1);
    type.field_message(1, tensor_type);
    shapeless.field_bytes(1, "a").field_message(2, type);
    no_value_info.field_message(13, shapeless);
    CHECK(extract(model(no_value_info), {"x"}, {"a"}).report.problem == extract_problem::no_type);

    // A node needed for one output computes a value given as an input.
    wire_builder split;
    split.field_message(1, node("Split", {"x"}, {"p", "q"})).field_message(11, value("x"))
        .field_message(13, value("p")).field_message(13, value("q"));
    const std::string split_model = model(split);
    const cut computed = extract(split_model, {"x", "p"}, {"q"});
    CHECK(computed.err.code == errc::invalid_argument);
    CHECK(computed.report.problem == extract_problem::input_computed);
    CHECK(computed.name == "p");
    CHECK(computed.node == "p_node");

    // A broken model: a node reads a value nothing defines.
    wire_builder broken;
    broken.field_message(1, node("Neg", {"ghost"}, {"a"})).field_message(13, value("a"));
    const std::string broken_model = model(broken);  // the names point into it
    const cut undefined = extract(broken_model, {}, {"a"});
    CHECK(undefined.err.code == errc::not_found);
    CHECK(undefined.report.problem == extract_problem::undefined_value);
    CHECK(undefined.name == "ghost");

    // Two occurrences of the graph field merge under protobuf: refused.
    wire_builder twice;
    twice.field_message(7, chain()).field_message(7, chain());
    CHECK(extract(twice.str(), {"x"}, {"c"}).report.problem == extract_problem::no_graph);
    wire_builder none;
    none.field_varint(1, 8);
    CHECK(extract(none.str(), {"x"}, {"c"}).report.problem == extract_problem::no_graph);
}

TEST_CASE("extract: before IR version 4, kept initializers that were graph inputs stay inputs") {
    wire_builder g;
    g.field_message(1, node("Add", {"x", "w"}, {"a"})).field_message(1, node("Neg", {"v"}, {"b"}))
        .field_message(5, tensor("w", 1.0f)).field_message(5, tensor("v", 2.0f)).field_message(11, value("x"))
        .field_message(11, value("w")).field_message(11, value("v")).field_message(12, value("a"))
        .field_message(12, value("b"));
    wire_builder m;
    m.field_varint(1, 3).field_message(7, g).field_message(8, opset("", 8));
    const cut c = extract(m.str(), {"x"}, {"a"});
    REQUIRE(c.err.ok());
    const summary s = summarize(c.model);
    CHECK(s.inputs == names{"x", "w"});
    CHECK(s.initializers == names{"w"});
    // From IR version 4 on, as onnx's extractor: only the inputs given.
    const cut v4 = extract(model(g), {"x"}, {"a"});
    REQUIRE(v4.err.ok());
    CHECK(summarize(v4.model).inputs == names{"x"});
}

TEST_CASE("extract: every allocation goes through options::memory, and all of it comes back") {
    wire_builder then_branch;
    then_branch.field_message(1, node("Neg", {"o"}, {"t"})).field_message(12, value("t"));
    wire_builder g;
    g.field_message(1, node("Relu", {"x"}, {"o"}))
        .field_message(1, with_graph(node("If", {"x"}, {"r"}), "then_branch", then_branch))
        .field_message(1, node("F", {"r"}, {"a"}, "local")).field_message(11, value("x"))
        .field_message(12, value("a")).field_message(13, value("r"));
    wire_builder extra;
    extra.field_message(8, opset("local", 1)).field_message(25, function("F", "local", {node("Relu", {"x"}, {"y"})}));
    const std::string in = model(g, {extra});
    onnxview_test::tally_memory memory;
    const cut counted = extract(in, {"x"}, {"a", "r"}, {}, &memory);
    REQUIRE(counted.err.ok());
    CHECK(memory.requests > 0);
    CHECK(memory.live_blocks == 0);
    CHECK(memory.live_bytes == 0);
    CHECK(summarize(counted.model).nodes == names{"o_node", "r_node", "a_node"});
    CHECK(summarize(counted.model).outputs == names{"a", "r"});
}
