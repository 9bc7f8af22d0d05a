// src/stats/float_block.hpp - the counting loop of FLOAT payloads, the one
// that carries `onnxview stats`' speed (docs/stats.md): a block of
// little-endian binary32 patterns classified and summed in one pass.
//
// Three versions with one result: AVX2 (chosen at run time where the
// processor has it), SSE2 (every x86-64) and portable C++. Sums go into eight
// double lanes, value i into lane i % 8, added in order, so that each
// version gives the same bits, and a block of doubles summed by
// sum_double_block the same bits as the same values read as floats.
#ifndef ONNXVIEW_SRC_STATS_FLOAT_BLOCK_HPP
#define ONNXVIEW_SRC_STATS_FLOAT_BLOCK_HPP

#include <cstddef>
#include <cstdint>

namespace onnxview {
namespace detail {

// Counts of one block, each of the values whose magnitude's bit pattern a
// (sign cleared) is in the range named; the counters the stats report are
// differences of these (float_counts in value_stats.cpp).
struct float_block_counts {
    std::uint32_t zero = 0;         // a == 0
    std::uint32_t special = 0;      // a >= 0x7F800000: NaN or Inf
    std::uint32_t below_normal = 0; // a < 0x00800000 (zeros included)
    std::uint32_t to_zero16 = 0;    // a <= 0x33000000, 2^-25 (zeros included)
    std::uint32_t below16 = 0;      // a < 0x38800000, 2^-14 (zeros included)
    std::uint32_t above16 = 0;      // a > 0x477FE000, 65504 (NaN and Inf included)
    std::uint32_t above_bf16 = 0;   // a > 0x7F7F0000, the largest bf16 (NaN and Inf included)
};

// Shifted sums of a block: lane k holds the values i = k mod 8, less
// `shift`. Eight lanes: two chains of additions in flight per register
// width, where four left the AVX2 loop waiting on its additions.
constexpr std::size_t sum_lanes = 8;
struct lane_sums {
    double s1[sum_lanes] = {0, 0, 0, 0, 0, 0, 0, 0};
    double s2[sum_lanes] = {0, 0, 0, 0, 0, 0, 0, 0};
    double min = 0, max = 0;
};

// Classifies the n patterns at p and sums them (valid when counts.special
// is 0: the sums and min/max of a block holding NaN or Inf are not). n <= 2^24.
void count_float_block(const unsigned char* p, std::size_t n, double shift, float_block_counts& counts,
                       lane_sums& sums) noexcept;

// The versions, for tests that hold each to the portable one.
enum class float_block_version : std::uint8_t { portable, sse2, avx2 };
// count_float_block in that version; false (nothing counted) when this
// build or processor has none.
bool count_float_block_as(float_block_version v, const unsigned char* p, std::size_t n, double shift,
                          float_block_counts& counts, lane_sums& sums) noexcept;

// The same sums over n doubles (the values of a block that came in pieces).
void sum_double_block(const double* v, std::size_t n, double shift, lane_sums& sums) noexcept;

// One block's mean, squared deviations, min and max.
struct block_moments {
    long double mean = 0, m2 = 0;  // long double: a DOUBLE block's squared deviations may pass the largest double
    double min = 0, max = 0;
};

// The moments of n values from their shifted lane sums: the cancellation of
// the sum-of-squares formula is that of the spread about the block's first
// value, not of the magnitude.
block_moments moments_of(const lane_sums& l, double shift, std::size_t n) noexcept;

// Values are taken in blocks of this many, by their index in the tensor: a
// block's moments, and so the results, depend on the values alone, never
// on the pieces a payload comes in or on the thread that counted it.
constexpr unsigned block_values = 1024;

// What one block of FLOAT values gives: its counters (the conversion
// counters for FLOAT only, not for COMPLEX64's parts) and the moments of
// its finite values.
struct float_block_result {
    std::uint32_t zeros = 0, subnormal = 0, nan = 0, pos_inf = 0, neg_inf = 0;
    std::uint32_t fp16_overflow = 0, fp16_underflow = 0, fp16_subnormal = 0, bf16_overflow = 0;
    std::uint32_t finite = 0;
    block_moments moments;
};

// Counts the n <= block_values little-endian FLOATs at p.
float_block_result count_float_values(const unsigned char* p, std::size_t n) noexcept;

}  // namespace detail
}  // namespace onnxview

#endif  // ONNXVIEW_SRC_STATS_FLOAT_BLOCK_HPP
