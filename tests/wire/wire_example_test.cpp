// The wire-layer example of docs/cpp.md, compiled and run. A test below checks
// that docs/cpp.md shows exactly this code.
#include <catch2/catch.hpp>

#include <string>

#include "../doc_block.hpp"

#include "../wire_builder.hpp"

// BEGIN WIRE EXAMPLE
#include <cstdio>
#include <onnxview/wire_repeated.hpp>

namespace wire = onnxview::wire;

// Prints field 1 (a string) and repeated int64 field 2 (packed or not) of a
// protobuf message. Returns false on malformed input.
bool print_shape(const void* data, std::size_t size) {
    const wire::message msg = wire::message::root(data, size);
    wire::field f;
    bool found = false;
    if (onnxview::error e = msg.find_last(1, f, found)) {
        std::printf("%s at byte %llu\n", onnxview::errc_name(e.code),
                    static_cast<unsigned long long>(e.offset));
        return false;
    }
    if (found && f.type == wire::wire_type::length_delimited)
        std::printf("name: %.*s\n", static_cast<int>(f.bytes().size()), f.bytes().data());
    wire::repeated<wire::elem_int64> dims(msg, 2);
    for (std::int64_t d : dims) std::printf("dim: %lld\n", static_cast<long long>(d));
    return dims.err().ok();
}
// END WIRE EXAMPLE

namespace {
// The example as a file shows it, between its markers.
std::string shown(const std::string& path) {
    return onnxview::testing::doc_block(path, "// BEGIN WIRE EXAMPLE", "// END WIRE EXAMPLE");
}
}  // namespace

TEST_CASE("docs/cpp.md wire example runs") {
    using onnxview::testing::wire_builder;
    const std::string ok = wire_builder().field_bytes(1, "input").packed_varint(2, {1, 3}).field_varint(2, 224).str();
    CHECK(print_shape(ok.data(), ok.size()));
    const std::string bad = wire_builder().field_bytes(1, "input").field_len_raw(2, 9).str();
    CHECK_FALSE(print_shape(bad.data(), bad.size()));
}

TEST_CASE("docs/cpp.md shows the wire example exactly as compiled here") {
    const std::string root = ONNXVIEW_SOURCE_ROOT;
    const std::string here = shown(root + "/tests/wire/wire_example_test.cpp");
    const std::string doc = shown(root + "/docs/cpp.md");
    CHECK(here.size() > 100);
    CHECK(doc == here);
}
