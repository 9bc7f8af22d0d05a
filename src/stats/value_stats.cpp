// The statistics of one tensor's values (compute_value_stats, onnxview/stats.hpp).
//
// The payload is read in raw_data layout, a piece at a time, and decoded by
// a kernel per format. The FLOAT kernel, the one that carries the speed
// target (docs/stats.md), classifies and sums a block of bit patterns in one
// SIMD pass (float_block.cpp), and a large mapped FLOAT payload is counted
// by two threads, half of each chunk each (count_split). Other formats
// decode one value at a time.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <vector>

#include "onnxview/float_formats.hpp"
#include "float_block.hpp"
#include "helper_thread.hpp"
#include "value_stats_internal.hpp"
#include "onnxview/stats.hpp"

namespace onnxview {
namespace {

constexpr double no_value = std::numeric_limits<double>::quiet_NaN();

// Each block's mean and squared deviations are merged into the running ones
// (Chan, Golub and LeVeque): as accurate as two passes, in one.
using detail::block_values;
using detail::block_moments;

// Raw and external payloads are read this much at a time (a multiple of 16,
// so that no element straddles two pieces); the pages of each piece are
// given back once it is counted.
constexpr std::size_t piece_bytes = std::size_t(256) << 10;

// A mapped FLOAT payload at least this large is counted by two threads,
// each half of every chunk of this size.
constexpr std::size_t split_chunk_bytes = std::size_t(16) << 20;

template <class U>
U load_le(const unsigned char* p) noexcept {
    U v;
    std::memcpy(&v, p, sizeof v);
    if (!host_is_little_endian) {
        U r = 0;
        for (unsigned i = 0; i < sizeof v; ++i) r = static_cast<U>((r << 8) | p[sizeof v - 1 - i]);
        v = r;
    }
    return v;
}

// The same in long double, for blocks whose squares would overflow a double
// (values beyond about 2^500), where the platform's long double is wider.
block_moments wide_moments_of(const double* v, unsigned n) noexcept {
    long double sum = 0, dev = 0;
    double lo = v[0], hi = v[0];
    for (unsigned i = 0; i < n; ++i) {
        sum += v[i];
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
    }
    const long double mean = sum / n;
    for (unsigned i = 0; i < n; ++i) dev += (v[i] - mean) * (v[i] - mean);
    return {mean, dev, lo, hi};
}

// The running mean, squared deviations, min and max of finite values: whole
// blocks of FLOAT values as count_float_values gives them (merge), other
// values through a buffer of block_values values (add). Blocks never depend
// on the pieces a payload comes in, so the results depend on the values alone.
class moments {
public:
    void add(double x) noexcept {
        block_[fill_++] = x;
        if (fill_ == block_values) flush();
    }
    void flush() noexcept {
        if (fill_ == 0) return;
        const unsigned n = fill_;
        fill_ = 0;
        detail::lane_sums l;
        detail::sum_double_block(block_, n, block_[0], l);
        block_moments b = detail::moments_of(l, block_[0], n);
        if (!std::isfinite(static_cast<double>(b.m2)) || !std::isfinite(static_cast<double>(b.mean)))
            b = wide_moments_of(block_, n);
        merge(b, n);
    }
    void finish(value_stats& s) noexcept {
        flush();
        if (count_ == 0) {
            s.min = s.max = s.mean = s.std = no_value;
            return;
        }
        s.min = min_;
        s.max = max_;
        s.mean = static_cast<double>(mean_);
        s.std = static_cast<double>(std::sqrt(m2_ / static_cast<long double>(count_)));
    }

