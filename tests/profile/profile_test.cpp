// The profiler's public API (onnxview/profile.hpp): the polynomial type
// (canonical form, printing, checked arithmetic, ordering), shape rules on
// models built here field by field, and hostile graphs (a cycle, dims
// overflowing int64, symbolic products past the limits) giving unknowns,
// never a crash. The costs of real and generated models are checked against
// python3-onnx and the spec's formulas by tests/oracle/profile_oracle.py.
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "profile_builder.hpp"
#include "onnxview/enums.hpp"
#include "onnxview/model.hpp"
#include "onnxview/profile.hpp"

namespace {

using namespace onnxview;
using namespace profile_testing;

dim_expr sym(const char* name) { return dim_expr::symbol(name); }

}  // namespace

TEST_CASE("dim_expr prints canonically: by degree, the constant last") {
    const dim_expr n = sym("N"), seq = sym("seq");
    const dim_expr big = *add(*multiply(dim_expr(4089184256), n),
                              *multiply(dim_expr(1310720), *multiply(n, *multiply(seq, seq))));
    CHECK(big.str() == "4089184256*N + 1310720*N*seq^2");
    CHECK(add(*multiply(dim_expr(2), seq), dim_expr(1))->str() == "2*seq + 1");
    CHECK(subtract(dim_expr(3), n)->str() == "-N + 3");
    CHECK(dim_expr().str() == "0");
    CHECK(dim_expr(-7).str() == "-7");
    // Commutativity and cancellation give the same canonical value.
    CHECK(*multiply(n, seq) == *multiply(seq, n));
    CHECK(*subtract(*add(n, seq), seq) == n);
    CHECK(subtract(n, n)->is_constant());
    CHECK(subtract(n, n)->constant_term() == 0);
}

TEST_CASE("dim_expr arithmetic is checked: overflow and size limits give no value") {
    const std::int64_t max = std::numeric_limits<std::int64_t>::max();
    const std::int64_t min = std::numeric_limits<std::int64_t>::min();
    CHECK_FALSE(add(dim_expr(max), dim_expr(1)));
    CHECK_FALSE(subtract(dim_expr(min), dim_expr(1)));
    CHECK_FALSE(multiply(dim_expr(std::int64_t{1} << 32), dim_expr(std::int64_t{1} << 31)));
    CHECK_FALSE(multiply(dim_expr(min), dim_expr(-1)));
    CHECK(multiply(dim_expr(std::int64_t{1} << 31), dim_expr(std::int64_t{1} << 31))->constant_term() == std::int64_t{1} << 62);
    CHECK_FALSE(divide_exact(dim_expr(min), -1));
    CHECK_FALSE(divide_exact(dim_expr(3), 0));
    CHECK_FALSE(divide_exact(*add(sym("N"), dim_expr(1)), 2));
    CHECK(divide_exact(*multiply(dim_expr(6), sym("N")), 3)->str() == "2*N");
    // Degree: N^16 is accepted, N^17 is not.
    dim_expr p(1);
    for (int i = 0; i < 16; ++i) p = *multiply(p, sym("N"));
    CHECK(p.str() == "N^16");
    CHECK_FALSE(multiply(p, sym("N")));
    // Terms: (a0 + ... + a9) x (b0 + ... + b9) has 100 terms, above max_terms.
    dim_expr a, b;
    for (int i = 0; i < 10; ++i) {
        a = *add(a, sym(("a" + std::to_string(i)).c_str()));
        b = *add(b, sym(("b" + std::to_string(i)).c_str()));
    }
    CHECK_FALSE(multiply(a, b));
}

TEST_CASE("compare orders polynomials for every value of the symbols >= 1") {
    const dim_expr n = sym("N");
    CHECK(compare(*multiply(dim_expr(3), n), n) == dim_order::greater_or_equal);
    CHECK(compare(n, *multiply(dim_expr(3), n)) == dim_order::less_or_equal);
    // 384*N against 128*N + 32: only true for N >= 1.
    CHECK(compare(*multiply(dim_expr(384), n), *add(*multiply(dim_expr(128), n), dim_expr(32))) ==
          dim_order::greater_or_equal);
    // seq^2 against 32*seq: depends on seq.
    const dim_expr seq = sym("seq");
    CHECK(compare(*multiply(seq, seq), *multiply(dim_expr(32), seq)) == dim_order::unordered);
}

