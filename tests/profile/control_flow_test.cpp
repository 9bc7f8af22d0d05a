// The profiler on If, Loop and Scan bodies, model-local functions expanded
// at their calls, and the aggregate views (onnxview/profile.hpp). The models
// are built here field by field; every expected number is worked out by hand
// from the operator spec in the comment next to it.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "onnxview/profile.hpp"
#include "profile_builder.hpp"

namespace {

using namespace onnxview;
using namespace profile_testing;

bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

}  // namespace

TEST_CASE("If: both branches listed under the holder, whose cost is the larger branch") {
    graph_parts then_branch, else_branch, p;
    // Both branches read the outer x and w: names of the enclosing graph resolve.
    then_branch.nodes.push_back(node("MatMul", {"x", "w"}, {"t"}));
    then_branch.nodes.push_back(node("Relu", {"t"}, {"t_out"}));
    then_branch.outputs.push_back(declared("t_out"));
    else_branch.nodes.push_back(node("MatMul", {"x", "w"}, {"e_out"}));
    else_branch.outputs.push_back(declared("e_out"));
    p.inputs.push_back(value_info("x", {std::int64_t{2}, std::int64_t{4}}));
    p.inputs.push_back(value_info("w", {std::int64_t{4}, std::int64_t{8}}));
    p.inputs.push_back(value_info("c", {}, data_type::boolean));
    wire_builder choose = node("If", {"c"}, {"y"},
                               {graph_attribute("then_branch", then_branch), graph_attribute("else_branch", else_branch)});
    choose.field_bytes(node_view::field::name, "choose");
    p.nodes.push_back(choose);
    p.outputs.push_back(declared("y"));
    const held_profile r = profile_of(model_bytes(p));
    REQUIRE(r.nodes.size() == 4);
    CHECK(r.main_graph_nodes == 1);
    CHECK(r.nodes[1].scope == "choose/then_branch");
    CHECK(r.nodes[1].parent == 0);
    CHECK(r.nodes[3].scope == "choose/else_branch");
    CHECK(r.nodes[3].outputs[0].shape.str() == "[2,8]");
    // then: MatMul 2*8*4 = 64 MACs, 128 FLOPs, Relu 16 FLOPs; else: 64 MACs, 128 FLOPs.
    CHECK(r.nodes[0].covered());
    CHECK(r.nodes[0].macs.str() == "64");
    CHECK(r.nodes[0].flops.str() == "144");
    CHECK(r.nodes[0].cost_basis == "the larger branch: then_branch");
    CHECK(r.nodes[0].outputs[0].shape.str() == "[2,8]");
    // The totals add the main graph's nodes only: the If once, not its branches again.
    CHECK(r.totals.macs.str() == "64");
    CHECK(r.totals.flops.str() == "144");
    CHECK(r.covered_nodes == 4);
}

TEST_CASE("Loop: the body x a constant M, scan outputs stacked; an M from data a data-dependent count") {
    graph_parts body;
    body.inputs.push_back(value_info("i", {}, data_type::int64));
    body.inputs.push_back(value_info("cond_in", {}, data_type::boolean));
    body.inputs.push_back(declared("acc_in"));
    body.nodes.push_back(node("Identity", {"cond_in"}, {"cond_out"}));
    body.nodes.push_back(node("Mul", {"acc_in", "acc_in"}, {"acc_out"}));
    body.nodes.push_back(node("Relu", {"acc_in"}, {"scan_y"}));
    body.outputs.push_back(declared("cond_out"));
    body.outputs.push_back(declared("acc_out"));
    body.outputs.push_back(declared("scan_y"));
    for (const bool constant_m : {true, false}) {
        graph_parts p;
        p.inputs.push_back(value_info("acc0", {std::int64_t{2}, std::int64_t{4}}));
        if (constant_m) p.initializers.push_back(int64_tensor("M", {}, {5}));
        else p.inputs.push_back(value_info("M", {}, data_type::int64));
        p.nodes.push_back(node("Loop", {"M", "", "acc0"}, {"acc_final", "ys"}, {graph_attribute("body", body)}));
        p.outputs.push_back(declared("acc_final"));
        p.outputs.push_back(declared("ys"));
        const held_profile r = profile_of(model_bytes(p));
        REQUIRE(r.nodes.size() == 4);
        CHECK(r.nodes[2].scope == "#0/body");
        // The body's inputs: the loop-carried acc_in is acc0's [2,4].
        CHECK(r.nodes[2].outputs[0].shape.str() == "[2,4]");
        CHECK(r.nodes[2].covered());
        CHECK(r.nodes[0].outputs[0].shape.str() == "[2,4]");
        if (constant_m) {
            // Per iteration: Mul 8 FLOPs, Relu 8 FLOPs; 5 iterations.
            CHECK(r.nodes[0].covered());
            CHECK(r.nodes[0].flops.str() == "80");
            CHECK(r.nodes[0].macs.str() == "0");
            CHECK(r.nodes[0].cost_basis == "body x M = 5 iterations");
            CHECK(r.nodes[0].outputs[1].shape.str() == "[5,2,4]");
            CHECK(r.nodes[0].params == 1);
        } else {
            // The data decides the iterations: one symbol, named after the Loop, for the cost and the stack.
            CHECK(r.nodes[0].covered());
            CHECK(r.nodes[0].flops.str() == "16*acc_final:iterations");
            CHECK(contains(r.nodes[0].cost_basis, "data-dependent: M 'M' is not a constant"));
            CHECK(r.nodes[0].outputs[1].shape.str() == "[acc_final:iterations,2,4]");
            CHECK(r.main_graph_covered == 1);
        }
    }
}

