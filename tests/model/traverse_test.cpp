// onnxview/traverse.hpp: every scope of a model in order with its path (main
// graph, subgraphs of g and graphs at any depth, training graphs, functions),
// every stored tensor with its origin and path, the names a scope declares,
// skipping a scope, and the depth limit. The expected paths are written out
// by hand from onnx.proto's field names.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "onnxview/model.hpp"
#include "onnxview/traverse.hpp"
#include "../wire_builder.hpp"

using namespace onnxview;
using onnxview::testing::wire_builder;

namespace {

wire_builder tensor(const std::string& name) {
    wire_builder t;
    t.field_varint(tensor_view::field::dims, 1)
        .field_varint(tensor_view::field::data_type, static_cast<std::uint64_t>(data_type::float32))
        .field_bytes(tensor_view::field::name, name);
    return t;
}

wire_builder sparse(const std::string& name) {
    wire_builder s;
    s.field_message(sparse_tensor_view::field::values, tensor(name))
        .field_message(sparse_tensor_view::field::indices, tensor(""))
        .field_varint(sparse_tensor_view::field::dims, 4);
    return s;
}

wire_builder node(const std::string& op, const std::string& output, std::initializer_list<wire_builder> attributes) {
    wire_builder n;
    n.field_bytes(node_view::field::op_type, op).field_bytes(node_view::field::output, output);
    for (const wire_builder& a : attributes) n.field_message(node_view::field::attribute, a);
    return n;
}

wire_builder attribute(const std::string& name) {
    wire_builder a;
    a.field_bytes(attribute_view::field::name, name);
    return a;
}

// A model with a tensor wherever ONNX can store one, in every kind of scope.
std::string every_scope_model() {
    // An If whose then-branch holds a Loop-like node with two bodies (graphs).
    wire_builder inner_body;
    inner_body.field_bytes(graph_view::field::name, "inner").field_message(graph_view::field::initializer, tensor("iw"));
    wire_builder multi = node("Custom", "m", {attribute("bodies")
                                                  .field_message(attribute_view::field::graphs, wire_builder())
                                                  .field_message(attribute_view::field::graphs, inner_body)});
    wire_builder then_branch;
    then_branch.field_bytes(graph_view::field::name, "then")
        .field_message(graph_view::field::node,
                       node("Constant", "c2", {attribute("value").field_message(attribute_view::field::t, tensor(""))}))
        .field_message(graph_view::field::node, multi);
    wire_builder if_node = node("If", "y", {attribute("then_branch").field_message(attribute_view::field::g, then_branch),
                                            attribute("else_branch").field_message(attribute_view::field::g, wire_builder())});

    wire_builder main;
    main.field_bytes(graph_view::field::name, "main")
        .field_message(graph_view::field::input, wire_builder().field_bytes(value_info_view::field::name, "x"))
        .field_message(graph_view::field::initializer, tensor("w"))
        .field_message(graph_view::field::sparse_initializer, sparse("s"))
        .field_message(graph_view::field::node,
                       node("Constant", "c", {attribute("sparse_value").field_message(attribute_view::field::sparse_tensor, sparse(""))}))
        .field_message(graph_view::field::node, if_node)
        .field_message(graph_view::field::node,
                       node("Custom", "z", {attribute("table")
                                                .field_message(attribute_view::field::tensors, tensor("t0"))
                                                .field_message(attribute_view::field::tensors, tensor("t1"))
                                                .field_message(attribute_view::field::sparse_tensors, sparse("st"))}));

    wire_builder training;
    training.field_message(training_info_view::field::initialization,
                           wire_builder().field_bytes(graph_view::field::name, "init").field_message(graph_view::field::initializer, tensor("seed")))
        .field_message(training_info_view::field::algorithm,
                       wire_builder().field_bytes(graph_view::field::name, "algo").field_message(
                           graph_view::field::node, node("Add", "a", {})));

    wire_builder function;
    function.field_bytes(function_view::field::name, "f")
        .field_bytes(function_view::field::input, "fx")
        .field_message(function_view::field::node,
                       node("Constant", "fc", {attribute("value").field_message(attribute_view::field::t, tensor(""))}))
        .field_message(function_view::field::node,
                       node("If", "fy", {attribute("then_branch").field_message(
                                             attribute_view::field::g,
                                             wire_builder().field_bytes(graph_view::field::name, "fthen"))}));

    wire_builder m;
    m.field_varint(model_view::field::ir_version, 10)
        .field_message(model_view::field::graph, main)
        .field_message(model_view::field::training_info, training)
        .field_message(model_view::field::functions, function);
    return m.str();
}

struct recorder : scope_visitor {
    std::vector<std::string> events;
    std::string skip;  // name of a graph whose contents are skipped
    bool enter(const model_scope& s) {
        std::string p;
        append_scope_path(s, p);
        events.push_back("enter " + p + " depth " + std::to_string(s.depth));
        return !s.is_graph() || s.graph.name() != skip;
    }
    void node(const model_scope&, const node_view& n, std::uint32_t i) {
        events.push_back("node " + std::to_string(i) + " " + std::string(n.output().size() ? *n.output().begin() : ""));
    }
    void leave(const model_scope& s) {
        std::string p;
        append_scope_path(s, p);
        events.push_back("leave " + p);
    }
};

}  // namespace