TEST_CASE("Conv output sizes: pads, strides, dilations; MACs from the weight") {
    graph_parts p;
    p.inputs.push_back(value_info("x", {std::string("N"), std::int64_t{3}, std::int64_t{32}, std::int64_t{30}}));
    p.inputs.push_back(value_info("w", {std::int64_t{8}, std::int64_t{3}, std::int64_t{3}, std::int64_t{3}}));
    p.nodes.push_back(node("Conv", {"x", "w"}, {"y"},
                           {ints_attribute("pads", {1, 0, 1, 0}), ints_attribute("strides", {2, 1}),
                            ints_attribute("dilations", {1, 2})}));
    p.outputs.push_back(declared("y"));
    const held_profile r = profile_of(model_bytes(p));
    REQUIRE(r.nodes.size() == 1);
    // H: floor((32 + 2 - 2 - 1)/2) + 1 = 16; W: floor((30 - 4 - 1)/1) + 1 = 26.
    CHECK(r.nodes[0].outputs[0].shape.str() == "[N,8,16,26]");
    CHECK(r.nodes[0].macs.str() == std::to_string(8 * 16 * 26 * 27) + "*N");
    CHECK(r.covered_nodes == 1);
    profile_options two;
    two.dims.push_back({"N", 2});
    CHECK(profile_of(model_bytes(p), two).totals.macs.str() == std::to_string(2 * 8 * 16 * 26 * 27));
}

TEST_CASE("Shape -> Gather -> Unsqueeze -> Concat -> Reshape ends in a known shape") {
    graph_parts p;
    p.inputs.push_back(value_info("x", {std::string("N"), std::string("seq"), std::int64_t{4}}));
    p.initializers.push_back(int64_tensor("zero", {}, {0}));
    p.initializers.push_back(int64_tensor("axes", {1}, {0}));
    p.initializers.push_back(int64_tensor("rest", {1}, {-1}));
    p.nodes.push_back(node("Shape", {"x"}, {"s"}));
    p.nodes.push_back(node("Gather", {"s", "zero"}, {"n"}));
    p.nodes.push_back(node("Unsqueeze", {"n", "axes"}, {"n1"}));
    p.nodes.push_back(node("Concat", {"n1", "rest"}, {"shape"}, {}));
    p.nodes.push_back(node("Reshape", {"x", "shape"}, {"y"}));
    p.outputs.push_back(declared("y"));
    const held_profile r = profile_of(model_bytes(p));
    REQUIRE(r.nodes.size() == 5);
    CHECK(r.nodes[4].outputs[0].shape.str() == "[N,4*seq]");
    CHECK(r.covered_nodes == 5);
    // The three int64 initializers, one element each, are the parameters.
    CHECK(r.totals.params == 3);
    CHECK(r.totals.param_bytes == 24);
}

TEST_CASE("a node reading its own output is unknown with a reason, not a hang") {
    graph_parts p;
    p.inputs.push_back(value_info("x", {std::int64_t{2}}));
    p.nodes.push_back(node("Add", {"x", "b"}, {"a"}));
    p.nodes.push_back(node("Relu", {"a"}, {"b"}));
    p.outputs.push_back(declared("b"));
    const held_profile r = profile_of(model_bytes(p));
    REQUIRE(r.nodes.size() == 2);
    CHECK(r.nodes[0].reason == "input 'b' has no known shape");
    CHECK_FALSE(r.nodes[0].macs.known);
    CHECK(r.covered_nodes == 0);
    CHECK_FALSE(r.totals.peak_activation_bytes.known);
}

