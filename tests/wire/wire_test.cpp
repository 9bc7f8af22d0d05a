#include <catch2/catch.hpp>

#include <string>

#include "onnxview/wire_repeated.hpp"

using namespace onnxview;
using namespace onnxview::wire;

TEST_CASE("varint decodes a two-byte value") {
    const std::string b("\xAC\x02", 2);
    const char* p = b.data();
    std::uint64_t v = 0;
    REQUIRE(decode_varint(p, b.data() + b.size(), v) == errc::ok);
    CHECK(v == 300);
    CHECK(p == b.data() + 2);
}