namespace {
// A BOOL initializer, its values in int32_data as onnx.helper writes them.
wire_builder bool_tensor(const std::string& name, const std::vector<std::int64_t>& dims, const std::vector<bool>& values) {
    wire_builder t;
    for (std::int64_t d : dims) t.field_varint(tensor_view::field::dims, static_cast<std::uint64_t>(d));
    t.field_varint(tensor_view::field::data_type, static_cast<std::uint64_t>(data_type::boolean));
    for (bool v : values) t.field_varint(tensor_view::field::int32_data, v ? 1 : 0);
    t.field_bytes(tensor_view::field::name, name);
    return t;
}
}  // namespace

TEST_CASE("Loop: a carried value the body computes from outer values keeps them after M >= 1 iterations; M = 0 keeps the input's") {
    // Body: the carried value becomes Shape(x) (x of the outer graph), what
    // every iteration gives alike; the Loop's result reshapes y.
    graph_parts body;
    body.inputs.push_back(value_info("i", {}, data_type::int64));
    body.inputs.push_back(value_info("cond_in", {}, data_type::boolean));
    body.inputs.push_back(declared("shape_in"));
    body.nodes.push_back(node("Identity", {"cond_in"}, {"cond_out"}));
    body.nodes.push_back(node("Shape", {"x"}, {"shape_out"}));
    body.outputs.push_back(declared("cond_out"));
    body.outputs.push_back(declared("shape_out"));
    struct run {
        std::int64_t m;
        int cond;  // -1: no initial cond; 0 false; 1 true
        const char* reshaped;
    };
    // M = 0: the initial [2, 8] comes out; M = 3: Shape(x) = [4, 4]; a false
    // initial cond runs no iteration, which the values cannot tell apart
    // from a later stop: unknown (data-dependent dims).
    for (const run& t : {run{0, -1, "[2,8]"}, run{3, -1, "[4,4]"}, run{3, 1, "[4,4]"}, run{3, 0, "[z:0,z:1]"}}) {
        graph_parts p;
        p.inputs.push_back(value_info("x", {std::int64_t{4}, std::int64_t{4}}));
        p.inputs.push_back(value_info("y", {std::int64_t{16}}));
        p.initializers.push_back(int64_tensor("M", {}, {t.m}));
        p.initializers.push_back(int64_tensor("start", {2}, {2, 8}));
        if (t.cond >= 0) p.initializers.push_back(bool_tensor("c0", {}, {t.cond == 1}));
        p.nodes.push_back(node("Loop", {"M", t.cond >= 0 ? "c0" : "", "start"}, {"shape"}, {graph_attribute("body", body)}));
        p.nodes.push_back(node("Reshape", {"y", "shape"}, {"z"}));
        p.outputs.push_back(declared("z"));
        const held_profile r = profile_of(model_bytes(p));
        REQUIRE(r.nodes.size() == 4);
        INFO("M = " << t.m << ", cond " << t.cond);
        CHECK(r.nodes[3].outputs[0].shape.str() == t.reshaped);
    }
}

