// Varints, zigzag, fixed-width loads and tags: the primitives of wire.hpp.
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <string>

#include "../wire_builder.hpp"
#include "onnxview/wire.hpp"

using namespace onnxview;
using namespace onnxview::wire;
using onnxview::testing::wire_builder;

namespace {

struct varint_result {
    errc code;
    std::uint64_t value;
    std::size_t consumed;
};

varint_result read_varint(const std::string& s) {
    const char* p = s.data();
    std::uint64_t v = 12345;
    const errc e = decode_varint(p, s.data() + s.size(), v);
    return {e, e == errc::ok ? v : 0, static_cast<std::size_t>(p - s.data())};
}

struct tag_result {
    errc code;
    std::uint32_t number;
    wire_type type;
    std::size_t consumed;
};

tag_result read_tag(const std::string& s) {
    const char* p = s.data();
    std::uint32_t n = 0;
    wire_type t = wire_type::varint;
    const errc e = decode_tag(p, s.data() + s.size(), n, t);
    return {e, n, t, static_cast<std::size_t>(p - s.data())};
}

}  // namespace

TEST_CASE("varint: minimal encodings of boundary values round-trip") {
    const std::uint64_t values[] = {0, 1, 127, 128, 300, 16383, 16384, (1ull << 32) - 1, 1ull << 32,
                                    (1ull << 63) - 1, 1ull << 63, std::numeric_limits<std::uint64_t>::max()};
    for (std::uint64_t v : values) {
        const std::string s = wire_builder::varint_bytes(v);
        const auto r = read_varint(s);
        INFO("value " << v);
        CHECK(r.code == errc::ok);
        CHECK(r.value == v);
        CHECK(r.consumed == s.size());
    }
    CHECK(wire_builder::varint_bytes(std::numeric_limits<std::uint64_t>::max()).size() == 10);
}

TEST_CASE("varint: 300 is AC 02") {
    const auto r = read_varint(std::string("\xAC\x02", 2));
    CHECK(r.code == errc::ok);
    CHECK(r.value == 300);
    CHECK(r.consumed == 2);
}

TEST_CASE("varint: non-minimal (padded) encodings are accepted, up to 10 bytes") {
    for (std::uint64_t v : {0ull, 1ull, 5ull, 300ull, 0xFFFFFFFFull}) {
        for (unsigned n = wire_builder::varint_size(v); n <= 10; ++n) {
            const std::string s = wire_builder::varint_bytes(v, n);
            REQUIRE(s.size() == n);
            const auto r = read_varint(s);
            INFO("value " << v << " in " << n << " bytes");
            CHECK(r.code == errc::ok);
            CHECK(r.value == v);
            CHECK(r.consumed == n);
        }
    }
}

TEST_CASE("varint: an 11th byte is an error, whatever follows") {
    // Ten continuation bytes: the varint would need an 11th.
    const std::string s = std::string(10, '\x80') + '\x00';
    const auto r = read_varint(s);
    CHECK(r.code == errc::varint_too_long);
    CHECK(r.consumed == 0);  // the cursor does not move on failure
    // Exactly ten continuation bytes and nothing after: still too long, not
    // truncated (no valid continuation exists).
    CHECK(read_varint(std::string(10, '\x80')).code == errc::varint_too_long);
}

TEST_CASE("varint: the 10th byte may carry bits above 64; they are dropped (libprotobuf 3.21)") {
    // Verified with protoc --decode_raw and Scalars::ParseFromString: a 10-byte
    // varint ending in 0x7F parses as 2^64-1, exactly like one ending in 0x01.
    const std::string all_ones = std::string(9, '\xFF') + '\x01';
    const std::string high_bits = std::string(9, '\xFF') + '\x7F';
    CHECK(read_varint(all_ones).value == std::numeric_limits<std::uint64_t>::max());
    const auto r = read_varint(high_bits);
    CHECK(r.code == errc::ok);
    CHECK(r.value == std::numeric_limits<std::uint64_t>::max());
    CHECK(r.consumed == 10);
    // 0x02 in the 10th byte only sets bit 64: value 0.
    CHECK(read_varint(std::string(9, '\x80') + '\x02').value == 0);
}

