// The cursor example of docs/cpp.md, compiled and run; a test below checks
// that docs/cpp.md shows exactly this code.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "../doc_block.hpp"

// BEGIN CURSOR EXAMPLE
#include <onnxview/cursor.hpp>

using namespace onnxview;

// Counts the nodes of a graph and of its subgraphs (If/Loop/Scan bodies) in
// one forward pass, each field decoded once. Returns the first error.
error count_nodes(cursor<graph_view> g, std::uint64_t& nodes) {
    while (const std::uint32_t f = g.next()) {
        if (f != graph_view::field::node) continue;
        ++nodes;
        cursor<node_view> node = g.message<node_view>();
        while (node.next()) {
            if (node.number() != node_view::field::attribute) continue;
            cursor<attribute_view> attr = node.message<attribute_view>();
            while (const std::uint32_t a = attr.next())
                if (a == attribute_view::field::g || a == attribute_view::field::graphs)
                    if (error e = count_nodes(attr.message<graph_view>(), nodes)) return e;
            if (!attr.ok()) return attr.err();
        }
        if (!node.ok()) return node.err();
    }
    return g.err();
}

error count_model_nodes(const void* data, std::size_t size, std::uint64_t& nodes) {
    cursor<model_view> m = model_cursor(data, size);
    while (const std::uint32_t f = m.next())
        if (f == model_view::field::graph)
            if (error e = count_nodes(m.message<graph_view>(), nodes)) return e;
    return m.err();
}
// END CURSOR EXAMPLE

namespace {
// The example as a file shows it, between its markers.
std::string shown(const std::string& path) {
    return onnxview::testing::doc_block(path, "// BEGIN CURSOR EXAMPLE", "// END CURSOR EXAMPLE");
}
std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}
// The same count through the views.
std::uint64_t count_with_views(const graph_view& g) {
    std::uint64_t n = 0;
    for (const node_view& node : g.node()) {
        ++n;
        for (const attribute_view& a : node.attribute()) {
            if (a.has_g()) n += count_with_views(a.g());
            for (const graph_view& sub : a.graphs()) n += count_with_views(sub);
        }
    }
    return n;
}
}  // namespace

TEST_CASE("docs/cpp.md cursor example counts what the views count, subgraphs included") {
    const std::string bytes = read(std::string(ONNXVIEW_SOURCE_DIR) + "/testdata/nested_subgraphs.onnx");
    REQUIRE(!bytes.empty());
    std::uint64_t nodes = 0;
    CHECK(count_model_nodes(bytes.data(), bytes.size(), nodes).ok());
    const std::uint64_t expected = count_with_views(parse_model(bytes.data(), bytes.size()).graph());
    CHECK(expected > parse_model(bytes.data(), bytes.size()).graph().node().size());  // has subgraphs
    CHECK(nodes == expected);
    // A cut model: the error, with its offset.
    nodes = 0;
    const error e = count_model_nodes(bytes.data(), bytes.size() - 1, nodes);
    CHECK(e.code == errc::length_out_of_bounds);
}

TEST_CASE("docs/cpp.md shows the cursor example exactly as compiled here") {
    const std::string root = ONNXVIEW_SOURCE_DIR;
    const std::string here = shown(root + "/tests/model/cursor_example_test.cpp");
    CHECK(here.size() > 100);
    CHECK(shown(root + "/docs/cpp.md") == here);
}
