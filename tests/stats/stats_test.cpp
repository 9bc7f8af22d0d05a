// The statistics of one tensor (compute_value_stats, onnxview/stats.hpp):
// each counter at its boundaries, every storage giving the same numbers,
// exact integers, sub-byte padding, histograms. The whole CLI against numpy
// and the numeric findings on injected faults: tests/oracle/stats_oracle.py
// and numeric_oracle.py.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "../wire_builder.hpp"
#include "float_block.hpp"
#include "onnxview/model.hpp"
#include "onnxview/stats.hpp"

using namespace onnxview;
using onnxview::testing::wire_builder;

namespace {

constexpr std::uint32_t dims_field = 1, type_field = 2, float_data = 4, int32_data = 5, int64_data = 7, raw_field = 9;

std::string raw_floats(const std::vector<float>& v) {
    std::string s(v.size() * 4, '\0');
    for (std::size_t i = 0; i < v.size(); ++i) {
        std::uint32_t b;
        std::memcpy(&b, &v[i], 4);
        for (int k = 0; k < 4; ++k) s[4 * i + k] = static_cast<char>(b >> (8 * k));
    }
    return s;
}

// A TensorProto of `type` with dims {n} and `payload` in raw_data.
std::string raw_tensor(std::int32_t type, std::uint64_t n, const std::string& payload) {
    wire_builder b;
    b.field_varint(dims_field, n).field_varint(type_field, static_cast<std::uint64_t>(type)).field_bytes(raw_field, payload);
    return b.str();
}

value_stats stats_of(const std::string& bytes, std::uint32_t bins = 0) {
    const tensor_view t = parse_tensor(bytes.data(), bytes.size());
    REQUIRE(t.ok());
    const result<tensor_data> d = tensor_data::make(t);
    REQUIRE(d.ok());
    value_stats_options o;
    o.histogram_bins = bins;
    const result<value_stats> s = compute_value_stats(*d, o);
    REQUIRE(s.ok());
    return *s;
}

std::uint64_t bits_of(double x) {
    std::uint64_t b;
    std::memcpy(&b, &x, 8);
    return b;
}

float next_up(float x) { return std::nextafter(x, std::numeric_limits<float>::infinity()); }

}  // namespace

TEST_CASE("stats: FLOAT in raw_data, packed float_data in pieces and unpacked give the same numbers") {
    std::vector<float> v;
    for (int i = 0; i < 3001; ++i) v.push_back(static_cast<float>(std::sin(i * 0.37) * 100.0 + 1000.0));
    const value_stats raw = stats_of(raw_tensor(1, v.size(), raw_floats(v)));
    // float_data as three packed chunks of odd lengths, then the rest unpacked.
    wire_builder typed;
    typed.field_varint(dims_field, v.size()).field_varint(type_field, 1);
    const std::size_t cuts[] = {0, 7, 1030, 2999};
    for (int c = 0; c < 3; ++c)
        typed.field_bytes(float_data, raw_floats(std::vector<float>(v.begin() + cuts[c], v.begin() + cuts[c + 1])));
    for (std::size_t i = cuts[3]; i < v.size(); ++i) {
        std::uint32_t b;
        std::memcpy(&b, &v[i], 4);
        typed.field_fixed32(float_data, b);
    }
    const value_stats t = stats_of(typed.str());
    CHECK(t.values == 3001);
    CHECK(bits_of(t.mean) == bits_of(raw.mean));
    CHECK(bits_of(t.std) == bits_of(raw.std));
    CHECK(t.min == raw.min);
    CHECK(t.max == raw.max);
    // Against a long double computation in two passes.
    long double sum = 0, dev = 0;
    for (float x : v) sum += x;
    const long double mean = sum / v.size();
    for (float x : v) dev += (x - mean) * (x - mean);
    CHECK(std::fabs(raw.mean - static_cast<double>(mean)) <= 1e-12 * std::fabs(static_cast<double>(mean)));
    CHECK(std::fabs(raw.std - std::sqrt(static_cast<double>(dev / v.size()))) <= 1e-9 * raw.std);
}