TEST_CASE("varint: truncated inputs") {
    CHECK(read_varint(std::string()).code == errc::truncated);
    CHECK(read_varint(std::string("\x80", 1)).code == errc::truncated);
    CHECK(read_varint(std::string(9, '\xFF')).code == errc::truncated);
    const std::string full = wire_builder::varint_bytes(1ull << 62);
    for (std::size_t n = 0; n < full.size(); ++n) {
        const auto r = read_varint(full.substr(0, n));
        CHECK(r.code == errc::truncated);
        CHECK(r.consumed == 0);
    }
}

TEST_CASE("varint: does not read at or past end") {
    // The byte after `end` is a terminator that a careless decoder would use.
    const std::string s("\x80\x80\x01", 3);
    const char* p = s.data();
    std::uint64_t v = 0;
    CHECK(decode_varint(p, s.data() + 2, v) == errc::truncated);
    CHECK(p == s.data());
}

TEST_CASE("zigzag: encode and decode boundary values") {
    CHECK(zigzag_encode32(0) == 0u);
    CHECK(zigzag_encode32(-1) == 1u);
    CHECK(zigzag_encode32(1) == 2u);
    CHECK(zigzag_encode32(-2) == 3u);
    CHECK(zigzag_encode32(std::numeric_limits<std::int32_t>::max()) == 0xFFFFFFFEu);
    CHECK(zigzag_encode32(std::numeric_limits<std::int32_t>::min()) == 0xFFFFFFFFu);
    CHECK(zigzag_encode64(-1) == 1u);
    CHECK(zigzag_encode64(std::numeric_limits<std::int64_t>::max()) == 0xFFFFFFFFFFFFFFFEull);
    CHECK(zigzag_encode64(std::numeric_limits<std::int64_t>::min()) == 0xFFFFFFFFFFFFFFFFull);
    for (std::int32_t v : {0, 1, -1, 2, -2, 1000, -1000, std::numeric_limits<std::int32_t>::max(),
                           std::numeric_limits<std::int32_t>::min()}) {
        CHECK(zigzag_decode32(zigzag_encode32(v)) == v);
    }
    for (std::int64_t v : {std::int64_t(0), std::int64_t(-1), std::int64_t(1) << 40, -(std::int64_t(1) << 40),
                           std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min()}) {
        CHECK(zigzag_decode64(zigzag_encode64(v)) == v);
    }
    static_assert(zigzag_decode32(3) == -2, "constexpr");
    static_assert(zigzag_decode64(4) == 2, "constexpr");
}

TEST_CASE("fixed-width loads are little-endian and alignment-free") {
    const std::string s("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09", 10);
    CHECK(load_le32(s.data() + 1) == 0x04030201u);
    CHECK(load_le64(s.data() + 1) == 0x0807060504030201ull);
    CHECK(load_le32(s.data() + 3) == 0x06050403u);
    CHECK(bits_to_float(0x3F800000u) == 1.0f);
    CHECK(bits_to_double(0xC000000000000000ull) == -2.0);
}

TEST_CASE("tag: field number and wire type") {
    auto r = read_tag(std::string("\x08", 1));
    CHECK(r.code == errc::ok);
    CHECK(r.number == 1);
    CHECK(r.type == wire_type::varint);
    r = read_tag(wire_builder().tag(max_field_number, wire_type::fixed32).str());
    CHECK(r.code == errc::ok);
    CHECK(r.number == max_field_number);
    CHECK(r.type == wire_type::fixed32);
    CHECK(r.consumed == 5);
    for (int t = 0; t <= 5; ++t) {
        r = read_tag(wire_builder().tag(150, static_cast<wire_type>(t)).str());
        CHECK(r.code == errc::ok);
        CHECK(r.number == 150);
        CHECK(static_cast<int>(r.type) == t);
    }
}

TEST_CASE("tag: field number 0 is an error") {
    for (int t = 0; t <= 5; ++t) {
        const auto r = read_tag(wire_builder().tag(0, static_cast<wire_type>(t)).str());
        CHECK(r.code == errc::bad_field_number);
        CHECK(r.consumed == 0);
    }
    // Also when padded: 0x80 0x00 is tag 0.
    CHECK(read_tag(std::string("\x80\x00", 2)).code == errc::bad_field_number);
}