    // Chan, Golub and LeVeque's merge of a block of n values into the
    // running moments.
    void merge(const block_moments& b, std::uint64_t n) noexcept {
        if (n == 0) return;
        if (count_ == 0) {
            mean_ = b.mean;
            m2_ = b.m2;
            min_ = b.min;
            max_ = b.max;
        } else {
            const long double total = static_cast<long double>(count_ + n);
            const long double delta = b.mean - mean_;
            mean_ += delta * (n / total);
            m2_ += b.m2 + delta * delta * (static_cast<long double>(count_) * n / total);
            min_ = b.min < min_ ? b.min : min_;
            max_ = b.max > max_ ? b.max : max_;
        }
        count_ += n;
    }

private:
    double block_[block_values];
    unsigned fill_ = 0;
    std::uint64_t count_ = 0;
    long double mean_ = 0, m2_ = 0;  // merged once a block: long double costs nothing here
    double min_ = 0, max_ = 0;
};

// fp16 and bf16 limits as binary32 and binary64 magnitudes.
constexpr double fp16_max = 65504.0;
constexpr double fp16_zero_below = 2.98023223876953125e-08;  // 2^-25: at most this rounds to 0
constexpr double fp16_min_normal = 6.103515625e-05;          // 2^-14
constexpr double bf16_max = 3.3895313892515355e38;

struct kernel_base {
    value_stats& s;
    moments& m;
    std::uint64_t left;  // elements not yet counted (the last byte of a sub-byte payload may pad)
};

// Counts what converting a finite value would lose (FLOAT and DOUBLE).
inline void conversion_counts(value_stats& s, double a) noexcept {
    if (a > fp16_max) ++s.fp16_overflow;
    if (a > bf16_max) ++s.bf16_overflow;
    if (a > 0 && a <= fp16_zero_below) ++s.fp16_underflow;
    if (a > fp16_zero_below && a < fp16_min_normal) ++s.fp16_subnormal;
}

// FLOAT (and COMPLEX64's parts): blocks of block_values values by their
// index, each counted by count_float_values, straight from the payload when
// a piece holds it whole, else gathered first.
struct float_kernel : kernel_base {
    bool conversions = true;
    unsigned char staged[4 * block_values] = {};
    unsigned staged_values = 0;

    void add(const detail::float_block_result& r) noexcept {
        s.zeros += r.zeros;
        s.subnormal += r.subnormal;
        s.nan += r.nan;
        s.pos_inf += r.pos_inf;
        s.neg_inf += r.neg_inf;
        if (conversions) {
            s.fp16_overflow += r.fp16_overflow;
            s.fp16_underflow += r.fp16_underflow;
            s.fp16_subnormal += r.fp16_subnormal;
            s.bf16_overflow += r.bf16_overflow;
        }
        m.merge(r.moments, r.finite);
    }
    void run(const unsigned char* p, std::size_t n) noexcept {
        while (n >= 4 && left > 0) {
            const std::uint64_t block = std::min<std::uint64_t>(left + staged_values, block_values);
            if (staged_values == 0 && n / 4 >= block) {  // a whole block in this piece
                add(detail::count_float_values(p, static_cast<std::size_t>(block)));
                p += 4 * block;
                n -= 4 * static_cast<std::size_t>(block);
                left -= block;
                continue;
            }
            const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(n / 4, block - staged_values));
            std::memcpy(staged + 4 * staged_values, p, 4 * take);
            staged_values += static_cast<unsigned>(take);
            p += 4 * take;
            n -= 4 * take;
            left -= take;
            if (staged_values == block) {
                add(detail::count_float_values(staged, staged_values));
                staged_values = 0;
            }
        }
    }
};

// DOUBLE (and COMPLEX128's parts).
struct double_kernel : kernel_base {
    bool conversions = true;
    void run(const unsigned char* p, std::size_t n) noexcept {
        for (; n >= 8 && left > 0; p += 8, n -= 8, --left) {
            const std::uint64_t b = load_le<std::uint64_t>(p);
            const std::uint64_t a = b & 0x7FFFFFFFFFFFFFFFu;
            if (a >= 0x7FF0000000000000u) {
                if (a > 0x7FF0000000000000u) ++s.nan;
                else ++(b >> 63 ? s.neg_inf : s.pos_inf);
                continue;
            }
            double x;
            std::memcpy(&x, &b, 8);
            if (a == 0) ++s.zeros;
            else if (a < 0x0010000000000000u) ++s.subnormal;
            if (conversions) conversion_counts(s, std::fabs(x));
            m.add(x);
        }
    }
};

// One value of a narrow float: its number and its class in its own format.
struct narrow_value {
    float value;
    bool subnormal;
};

// The narrow formats (FLOAT16, BFLOAT16, the 8-bit and 4-bit floats): each
// pattern decoded (float_formats.hpp) and classified by its exponent field.
struct narrow_kernel : kernel_base {
    std::int32_t type;
    unsigned bits;       // 16, 8 or 4
    unsigned exp_bits;   // width of the exponent field
    unsigned man_bits;   // width of the mantissa field

