// SHA-1 against the FIPS 180-2 / RFC 3174 test vectors.
#include <catch2/catch.hpp>

#include <string>

#include "sha1.hpp"

using onnxview::detail::sha1;

namespace {
std::string hex_of(const std::string& input) {
    std::uint8_t d[sha1::digest_size];
    sha1::digest(input.data(), input.size(), d);
    char hex[2 * sha1::digest_size + 1];
    onnxview::detail::sha1_hex(d, hex);
    return hex;
}
}  // namespace

TEST_CASE("sha1: known vectors", "[io][sha1]") {
    CHECK(hex_of("abc") == "a9993e364706816aba3e25717850c26c9cd0d89d");
    CHECK(hex_of("") == "da39a3ee5e6b4b0d3255bfef95601890afd80709");
    CHECK(hex_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
          "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
    CHECK(hex_of(std::string(1000000, 'a')) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
    CHECK(hex_of("The quick brown fox jumps over the lazy dog") ==
          "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12");
}

TEST_CASE("sha1: padding boundaries at 55, 56 and 64 bytes", "[io][sha1]") {
    // Known digests of 'a' repeated n times (Python hashlib).
    CHECK(hex_of(std::string(55, 'a')) == "c1c8bbdc22796e28c0e15163d20899b65621d65a");
    CHECK(hex_of(std::string(56, 'a')) == "c2db330f6083854c99d4b5bfb6e8f29f201be699");
    CHECK(hex_of(std::string(64, 'a')) == "0098ba824b5c16427bd7a1122a5a442a25ec644d");
}

TEST_CASE("sha1: incremental updates equal one shot, for every split", "[io][sha1]") {
    std::string input;
    for (int i = 0; i < 300; ++i) input.push_back(static_cast<char>(i * 31));
    std::uint8_t whole[sha1::digest_size];
    sha1::digest(input.data(), input.size(), whole);
    for (std::size_t split = 0; split <= input.size(); split += 7) {
        sha1 s;
        s.update(input.data(), split);
        s.update(input.data() + split, input.size() - split);
        std::uint8_t d[sha1::digest_size];
        s.finish(d);
        CHECK(std::equal(d, d + sha1::digest_size, whole));
    }
}