TEST_CASE("tag: wire types 6 and 7 are errors") {
    CHECK(read_tag(std::string("\x0E", 1)).code == errc::bad_wire_type);
    CHECK(read_tag(std::string("\x0F", 1)).code == errc::bad_wire_type);
    CHECK(read_tag(wire_builder().varint((1000u << 3) | 6u).str()).code == errc::bad_wire_type);
    CHECK(read_tag(wire_builder().varint((1000u << 3) | 7u, 5).str()).code == errc::bad_wire_type);
}

TEST_CASE("tag: padded tags up to 5 bytes are accepted") {
    for (unsigned n = 1; n <= 5; ++n) {
        const auto r = read_tag(wire_builder().tag(1, wire_type::varint, n).str());
        INFO(n << " bytes");
        CHECK(r.code == errc::ok);
        CHECK(r.number == 1);
        CHECK(r.consumed == n);
    }
}

TEST_CASE("tag: a 6-byte tag is an error (libprotobuf 3.21 ReadTag reads at most 5)") {
    // 88 80 80 80 80 00 is field 1, varint, padded to 6 bytes. protoc
    // --decode_raw and ParseFromString both fail on it (verified with 3.21.12).
    const auto r = read_tag(wire_builder().tag(1, wire_type::varint, 6).str());
    CHECK(r.code == errc::varint_too_long);
    CHECK(r.consumed == 0);
}

TEST_CASE("tag: a 5-byte tag keeps its value modulo 2^32, so no field number exceeds 2^29-1") {
    // libprotobuf 3.21 adds the fifth byte shifted by 28 into a uint32_t: bits
    // past 32 vanish. Hence F8 FF FF FF 7F and F8 FF FF FF 0F are the same tag
    // (field 536870911, varint) - verified with protoc --decode_raw - and
    // 88 80 80 80 10 is field 1 (the set bit is bit 32). A field number above
    // 2^29-1 cannot be expressed at all.
    const auto a = read_tag(std::string("\xF8\xFF\xFF\xFF\x7F", 5));
    const auto b = read_tag(std::string("\xF8\xFF\xFF\xFF\x0F", 5));
    CHECK(a.code == errc::ok);
    CHECK(b.code == errc::ok);
    CHECK(a.number == max_field_number);
    CHECK(b.number == max_field_number);
    CHECK(a.type == wire_type::varint);
    const auto c = read_tag(std::string("\x88\x80\x80\x80\x10", 5));
    CHECK(c.code == errc::ok);
    CHECK(c.number == 1);
    // Field number 2^29 would be tag 2^32: modulo 2^32 it is tag 0, field 0.
    const auto d = read_tag(wire_builder().varint(std::uint64_t(1) << 32).str());
    CHECK(d.code == errc::bad_field_number);
}

TEST_CASE("tag: truncated tags") {
    CHECK(read_tag(std::string()).code == errc::truncated);
    CHECK(read_tag(std::string("\x88", 1)).code == errc::truncated);
    CHECK(read_tag(std::string("\x88\x80\x80\x80", 4)).code == errc::truncated);
}

TEST_CASE("errc names and messages exist for every code") {
    for (int i = 0; i <= static_cast<int>(errc::remote_range_ignored); ++i) {
        const auto c = static_cast<errc>(i);
        CHECK(errc_name(c) != nullptr);
        CHECK(std::string(errc_name(c)) != "unknown");
        CHECK(std::string(errc_message(c)).size() > 0);
    }
    CHECK(std::string(errc_name(errc::truncated)) == "truncated");
    CHECK(std::string(errc_name(static_cast<errc>(250))) == "unknown");
}

TEST_CASE("errc_group: finer codes belong to a broad one, the rest to themselves") {
    CHECK(errc_group(errc::truncated) == errc::truncated);
    CHECK(errc_group(errc::io_error) == errc::io_error);
    CHECK(errc_group(errc::not_decimal) == errc::not_decimal);
    CHECK(errc_group(errc::io_stat_failed) == errc::io_error);
    CHECK(errc_group(errc::callback_failed) == errc::io_error);
    CHECK(errc_group(errc::external_duplicate_key) == errc::external_bad_entry);
    CHECK(errc_group(errc::external_symlink_escape) == errc::external_path_unsafe);
    CHECK(errc_group(errc::external_range_past_end) == errc::external_out_of_bounds);
    CHECK(errc_group(errc::external_length_mismatch) == errc::payload_size_mismatch);
    CHECK(errc_group(errc::external_too_many_bytes) == errc::external_limit);
    CHECK(errc_group(errc::io_write_failed) == errc::io_error);
    CHECK(errc_group(errc::external_not_opened) == errc::invalid_argument);
    CHECK(errc_group(errc::unsupported) == errc::invalid_argument);
    CHECK(errc_group(errc::remote_changed) == errc::io_error);
    CHECK(errc_group(static_cast<errc>(250)) == static_cast<errc>(250));
    // A group is never itself a finer code: one level only.
    for (int i = 0; i <= static_cast<int>(errc::remote_range_ignored); ++i) {
        const errc g = errc_group(static_cast<errc>(i));
        CHECK(errc_group(g) == g);
    }
}