    narrow_value decode(std::uint32_t pattern) const noexcept {
        float v = 0;
        narrow_float_to_float(type, pattern, v);
        const std::uint32_t exp = (pattern >> man_bits) & ((1u << exp_bits) - 1);
        const std::uint32_t man = pattern & ((1u << man_bits) - 1);
        return {v, man_bits != 0 && exp == 0 && man != 0 && std::isfinite(v)};
    }
    void add(std::uint32_t pattern) noexcept {
        const narrow_value d = decode(pattern);
        if (std::isnan(d.value)) {
            ++s.nan;
        } else if (std::isinf(d.value)) {
            ++(d.value < 0 ? s.neg_inf : s.pos_inf);
        } else {
            if (d.value == 0) ++s.zeros;
            if (d.subnormal) ++s.subnormal;
            m.add(d.value);
        }
    }
    void run(const unsigned char* p, std::size_t n) noexcept {
        if (bits == 16) {
            for (; n >= 2 && left > 0; p += 2, n -= 2, --left) add(load_le<std::uint16_t>(p));
        } else if (bits == 8) {
            for (; n >= 1 && left > 0; ++p, --n, --left) add(*p);
        } else {
            for (; n >= 1 && left > 0; ++p, --n) {
                add(*p & 0x0Fu);
                if (--left > 0) add(*p >> 4), --left;
            }
        }
    }
};

// Integers and BOOL: exact min and max, every value finite.
struct integer_kernel : kernel_base {
    const data_type_info& info;
    bool first = true;

