#include <catch2/catch.hpp>

#include <string>

#include "onnxview/model.hpp"

using namespace onnxview;

TEST_CASE("model view reads a hand-made model") {
    // ir_version: 7, graph { node { op_type: "Relu" input: "x" } name: "g" }
    std::string node = std::string("\x0a\x01x", 3) + std::string("\x22\x04Relu", 6);
    std::string graph = std::string("\x0a") + char(node.size()) + node + std::string("\x12\x01g", 3);
    std::string model = std::string("\x08\x07", 2) + std::string("\x3a") + char(graph.size()) + graph;
    auto m = parse_model(model.data(), model.size());
    REQUIRE(m.ok());
    CHECK(m.ir_version() == 7);
    CHECK(m.has_graph());
    auto g = m.graph();
    CHECK(g.name() == "g");
    REQUIRE(g.node().size() == 1);
    int seen = 0;
    for (const node_view& n : g.node()) {
        CHECK(n.op_type() == "Relu");
        CHECK(n.input().at(0) == "x");
        ++seen;
    }
    CHECK(seen == 1);
}