TEST_CASE("error: the system's code is part of the value") {
    const error plain(errc::io_open_failed);
    const error denied(errc::io_open_failed, 0, 13);
    CHECK(plain.sys_errno == 0);
    CHECK(denied.sys_errno == 13);
    CHECK(denied.offset == 0);
    CHECK(plain != denied);
    CHECK(denied == error(errc::io_open_failed, 0, 13));
    if (sizeof(void*) == 8) CHECK(sizeof(error) == 16);
}

TEST_CASE("error and result are values") {
    const error ok;
    CHECK(ok.ok());
    CHECK_FALSE(static_cast<bool>(ok));
    const error e(errc::truncated, 7);
    CHECK_FALSE(e.ok());
    CHECK(static_cast<bool>(e));
    CHECK(e == error(errc::truncated, 7));
    CHECK(e != error(errc::truncated, 8));
    result<int> r(5);
    CHECK(r.ok());
    CHECK(*r == 5);
    result<int> bad(errc::not_found, 3);
    CHECK_FALSE(bad.ok());
    CHECK(bad.err() == error(errc::not_found, 3));
#if !ONNXVIEW_ASSERTIONS  // with them, value() of an error aborts (tests/misuse)
    CHECK(bad.value() == 0);
#endif
    CHECK(bad.value_or(9) == 9);
#if ONNXVIEW_HAS_EXCEPTIONS
    CHECK_THROWS_AS(bad.value_or_throw(), onnxview::exception);
    CHECK(r.value_or_throw() == 5);
#endif
}

TEST_CASE("varints_well_formed agrees with decoding each varint, on every chunk") {
    // The reference: decode_varint element by element (checked against
    // libprotobuf in crosscheck_test). Chunks of every length up to 40 built
    // from bytes that stress the runs: ends (< 0x80) and continuation bytes in
    // random patterns, plus long runs around the 10-byte limit at every
    // alignment of the eight-byte scan.
    auto reference = [](const std::string& s) {
        const char* p = s.data();
        const char* end = p + s.size();
        while (p != end) {
            std::uint64_t v;
            if (decode_varint(p, end, v) != errc::ok) return false;
        }
        return true;
    };
    std::uint32_t seed = 12345;
    auto rnd = [&seed]() {
        seed = seed * 1103515245u + 12345u;
        return seed >> 16;
    };
    std::size_t checked = 0, valid = 0;
    for (int iter = 0; iter < 200000; ++iter) {
        std::string s;
        const std::size_t len = rnd() % 41;
        const unsigned density = rnd() % 100;  // percent of continuation bytes
        for (std::size_t i = 0; i < len; ++i)
            s.push_back(static_cast<char>((rnd() % 100 < density ? 0x80 : 0x00) | (rnd() & 0x7F)));
        const bool expected = reference(s);
        INFO("chunk of " << s.size() << " bytes");
        REQUIRE(varints_well_formed(s.data(), s.data() + s.size()) == expected);
        ++checked;
        valid += expected;
    }
    for (std::size_t lead = 0; lead < 9; ++lead) {
        for (std::size_t run = 0; run < 13; ++run) {
            for (std::size_t tail = 0; tail < 9; ++tail) {
                std::string s(lead, '\x01');
                s.append(run, '\x81');
                s.append(1, '\x01');
                s.append(tail, '\x02');
                REQUIRE(varints_well_formed(s.data(), s.data() + s.size()) == reference(s));
                REQUIRE(varints_well_formed(s.data(), s.data() + s.size()) == (run < 10));
                ++checked;
            }
        }
    }
    CHECK(valid > 1000);            // both verdicts were exercised
    CHECK(checked - valid > 1000);
    CHECK(varints_well_formed(nullptr, nullptr));
}