    void add_signed(std::int64_t v) noexcept {
        if (first) s.min_i = s.max_i = v, first = false;
        s.min_i = v < s.min_i ? v : s.min_i;
        s.max_i = v > s.max_i ? v : s.max_i;
        s.zeros += v == 0;
        m.add(static_cast<double>(v));
    }
    void add_unsigned(std::uint64_t v) noexcept {
        if (first) s.min_u = s.max_u = v, first = false;
        s.min_u = v < s.min_u ? v : s.min_u;
        s.max_u = v > s.max_u ? v : s.max_u;
        s.zeros += v == 0;
        m.add(static_cast<double>(v));
    }
    void run(const unsigned char* p, std::size_t n) noexcept {
        const bool is_signed = info.kind == element_kind::signed_int;
        if (info.sub_byte()) {
            const unsigned b = info.bits, per = info.elements_per_entry, mask = (1u << b) - 1;
            for (; n >= 1 && left > 0; ++p, --n)
                for (unsigned k = 0; k < per && left > 0; ++k, --left) {
                    const unsigned u = (*p >> (k * b)) & mask;
                    if (is_signed) add_signed(u & (1u << (b - 1)) ? static_cast<std::int64_t>(u) - (1 << b) : u);
                    else add_signed(u);
                }
            return;
        }
        const unsigned w = info.bits / 8;
        for (; n >= w && left > 0; p += w, n -= w, --left) {
            switch (info.natural) {
                case natural_type::boolean:
                case natural_type::u8: add_signed(*p); break;
                case natural_type::i8: add_signed(static_cast<std::int8_t>(*p)); break;
                case natural_type::u16: add_signed(load_le<std::uint16_t>(p)); break;
                case natural_type::i16: add_signed(static_cast<std::int16_t>(load_le<std::uint16_t>(p))); break;
                case natural_type::u32: add_signed(load_le<std::uint32_t>(p)); break;
                case natural_type::i32: add_signed(static_cast<std::int32_t>(load_le<std::uint32_t>(p))); break;
                case natural_type::i64: add_signed(static_cast<std::int64_t>(load_le<std::uint64_t>(p))); break;
                case natural_type::u64: add_unsigned(load_le<std::uint64_t>(p)); break;
                default: return;
            }
        }
    }
};

// Exponent and mantissa widths of the narrow floats (float_formats.hpp).
void narrow_layout(std::int32_t type, unsigned& bits, unsigned& exp_bits, unsigned& man_bits) noexcept {
    switch (type) {
        case 10: bits = 16, exp_bits = 5, man_bits = 10; return;                 // FLOAT16
        case 16: bits = 16, exp_bits = 8, man_bits = 7; return;                  // BFLOAT16
        case 17: case 18: bits = 8, exp_bits = 4, man_bits = 3; return;          // FLOAT8E4M3FN, FNUZ
        case 19: case 20: bits = 8, exp_bits = 5, man_bits = 2; return;          // FLOAT8E5M2, FNUZ
        case 24: bits = 8, exp_bits = 8, man_bits = 0; return;                   // FLOAT8E8M0
        default: bits = 4, exp_bits = 2, man_bits = 1; return;                   // FLOAT4E2M1
    }
}

// Feeds raw-layout bytes to the kernel of `info`'s format.
class value_reader {
public:
    value_reader(const data_type_info& info, value_stats& s, moments& m, std::uint64_t elements) noexcept
        : info_(info), f_{{s, m, elements}}, d_{{s, m, elements}}, n_{{s, m, elements}, info.type, 0, 0, 0},
          i_{{s, m, elements}, info} {
        const bool complex = info.kind == element_kind::complex;
        f_.conversions = d_.conversions = !complex;
        if (complex) f_.left = d_.left = 2 * elements;
        narrow_layout(info.type, n_.bits, n_.exp_bits, n_.man_bits);
    }
    // The FLOAT kernel, for count_split (FLOAT and COMPLEX64 only).
    float_kernel& floats() noexcept { return f_; }
    void feed(const char* data, std::size_t size) noexcept {
        const auto* p = reinterpret_cast<const unsigned char*>(data);
        switch (info_.kind) {
            case element_kind::ieee_float:
            case element_kind::complex:
                if (info_.part_bits() == 32) f_.run(p, size);
                else d_.run(p, size);
                return;
            case element_kind::narrow_float: n_.run(p, size); return;
            case element_kind::signed_int:
            case element_kind::unsigned_int:
            case element_kind::boolean: i_.run(p, size); return;
            case element_kind::string: return;
        }
    }

private:
    const data_type_info& info_;
    float_kernel f_;
    double_kernel d_;
    narrow_kernel n_;
    integer_kernel i_;
};

// numpy.histogram's bins: edges low + k (high - low) / bins, a value's bin
// found by scaling and then corrected against the edges, the last bin
// closed; low == high counts everything into the middle of [low - .5, high + .5].
class histogram_counter {
public:
    histogram_counter(std::vector<std::uint64_t>& counts, double low, double high, bool float32) : counts_(counts) {
        const std::size_t bins = counts.size();
        if (low == high) low -= 0.5, high += 0.5;
        edges_.resize(bins + 1);
        // A range wider than the largest double (-1e300 to 1e308) is
        // measured in halves, exactly (a power of two).
        half_ = !std::isfinite(high - low);
        const double scale = half_ ? 0.5 : 1.0;
        const double step = (high * scale - low * scale) / static_cast<double>(bins);
        for (std::size_t k = 0; k <= bins; ++k) {
            double e = k == bins ? high : (low * scale + static_cast<double>(k) * step) / scale;
            if (float32) e = static_cast<float>(e);
            edges_[k] = e;
        }
        low_ = low * scale;
        norm_ = static_cast<double>(bins) / (high * scale - low * scale);
    }
    void add(double x) {
        const std::size_t bins = counts_.size();
        if (x < edges_.front() || x > edges_.back()) return;
        const double f = ((half_ ? x * 0.5 : x) - low_) * norm_;
        std::size_t k = f > 0 ? static_cast<std::size_t>(f) : 0;
        if (k >= bins) k = bins - 1;
        if (k > 0 && x < edges_[k]) --k;
        if (k + 1 < bins && x >= edges_[k + 1]) ++k;
        ++counts_[k];
    }

private:
    std::vector<std::uint64_t>& counts_;
    std::vector<double> edges_;
    double low_ = 0, norm_ = 1;
    bool half_ = false;
};

// Every finite value of `d` into the histogram (the second pass), through
// scalars<double>(): exact for every type, one value at a time.
error fill_histogram(const tensor_data& d, histogram_counter& h) {
    const scalar_range<double> r = d.scalars<double>();
    if (!r.ok()) return r.err();
    for (double x : r)
        if (std::isfinite(x)) h.add(x);
    return r.err();
}

struct piece_reader {
    value_reader& reader;
    const value_stats_options& opts;
};

error read_pieces(void* user, const char* data, std::size_t size) noexcept {
    const piece_reader& r = *static_cast<const piece_reader*>(user);
    for (std::size_t done = 0; done < size;) {
        const std::size_t n = std::min(piece_bytes, size - done);
        r.reader.feed(data + done, n);
        if (r.opts.piece_done != nullptr) r.opts.piece_done(r.opts.user, data + done, n);
        done += n;
    }
    return error();
}

// The helper's half of a chunk: blocks [first, last) of the payload at p
// (values in all), counted into results.
struct half_chunk {
    const unsigned char* p;
    std::uint64_t values, first, last;
    std::vector<detail::float_block_result>* results;
};

void count_blocks(const half_chunk& h, float_kernel* into) noexcept {
    for (std::uint64_t b = h.first; b < h.last; ++b) {
        const std::uint64_t begin = b * block_values;
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(block_values, h.values - begin));
        const detail::float_block_result r = detail::count_float_values(h.p + 4 * begin, n);
        if (into != nullptr) into->add(r);
        else h.results->push_back(r);
    }
}