TEST_CASE("stats: FLOAT counters at their boundaries") {
    const float inf = std::numeric_limits<float>::infinity();
    const float two_m25 = std::ldexp(1.0f, -25), two_m14 = std::ldexp(1.0f, -14);
    const float bf16_max = 3.38953139e38f;
    const std::vector<float> v = {
        0.0f, -0.0f,                                      // zeros
        std::numeric_limits<float>::quiet_NaN(), inf, -inf, -inf,
        std::numeric_limits<float>::denorm_min(), -1e-40f,  // subnormal, and fp16 underflow
        65504.0f, next_up(65504.0f), -70000.0f,           // fp16 overflow: the last two
        two_m25, next_up(two_m25), two_m14,               // underflow, fp16 subnormal, neither
        bf16_max, next_up(bf16_max),                      // bf16 overflow: the last one
    };
    const value_stats s = stats_of(raw_tensor(1, v.size(), raw_floats(v)));
    CHECK(s.values == v.size());
    CHECK(s.nan == 1);
    CHECK(s.pos_inf == 1);
    CHECK(s.neg_inf == 2);
    CHECK(s.finite == v.size() - 4);
    CHECK(s.zeros == 2);
    CHECK(s.subnormal == 2);
    CHECK(s.fp16_underflow == 3);   // the two subnormals and 2^-25
    CHECK(s.fp16_subnormal == 1);   // just above 2^-25
    CHECK(s.fp16_overflow == 4);    // next_up(65504), -70000 and the two bf16-sized values
    CHECK(s.bf16_overflow == 1);
    CHECK(s.min == -70000.0);
    CHECK(s.max == static_cast<double>(next_up(bf16_max)));
}

TEST_CASE("stats: no finite value gives NaN statistics; STRING gives elements only") {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const value_stats s = stats_of(raw_tensor(1, 2, raw_floats({nan, nan})));
    CHECK(s.finite == 0);
    CHECK(std::isnan(s.min));
    CHECK(std::isnan(s.mean));
    wire_builder str;
    str.field_varint(dims_field, 2).field_varint(type_field, 8).field_bytes(6, "a").field_bytes(6, "bc");
    const value_stats t = stats_of(str.str());
    CHECK(t.elements == 2);
    CHECK(t.values == 0);
}

TEST_CASE("stats: integers keep an exact min and max") {
    wire_builder b;
    b.field_varint(dims_field, 3).field_varint(type_field, 7);  // INT64
    b.field_varint(int64_data, static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::min()));
    b.field_varint(int64_data, static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
    b.field_varint(int64_data, 0);
    const value_stats s = stats_of(b.str());
    CHECK(s.integral);
    CHECK(s.min_i == std::numeric_limits<std::int64_t>::min());
    CHECK(s.max_i == std::numeric_limits<std::int64_t>::max());
    CHECK(s.zeros == 1);
    std::string u64(16, '\xff');
    u64[8] = 1;
    for (int k = 9; k < 16; ++k) u64[k] = 0;
    const value_stats u = stats_of(raw_tensor(13, 2, u64));  // UINT64: max and 1
    CHECK(u.unsigned64);
    CHECK(u.max_u == std::numeric_limits<std::uint64_t>::max());
    CHECK(u.min_u == 1);
}

TEST_CASE("stats: sub-byte types stop at the element count (the padding nibble is not a value)") {
    // INT4, 3 elements: -8, 7, -1, and a padding nibble of 0xF.
    const std::string payload = {static_cast<char>(0x78), static_cast<char>(0xFF)};
    const value_stats s = stats_of(raw_tensor(22, 3, payload));
    CHECK(s.values == 3);
    CHECK(s.min_i == -8);
    CHECK(s.max_i == 7);
    CHECK(s.zeros == 0);
    // UINT4 in int32_data: one entry holds two elements.
    wire_builder b;
    b.field_varint(dims_field, 2).field_varint(type_field, 21).field_varint(int32_data, 0x0F);
    const value_stats u = stats_of(b.str());
    CHECK(u.min_i == 0);
    CHECK(u.max_i == 15);
    CHECK(u.zeros == 1);
}

