// edit_options::renames and check_renames (onnxview/write.hpp) on hand-built
// models. Each model is built twice by the same function, once with the
// old names and once with the new ones where the rename must reach: the
// output must be that second model byte for byte (strings replaced where
// they are, lengths recomputed, nothing else touched). The python3-onnx
// comparison is tests/oracle/edit_oracle.py.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "../wire_builder.hpp"
#include "onnxview/model.hpp"
#include "onnxview/verify.hpp"
#include "onnxview/write.hpp"

using namespace onnxview;
using onnxview::testing::wire_builder;

namespace {

wire_builder value_info(const std::string& name) {
    wire_builder v;
    v.field_bytes(1, name).field_bytes(3, "doc");
    return v;
}

wire_builder node(const std::string& op, const std::vector<std::string>& inputs,
                  const std::vector<std::string>& outputs) {
    wire_builder n;
    for (const std::string& i : inputs) n.field_bytes(1, i);
    for (const std::string& o : outputs) n.field_bytes(2, o);
    n.field_bytes(4, op);
    return n;
}

// A node with a graph attribute: `g` (singular) or one of `graphs`.
wire_builder with_graph(wire_builder n, const std::string& attribute, const wire_builder& g, bool repeated = false) {
    wire_builder a;
    a.field_bytes(1, attribute).field_message(repeated ? 11 : 6, g).field_varint(20, repeated ? 10 : 5);
    n.field_message(5, a);
    return n;
}

std::string payload(std::size_t n) {
    std::string s(n * 4, '\0');
    for (std::size_t i = 0; i < s.size(); ++i) s[i] = static_cast<char>(i * 7);
    return s;
}

wire_builder tensor(const std::string& name, std::size_t n = 4) {
    wire_builder t;
    t.packed_varint(1, {n}).field_varint(2, 1).field_bytes(8, name).field_bytes(9, payload(n));
    return t;
}

wire_builder entry(const std::string& key, const std::string& value) {
    wire_builder e;
    e.field_bytes(1, key).field_bytes(2, value);
    return e;
}

std::string model_of(const wire_builder& graph, const std::vector<wire_builder>& more = {}) {
    wire_builder m;
    m.field_varint(1, 8).field_bytes(2, "test").field_message(7, graph);
    for (const wire_builder& f : more) m.raw(f.str());
    return m.str();
}

error append(void* user, const char* data, std::size_t size) noexcept {
    static_cast<std::string*>(user)->append(data, size);
    return error();
}

struct edited {
    error err;
    std::string model;
    pack_stats stats;
};

edited rename(const std::string& in, const std::vector<name_change>& changes, pack_options po = {}) {
    edit_options e{};
    e.renames = changes.data();
    e.rename_count = changes.size();
    if (po.inline_align == 0) {
        po.inline_align = 1;
        po.keep_typed = true;
    }
    po.edits = &e;
    edited out;
    const write_sink sink{&out.model, append};
    out.err = pack_model(in, nullptr, po, sink, nullptr, &out.stats);
    return out;
}

rename_check check(const std::string& in, const std::vector<name_change>& changes) {
    edit_options e{};
    e.renames = changes.data();
    e.rename_count = changes.size();
    rename_check c;
    c.problem = rename_problem::chained;  // overwritten
    REQUIRE(check_renames(in, e, &c).ok());
    return c;
}

// Every kind of reference of the main graph, in an order no field-sorting
// writer would keep: x (input), w (initializer, and a quantization
// parameter), s (sparse initializer), h (value_info, annotated), y (output).
std::string main_graph(const std::string& x, const std::string& w, const std::string& s, const std::string& h,
                       const std::string& y) {
    wire_builder sparse;
    sparse.field_message(1, tensor(s, 2)).field_message(2, tensor("s_indices", 2)).packed_varint(3, {8});
    wire_builder annotation;
    annotation.field_bytes(1, h).field_message(2, entry("SCALE_TENSOR", w));
    wire_builder g;
    g.field_message(12, value_info(y))
        .field_message(1, node("Add", {x, w}, {h}))
        .field_bytes(2, "main")
        .field_message(5, tensor(w, 300))
        .field_message(14, annotation)
        .field_message(1, node("Mul", {h, s, ""}, {y}))
        .field_message(11, value_info(x))
        .field_message(13, value_info(h))
        .field_message(15, sparse);
    return model_of(g);
}

}  // namespace