void count_helper_half(void* arg) { count_blocks(*static_cast<half_chunk*>(arg), nullptr); }

// A FLOAT (or COMPLEX64) payload of `values` values at p, in chunks of
// split_chunk_bytes: the helper counts the second half of each chunk's
// blocks while this thread counts the first, then the helper's results are
// added in block order, so the numbers are those of one thread. Each
// thread takes the page faults of its half.
void count_split(const unsigned char* p, std::uint64_t values, float_kernel& k, detail::helper_thread& helper,
                 const value_stats_options& opts) {
    const std::uint64_t blocks = (values + block_values - 1) / block_values;
    const std::uint64_t chunk_blocks = split_chunk_bytes / (4 * block_values);
    std::vector<detail::float_block_result> theirs;
    theirs.reserve(static_cast<std::size_t>(chunk_blocks / 2 + 1));
    for (std::uint64_t first = 0; first < blocks; first += chunk_blocks) {
        const std::uint64_t last = std::min(blocks, first + chunk_blocks), middle = first + (last - first) / 2;
        theirs.clear();
        half_chunk mine{p, values, first, middle, nullptr}, other{p, values, middle, last, &theirs};
        const bool helped = helper.run(count_helper_half, &other);
        count_blocks(mine, &k);
        if (helped) helper.wait();
        else count_blocks(other, nullptr);
        for (const detail::float_block_result& r : theirs) k.add(r);
        if (opts.piece_done != nullptr) {
            const std::uint64_t begin = 4 * first * block_values, end = std::min(4 * last * block_values, 4 * values);
            opts.piece_done(opts.user, reinterpret_cast<const char*>(p + begin), static_cast<std::size_t>(end - begin));
        }
    }
    k.left = 0;
}

}  // namespace