TEST_CASE("walk_scopes: every scope, depth-first in model order, with its path") {
    const std::string bytes = every_scope_model();
    const model_view m = parse_model(bytes.data(), bytes.size());
    REQUIRE(m.ok());
    recorder r;
    REQUIRE(walk_scopes(m, r).ok());
    const std::vector<std::string> expected = {
        "enter graph depth 0",
        "node 0 c",
        "node 1 y",
        "enter graph.node[1].attribute[0].g depth 1",
        "node 0 c2",
        "node 1 m",
        "enter graph.node[1].attribute[0].g.node[1].attribute[0].graphs[0] depth 2",
        "leave graph.node[1].attribute[0].g.node[1].attribute[0].graphs[0]",
        "enter graph.node[1].attribute[0].g.node[1].attribute[0].graphs[1] depth 2",
        "leave graph.node[1].attribute[0].g.node[1].attribute[0].graphs[1]",
        "leave graph.node[1].attribute[0].g",
        "enter graph.node[1].attribute[1].g depth 1",
        "leave graph.node[1].attribute[1].g",
        "node 2 z",
        "leave graph",
        "enter training_info[0].initialization depth 0",
        "leave training_info[0].initialization",
        "enter training_info[0].algorithm depth 0",
        "node 0 a",
        "leave training_info[0].algorithm",
        "enter functions[0] depth 0",
        "node 0 fc",
        "node 1 fy",
        "enter functions[0].node[1].attribute[0].g depth 1",
        "leave functions[0].node[1].attribute[0].g",
        "leave functions[0]",
    };
    CHECK(r.events == expected);
}

TEST_CASE("walk_scopes: enter() returning false skips the scope's nodes and nested scopes") {
    const std::string bytes = every_scope_model();
    const model_view m = parse_model(bytes.data(), bytes.size());
    recorder r;
    r.skip = "then";
    REQUIRE(walk_scopes(m, r).ok());
    const std::vector<std::string> expected_part = {
        "enter graph.node[1].attribute[0].g depth 1",
        "leave graph.node[1].attribute[0].g",
        "enter graph.node[1].attribute[1].g depth 1",
    };
    auto it = std::search(r.events.begin(), r.events.end(), expected_part.begin(), expected_part.end());
    CHECK(it != r.events.end());
    CHECK(std::find(r.events.begin(), r.events.end(), "node 0 c2") == r.events.end());
}

TEST_CASE("walk_scopes: depth_exceeded past max_depth, at the too-deep graph, after what lies above") {
    const std::string bytes = every_scope_model();
    const model_view m = parse_model(bytes.data(), bytes.size());
    recorder r;
    const error e = walk_scopes(m, r, 1);
    REQUIRE(e.code == errc::depth_exceeded);
    // The first graph at depth 2: the then-branch's first body (an empty graph).
    CHECK(r.events.back() == "node 1 m");
    auto if_node = m.graph().node().begin();
    ++if_node;
    auto multi = (*if_node).attribute().begin()->g().node().begin();
    ++multi;
    const graph_view body = *(*multi).attribute().begin()->graphs().begin();
    CHECK(e.offset == body.wire_message().offset_of(body.wire_message().begin()));
    recorder all;
    CHECK(walk_scopes(m, all, 2).ok());  // exactly at the limit: accepted
}

TEST_CASE("walk_node_scopes: the scopes under one node") {
    const std::string bytes = every_scope_model();
    const model_view m = parse_model(bytes.data(), bytes.size());
    model_scope main;
    main.graph = m.graph();
    std::uint32_t i = 0;
    for (const node_view& n : m.graph().node()) {
        if (i == 1) {
            recorder r;
            REQUIRE(walk_node_scopes(main, n, i, r).ok());
            CHECK(r.events.front() == "enter graph.node[1].attribute[0].g depth 1");
            CHECK(r.events.back() == "leave graph.node[1].attribute[1].g");
            CHECK(r.events.size() == 10);
        }
        ++i;
    }
}