TEST_CASE("a profile's texts: names are views into the model, reasons and scopes stored once and shared by copies") {
    graph_parts p;
    p.inputs.push_back(value_info("x", {std::int64_t{2}}));
    p.nodes.push_back(node("Add", {"x", "missing"}, {"a"}));
    p.nodes.push_back(node("Add", {"x", "missing"}, {"b"}));
    p.outputs.push_back(declared("a"));
    p.outputs.push_back(declared("b"));
    const held_profile r = profile_of(model_bytes(p));
    REQUIRE(r.nodes.size() == 2);
    const char* begin = r.bytes->data();
    const char* end = begin + r.bytes->size();
    const auto in_model = [&](std::string_view v) { return v.data() >= begin && v.data() + v.size() <= end; };
    CHECK(in_model(r.nodes[0].op_type));
    CHECK(in_model(r.nodes[1].outputs[0].name));
    CHECK(r.nodes[1].outputs[0].name == "b");
    // The same reason twice is one stored text.
    CHECK(r.nodes[0].reason == "input 'missing' has no known shape");
    CHECK(r.nodes[0].reason.data() == r.nodes[1].reason.data());
    CHECK(r.texts->size() == 1);
    // A copy's views outlive the original profile.
    std::optional<model_profile> original = static_cast<const model_profile&>(r);
    const model_profile copy = *original;
    original.reset();
    CHECK(copy.nodes[1].reason == "input 'missing' has no known shape");
}

TEST_CASE("profile_texts::intern stores each text once and never moves it") {
    profile_texts texts;
    CHECK(texts.intern("").empty());
    CHECK(texts.size() == 0);
    const std::string_view first = texts.intern(std::string("a/b"));
    std::vector<std::string_view> more;
    for (int i = 0; i < 1000; ++i) more.push_back(texts.intern("text " + std::to_string(i)));
    CHECK(texts.intern("a/b").data() == first.data());
    CHECK(first == "a/b");
    CHECK(more[0] == "text 0");
    CHECK(more[999] == "text 999");
    CHECK(texts.size() == 1001);
}

TEST_CASE("dims overflowing int64 and symbolic products past the limits are unknown") {
    graph_parts p;
    const std::int64_t big = std::int64_t{1} << 62;
    p.inputs.push_back(value_info("x", {big, big}));
    p.inputs.push_back(value_info("w", {big, big}));
    p.nodes.push_back(node("MatMul", {"x", "w"}, {"y"}));
    p.outputs.push_back(declared("y"));
    const held_profile r = profile_of(model_bytes(p));
    CHECK(r.nodes[0].outputs[0].shape.complete());
    CHECK_FALSE(r.nodes[0].macs.known);
    CHECK_FALSE(r.nodes[0].reason.empty());

    graph_parts wide;
    std::vector<dim_spec> dims;
    for (int i = 0; i < 20; ++i) dims.push_back("d" + std::to_string(i));
    wide.inputs.push_back(value_info("x", dims));
    wide.nodes.push_back(node("Relu", {"x"}, {"y"}));
    wide.outputs.push_back(declared("y"));
    const held_profile w = profile_of(model_bytes(wide));
    // 20 symbols of degree 1: the element count has degree 20 > max_degree.
    CHECK_FALSE(w.nodes[0].flops.known);
    CHECK(w.nodes[0].reason == "output shape not fully known");
}

TEST_CASE("profile_model refuses a model without a graph and an unnamed dim binding") {
    wire_builder m;
    m.field_varint(model_view::field::ir_version, 8);
    const std::string bytes = m.str();
    const model_view v = parse_model(bytes.data(), bytes.size());
    CHECK(profile_model(v).err().code == errc::not_found);
    graph_parts p;
    p.inputs.push_back(value_info("x", {std::int64_t{2}}));
    const std::string with_graph = model_bytes(p);
    profile_options bad;
    bad.dims.push_back({"", 1});
    CHECK(profile_model(parse_model(with_graph.data(), with_graph.size()), bad).err().code == errc::invalid_argument);
}

TEST_CASE("an input binding fixes the input's shape and the dim_params it declares") {
    graph_parts p;
    p.inputs.push_back(value_info("x", {std::string("N"), std::int64_t{4}}));
    p.inputs.push_back(value_info("y", {std::string("N"), std::int64_t{4}}));
    p.nodes.push_back(node("Add", {"x", "y"}, {"z"}));
    p.outputs.push_back(declared("z"));
    const std::string bytes = model_bytes(p);
    profile_options opts;
    opts.inputs.push_back({"x", {3, 4}});
    const held_profile r = profile_of(bytes, opts);
    // y names N too: it follows.
    CHECK(r.nodes[0].outputs[0].shape.str() == "[3,4]");
    CHECK(r.totals.flops.str() == "12");
    const model_view m = parse_model(bytes.data(), bytes.size());
    profile_options rank;
    rank.inputs.push_back({"x", {3}});
    CHECK(profile_model(m, rank).err().code == errc::invalid_argument);
    profile_options value;
    value.inputs.push_back({"x", {3, 5}});
    CHECK(profile_model(m, value).err().code == errc::invalid_argument);
    profile_options conflict;
    conflict.inputs.push_back({"x", {3, 4}});
    conflict.dims.push_back({"N", 2});
    CHECK(profile_model(m, conflict).err().code == errc::invalid_argument);
    profile_options missing;
    missing.inputs.push_back({"w", {3, 4}});
    CHECK(profile_model(m, missing).err().code == errc::not_found);
}

