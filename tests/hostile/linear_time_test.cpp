// Wide-and-deep trees of If subgraphs are walked in time linear in the file
// size. Absolute times mean nothing on a shared machine, so the test compares
// the time per byte of a file with that of a 16x larger one of the same
// shape: a quadratic walk would make the ratio about 16; the bound is 4.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <string>

#include "model_walk.hpp"
#include "onnx_builder.hpp"
#include "onnxview/model.hpp"
#include "onnxview/verify.hpp"

using namespace onnxview;
using namespace onnxview::hostile;

namespace {

// A graph of `width` Identity nodes and one If whose then and else branches
// are trees of depth - 1; every node and value also carries a type.
std::string tree_graph(unsigned depth, unsigned width) {
    wire_builder g;
    for (unsigned i = 0; i < width; ++i) {
        wire_builder node;
        node.field_bytes(1, "x").field_bytes(2, "v" + std::to_string(i)).field_bytes(4, "Identity");
        g.field_message(1, node);
    }
    if (depth > 0) {
        const std::string branch = tree_graph(depth - 1, width);
        wire_builder then_attr, else_attr, node;
        then_attr.field_bytes(1, "then_branch").field_varint(20, 5).field_bytes(6, branch);
        else_attr.field_bytes(1, "else_branch").field_varint(20, 5).field_bytes(6, branch);
        node.field_bytes(1, "c").field_bytes(2, "out").field_bytes(4, "If")
            .field_message(5, then_attr).field_message(5, else_attr);
        g.field_message(1, node);
    }
    wire_builder tensor_type, type, vi;
    tensor_type.field_varint(1, 1);
    type.field_message(1, tensor_type);
    vi.field_bytes(1, "out").field_message(2, type);
    g.field_message(12, vi).field_bytes(2, "t" + std::to_string(depth));
    return g.str();
}

// Seconds per byte of the best of several verify + full walks.
double seconds_per_byte(const std::string& s, int reps) {
    double best = 1e9;
    for (int r = 0; r < reps; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        REQUIRE(verify(s.data(), s.size()).ok());
        fuzzing::model_walker w;
        w.model(parse_model(s.data(), s.size()));
        REQUIRE(w.stats.first_error.ok());
        REQUIRE(w.stats.views > 0);
        const auto t1 = std::chrono::steady_clock::now();
        best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
    }
    return best / static_cast<double>(s.size());
}

}  // namespace

TEST_CASE("walking nested If trees is linear in the file size", "[hostile][time]") {
    // Depth d doubles the size: d + 4 is 16x larger.
    const std::string small = model_with_graph(tree_graph(7, 16));
    const std::string large = model_with_graph(tree_graph(11, 16));
    const double ratio_size = static_cast<double>(large.size()) / static_cast<double>(small.size());
    REQUIRE(ratio_size > 14);
    REQUIRE(ratio_size < 18);
    (void)seconds_per_byte(small, 1);  // warm caches
    const double small_rate = seconds_per_byte(small, 15);
    const double large_rate = seconds_per_byte(large, 3);
    INFO("small: " << small.size() << " bytes, " << small_rate * 1e9 << " ns/byte; large: " << large.size()
                   << " bytes, " << large_rate * 1e9 << " ns/byte");
    CHECK(large_rate / small_rate < 4.0);
}