TEST_CASE("for_each_tensor: every stored tensor with its origin and path") {
    const std::string bytes = every_scope_model();
    const model_view m = parse_model(bytes.data(), bytes.size());
    std::vector<std::string> seen;
    REQUIRE(for_each_tensor(m, [&](const stored_tensor& t) {
                std::string p;
                append_tensor_path(t, p);
                seen.push_back(p + " " + tensor_origin_name(t.origin) + " '" + std::string(t.tensor.name()) + "'" +
                               (t.sparse_part ? (t.sparse_indices ? " indices" : " values") : ""));
            }).ok());
    const std::vector<std::string> expected = {
        "graph.initializer[0] initializer 'w'",
        "graph.sparse_initializer[0].values sparse_initializer 's' values",
        "graph.sparse_initializer[0].indices sparse_initializer '' indices",
        "graph.node[0].attribute[0].sparse_tensor.values constant '' values",
        "graph.node[0].attribute[0].sparse_tensor.indices constant '' indices",
        "graph.node[1].attribute[0].g.node[0].attribute[0].t constant ''",
        "graph.node[1].attribute[0].g.node[1].attribute[0].graphs[1].initializer[0] initializer 'iw'",
        "graph.node[2].attribute[0].tensors[0] attribute 't0'",
        "graph.node[2].attribute[0].tensors[1] attribute 't1'",
        "graph.node[2].attribute[0].sparse_tensors[0].values attribute 'st' values",
        "graph.node[2].attribute[0].sparse_tensors[0].indices attribute '' indices",
        "training_info[0].initialization.initializer[0] initializer 'seed'",
        "functions[0].node[0].attribute[0].t constant ''",
    };
    CHECK(seen == expected);
}

TEST_CASE("for_each_tensor: the holding node and attribute of node tensors") {
    const std::string bytes = every_scope_model();
    const model_view m = parse_model(bytes.data(), bytes.size());
    std::vector<std::string> holders;
    REQUIRE(for_each_tensor(m, [&](const stored_tensor& t) {
                if (t.origin == tensor_origin::constant || t.origin == tensor_origin::attribute)
                    holders.push_back(std::string(*t.holder.node.output().begin()) + "/" +
                                      std::string(t.holder.attribute.name()) + "@" +
                                      std::to_string(t.holder.node_index) + "." +
                                      std::to_string(t.holder.attribute_index));
            }).ok());
    CHECK(holders == std::vector<std::string>{"c/sparse_value@0.0", "c/sparse_value@0.0", "c2/value@0.0",
                                              "z/table@2.0", "z/table@2.0", "z/table@2.0", "z/table@2.0",
                                              "fc/value@0.0"});
}

TEST_CASE("tensor_scope_visitor: for_each_tensor's tensors in a walk that does more") {
    const std::string bytes = every_scope_model();
    const model_view m = parse_model(bytes.data(), bytes.size());
    std::vector<std::string> expected;
    REQUIRE(for_each_tensor(m, [&](const stored_tensor& t) { expected.emplace_back(t.tensor.name()); }).ok());
    struct collect {
        std::vector<std::string>& out;
        void operator()(const stored_tensor& t) { out.emplace_back(t.tensor.name()); }
    };
    std::vector<std::string> names;
    collect c{names};
    struct both : tensor_scope_visitor<collect> {
        std::size_t nodes = 0;
        explicit both(collect& f) : tensor_scope_visitor<collect>(f) {}
        void node(const model_scope& s, const node_view& n, std::uint32_t i) {
            ++nodes;
            tensor_scope_visitor<collect>::node(s, n, i);
        }
    } walk(c);
    REQUIRE(walk_scopes(m, walk).ok());
    CHECK(names == expected);
    CHECK(names.size() == 13);
    std::size_t nodes = 0;
    struct counter : scope_visitor {
        std::size_t& n;
        explicit counter(std::size_t& out) : n(out) {}
        void node(const model_scope&, const node_view&, std::uint32_t) { ++n; }
    } count(nodes);
    REQUIRE(walk_scopes(m, count).ok());
    CHECK(walk.nodes == nodes);
    CHECK(nodes > 0);
}

TEST_CASE("is_constant_node: op Constant in the default domain, by either name") {
    auto make = [](const std::string& domain) {
        wire_builder n;
        n.field_bytes(node_view::field::op_type, "Constant");
        if (!domain.empty()) n.field_bytes(node_view::field::domain, domain);
        return n;
    };
    for (const char* d : {"", "ai.onnx"}) {
        const std::string b = make(d).str();
        CHECK(is_constant_node(parse_as<node_view>(b.data(), b.size())));
    }
    const std::string other = make("com.example").str();
    CHECK_FALSE(is_constant_node(parse_as<node_view>(other.data(), other.size())));
}

TEST_CASE("for_each_declared_name: inputs, initializers, sparse initializers, node outputs; functions") {
    const std::string bytes = every_scope_model();
    const model_view m = parse_model(bytes.data(), bytes.size());
    struct names : scope_visitor {
        std::vector<std::string> main, function;
        bool enter(const model_scope& s) {
            if (s.kind == scope_kind::main_graph)
                for_each_declared_name(s, [&](std::string_view n) { main.emplace_back(n); });
            if (s.kind == scope_kind::function)
                for_each_declared_name(s, [&](std::string_view n) { function.emplace_back(n); });
            return false;
        }
    } v;
    REQUIRE(walk_scopes(m, v).ok());
    CHECK(v.main == std::vector<std::string>{"x", "w", "s", "c", "y", "z"});
    CHECK(v.function == std::vector<std::string>{"fx", "fc", "fy"});
}
