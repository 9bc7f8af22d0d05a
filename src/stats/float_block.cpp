// The counting loop of FLOAT payloads (float_block.hpp): portable C++,
// SSE2 and AVX2 versions of one computation.
#include "float_block.hpp"

#include <algorithm>
#include <cstring>

// SSE2 on every x86-64; AVX2 where the processor has it, asked through
// GCC's and Clang's cpu model (libgcc's, which Windows builds are left
// without: they keep SSE2).
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define ONNXVIEW_STATS_X86 1
#include <immintrin.h>
#if !defined(_WIN32)
#define ONNXVIEW_STATS_AVX2 1
#endif
#endif

namespace onnxview {
namespace detail {
namespace {

inline std::uint32_t load_le32(const unsigned char* p) noexcept {
    return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
           static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}

inline void classify(std::uint32_t bits, float_block_counts& c) noexcept {
    const std::uint32_t a = bits & 0x7FFFFFFFu;
    c.zero += a == 0;
    c.special += a >= 0x7F800000u;
    c.below_normal += a < 0x00800000u;
    c.to_zero16 += a <= 0x33000000u;
    c.below16 += a < 0x38800000u;
    c.above16 += a > 0x477FE000u;
    c.above_bf16 += a > 0x7F7F0000u;
}

// Adds value x, the i-th of its block, to lane i % 8: the order every
// version keeps.
inline void add_to_lane(lane_sums& s, std::size_t i, double x, double shift) noexcept {
    const double d = x - shift;
    s.s1[i % sum_lanes] += d;
    s.s2[i % sum_lanes] += d * d;
    s.min = x < s.min ? x : s.min;
    s.max = x > s.max ? x : s.max;
}

void count_portable(const unsigned char* p, std::size_t n, double shift, float_block_counts& c,
                    lane_sums& s) noexcept {
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t bits = load_le32(p + 4 * i);
        classify(bits, c);
        float f;
        std::memcpy(&f, &bits, 4);
        add_to_lane(s, i, f, shift);
    }
}

#ifdef ONNXVIEW_STATS_X86

// Sums of 32-bit lanes of -1/0 masks, negated: the count of each.
inline std::uint32_t lane_total(__m128i v) noexcept {
    v = _mm_add_epi32(v, _mm_shuffle_epi32(v, 0x4E));
    v = _mm_add_epi32(v, _mm_shuffle_epi32(v, 0xB1));
    return static_cast<std::uint32_t>(-_mm_cvtsi128_si32(v));
}

// Four patterns a step, two steps a round: classification by signed
// compares (magnitudes are below 2^31), sums in four registers of two lanes
// (lanes 0-1, 2-3, 4-5, 6-7).
void count_sse2(const unsigned char* p, std::size_t n, double shift, float_block_counts& c, lane_sums& s) noexcept {
    const __m128i magnitude = _mm_set1_epi32(0x7FFFFFFF);
    const __m128i zero = _mm_setzero_si128();
    const __m128i special_min = _mm_set1_epi32(0x7F7FFFFF), normal_min = _mm_set1_epi32(0x00800000);
    const __m128i to_zero16_max = _mm_set1_epi32(0x33000001), normal16_min = _mm_set1_epi32(0x38800000);
    const __m128i max16 = _mm_set1_epi32(0x477FE000), max_bf16 = _mm_set1_epi32(0x7F7F0000);
    __m128i nz = zero, nspecial = zero, nbelow = zero, nzero16 = zero, nbelow16 = zero, nabove16 = zero,
            nabovebf = zero;
    const __m128d shift2 = _mm_set1_pd(shift);
    __m128d s1[4], s2[4];
    for (int k = 0; k < 4; ++k) s1[k] = _mm_loadu_pd(s.s1 + 2 * k), s2[k] = _mm_loadu_pd(s.s2 + 2 * k);
    __m128 lo = _mm_set1_ps(static_cast<float>(s.min)), hi = _mm_set1_ps(static_cast<float>(s.max));
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int half = 0; half < 2; ++half) {
            const __m128i bits = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 4 * i + 16 * half));
            const __m128i a = _mm_and_si128(bits, magnitude);
            nz = _mm_add_epi32(nz, _mm_cmpeq_epi32(a, zero));
            nspecial = _mm_add_epi32(nspecial, _mm_cmpgt_epi32(a, special_min));
            nbelow = _mm_add_epi32(nbelow, _mm_cmplt_epi32(a, normal_min));
            nzero16 = _mm_add_epi32(nzero16, _mm_cmplt_epi32(a, to_zero16_max));
            nbelow16 = _mm_add_epi32(nbelow16, _mm_cmplt_epi32(a, normal16_min));
            nabove16 = _mm_add_epi32(nabove16, _mm_cmpgt_epi32(a, max16));
            nabovebf = _mm_add_epi32(nabovebf, _mm_cmpgt_epi32(a, max_bf16));
            const __m128 f = _mm_castsi128_ps(bits);
            const __m128d da = _mm_sub_pd(_mm_cvtps_pd(f), shift2);
            const __m128d db = _mm_sub_pd(_mm_cvtps_pd(_mm_movehl_ps(f, f)), shift2);
            s1[2 * half] = _mm_add_pd(s1[2 * half], da);
            s1[2 * half + 1] = _mm_add_pd(s1[2 * half + 1], db);
            s2[2 * half] = _mm_add_pd(s2[2 * half], _mm_mul_pd(da, da));
            s2[2 * half + 1] = _mm_add_pd(s2[2 * half + 1], _mm_mul_pd(db, db));
            lo = _mm_min_ps(f, lo);
            hi = _mm_max_ps(f, hi);
        }
    c.zero += lane_total(nz);
    c.special += lane_total(nspecial);
    c.below_normal += lane_total(nbelow);
    c.to_zero16 += lane_total(nzero16);
    c.below16 += lane_total(nbelow16);
    c.above16 += lane_total(nabove16);
    c.above_bf16 += lane_total(nabovebf);
    for (int k = 0; k < 4; ++k) _mm_storeu_pd(s.s1 + 2 * k, s1[k]), _mm_storeu_pd(s.s2 + 2 * k, s2[k]);
    float l[4], h[4];
    _mm_storeu_ps(l, lo);
    _mm_storeu_ps(h, hi);
    for (int k = 0; k < 4; ++k) {
        s.min = l[k] < s.min ? l[k] : s.min;
        s.max = h[k] > s.max ? h[k] : s.max;
    }
    count_portable(p + 4 * i, n - i, shift, c, s);  // the tail: i is a multiple of 8, the lanes as i % 8 says
}