// A Scan body: state s_in + slice x_in -> s_out, Relu(x_in) -> y (4 + 4 FLOPs
// per step for a [4] slice).
namespace {
graph_parts scan_body() {
    graph_parts body;
    body.inputs.push_back(declared("s_in"));
    body.inputs.push_back(declared("x_in"));
    body.nodes.push_back(node("Add", {"s_in", "x_in"}, {"s_out"}));
    body.nodes.push_back(node("Relu", {"x_in"}, {"y"}));
    body.outputs.push_back(declared("s_out"));
    body.outputs.push_back(declared("y"));
    return body;
}
}  // namespace

TEST_CASE("Scan: the body sees slices without the scan axis, runs once per element of it") {
    const graph_parts body = scan_body();
    graph_parts p;
    p.inputs.push_back(value_info("s0", {std::int64_t{4}}));
    p.inputs.push_back(value_info("xs", {std::int64_t{4}, std::string("T")}));
    p.nodes.push_back(node("Scan", {"s0", "xs"}, {"s_final", "ys"},
                           {graph_attribute("body", body), int_attribute("num_scan_inputs", 1),
                            ints_attribute("scan_input_axes", {1}), ints_attribute("scan_output_axes", {-1})}));
    p.outputs.push_back(declared("s_final"));
    p.outputs.push_back(declared("ys"));
    const held_profile r = profile_of(model_bytes(p));
    REQUIRE(r.nodes.size() == 3);
    CHECK(r.nodes[1].outputs[0].shape.str() == "[4]");
    // Add 4 + Relu 4 FLOPs per step, T steps (the scan axis 1 of xs).
    CHECK(r.nodes[0].flops.str() == "8*T");
    CHECK(r.nodes[0].outputs[0].shape.str() == "[4]");
    CHECK(r.nodes[0].outputs[1].shape.str() == "[4,T]");
    CHECK(r.nodes[0].cost_basis == "body x T iterations (scan axis length)");
}

TEST_CASE("Scan 8: sequence_lens first, a batch axis in front, the scan axis 1") {
    const graph_parts body = scan_body();
    graph_parts p;
    p.inputs.push_back(value_info("s0", {std::int64_t{2}, std::int64_t{4}}));
    p.inputs.push_back(value_info("xs", {std::int64_t{2}, std::int64_t{5}, std::int64_t{4}}));
    p.nodes.push_back(node("Scan", {"", "s0", "xs"}, {"s_final", "ys"},
                           {graph_attribute("body", body), int_attribute("num_scan_inputs", 1)}));
    p.outputs.push_back(declared("s_final"));
    p.outputs.push_back(declared("ys"));
    const held_profile r = profile_of(model_bytes(p, {}, 8));
    REQUIRE(r.nodes.size() == 3);
    CHECK(r.nodes[1].outputs[0].shape.str() == "[4]");
    // (Add 4 + Relu 4) FLOPs x batch 2 x 5 steps.
    CHECK(r.nodes[0].flops.str() == "80");
    CHECK(r.nodes[0].outputs[0].shape.str() == "[2,4]");
    CHECK(r.nodes[0].outputs[1].shape.str() == "[2,5,4]");
}

TEST_CASE("a model-local function is expanded with the call's shapes and attributes") {
    // local::Flat(X) = Flatten(Relu(X), axis = the call's `axis`, by default 1).
    wire_builder default_axis = int_attribute("axis", 1);
    const wire_builder flat =
        function("local", "Flat", {"X"}, {"Y"},
                 {node("Relu", {"X"}, {"R"}), node("Flatten", {"R"}, {"Y"}, {ref_attribute("axis", "axis", attribute_type::int64)})},
                 {default_axis});
    graph_parts p;
    p.inputs.push_back(value_info("x", {std::int64_t{2}, std::int64_t{3}, std::int64_t{4}, std::int64_t{5}}));
    wire_builder first = call("local", "Flat", {"x"}, {"a"}, {int_attribute("axis", 2)});
    first.field_bytes(node_view::field::name, "first");
    p.nodes.push_back(first);
    p.nodes.push_back(call("local", "Flat", {"x"}, {"b"}));
    p.outputs.push_back(declared("a"));
    p.outputs.push_back(declared("b"));
    const held_profile r = profile_of(model_bytes(p, {flat}));
    REQUIRE(r.nodes.size() == 6);
    CHECK(r.nodes[0].covered());
    CHECK(r.nodes[0].outputs[0].shape.str() == "[6,20]");  // axis 2 from the call
    CHECK(r.nodes[0].flops.str() == "120");                 // Relu over 120 elements
    CHECK(r.nodes[1].scope == "first/local::Flat");
    CHECK(r.nodes[1].parent == 0);
    CHECK(r.nodes[3].outputs[0].shape.str() == "[2,60]");  // the default axis 1
    CHECK(r.nodes[4].scope == "#3/local::Flat");
    CHECK(r.totals.flops.str() == "240");
    CHECK(r.main_graph_nodes == 2);
}