TEST_CASE("a negative size computed from invalid inputs is unknown, not a negative count") {
    graph_parts p;
    p.inputs.push_back(value_info("x", {std::int64_t{2}, std::int64_t{3}}));
    p.initializers.push_back(int64_tensor("repeats", {2}, {1, -4}));
    p.nodes.push_back(node("Tile", {"x", "repeats"}, {"y"}));
    p.outputs.push_back(declared("y"));
    const held_profile r = profile_of(model_bytes(p));
    CHECK(r.nodes[0].reason == "a negative size computed from the inputs");
    CHECK(r.nodes[0].outputs[0].shape.str() == "[2,?]");
    CHECK_FALSE(r.totals.peak_activation_bytes.known);
}

TEST_CASE("Resize takes its sizes input when it is a known constant") {
    graph_parts p;
    p.inputs.push_back(value_info("x", {std::string("N"), std::int64_t{3}, std::int64_t{8}, std::int64_t{8}}));
    p.initializers.push_back(int64_tensor("sizes", {2}, {16, 12}));
    p.nodes.push_back(node("Resize", {"x", "", "", "sizes"}, {"y"}, {ints_attribute("axes", {2, 3})}));
    p.outputs.push_back(declared("y"));
    const held_profile r = profile_of(model_bytes(p));
    CHECK(r.nodes[0].reason.empty());
    CHECK(r.nodes[0].outputs[0].shape.str() == "[N,3,16,12]");
    CHECK(r.nodes[0].flops.str() == "576*N");
}

TEST_CASE("parse_profile_view: node, op, scope, scope:DEPTH; anything else leaves the view") {
    profile_view v;
    REQUIRE(parse_profile_view("op", v));
    CHECK((v.grouped && v.by == profile_grouping::op && v.scope_depth == 0));
    REQUIRE(parse_profile_view("scope:3", v));
    CHECK((v.grouped && v.by == profile_grouping::scope && v.scope_depth == 3));
    REQUIRE(parse_profile_view("scope", v));
    CHECK((v.grouped && v.by == profile_grouping::scope && v.scope_depth == 0));
    REQUIRE(parse_profile_view("node", v));
    CHECK_FALSE(v.grouped);
    for (const char* bad : {"", "nodes", "scope:", "scope:0", "scope:x", "scope:-1", "scope:4294967296", "Op"}) {
        profile_view kept;
        kept.scope_depth = 7;
        CHECK_FALSE(parse_profile_view(bad, kept));
        CHECK(kept.scope_depth == 7);
    }
}

namespace {

struct pieces {
    std::string text;
    int calls = 0;
    int fail_at = -1;  // the call that fails
};

error keep_piece(void* user, const char* data, std::size_t size) noexcept {
    pieces& p = *static_cast<pieces*>(user);
    if (p.calls++ == p.fail_at) return error(errc::io_write_failed);
    p.text.append(data, size);
    return error();
}

}  // namespace