TEST_CASE("rename: every reference in the main graph, strings replaced in place, the payload as it was") {
    const std::string in = main_graph("x", "w", "s", "h", "y");
    const edited out = rename(in, {{"x", "input.0"}, {"w", "W"}, {"s", "sparse_s"}, {"h", "hidden"}, {"y", "Y"}});
    REQUIRE(out.err.ok());
    CHECK(out.model == main_graph("input.0", "W", "sparse_s", "hidden", "Y"));
    CHECK(out.stats.names_renamed == 13);
    CHECK(out.stats.kept == 3);  // the tensors, their payloads copied
    REQUIRE(verify(out.model.data(), out.model.size(), schema::msg_ModelProto, options{}).ok());
    const graph_view g = parse_model(out.model.data(), out.model.size()).graph();
    const tensor_view w = *g.initializer().begin();
    CHECK(w.name() == "W");
    CHECK(w.raw_data() == payload(300));
    CHECK((*g.sparse_initializer().begin()).values().name() == "sparse_s");
    CHECK((*g.quantization_annotation().begin()).tensor_name() == "hidden");
    std::vector<std::string_view> inputs;
    for (std::string_view i : (*std::next(g.node().begin())).input()) inputs.push_back(i);
    CHECK(inputs == std::vector<std::string_view>{"hidden", "sparse_s", ""});  // the absent input stays absent
}

TEST_CASE("rename: with tensors moved or aligned, the renamed initializer keeps its payload") {
    const std::string in = main_graph("x", "w", "s", "h", "y");
    pack_options po{};
    po.inline_align = 64;  // raw_data of 1200 bytes aligned
    const edited out = rename(in, {{"w", "a_much_longer_name_for_the_weight"}}, po);
    REQUIRE(out.err.ok());
    CHECK(out.stats.aligned == 1);
    const graph_view g = parse_model(out.model.data(), out.model.size()).graph();
    const tensor_view w = *g.initializer().begin();
    CHECK(w.name() == "a_much_longer_name_for_the_weight");
    CHECK(w.raw_data() == payload(300));
    CHECK(static_cast<std::size_t>(w.raw_data().data() - out.model.data()) % 64 == 0);
}

namespace {

// An If whose then_branch uses the outer x and w, a nested graph in it using
// x two levels down, and an else_branch that declares x itself (a node
// output) with a subgraph of its own: there x is the inner value. A `graphs`
// attribute whose graph has an input w shadows w alone. `outer_x` and
// `outer_w` are written where the main graph's x and w are meant.
std::string subgraphs(const std::string& outer_x, const std::string& outer_w) {
    wire_builder deep;  // two levels down, no declarations of its own
    deep.field_message(1, node("Neg", {outer_x}, {"d"})).field_message(12, value_info("d"));
    wire_builder then_branch;
    then_branch.field_message(1, node("Add", {outer_x, outer_w}, {"t"}))
        .field_message(1, with_graph(node("Scope", {}, {"t2"}), "body", deep))
        .field_message(12, value_info("t"))
        .field_message(13, value_info(outer_x));  // value_info of an outer value
    wire_builder deep_inner;  // inside the shadowing graph: x is its x
    deep_inner.field_message(1, node("Neg", {"x", outer_w}, {"di"})).field_message(12, value_info("di"));
    wire_builder else_branch;
    else_branch.field_message(1, node("Constant", {}, {"x"}))
        .field_message(1, with_graph(node("Scope", {"x"}, {"e"}), "body", deep_inner))
        .field_message(12, value_info("x"));  // the inner x as an output
    wire_builder shadow_w;  // declares w as an input; x still the outer one
    shadow_w.field_message(11, value_info("w")).field_message(1, node("Mul", {"w", outer_x}, {"z"}))
        .field_message(12, value_info("z"));
    wire_builder if_node = with_graph(with_graph(node("If", {"c"}, {"y"}), "then_branch", then_branch),
                                      "else_branch", else_branch);
    wire_builder g;
    g.field_message(11, value_info("c"))
        .field_message(11, value_info(outer_x))
        .field_message(5, tensor(outer_w))
        .field_message(1, if_node)
        .field_message(1, with_graph(node("Custom", {outer_w}, {"v"}), "bodies", shadow_w, true))
        .field_message(12, value_info("y"));
    return model_of(g);
}

}  // namespace

