// Nesting 10,000 levels deep must end in depth_exceeded from every reader
// (verify, the views, the printers, the checker), never in a stack overflow.
// The limit itself is exact: depth N is accepted, N + 1 refused.
#include <catch2/catch.hpp>

#include <string>

#include "cursor_walk.hpp"
#include "model_walk.hpp"
#include "onnx_builder.hpp"
#include "onnxview/check.hpp"
#include "onnxview/field_path.hpp"
#include "onnxview/json_format.hpp"
#include "onnxview/model.hpp"
#include "onnxview/text_format.hpp"
#include "onnxview/verify.hpp"

using namespace onnxview;
using namespace onnxview::hostile;

namespace {

// 'levels' If nodes, each holding the next graph as its then_branch.
std::string nested_if_model(std::size_t levels) {
    std::vector<frame> frames;
    const std::vector<frame> one = if_level();
    for (std::size_t i = 0; i < levels; ++i) frames.insert(frames.end(), one.begin(), one.end());
    return model_with_graph(nest(identity_graph("leaf"), frames));
}

// A graph input whose type is sequence(sequence(...(tensor)...)), 'levels' deep.
std::string nested_type_model(std::size_t levels) {
    wire_builder tensor_type;
    tensor_type.field_varint(1, 1);
    wire_builder leaf;  // TypeProto { tensor_type }
    leaf.field_message(1, tensor_type);
    std::vector<frame> frames;
    for (std::size_t i = 0; i < levels; ++i) {
        frames.push_back(frame{1, "", ""});  // Sequence { elem_type = 1 }
        frames.push_back(frame{4, "", ""});  // TypeProto { sequence_type = 4 }
    }
    wire_builder vi_before;
    vi_before.field_bytes(1, "x");
    frames.push_back(frame{2, vi_before.str(), ""});    // ValueInfoProto { type = 2 }
    frames.push_back(frame{11, identity_graph(), ""});  // GraphProto { input = 11 }
    return model_with_graph(nest(leaf.str(), frames));
}

void discard(void*, const char*, std::size_t) {}

// Every reader of the library on one input: all must report depth_exceeded.
void all_readers_refuse(const std::string& s) {
    const error v = verify(s.data(), s.size());
    CHECK(v.code == errc::depth_exceeded);

    fuzzing::model_walker w;
    w.model(parse_model(s.data(), s.size()));
    CHECK(w.stats.first_error.code == errc::depth_exceeded);

    fuzzing::cursor_walk_stats cs;
    CHECK(fuzzing::walk_fields(model_cursor(s.data(), s.size()), cs).code == errc::depth_exceeded);

    CHECK(verify(s.data(), s.size(), schema::msg_ModelProto).code == errc::depth_exceeded);
    CHECK(print_text(s.data(), s.size(), schema::msg_ModelProto, output_sink{&discard, nullptr}).code ==
          errc::depth_exceeded);
    CHECK(print_json(s.data(), s.size(), schema::msg_ModelProto, output_sink{&discard, nullptr}).code ==
          errc::depth_exceeded);

    char path[256];
    (void)field_path_at(s.data(), s.size(), s.size() / 2, schema::msg_ModelProto, path, sizeof path);

    options opts;
    const check_result r = check_model(s.data(), s.size(), opts, nullptr, nullptr);
    CHECK(r.errors > 0);
}

}  // namespace

TEST_CASE("If subgraphs 10,000 deep: depth_exceeded, no stack overflow", "[hostile][depth]") {
    const std::string s = nested_if_model(10000);
    all_readers_refuse(s);
}

TEST_CASE("TypeProto sequences 10,000 deep: depth_exceeded, no stack overflow", "[hostile][depth]") {
    const std::string s = nested_type_model(10000);
    all_readers_refuse(s);
}

TEST_CASE("unknown groups 1,000,000 deep: depth_exceeded, no stack overflow", "[hostile][depth]") {
    // Groups are skipped recursively; every reader must bound that recursion,
    // the field-path lookup the checker uses to name an error's place included
    // (it once passed no limit: found by fuzz_model).
    const std::size_t levels = 1000000;
    wire_builder b;
    b.field_varint(1, 8);
    for (std::size_t i = 0; i < levels; ++i) b.start_group(99);
    for (std::size_t i = 0; i < levels; ++i) b.end_group(99);
    all_readers_refuse(b.str());
    char path[64];
    const auto p = field_path_at(b.str().data(), b.size(), b.size() / 2, schema::msg_ModelProto, path, sizeof path);
    REQUIRE(p.ok());
    CHECK(std::string(path) == "99");
}

TEST_CASE("the depth limit is exact: max_depth accepted, max_depth + 1 refused", "[hostile][depth]") {
    // Model (0) > graph (1) > input (2) > type (3) > sequence (4) > type (5) ...
    // > type (3 + 2k) > tensor_type (4 + 2k): the deepest message is 4 + 2k.
    for (std::size_t k : {10u, 30u, 48u}) {
        const std::string s = nested_type_model(k);
        const std::uint32_t deepest = static_cast<std::uint32_t>(4 + 2 * k);
        options at;
        at.max_message_depth = deepest;
        options below;
        below.max_message_depth = deepest - 1;
        INFO("k = " << k);
        CHECK(verify(s.data(), s.size(), schema::msg_ModelProto, at).ok());
        CHECK(verify(s.data(), s.size(), schema::msg_ModelProto, below).code == errc::depth_exceeded);

        fuzzing::model_walker ok_walk;
        ok_walk.model(parse_model(s.data(), s.size(), at));
        CHECK(ok_walk.stats.first_error.ok());
        fuzzing::model_walker bad_walk;
        bad_walk.model(parse_model(s.data(), s.size(), below));
        CHECK(bad_walk.stats.first_error.code == errc::depth_exceeded);

        fuzzing::cursor_walk_stats cs;
        CHECK(fuzzing::walk_fields(model_cursor(s.data(), s.size(), at), cs).ok());
        CHECK(fuzzing::walk_fields(model_cursor(s.data(), s.size(), below), cs).code == errc::depth_exceeded);
    }
}