TEST_CASE("write_profile_json: counts as numbers or polynomials, pieces of about 1 MiB, the sink's error") {
    // A chain of 40,000 Relus over a [N,4] input: a few MB of JSON.
    graph_parts p;
    p.inputs.push_back(value_info("x", {std::string("N"), std::int64_t{4}}));
    const int chain = 40000;
    for (int i = 0; i < chain; ++i)
        p.nodes.push_back(node("Relu", {i == 0 ? "x" : "v" + std::to_string(i - 1)}, {"v" + std::to_string(i)}, {}));
    p.outputs.push_back(declared("v" + std::to_string(chain - 1)));
    const held_profile r = profile_of(model_bytes(p));
    pieces all;
    REQUIRE(write_profile_json(r, {}, write_sink{&all, keep_piece}).ok());
    CHECK(all.calls > 1);  // handed on as it was made, not whole
    CHECK(all.text.rfind("{\n  \"version\": 2,\n  \"totals\": {\n    \"params\": 0,", 0) == 0);
    CHECK(all.text.find("\"flops\": \"" + std::to_string(4 * chain) + "*N\"") != std::string::npos);
    CHECK(all.text.find("\"output_shapes\": [\n        [\n          \"N\",\n          4\n") != std::string::npos);
    CHECK(all.text.substr(all.text.size() - 2) == "}\n");
    // The first error stops the writing and is returned.
    pieces failing;
    failing.fail_at = 1;
    const error e = write_profile_json(r, {}, write_sink{&failing, keep_piece});
    CHECK(e.code == errc::io_write_failed);
    CHECK(failing.calls == 2);
    CHECK(failing.text.size() < all.text.size());
}

TEST_CASE("group_key_name: what reports call a group's key") {
    CHECK(std::string(group_key_name(profile_grouping::op)) == "op_type");
    CHECK(std::string(group_key_name(profile_grouping::scope)) == "scope");
}

TEST_CASE("peak_maximum_text: the candidates as a max()") {
    model_profile p;
    p.peak_candidates.push_back({*add(dim_expr::symbol("a"), dim_expr(1)), 0});
    p.peak_candidates.push_back({dim_expr::symbol("b"), 1});
    CHECK(peak_maximum_text(p) == "max(a + 1, b)");
}

TEST_CASE("readable counts and bytes: exact below a unit, three significant digits above") {
    CHECK(readable_count(0) == "0");
    CHECK(readable_count(999) == "999");
    CHECK(readable_count(1000) == "1.00 k");
    CHECK(readable_count(7087882) == "7.09 M");
    CHECK(readable_count(28351552) == "28.4 M");
    CHECK(readable_count(283515520) == "284 M");
    CHECK(readable_count(999700) == "1.00 M");  // not "1000 k"
    CHECK(readable_count(1010000000) == "1.01 G");
    CHECK(readable_count(std::numeric_limits<std::uint64_t>::max()) == "18.4 E");
    CHECK(readable_bytes(512) == "512 bytes");
    CHECK(readable_bytes(1024) == "1.00 KiB");
    CHECK(readable_bytes(28351552) == "27.0 MiB");
    CHECK(readable_bytes(std::uint64_t{3} << 40) == "3.00 TiB");
}

TEST_CASE("readable polynomials: the leading terms first, exact on request, dims by their aliases") {
    const dim_expr n = sym("p2o.DynamicDimension.0"), seq = sym("seq");
    // 1536*N*seq^2 + 7077888*N*seq + 5 + 3 more terms of lower degree.
    dim_expr e = *add(*multiply(dim_expr(1536), *multiply(n, *multiply(seq, seq))),
                      *multiply(dim_expr(7077888), *multiply(n, seq)));
    e = *add(e, dim_expr(5));
    model_profile p;
    p.totals.macs = quantity(e);
    const dim_legend legend(p);
    REQUIRE(legend.aliases().size() == 1);
    CHECK(legend.aliases()[0].first == "N");
    CHECK(legend.aliases()[0].second == "p2o.DynamicDimension.0");
    CHECK(legend.shown("seq") == "seq");
    CHECK(readable_expr(e, legend, false) == "1.54 k*N*seq^2 + 7.08 M*N*seq + 5");
    CHECK(readable_expr(e, legend, true) == "1536*N*seq^2 + 7077888*N*seq + 5");
    CHECK(readable_expr(e, legend, false, false, 2) == "1.54 k*N*seq^2 + 7.08 M*N*seq + ...");
    CHECK(readable_expr(e, legend, false, true) == "1.50 KiB*N*seq^2 + 6.75 MiB*N*seq + 5 B");
    CHECK(readable_expr(*subtract(dim_expr(3), seq), legend, false) == "-seq + 3");
    CHECK(readable_quantity(quantity(), legend, false) == "?");
    value_shape s;
    s.rank_known = true;
    s.dims = {quantity(n), quantity(std::int64_t{3}), quantity()};
    CHECK(readable_shape(s, legend) == "[N,3,?]");
    CHECK(readable_shape(value_shape(), legend) == "?");
}

