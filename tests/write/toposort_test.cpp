// edit_options::toposort (onnxview/write.hpp) on hand-built models: the
// order it gives graphs, subgraphs and functions, that it keeps an ordered
// model's bytes, and its refusals. Shuffled corpus models are checked
// against a Kahn sort, onnx.checker and onnxruntime in
// tests/oracle/toposort_oracle.py.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "edit_models.hpp"
#include "onnxview/model.hpp"
#include "onnxview/verify.hpp"
#include "onnxview/write.hpp"

using namespace onnxview;
using namespace onnxview_test::edit_models;

namespace {

struct sorted {
    error err;
    std::string model;
    toposort_report cycle;
    std::string cycle_node, cycle_value;
    pack_stats stats;
};

sorted toposort(const std::string& in, edit_options edits = {}) {
    sorted s;
    edits.toposort = true;
    edits.cycle = &s.cycle;
    pack_options po{};
    po.inline_align = 1;
    po.keep_typed = true;
    po.edits = &edits;
    s.err = pack_model(in, nullptr, po, write_sink{&s.model, append}, nullptr, &s.stats);
    s.cycle_node = std::string(s.cycle.node);
    s.cycle_value = std::string(s.cycle.value);
    return s;
}

// The names of a graph's nodes, in order.
names node_names(const graph_view& g) {
    names out;
    for (const node_view& n : g.node()) out.emplace_back(n.name());
    return out;
}

names main_nodes(const std::string& bytes) {
    REQUIRE(verify(bytes.data(), bytes.size(), schema::msg_ModelProto, options{}).ok());
    return node_names(parse_model(bytes.data(), bytes.size()).graph());
}

wire_builder graph(const std::vector<wire_builder>& nodes, const names& inputs, const names& outputs) {
    wire_builder g;
    for (const wire_builder& n : nodes) g.field_message(1, n);
    g.field_bytes(2, "g");
    for (const std::string& i : inputs) g.field_message(11, value(i));
    for (const std::string& o : outputs) g.field_message(12, value(o));
    return g;
}

}  // namespace

TEST_CASE("toposort: each node after the makers of its inputs, the earliest ready first") {
    // c reads b, b reads a; d reads x only: d is ready at once but after a (earlier in the file).
    const std::string in = model(graph({node("Relu", {"b"}, {"c"}), node("Relu", {"a"}, {"b"}), node("Relu", {"x"}, {"a"}),
                                        node("Relu", {"x"}, {"d"})},
                                       {"x"}, {"c", "d"}));
    const sorted s = toposort(in);
    REQUIRE(s.err.ok());
    CHECK(main_nodes(s.model) == names{"a_node", "b_node", "c_node", "d_node"});
    CHECK(s.stats.nodes_moved == 2);  // c and a swapped places; b and d stayed
    // Sorting again changes nothing, byte for byte.
    const sorted again = toposort(s.model);
    REQUIRE(again.err.ok());
    CHECK(again.model == s.model);
    CHECK(again.stats.nodes_moved == 0);
}

TEST_CASE("toposort: a holder after the makers of the outer values its subgraph reads") {
    // The If's then branch reads v, which a later node makes from x.
    const wire_builder branch = graph({node("Identity", {"v"}, {"t"})}, {}, {"t"});
    wire_builder holder = with_graph(node("If", {"cond"}, {"y"}), "then_branch", branch);
    holder = with_graph(holder, "else_branch", graph({node("Identity", {"x"}, {"e"})}, {}, {"e"}));
    const std::string in = model(graph({holder, node("Relu", {"x"}, {"v"})}, {"x", "cond"}, {"y"}));
    const sorted s = toposort(in);
    REQUIRE(s.err.ok());
    CHECK(main_nodes(s.model) == names{"v_node", "y_node"});
    // The branch's own nodes are copied with the holder, unchanged.
    const model_view m = parse_model(s.model.data(), s.model.size());
    const node_view y = *std::next(m.graph().node().begin());
    CHECK(node_names((*y.attribute().begin()).g()) == names{"t_node"});
}