#ifdef ONNXVIEW_STATS_AVX2
__attribute__((target("avx2"))) inline std::uint32_t lane_total8(__m256i v) noexcept {
    return lane_total(_mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1)));
}

// The rare classes of a block (subnormals, values that fp16 flushes to
// zero, overflow of fp16 and bf16, NaN and Inf) are counted in a second pass
// over it, taken only when the block's smallest nonzero or largest
// magnitude says one may be there: the first pass then keeps two counters
// and two extremes instead of seven counters, which left the loop short of
// registers.
__attribute__((target("avx2"))) void classify_avx2(const unsigned char* p, std::size_t n,
                                                   float_block_counts& c) noexcept {
    const __m256i magnitude = _mm256_set1_epi32(0x7FFFFFFF);
    const __m256i zero = _mm256_setzero_si256();
    const __m256i special_min = _mm256_set1_epi32(0x7F7FFFFF), normal_min = _mm256_set1_epi32(0x00800000);
    const __m256i to_zero16_max = _mm256_set1_epi32(0x33000001);
    const __m256i max16 = _mm256_set1_epi32(0x477FE000), max_bf16 = _mm256_set1_epi32(0x7F7F0000);
    __m256i nspecial = zero, nbelow = zero, nzero16 = zero, nabove16 = zero, nabovebf = zero;
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256i a =
            _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 4 * i)), magnitude);
        nspecial = _mm256_add_epi32(nspecial, _mm256_cmpgt_epi32(a, special_min));
        nbelow = _mm256_add_epi32(nbelow, _mm256_cmpgt_epi32(normal_min, a));
        nzero16 = _mm256_add_epi32(nzero16, _mm256_cmpgt_epi32(to_zero16_max, a));
        nabove16 = _mm256_add_epi32(nabove16, _mm256_cmpgt_epi32(a, max16));
        nabovebf = _mm256_add_epi32(nabovebf, _mm256_cmpgt_epi32(a, max_bf16));
    }
    c.special = lane_total8(nspecial);
    c.below_normal = lane_total8(nbelow);
    c.to_zero16 = lane_total8(nzero16);
    c.above16 = lane_total8(nabove16);
    c.above_bf16 = lane_total8(nabovebf);
    for (; i < n; ++i) {  // the tail's rare classes (its zeros and below16 are counted already)
        float_block_counts t;
        classify(load_le32(p + 4 * i), t);
        c.special += t.special;
        c.below_normal += t.below_normal;
        c.to_zero16 += t.to_zero16;
        c.above16 += t.above16;
        c.above_bf16 += t.above_bf16;
    }
}