TEST_CASE("a legend's aliases avoid the names of other dims") {
    model_profile p;
    p.totals.macs = quantity(*multiply(sym("N"), sym("a.very.long.dim.name")));
    const dim_legend legend(p);
    REQUIRE(legend.aliases().size() == 1);
    CHECK(legend.aliases()[0].first == "M");  // N is taken
}

TEST_CASE("grows_faster ranks by the highest degree, then its coefficients; unknown last") {
    const dim_expr n = sym("N");
    CHECK(grows_faster(quantity(*multiply(n, n)), quantity(*multiply(dim_expr(1000000), n))));
    CHECK(grows_faster(quantity(*multiply(dim_expr(3), n)), quantity(*multiply(dim_expr(2), n))));
    CHECK(grows_faster(quantity(n), quantity(std::int64_t{1} << 40)));
    CHECK(grows_faster(quantity(std::int64_t{2}), quantity()));
    CHECK_FALSE(grows_faster(quantity(), quantity(std::int64_t{2})));
}

namespace {

wire_builder float_tensor(const std::string& name, const std::vector<float>& values) {
    wire_builder t;
    t.field_varint(tensor_view::field::dims, values.size());
    t.field_varint(tensor_view::field::data_type, static_cast<std::uint64_t>(data_type::float32));
    for (float v : values) t.field_float(tensor_view::field::float_data, v);
    t.field_bytes(tensor_view::field::name, name);
    return t;
}

wire_builder in_domain(wire_builder n, const std::string& domain) {
    n.field_bytes(node_view::field::domain, domain);
    return n;
}

}  // namespace

TEST_CASE("Resize by float scales: onnxruntime's float product, symbolic for scales of few binary digits") {
    graph_parts p;
    p.inputs.push_back(value_info("x", {std::string("N"), std::int64_t{3}, std::string("H"), std::int64_t{7}}));
    p.initializers.push_back(float_tensor("up", {1.0f, 1.0f, 1.5f, 0.5f}));
    p.initializers.push_back(float_tensor("odd", {1.0f, 1.0f, 0.3f, 1.7f}));
    p.nodes.push_back(node("Resize", {"x", "", "up"}, {"y"}));
    p.nodes.push_back(node("Resize", {"x", "", "odd"}, {"z"}));
    p.outputs.push_back(declared("y"));
    p.outputs.push_back(declared("z"));
    const held_profile r = profile_of(model_bytes(p));
    CHECK(r.nodes[0].outputs[0].shape.str() == "[N,3,floor((3*H)/2),3]");
    // 0.3 x H has no exact symbolic form: unknown, never a guess; 1.7 x 7 = 11.9 truncated.
    CHECK(r.nodes[1].outputs[0].shape.str() == "[N,3,?,11]");
    profile_options bound;
    bound.dims.push_back({"H", 5});
    const held_profile b = profile_of(model_bytes(p), bound);
    CHECK(b.nodes[0].outputs[0].shape.str() == "[N,3,7,3]");
    CHECK(b.nodes[1].outputs[0].shape.str() == "[N,3,1,11]");
}

