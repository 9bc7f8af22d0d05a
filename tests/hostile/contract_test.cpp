// The library's contract (onnxview/verify.hpp): when verify() accepts some
// bytes, no view made over them reports an error. Inputs here are accepted by
// libprotobuf too.
#include <catch2/catch.hpp>

#include <string>

#include "model_walk.hpp"
#include "onnx_builder.hpp"
#include "onnxview/json_format.hpp"
#include "onnxview/model.hpp"
#include "onnxview/text_format.hpp"
#include "onnxview/verify.hpp"

using namespace onnxview;
using namespace onnxview::hostile;

namespace {

// A TypeProto holding sequence_type twice, each a chain of `levels` nested
// sequence types: protobuf merges the two occurrences at every level, so a
// reader follows `levels` merged singular messages one inside the other.
std::string doubly_merged_types(std::size_t levels) {
    wire_builder tensor_type, leaf;
    tensor_type.field_varint(1, 1);
    leaf.field_message(1, tensor_type);
    std::vector<frame> frames;
    for (std::size_t i = 0; i < levels; ++i) {
        frames.push_back(frame{1, "", ""});  // Sequence { elem_type }
        frames.push_back(frame{4, "", ""});  // TypeProto { sequence_type }
    }
    frames.pop_back();  // the outermost level is written twice below
    const std::string seq = nest(leaf.str(), frames);
    wire_builder type;
    type.field_bytes(4, seq).field_bytes(4, seq);
    wire_builder vi;
    vi.field_bytes(1, "x").field_message(2, type);
    wire_builder g;
    g.raw(identity_graph()).field_message(11, vi);
    return model_with_graph(g.str());
}

}  // namespace

TEST_CASE("merged singular messages nested up to 8 deep: verify() ok => views ok", "[hostile][contract]") {
    // `levels` sequence levels merge 2 x levels messages, plus tensor_type.
    for (std::size_t levels : {1u, 2u, 3u}) {
        const std::string s = doubly_merged_types(levels);
        INFO(levels << " merged levels");
        REQUIRE(verify(s.data(), s.size()).ok());
        fuzzing::model_walker w;
        w.model(parse_model(s.data(), s.size()));
        CHECK(w.stats.first_error.ok());
    }
}

// Views follow at most wire::max_merge_path nested merges; deeper chains are
// refused with merge_too_deep, and verify() refuses them too, so the contract
// holds (a deliberate difference from libprotobuf, which merges without limit).
TEST_CASE("merged singular messages nested 9 and more deep: verify() refuses them as the views do",
          "[hostile][contract]") {
    for (std::size_t levels : {4u, 12u}) {
        const std::string s = doubly_merged_types(levels);
        INFO(levels << " merged levels");
        CHECK(verify(s.data(), s.size()).code == errc::merge_too_deep);
        fuzzing::model_walker w;
        w.model(parse_model(s.data(), s.size()));
        CHECK(w.stats.first_error.code == errc::merge_too_deep);
        // The printers validate first and print nothing: the text is not cut
        // off at the merge they cannot follow (onnxview dump promises that).
        std::string printed;
        const output_sink sink{[](void* ctx, const char* p, std::size_t n) {
                                   static_cast<std::string*>(ctx)->append(p, n);
                               },
                               &printed};
        CHECK(print_text(s.data(), s.size(), schema::msg_ModelProto, sink).code == errc::merge_too_deep);
        CHECK(printed.empty());
        CHECK(print_json(s.data(), s.size(), schema::msg_ModelProto, sink).code == errc::merge_too_deep);
        CHECK(printed.empty());
        // The printers' error is verify()'s, offset included (one validator).
        CHECK(print_text(s.data(), s.size(), schema::msg_ModelProto, sink) == verify(s.data(), s.size()));
    }
}

// verify() checks against the schema of options.release: a field newer than
// it is an unknown field, kept as bytes and never parsed (as a protoc built
// with that release's onnx.proto reads it), and the printers agree.
TEST_CASE("verify() with an older release: newer fields are unknown", "[hostile][contract]") {
    wire_builder m;
    m.field_varint(1, 8);                    // ir_version
    m.field_bytes(26, std::string("\x07"));  // configuration (1.18): field 0, wire type 7 inside
    const std::string s = m.str();
    CHECK(verify(s.data(), s.size()).code != errc::ok);
    options old;
    old.release = schema::release(1, 12, 0);
    CHECK(verify(s.data(), s.size(), schema::msg_ModelProto, old).ok());
    options print_old;
    print_old.release = old.release;
    std::string printed;
    const output_sink sink{[](void* ctx, const char* p, std::size_t n) {
                               static_cast<std::string*>(ctx)->append(p, n);
                           },
                           &printed};
    CHECK(print_text(s.data(), s.size(), schema::msg_ModelProto, sink, print_old).ok());
    CHECK(printed.find("26: \"\\007\"") != std::string::npos);
    printed.clear();
    CHECK(print_text(s.data(), s.size(), schema::msg_ModelProto, sink) == verify(s.data(), s.size()));
    CHECK(printed.empty());
}