// Eight patterns a round: zeros and magnitudes below 2^-14 counted, the
// smallest nonzero and the largest magnitude kept (the rest is counted by
// classify_avx2 when they say so), the sums of each half in a register of
// four lanes (lanes 0-3, then 4-7).
__attribute__((target("avx2"))) void count_avx2(const unsigned char* p, std::size_t n, double shift,
                                                float_block_counts& c, lane_sums& s) noexcept {
    const __m256i magnitude = _mm256_set1_epi32(0x7FFFFFFF);
    const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi32(1);
    const __m256i normal16_min = _mm256_set1_epi32(0x38800000);
    __m256i nz = zero, nbelow16 = zero;
    __m256i least = _mm256_set1_epi32(-1), most = zero;  // least: min over a - 1, unsigned (0 wraps to the top)
    const __m256d shift4 = _mm256_set1_pd(shift);
    __m256d s1a = _mm256_loadu_pd(s.s1), s1b = _mm256_loadu_pd(s.s1 + 4);
    __m256d s2a = _mm256_loadu_pd(s.s2), s2b = _mm256_loadu_pd(s.s2 + 4);
    __m256 lo = _mm256_set1_ps(static_cast<float>(s.min)), hi = _mm256_set1_ps(static_cast<float>(s.max));
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256i bits = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 4 * i));
        const __m256i a = _mm256_and_si256(bits, magnitude);
        nz = _mm256_add_epi32(nz, _mm256_cmpeq_epi32(a, zero));
        nbelow16 = _mm256_add_epi32(nbelow16, _mm256_cmpgt_epi32(normal16_min, a));
        least = _mm256_min_epu32(least, _mm256_sub_epi32(a, one));
        most = _mm256_max_epi32(most, a);
        const __m256 f = _mm256_castsi256_ps(bits);
        const __m256d da = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(f)), shift4);
        const __m256d db = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)), shift4);
        // Separate multiply and add (no fused multiply-add): the bits of
        // the SSE2 and portable versions.
        s1a = _mm256_add_pd(s1a, da);
        s2a = _mm256_add_pd(s2a, _mm256_mul_pd(da, da));
        s1b = _mm256_add_pd(s1b, db);
        s2b = _mm256_add_pd(s2b, _mm256_mul_pd(db, db));
        lo = _mm256_min_ps(f, lo);
        hi = _mm256_max_ps(f, hi);
    }
    const std::uint32_t zeros = lane_total8(nz), below16 = lane_total8(nbelow16);
    std::uint32_t l32[8], h32[8];
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(l32), least);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(h32), most);
    std::uint32_t smallest = 0xFFFFFFFFu, largest = 0;  // smallest: nonzero magnitude - 1
    for (int k = 0; k < 8; ++k) smallest = std::min(smallest, l32[k]), largest = std::max(largest, h32[k]);
    for (std::size_t t = i; t < n; ++t) {
        const std::uint32_t a = load_le32(p + 4 * t) & 0x7FFFFFFFu;
        smallest = std::min(smallest, a - 1);
        largest = std::max(largest, a);
    }
    _mm256_storeu_pd(s.s1, s1a);
    _mm256_storeu_pd(s.s1 + 4, s1b);
    _mm256_storeu_pd(s.s2, s2a);
    _mm256_storeu_pd(s.s2 + 4, s2b);
    float l[8], h[8];
    _mm256_storeu_ps(l, lo);
    _mm256_storeu_ps(h, hi);
    for (int k = 0; k < 8; ++k) {
        s.min = l[k] < s.min ? l[k] : s.min;
        s.max = h[k] > s.max ? h[k] : s.max;
    }
    // The tail's sums, zeros and below16 in the portable order.
    float_block_counts tail;
    count_portable(p + 4 * i, n - i, shift, tail, s);
    c.zero += zeros + tail.zero;
    c.below16 += below16 + tail.below16;
    if (smallest < 0x33000000u || largest > 0x477FE000u) {
        float_block_counts rare;
        classify_avx2(p, n, rare);
        c.special += rare.special;
        c.below_normal += rare.below_normal;
        c.to_zero16 += rare.to_zero16;
        c.above16 += rare.above16;
        c.above_bf16 += rare.above_bf16;
    } else {
        // Every nonzero magnitude is above 2^-25 and at most 65504: the
        // zeros are all there is below the normal numbers and at or below
        // 2^-25, and nothing is above 65504.
        c.below_normal += zeros + tail.zero;
        c.to_zero16 += zeros + tail.zero;
    }
}