TEST_CASE("a recursive function stops at the depth limit with a reason, not a crash") {
    const wire_builder rec = function("local", "Rec", {"X"}, {"Y"}, {call("local", "Rec", {"X"}, {"Y"})});
    graph_parts p;
    p.inputs.push_back(value_info("x", {std::int64_t{2}}));
    p.nodes.push_back(call("local", "Rec", {"x"}, {"y"}));
    p.outputs.push_back(declared("y"));
    profile_options opts;
    opts.max_function_depth = 4;
    const held_profile r = profile_of(model_bytes(p, {rec}), opts);
    REQUIRE(r.nodes.size() == 5);
    CHECK(contains(r.nodes[4].reason, "nested deeper than 4"));
    CHECK_FALSE(r.nodes[0].covered());
    CHECK(contains(r.nodes[0].reason, "in local::Rec: node"));
}

TEST_CASE("scopes come from '/'-separated node names; the views sum the main graph's nodes") {
    CHECK(name_scope("/encoder/layer.0/attn/MatMul") == "encoder/layer.0/attn");
    CHECK(name_scope("/encoder/layer.0/attn/MatMul", 2) == "encoder/layer.0");
    CHECK(name_scope("/encoder/layer.0/attn/MatMul", 9) == "encoder/layer.0/attn");
    CHECK(name_scope("encoder/Relu", 1) == "encoder");
    CHECK(name_scope("Relu").empty());
    CHECK(name_scope("/Relu").empty());
    graph_parts p;
    p.inputs.push_back(value_info("x", {std::int64_t{2}, std::int64_t{4}}));
    const char* names[] = {"/enc/layer.0/attn/Relu", "/enc/layer.0/Relu", "/enc/layer.1/Relu", "top"};
    std::string in = "x";
    for (int i = 0; i < 4; ++i) {
        wire_builder n = node("Relu", {in}, {"v" + std::to_string(i)});
        n.field_bytes(node_view::field::name, names[i]);
        p.nodes.push_back(n);
        in = "v" + std::to_string(i);
    }
    p.outputs.push_back(declared(in));
    const held_profile r = profile_of(model_bytes(p));
    const std::vector<profile_group> two = group_nodes(r, profile_grouping::scope, 2);
    REQUIRE(two.size() == 3);
    CHECK(two[0].key == "enc/layer.0");
    CHECK(two[0].nodes == 2);
    CHECK(two[0].flops.str() == "16");
    CHECK(two[1].key == "enc/layer.1");
    CHECK(two[2].key.empty());
    const std::vector<profile_group> ops = group_nodes(r, profile_grouping::op);
    REQUIRE(ops.size() == 1);
    CHECK(ops[0].nodes == 4);
    CHECK(ops[0].flops.str() == "32");
}

TEST_CASE("a function whose body nests past max_depth: its call not covered, the graph after it profiled") {
    graph_parts branch;
    branch.nodes.push_back(node("Relu", {"X"}, {"b"}));
    branch.outputs.push_back(declared("b"));
    const wire_builder deep =
        function("local", "Deep", {"X", "C"}, {"Y"},
                 {node("If", {"C"}, {"Y"}, {graph_attribute("then_branch", branch), graph_attribute("else_branch", branch)})});
    graph_parts p;
    p.inputs.push_back(value_info("x", {std::int64_t{3}}));
    p.inputs.push_back(value_info("c", {}, data_type::boolean));
    p.nodes.push_back(call("local", "Deep", {"x", "c"}, {"y"}));
    p.nodes.push_back(node("Relu", {"x"}, {"z"}));
    p.outputs.push_back(declared("y"));
    p.outputs.push_back(declared("z"));
    profile_options opts;
    opts.max_depth = 1;  // the function's body is level 1, the If's branches level 2
    const held_profile r = profile_of(model_bytes(p, {deep}), opts);
    REQUIRE(r.nodes.size() == 3);
    CHECK(contains(r.nodes[0].reason, "nested deeper than 1 levels"));
    CHECK(contains(r.nodes[1].reason, "nested deeper than 1 levels"));
    CHECK(r.nodes[2].scope.empty());
    CHECK(r.nodes[2].covered());
    CHECK(r.nodes[2].outputs[0].shape.str() == "[3]");
    CHECK(r.main_graph_nodes == 2);
}