TEST_CASE("symbolic bounds: Slice to Shape(x)[1], Range to a dim, TopK of a computed K") {
    graph_parts p;
    p.inputs.push_back(value_info("x", {std::string("N"), std::string("T"), std::int64_t{8}}));
    p.initializers.push_back(int64_tensor("one", {1}, {1}));
    p.initializers.push_back(int64_tensor("zero", {1}, {0}));
    p.initializers.push_back(int64_tensor("zero_s", {}, {0}));
    p.initializers.push_back(int64_tensor("step", {}, {1}));
    p.initializers.push_back(int64_tensor("minus_one", {1}, {-1}));
    p.initializers.push_back(int64_tensor("big", {1}, {std::int64_t{1} << 40}));
    p.initializers.push_back(int64_tensor("neg_big", {1}, {-(std::int64_t{1} << 40)}));
    p.nodes.push_back(node("Shape", {"x"}, {"s"}));
    p.nodes.push_back(node("Gather", {"s", "one"}, {"t"}));                  // [T]
    p.nodes.push_back(node("Slice", {"x", "zero", "t", "one"}, {"a"}));     // x[:, 0:T] = [N,T,8]
    p.nodes.push_back(node("Slice", {"x", "zero", "minus_one", "one"}, {"b"}));  // x[:, 0:-1] = [N,T-1,8]
    p.nodes.push_back(node("Slice", {"x", "minus_one", "neg_big", "one", "minus_one"}, {"c"}));  // x[:, ::-1]
    p.nodes.push_back(node("Squeeze", {"t", "zero"}, {"t0"}));
    p.nodes.push_back(node("Range", {"zero_s", "t0", "step"}, {"r"}));   // [T]
    p.nodes.push_back(node("TopK", {"x", "t"}, {"v", "i"}, {int_attribute("axis", 1)}));
    for (const char* o : {"a", "b", "c", "r", "v"}) p.outputs.push_back(declared(o));
    const held_profile r = profile_of(model_bytes(p));
    CHECK(r.nodes[2].outputs[0].shape.str() == "[N,T,8]");
    CHECK(r.nodes[3].outputs[0].shape.str() == "[N,T - 1,8]");
    CHECK(r.nodes[4].outputs[0].shape.str() == "[N,T,8]");
    CHECK(r.nodes[6].outputs[0].shape.str() == "[T]");
    CHECK(r.nodes[7].outputs[0].shape.str() == "[N,T,8]");
    CHECK(r.covered_nodes == r.nodes.size());
}

TEST_CASE("data-dependent dims are fresh symbols named output:axis, and the node is covered") {
    graph_parts p;
    p.inputs.push_back(value_info("x", {std::int64_t{4}, std::int64_t{5}}));
    p.inputs.push_back(value_info("target", {std::int64_t{3}}, data_type::int64));
    p.nodes.push_back(node("NonZero", {"x"}, {"nz"}));
    p.nodes.push_back(node("Reshape", {"x", "target"}, {"y"}));
    p.nodes.push_back(node("Unique", {"x"}, {"u", "first", "inverse", "counts"}));
    p.outputs.push_back(declared("nz"));
    p.outputs.push_back(declared("y"));
    p.outputs.push_back(declared("u"));
    const held_profile r = profile_of(model_bytes(p));
    CHECK(r.nodes[0].outputs[0].shape.str() == "[2,nz:1]");
    CHECK(r.nodes[1].outputs[0].shape.str() == "[y:0,y:1,y:2]");
    CHECK(r.nodes[2].outputs[0].shape.str() == "[u:0]");
    CHECK(r.nodes[2].outputs[1].shape.str() == "[u:0]");
    CHECK(r.nodes[2].outputs[2].shape.str() == "[20]");
    CHECK(r.covered_nodes == 3);
}

TEST_CASE("Where(Equal(shape, -1), Shape(x), shape) and ReduceProd of a shape are followed") {
    graph_parts p;
    p.inputs.push_back(value_info("x", {std::string("B"), std::int64_t{6}}));
    p.initializers.push_back(int64_tensor("want", {2}, {-1, 6}));
    p.initializers.push_back(int64_tensor("minus_one", {}, {-1}));
    p.nodes.push_back(node("Shape", {"x"}, {"s"}));
    p.nodes.push_back(node("Equal", {"want", "minus_one"}, {"is_free"}));
    p.nodes.push_back(node("Where", {"is_free", "s", "want"}, {"shape"}));
    p.nodes.push_back(node("Expand", {"x", "shape"}, {"e"}));
    p.nodes.push_back(node("ReduceProd", {"s"}, {"count"}, {int_attribute("keepdims", 1)}));
    p.nodes.push_back(node("Reshape", {"x", "count"}, {"flat"}));
    p.outputs.push_back(declared("e"));
    p.outputs.push_back(declared("flat"));
    const held_profile r = profile_of(model_bytes(p));
    CHECK(r.nodes[3].outputs[0].shape.str() == "[B,6]");
    CHECK(r.nodes[5].outputs[0].shape.str() == "[6*B]");
}