bool has_avx2() noexcept {
    static const bool yes = __builtin_cpu_supports("avx2");
    return yes;
}
#endif  // ONNXVIEW_STATS_AVX2

#endif  // ONNXVIEW_STATS_X86

}  // namespace

void count_float_block(const unsigned char* p, std::size_t n, double shift, float_block_counts& c,
                       lane_sums& s) noexcept {
    s.min = s.max = shift;
#if defined(ONNXVIEW_STATS_AVX2)
    if (has_avx2()) return count_avx2(p, n, shift, c, s);
    return count_sse2(p, n, shift, c, s);
#elif defined(ONNXVIEW_STATS_X86)
    return count_sse2(p, n, shift, c, s);
#else
    count_portable(p, n, shift, c, s);
#endif
}

bool count_float_block_as(float_block_version v, const unsigned char* p, std::size_t n, double shift,
                          float_block_counts& c, lane_sums& s) noexcept {
    s.min = s.max = shift;
    switch (v) {
        case float_block_version::portable: count_portable(p, n, shift, c, s); return true;
#ifdef ONNXVIEW_STATS_X86
        case float_block_version::sse2: count_sse2(p, n, shift, c, s); return true;
#endif
#ifdef ONNXVIEW_STATS_AVX2
        case float_block_version::avx2:
            if (!has_avx2()) return false;
            count_avx2(p, n, shift, c, s);
            return true;
#endif
        default: return false;
    }
}

void sum_double_block(const double* v, std::size_t n, double shift, lane_sums& s) noexcept {
    s.min = s.max = shift;
    for (std::size_t i = 0; i < n; ++i) add_to_lane(s, i, v[i], shift);
}

block_moments moments_of(const lane_sums& l, double shift, std::size_t n) noexcept {
    const double sum = ((l.s1[0] + l.s1[1]) + (l.s1[2] + l.s1[3])) + ((l.s1[4] + l.s1[5]) + (l.s1[6] + l.s1[7]));
    const double squares = ((l.s2[0] + l.s2[1]) + (l.s2[2] + l.s2[3])) + ((l.s2[4] + l.s2[5]) + (l.s2[6] + l.s2[7]));
    const double count = static_cast<double>(n);
    block_moments b;
    b.mean = shift + sum / count;
    b.m2 = squares - sum * (sum / count);
    if (b.m2 < 0) b.m2 = 0;
    b.min = l.min;
    b.max = l.max;
    return b;
}

float_block_result count_float_values(const unsigned char* p, std::size_t n) noexcept {
    float_block_result r;
    if (n == 0) return r;
    float_block_counts c;
    lane_sums l;
    std::uint32_t first = load_le32(p);
    float shift;
    std::memcpy(&shift, &first, 4);
    count_float_block(p, n, shift, c, l);
    r.zeros = c.zero;
    r.subnormal = c.below_normal - c.zero;
    r.fp16_overflow = c.above16 - c.special;
    r.fp16_underflow = c.to_zero16 - c.zero;
    r.fp16_subnormal = c.below16 - c.to_zero16;
    r.bf16_overflow = c.above_bf16 - c.special;
    if (c.special == 0) {
        r.finite = static_cast<std::uint32_t>(n);
        r.moments = moments_of(l, shift, n);
        return r;
    }
    // NaN or Inf: the finite values apart, summed as doubles in their order.
    double finite[block_values];
    std::uint32_t m = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t bits = load_le32(p + 4 * i), a = bits & 0x7FFFFFFFu;
        if (a > 0x7F800000u) {
            ++r.nan;
        } else if (a == 0x7F800000u) {
            ++(bits >> 31 ? r.neg_inf : r.pos_inf);
        } else {
            float f;
            std::memcpy(&f, &bits, 4);
            finite[m++] = f;
        }
    }
    r.finite = m;
    if (m != 0) {
        lane_sums fl;
        sum_double_block(finite, m, finite[0], fl);
        r.moments = moments_of(fl, finite[0], m);
    }
    return r;
}

}  // namespace detail
}  // namespace onnxview