result<value_stats> count_values(const tensor_data& d, const value_stats_options& opts,
                                 detail::helper_thread* helper) noexcept {
    value_stats s;
    s.elements = d.size();
    if (d.type() == 0) return error(errc::bad_data_type, d.describe().offset);
    const data_type_info& info = d.info();
    if (info.kind == element_kind::string) {
        s.min = s.max = s.mean = s.std = no_value;
        return s;
    }
    s.values = d.scalar_count();
    s.integral = info.kind == element_kind::signed_int || info.kind == element_kind::unsigned_int ||
                 info.kind == element_kind::boolean;
    s.unsigned64 = info.natural == natural_type::u64;
    std::unique_ptr<moments> m(new (std::nothrow) moments());
    if (!m) return error(errc::out_of_memory);
    value_reader reader(info, s, *m, d.size());
    piece_reader pr{reader, opts};
    const std::string_view bytes = d.bytes();  // raw and external payloads
    const mapped_file* file =
        opts.payload_file != nullptr && !bytes.empty() ? opts.payload_file->file_holding(bytes.data(), bytes.size())
                                                       : nullptr;
    const bool floats = info.part_bits() == 32 &&
                        (info.kind == element_kind::ieee_float || info.kind == element_kind::complex);
    if (helper != nullptr && floats && file != nullptr && file->kind() == mapped_file::storage::mapped &&
        bytes.size() >= 2 * piece_bytes && bytes.size() == 4 * s.values) {
        count_split(reinterpret_cast<const unsigned char*>(bytes.data()), s.values, reader.floats(), *helper, opts);
    } else if (error e = for_each_raw_chunk(d, read_pieces, &pr)) {
        return e;
    }
    m->finish(s);
    s.finite = s.values - s.nan - s.pos_inf - s.neg_inf;
    if (opts.histogram_bins != 0 && s.finite != 0) {
        s.histogram.assign(opts.histogram_bins, 0);
        // numpy computes a float32 array's bin edges in float32.
        const bool float32 = (info.kind == element_kind::ieee_float || info.kind == element_kind::complex) &&
                             info.part_bits() == 32;
        histogram_counter h(s.histogram, s.min, s.max, float32);
        if (error e = fill_histogram(d, h)) return e;
    }
    return s;
}

namespace {

// raw_data and external payloads of types at least a byte wide are already
// in the layout compared; every other payload goes element by element.
bool direct_bytes(const tensor_data& d) noexcept {
    return (d.storage() == storage_kind::raw || d.storage() == storage_kind::external) && !d.info().sub_byte();
}

}  // namespace

result<value_stats> compute_value_stats(const tensor_data& d, const value_stats_options& opts) noexcept {
    return count_values(d, opts, nullptr);
}

bool same_values(const tensor_data& a, const tensor_data& b) noexcept {
    if (a.type() != b.type() || a.size() != b.size()) return false;
    if (direct_bytes(a) && direct_bytes(b)) return a.bytes() == b.bytes();
    element_cursor ca(a), cb(b);
    std::uint64_t alo = 0, ahi = 0, blo = 0, bhi = 0;
    for (;;) {
        const bool more_a = ca.next(alo, ahi), more_b = cb.next(blo, bhi);
        if (more_a != more_b) return false;
        if (!more_a) return true;
        if (alo != blo || ahi != bhi) return false;
    }
}

}  // namespace onnxview