TEST_CASE("toposort: subgraphs and functions are sorted too") {
    const wire_builder body = graph({node("Relu", {"inner_a"}, {"inner_b"}), node("Relu", {"x"}, {"inner_a"})}, {}, {"inner_b"});
    const wire_builder holder = with_graph(with_graph(node("If", {"cond"}, {"y"}), "then_branch", body), "else_branch",
                                           graph({node("Identity", {"x"}, {"e"})}, {}, {"e"}));
    const wire_builder f = function("F", "local", {node("Relu", {"t"}, {"y"}), node("Relu", {"x"}, {"t"})});
    wire_builder extra;
    extra.field_message(25, f);
    const std::string in = model(graph({holder}, {"x", "cond"}, {"y"}), {extra, [] {
                                                                             wire_builder o;
                                                                             return o.field_message(8, opset("local", 1));
                                                                         }()});
    const sorted s = toposort(in);
    REQUIRE(s.err.ok());
    CHECK(s.stats.nodes_moved == 4);
    const model_view m = parse_model(s.model.data(), s.model.size());
    CHECK(node_names((*(*m.graph().node().begin()).attribute().begin()).g()) == names{"inner_a_node", "inner_b_node"});
    names fn;
    for (const node_view& n : (*m.functions().begin()).node()) fn.emplace_back(n.name());
    CHECK(fn == names{"t_node", "y_node"});
}

TEST_CASE("toposort refuses a cycle, naming a node and a value on it") {
    const std::string in = model(graph({node("Add", {"x", "b"}, {"a"}), node("Relu", {"a"}, {"b"}), node("Identity", {"a"}, {"y"})},
                                       {"x"}, {"y"}));
    const sorted s = toposort(in);
    CHECK(s.err.code == errc::invalid_argument);
    CHECK(s.cycle.cycle);
    CHECK((s.cycle_node == "a_node" || s.cycle_node == "b_node"));
    CHECK((s.cycle_value == "a" || s.cycle_value == "b"));
    CHECK(s.model.empty());  // nothing written: the order is found before the first byte
    SECTION("a node reading its own output") {
        const sorted self = toposort(model(graph({node("Add", {"x", "a"}, {"a"})}, {"x"}, {"a"})));
        CHECK(self.err.code == errc::invalid_argument);
        CHECK(self.cycle_node == "a_node");
    }
    SECTION("a cycle inside a subgraph") {
        const wire_builder body = graph({node("Relu", {"q"}, {"p"}), node("Relu", {"p"}, {"q"})}, {}, {"p"});
        const wire_builder holder = with_graph(with_graph(node("If", {"cond"}, {"y"}), "then_branch", body),
                                               "else_branch", graph({node("Identity", {"x"}, {"e"})}, {}, {"e"}));
        const sorted inner = toposort(model(graph({holder}, {"x", "cond"}, {"y"})));
        CHECK(inner.err.code == errc::invalid_argument);
        CHECK((inner.cycle_node == "p_node" || inner.cycle_node == "q_node"));
    }
}

TEST_CASE("toposort is not made with extract, and leaves the other edits as they are") {
    const std::string in = model(graph({node("Relu", {"a"}, {"b"}), node("Relu", {"x"}, {"a"})}, {"x"}, {"b"}));
    std::string_view outs[] = {"b"};
    extract_request r{};
    r.outputs = outs;
    r.output_count = 1;
    edit_options both{};
    both.extract = &r;
    CHECK(toposort(in, both).err.code == errc::invalid_argument);
    edit_options stripped{};
    stripped.strip_doc_strings = true;
    stripped.set_producer_name = true;
    stripped.producer_name = "sorter";
    const sorted s = toposort(in, stripped);
    REQUIRE(s.err.ok());
    CHECK(main_nodes(s.model) == names{"a_node", "b_node"});
    CHECK(parse_model(s.model.data(), s.model.size()).producer_name() == "sorter");
}