TEST_CASE("rename: outer-scope references in subgraphs at any depth, not where a graph declares the name") {
    const edited out = rename(subgraphs("x", "w"), {{"x", "X"}, {"w", "W"}});
    REQUIRE(out.err.ok());
    CHECK(out.model == subgraphs("X", "W"));
    REQUIRE(verify(out.model.data(), out.model.size(), schema::msg_ModelProto, options{}).ok());
}

TEST_CASE("rename: a name a subgraph declares may be the new name where the rename does not reach") {
    wire_builder inner;  // declares q and uses the outer w
    inner.field_message(1, node("Constant", {}, {"q"})).field_message(1, node("Add", {"q", "w"}, {"r"}));
    wire_builder shadowing;  // declares w: the rename w -> q does not reach it
    shadowing.field_message(11, value_info("w")).field_message(1, node("Constant", {}, {"q"}));
    wire_builder g;
    g.field_message(5, tensor("w"))
        .field_message(1, with_graph(node("A", {}, {"a"}), "g", shadowing))
        .field_message(12, value_info("a"));
    CHECK(check(model_of(g), {{"w", "q"}}).problem == rename_problem::none);
    g.field_message(1, with_graph(node("B", {}, {"b"}), "g", inner));
    const std::string captured = model_of(g);
    const rename_check c = check(captured, {{"w", "q"}});
    CHECK(c.problem == rename_problem::new_name_in_use);
    CHECK(captured.compare(c.offset + 2, 1, "q") == 0);  // the tag and length of inner's first `output: "q"`
    const edited refused = rename(captured, {{"w", "q"}});
    CHECK(refused.err.code == errc::invalid_argument);
    CHECK(refused.err.offset == c.offset);
    CHECK(refused.model.empty());
}

namespace {

// Training info: the algorithm uses the main graph's w and x; the
// initialization graph declares its own w. Binding keys name the main
// graph's initializers; a binding value names a value of the graph it binds.
std::string training(const std::string& w, const std::string& x) {
    wire_builder g;
    g.field_message(11, value_info(x)).field_message(5, tensor(w)).field_message(1, node("Add", {x, w}, {"y"}))
        .field_message(12, value_info("y"));
    wire_builder algorithm;
    algorithm.field_message(1, node("Add", {w, x}, {"w_next"})).field_message(12, value_info("w_next"))
        .field_message(12, value_info(w));  // an outer value as an output
    wire_builder init;
    init.field_message(1, node("Constant", {}, {"w"})).field_message(12, value_info("w"));
    wire_builder info;
    info.field_message(4, entry(w, "w_next"))
        .field_message(2, algorithm)
        .field_message(3, entry(w, "w"))  // the initialization's own w
        .field_message(4, entry(w, w))    // the algorithm's output: the outer w
        .field_message(1, init);
    wire_builder more;
    more.field_message(20, info);
    return model_of(g, {more});
}

}  // namespace

TEST_CASE("rename: training graphs see the main graph's scope; binding keys and values follow it") {
    const edited out = rename(training("w", "x"), {{"w", "weight"}, {"x", "X"}});
    REQUIRE(out.err.ok());
    CHECK(out.model == training("weight", "X"));
    const rename_check c = check(training("w", "x"), {{"x", "w_next"}});  // the algorithm's own value
    CHECK(c.problem == rename_problem::new_name_in_use);
}

