// tests/hostile/onnx_builder.hpp - hostile ONNX models built by hand.
//
// nest() builds messages thousands of levels deep in time linear in their
// size (prefixes and suffixes are computed inside out, then concatenated
// once), which the naive "wrap the inner string" loop cannot do.
#ifndef ONNXVIEW_TESTS_HOSTILE_ONNX_BUILDER_HPP
#define ONNXVIEW_TESTS_HOSTILE_ONNX_BUILDER_HPP

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../wire_builder.hpp"

namespace onnxview {
namespace hostile {

using testing::wire_builder;

// One level of nesting: a message body made of `before`, then field `number`
// holding the inner message, then `after`.
struct frame {
    std::uint32_t number;
    std::string before;
    std::string after;
};

// Wraps `core` in `levels` (innermost first). Linear in the result's size.
inline std::string nest(const std::string& core, const std::vector<frame>& levels) {
    std::vector<std::string> heads;
    heads.reserve(levels.size());
    std::size_t inner = core.size();
    for (const frame& f : levels) {
        wire_builder h;
        h.raw(f.before).tag(f.number, wire_builder::wt::length_delimited).varint(inner);
        inner += h.str().size() + f.after.size();
        heads.push_back(h.str());
    }
    std::string out;
    out.reserve(inner);
    for (std::size_t i = heads.size(); i-- > 0;) out += heads[i];
    out += core;
    for (const frame& f : levels) out += f.after;
    return out;
}

// With ONNXVIEW_HOSTILE_SEEDS=DIR in the environment, every model built
// here is also written to DIR/hostile-<FNV-1a of its bytes>, up to 1 MiB: the
// seeds of fuzzing campaigns (fuzz/README.md). The tests do not change.
inline std::string seed(std::string model) {
    const char* dir = std::getenv("ONNXVIEW_HOSTILE_SEEDS");
    if (dir == nullptr || model.size() > (std::size_t(1) << 20)) return model;
    std::uint64_t h = 14695981039346656037ull;
    for (unsigned char c : model) h = (h ^ c) * 1099511628211ull;
    char name[32];
    std::snprintf(name, sizeof name, "/hostile-%016llx", static_cast<unsigned long long>(h));
    if (std::FILE* f = std::fopen((std::string(dir) + name).c_str(), "wb")) {
        std::fwrite(model.data(), 1, model.size(), f);
        std::fclose(f);
    }
    return model;
}

// ModelProto fields around a main graph body.
inline std::string model_with_graph(const std::string& graph_body) {
    wire_builder opset;
    opset.field_bytes(1, "").field_varint(2, 13);
    wire_builder m;
    m.field_varint(1, 8).field_bytes(2, "hostile").field_bytes(7, graph_body).field_message(8, opset);
    return seed(m.str());
}

// A graph body with one Identity node x -> y and its input and output.
inline std::string identity_graph(const std::string& name = "g") {
    wire_builder node;
    node.field_bytes(1, "x").field_bytes(2, "y").field_bytes(4, "Identity");
    wire_builder g;
    g.field_message(1, node).field_bytes(2, name);
    return g.str();
}

// The frames that put a graph body inside an If node of an enclosing graph:
// graph { node { op_type: "If", attribute { name: then_branch, type: GRAPH, g: <inner> } } }
inline std::vector<frame> if_level() {
    wire_builder attr_before;
    attr_before.field_bytes(1, "then_branch").field_varint(20, 5);
    wire_builder node_before;
    node_before.field_bytes(1, "c").field_bytes(4, "If");
    return {frame{6, attr_before.str(), ""}, frame{5, node_before.str(), ""}, frame{1, "", ""}};
}

}  // namespace hostile
}  // namespace onnxview

#endif  // ONNXVIEW_TESTS_HOSTILE_ONNX_BUILDER_HPP