TEST_CASE("stats: narrow floats are classified in their own format") {
    // FLOAT16: 1.0, a subnormal (0x0001), NaN (0x7E00), -Inf (0xFC00), -0.
    const std::string h = {0x00, 0x3C, 0x01, 0x00, 0x00, 0x7E, 0x00, static_cast<char>(0xFC), 0x00, static_cast<char>(0x80)};
    const value_stats s = stats_of(raw_tensor(10, 5, h));
    CHECK(s.subnormal == 1);
    CHECK(s.nan == 1);
    CHECK(s.neg_inf == 1);
    CHECK(s.zeros == 1);
    CHECK(s.max == 1.0);
    CHECK(s.fp16_overflow == 0);  // FLOAT and DOUBLE only
    // FLOAT8E4M3FN: 0x7F is NaN, 0x01 the smallest subnormal, 0x7E is 448.
    const value_stats e = stats_of(raw_tensor(17, 3, std::string{0x7F, 0x01, 0x7E}));
    CHECK(e.nan == 1);
    CHECK(e.subnormal == 1);
    CHECK(e.max == 448.0);
}

TEST_CASE("stats: histograms count every finite value, the last bin closed") {
    std::vector<float> v;
    for (int i = 0; i <= 10; ++i) v.push_back(static_cast<float>(i));
    v.push_back(std::numeric_limits<float>::infinity());
    const value_stats s = stats_of(raw_tensor(1, v.size(), raw_floats(v)), 5);
    REQUIRE(s.histogram.size() == 5);
    // Bins [0,2) [2,4) [4,6) [6,8) [8,10]: 2, 2, 2, 2, 3.
    CHECK(s.histogram == std::vector<std::uint64_t>{2, 2, 2, 2, 3});
    const value_stats one = stats_of(raw_tensor(1, 3, raw_floats({4, 4, 4})), 3);
    CHECK(one.histogram == std::vector<std::uint64_t>{0, 3, 0});  // [3.5, 4.5] in thirds
}

TEST_CASE("stats: same_values compares values whatever the storage") {
    const std::string raw = raw_tensor(6, 2, std::string("\x01\x00\x00\x00\xff\xff\xff\xff", 8));  // INT32 1, -1
    wire_builder typed;
    typed.field_varint(dims_field, 2).field_varint(type_field, 6).field_varint(int32_data, 1).field_int32(int32_data, -1);
    wire_builder other;
    other.field_varint(dims_field, 2).field_varint(type_field, 6).field_varint(int32_data, 1).field_varint(int32_data, 2);
    const auto data = [](const std::string& b) {
        return *tensor_data::make(parse_tensor(b.data(), b.size()));
    };
    CHECK(same_values(data(raw), data(typed.str())));
    CHECK_FALSE(same_values(data(raw), data(other.str())));
}

TEST_CASE("stats: every numeric code has a name, a description and its severity") {
    for (std::size_t i = 0; i < numeric_code_count; ++i) {
        const auto c = static_cast<numeric_code>(i);
        CHECK(std::string(numeric_code_name(c)) != "unknown");
        CHECK(std::string(numeric_code_description(c)).size() > 10);
    }
    CHECK(numeric_code_severity(numeric_code::non_finite) == numeric_severity::error);
    CHECK(numeric_code_severity(numeric_code::subnormal) == numeric_severity::warning);
    CHECK(numeric_code_severity(numeric_code::duplicate) == numeric_severity::info);
    CHECK(std::string(numeric_code_name(static_cast<numeric_code>(200))) == "unknown");
}