TEST_CASE("rename: model-local functions keep their names") {
    wire_builder g;
    g.field_message(11, value_info("x")).field_message(1, node("F", {"x"}, {"y"})).field_message(12, value_info("y"));
    wire_builder function;
    function.field_bytes(1, "F").field_bytes(4, "x").field_bytes(5, "y").field_message(7, node("Neg", {"x"}, {"y"}));
    wire_builder more;
    more.field_message(25, function);
    const std::string in = model_of(g, {more});
    const edited out = rename(in, {{"x", "X"}, {"y", "Y"}});
    REQUIRE(out.err.ok());
    wire_builder renamed;
    renamed.field_message(11, value_info("X")).field_message(1, node("F", {"X"}, {"Y"}))
        .field_message(12, value_info("Y"));
    CHECK(out.model == model_of(renamed, {more}));
    // A name only a function uses is not a name of the main graph.
    wire_builder other;
    other.field_message(25, wire_builder().field_bytes(1, "G").field_message(7, node("Neg", {"only_f"}, {"o"})));
    CHECK(check(model_of(g, {other}), {{"only_f", "z"}}).problem == rename_problem::not_in_main_graph);
    // Nor one only a subgraph declares.
    wire_builder sub;
    sub.field_message(1, node("Constant", {}, {"inner"}));
    wire_builder h;
    h.field_message(1, with_graph(node("If", {}, {"o"}), "then_branch", sub));
    CHECK(check(model_of(h), {{"inner", "z"}}).problem == rename_problem::not_in_main_graph);
}

TEST_CASE("rename: refused lists and names, nothing written") {
    const std::string in = main_graph("x", "w", "s", "h", "y");
    struct refusal {
        std::vector<name_change> changes;
        rename_problem problem;
        std::size_t change, other;
        errc code;
    };
    const std::vector<refusal> cases = {
        {{{"", "a"}}, rename_problem::empty_old_name, 0, 0, errc::invalid_argument},
        {{{"x", ""}}, rename_problem::empty_new_name, 0, 0, errc::invalid_argument},
        {{{"x", "a"}, {"x", "b"}}, rename_problem::old_name_repeated, 1, 0, errc::invalid_argument},
        {{{"x", "a"}, {"w", "a"}}, rename_problem::new_name_repeated, 1, 0, errc::invalid_argument},
        {{{"x", "w"}, {"w", "v"}}, rename_problem::chained, 0, 1, errc::invalid_argument},
        {{{"x", "w"}, {"w", "x"}}, rename_problem::chained, 0, 1, errc::invalid_argument},
        {{{"x", "a"}, {"nope", "b"}}, rename_problem::not_in_main_graph, 1, 0, errc::not_found},
        {{{"x", "SCALE_TENSOR"}, {"w", "h"}}, rename_problem::new_name_in_use, 1, 0, errc::invalid_argument},
        {{{"x", "x"}}, rename_problem::new_name_in_use, 0, 0, errc::invalid_argument},
    };
    for (const refusal& r : cases) {
        INFO(r.changes.size() << " changes, the first " << std::string(r.changes[0].old_name) << "="
                              << std::string(r.changes[0].new_name));
        const rename_check c = check(in, r.changes);
        CHECK(c.problem == r.problem);
        CHECK(c.change == r.change);
        if (r.problem != rename_problem::new_name_in_use) CHECK(c.other == r.other);
        const edited out = rename(in, r.changes);
        CHECK(out.err.code == r.code);
        CHECK(out.model.empty());
        CHECK(std::strlen(rename_problem_message(r.problem)) > 10);
    }
    // The key of a quantization parameter is no value name: renaming to it is fine.
    CHECK(check(in, {{"x", "SCALE_TENSOR"}}).problem == rename_problem::none);
    CHECK(check(in, {}).problem == rename_problem::none);
    // A malformed model is the reader's error.
    edit_options e{};
    const name_change c{"x", "a"};
    e.renames = &c;
    e.rename_count = 1;
    rename_check rc;
    CHECK(!check_renames(in.substr(0, in.size() - 3), e, &rc).ok());
}