TEST_CASE("com.microsoft Attention and MatMulNBits: shapes and MACs") {
    graph_parts p;
    p.inputs.push_back(value_info("x", {std::string("B"), std::string("S"), std::int64_t{32}}));
    p.inputs.push_back(value_info("w", {std::int64_t{32}, std::int64_t{96}}));
    p.inputs.push_back(value_info("past", {std::int64_t{2}, std::string("B"), std::int64_t{4}, std::string("P"),
                                           std::int64_t{8}}));
    p.inputs.push_back(value_info("packed", {std::int64_t{16}, std::int64_t{2}, std::int64_t{16}}, data_type::uint8));
    p.nodes.push_back(in_domain(node("Attention", {"x", "w", "", "", "past"}, {"y", "present"},
                                     {int_attribute("num_heads", 4)}),
                                "com.microsoft"));
    p.nodes.push_back(in_domain(node("MatMulNBits", {"y", "packed"}, {"z"},
                                     {int_attribute("K", 32), int_attribute("N", 16), int_attribute("bits", 4),
                                      int_attribute("block_size", 32)}),
                                "com.microsoft"));
    p.outputs.push_back(declared("present"));
    p.outputs.push_back(declared("z"));
    const held_profile r = profile_of(model_bytes(p));
    REQUIRE(r.covered_nodes == 2);
    CHECK(r.nodes[0].outputs[0].shape.str() == "[B,S,32]");
    CHECK(r.nodes[0].outputs[1].shape.str() == "[2,B,4,P + S,8]");
    // Projection B*S*32*96, then scores and weighted values B*S*(P+S)*(32 + 32).
    CHECK(r.nodes[0].macs.str() == "3072*B*S + 64*B*P*S + 64*B*S^2");
    CHECK(r.nodes[1].outputs[0].shape.str() == "[B,S,16]");
    CHECK(r.nodes[1].macs.str() == "512*B*S");
}

TEST_CASE("generators, regions and Range values: RandomNormal, Multinomial, MaxRoiPool, CenterCropPad, Range -> Gather") {
    graph_parts p;
    p.inputs.push_back(value_info("x", {std::int64_t{2}, std::int64_t{8}, std::int64_t{16}, std::int64_t{16}}));
    p.inputs.push_back(value_info("rois", {std::string("R"), std::int64_t{5}}));
    p.inputs.push_back(value_info("probs", {std::int64_t{3}, std::int64_t{10}}));
    p.initializers.push_back(int64_tensor("crop", {2}, {12, 20}));
    p.initializers.push_back(int64_tensor("start", {}, {1}));
    p.initializers.push_back(int64_tensor("limit", {}, {4}));
    p.initializers.push_back(int64_tensor("step", {}, {1}));
    p.nodes.push_back(node("RandomNormal", {}, {"noise"}, {ints_attribute("shape", {4, 5})}));
    p.nodes.push_back(node("Multinomial", {"probs"}, {"draws"}, {int_attribute("sample_size", 7)}));
    p.nodes.push_back(node("MaxRoiPool", {"x", "rois"}, {"pooled"}, {ints_attribute("pooled_shape", {6, 6})}));
    p.nodes.push_back(node("CenterCropPad", {"x", "crop"}, {"cropped"}, {ints_attribute("axes", {2, 3})}));
    p.nodes.push_back(node("Range", {"start", "limit", "step"}, {"axes"}));  // values 1, 2, 3
    p.nodes.push_back(node("Shape", {"x"}, {"s"}));
    p.nodes.push_back(node("Gather", {"s", "axes"}, {"picked"}));            // 8, 16, 16
    p.nodes.push_back(node("ConstantOfShape", {"picked"}, {"zeros"}));
    for (const char* o : {"noise", "draws", "pooled", "cropped", "zeros"}) p.outputs.push_back(declared(o));
    const held_profile r = profile_of(model_bytes(p));
    CHECK(r.nodes[0].outputs[0].shape.str() == "[4,5]");
    CHECK(r.nodes[1].outputs[0].shape.str() == "[3,7]");
    CHECK(r.nodes[1].outputs[0].elem_type == static_cast<std::int32_t>(data_type::int32));
    CHECK(r.nodes[2].outputs[0].shape.str() == "[R,8,6,6]");
    CHECK(r.nodes[3].outputs[0].shape.str() == "[2,8,12,20]");
    CHECK(r.nodes[7].outputs[0].shape.str() == "[8,16,16]");
    CHECK(r.covered_nodes == r.nodes.size());
}