TEST_CASE("stats: every version of the FLOAT block loop gives the portable one's counts and bits") {
    using namespace onnxview::detail;
    const float specials[] = {0.0f, -0.0f, 1e-40f, -3e-39f, 2.9e-8f, 3.0e-8f, 6.1e-5f, 65504.0f, 65505.0f,
                              -70000.0f, 3.3895e38f, 3.3896e38f, std::numeric_limits<float>::infinity(),
                              std::numeric_limits<float>::quiet_NaN()};
    // Every 17th value one of the specials: the first 12 (finite), or all 14.
    for (int kinds : {12, 14}) {
        std::vector<float> v;
        for (int i = 0; i < 1021; ++i)
            v.push_back(i % 17 == 0 ? specials[(i / 17) % kinds] : static_cast<float>(std::cos(i * 0.1) * (i % 5 + 1)));
        const std::string bytes = raw_floats(v);
        const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
        // Odd lengths leave a tail to every version.
        for (std::size_t n : {std::size_t(1021), std::size_t(1016), std::size_t(7)}) {
            float_block_counts want;
            lane_sums want_sums;
            REQUIRE(count_float_block_as(float_block_version::portable, p, n, v[0], want, want_sums));
            if (n == 1021) CHECK((want.special != 0) == (kinds == 14));
            for (float_block_version version : {float_block_version::sse2, float_block_version::avx2}) {
                float_block_counts got;
                lane_sums sums;
                if (!count_float_block_as(version, p, n, v[0], got, sums)) continue;  // not in this build or processor
                INFO("version " << int(version) << ", n " << n << ", kinds " << kinds);
                CHECK(std::memcmp(&got, &want, sizeof got) == 0);
                if (want.special == 0) {  // the sums are valid only then
                    CHECK(std::memcmp(sums.s1, want_sums.s1, sizeof sums.s1) == 0);
                    CHECK(std::memcmp(sums.s2, want_sums.s2, sizeof sums.s2) == 0);
                    CHECK(sums.min == want_sums.min);
                    CHECK(sums.max == want_sums.max);
                }
            }
        }
    }
}

TEST_CASE("stats: a large mapped FLOAT weight counted by two threads gives the numbers of one") {
    // 1.25 M values (5 MB, past a 16 MiB chunk's half and not a whole
    // number of blocks), NaN, Inf and subnormals in both halves.
    std::vector<float> v(1250003);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(std::sin(i * 0.001) * 3.0 + 0.25);
    for (std::size_t i : {std::size_t(17), std::size_t(700001)}) v[i] = std::numeric_limits<float>::quiet_NaN();
    v[900000] = -std::numeric_limits<float>::infinity();
    v[5] = v[1200000] = 1e-41f;
    v[1000] = v[1249999] = 0.0f;
    const std::string tensor = raw_tensor(1, v.size(), raw_floats(v));
    wire_builder graph, model;
    graph.field_bytes(1, wire_builder().field_varint(1, 0).str());  // a node, for a graph that is not empty
    graph.field_message(5, wire_builder().raw(tensor));              // GraphProto.initializer
    model.field_varint(1, 8).field_message(7, graph);                // ir_version, graph
    const std::string path = "/tmp/onnxview-stats-split-" + std::to_string(std::rand()) + ".onnx";
    {
        std::FILE* f = std::fopen(path.c_str(), "wb");
        REQUIRE(f != nullptr);
        std::fwrite(model.str().data(), 1, model.str().size(), f);
        std::fclose(f);
    }
    result<model_file> mf = model_file::open(path.c_str(), stats_file_options());
    REQUIRE(mf.ok());
    struct seen {
        std::vector<value_stats> all;
    } got;
    const result<model_stats_totals> totals = model_stats(mf.value(), {}, [](void* user, const tensor_stats& t) {
        static_cast<seen*>(user)->all.push_back(t.values);
    }, &got);
    std::remove(path.c_str());
    REQUIRE(totals.ok());
    REQUIRE(got.all.size() == 1);
    const value_stats& two = got.all[0];
    const value_stats one = stats_of(tensor);  // one thread, from the heap
    CHECK(two.values == v.size());
    CHECK(two.nan == 2);
    CHECK(two.neg_inf == 1);
    CHECK(two.subnormal == one.subnormal);
    CHECK(two.subnormal == 2);
    CHECK(two.zeros == one.zeros);
    CHECK(two.fp16_underflow == one.fp16_underflow);
    CHECK(two.fp16_subnormal == one.fp16_subnormal);
    CHECK(bits_of(two.mean) == bits_of(one.mean));
    CHECK(bits_of(two.std) == bits_of(one.std));
    CHECK(two.min == one.min);
    CHECK(two.max == one.max);
}