TEST_CASE("If: a shape vector both branches compute alike goes on; sizes they give differently are data-dependent") {
    graph_parts then_branch, else_branch, p;
    // Both branches: Shape(x) (outer x); then also a [2,T] tensor, else a [3,T] one.
    then_branch.nodes.push_back(node("Shape", {"x"}, {"ts"}));
    then_branch.nodes.push_back(node("Concat", {"x", "x"}, {"tc"}, {int_attribute("axis", 0)}));
    then_branch.outputs.push_back(declared("ts"));
    then_branch.outputs.push_back(declared("tc"));
    else_branch.nodes.push_back(node("Shape", {"x"}, {"es"}));
    else_branch.nodes.push_back(node("Concat", {"x", "x", "x"}, {"ec"}, {int_attribute("axis", 0)}));
    else_branch.outputs.push_back(declared("es"));
    else_branch.outputs.push_back(declared("ec"));
    p.inputs.push_back(value_info("x", {std::int64_t{1}, std::string("T")}));
    p.inputs.push_back(value_info("y", {std::string("T")}));
    p.inputs.push_back(value_info("c", {}, data_type::boolean));
    p.nodes.push_back(node("If", {"c"}, {"shape", "stacked"},
                           {graph_attribute("then_branch", then_branch), graph_attribute("else_branch", else_branch)}));
    p.nodes.push_back(node("Reshape", {"y", "shape"}, {"z"}));
    p.outputs.push_back(declared("z"));
    p.outputs.push_back(declared("stacked"));
    const held_profile r = profile_of(model_bytes(p));
    REQUIRE(r.nodes.size() == 6);
    CHECK(r.nodes[0].outputs[1].shape.str() == "[stacked:0,T]");
    CHECK(r.nodes[5].outputs[0].shape.str() == "[1,T]");
    CHECK(r.covered_nodes == 6);
}

TEST_CASE("If: branches whose costs compare either way cost the one growing faster, said so") {
    graph_parts then_branch, else_branch, p;
    then_branch.nodes.push_back(node("MatMul", {"x", "w8"}, {"t_out"}));  // 32*N MACs
    then_branch.outputs.push_back(declared("t_out"));
    else_branch.nodes.push_back(node("MatMul", {"x", "w4"}, {"e4"}));     // 16*N
    else_branch.nodes.push_back(node("MatMul", {"a", "a"}, {"e_const"}));  // 1000
    else_branch.nodes.push_back(node("Concat", {"e4", "e4"}, {"e_out"}, {int_attribute("axis", 1)}));
    else_branch.outputs.push_back(declared("e_out"));
    p.inputs.push_back(value_info("x", {std::string("N"), std::int64_t{4}}));
    p.inputs.push_back(value_info("w8", {std::int64_t{4}, std::int64_t{8}}));
    p.inputs.push_back(value_info("w4", {std::int64_t{4}, std::int64_t{4}}));
    p.inputs.push_back(value_info("a", {std::int64_t{10}, std::int64_t{10}}));
    p.inputs.push_back(value_info("c", {}, data_type::boolean));
    p.nodes.push_back(node("If", {"c"}, {"y"},
                           {graph_attribute("then_branch", then_branch), graph_attribute("else_branch", else_branch)}));
    p.outputs.push_back(declared("y"));
    const held_profile r = profile_of(model_bytes(p));
    REQUIRE(r.nodes[0].covered());
    // 32*N against 16*N + 1000: either can be larger; 32*N grows faster.
    CHECK(r.nodes[0].macs.str() == "32*N");
    CHECK(r.nodes[0].cost_basis == "the larger branch for large dims: then_branch");
    CHECK(r.nodes[0].outputs[0].shape.str() == "[N,8]");
}
