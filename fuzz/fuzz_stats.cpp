// fuzz/fuzz_stats.cpp - arbitrary bytes read as a model's weights
// (onnxview/stats.hpp): every tensor's statistics and the numeric findings.
//
// The contract checked here: on bytes that verify, model_stats and
// numeric_check return (a depth beyond the limit is the only error) and
// never crash or hang, whatever the tensors claim (dims overflowing, payloads
// of the wrong size, typed entries out of range, quantized operators with any
// inputs and attributes); a tensor that cannot be read is reported so, not
// counted. For every tensor read: values = finite + NaN + Inf, the counters
// within values, min <= mean <= max (up to rounding) when a value is finite,
// a histogram holding every finite value once; the totals are the sums; the
// JSON report is whole and well nested.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.hpp"
#include "onnxview/stats.hpp"
#include "onnxview/verify.hpp"

namespace {

using namespace onnxview;

struct sums {
    model_stats_totals seen;
};

void check_tensor(void* user, const tensor_stats& t) {
    sums& s = *static_cast<sums*>(user);
    ++s.seen.tensors;
    if (t.failure) {
        ++s.seen.unreadable;
        return;
    }
    const value_stats& v = t.values;
    FUZZ_CHECK(v.values == v.finite + v.nan + v.pos_inf + v.neg_inf);
    FUZZ_CHECK(v.zeros <= v.finite && v.subnormal <= v.finite);
    FUZZ_CHECK(v.fp16_overflow <= v.finite && v.fp16_underflow + v.fp16_subnormal <= v.finite);
    if (v.finite != 0 && std::isfinite(v.mean)) {
        const double slack = 1e-9 * (std::fabs(v.min) + std::fabs(v.max));
        FUZZ_CHECK(v.min <= v.max && v.mean >= v.min - slack && v.mean <= v.max + slack);
    }
    if (!v.histogram.empty()) {
        std::uint64_t n = 0;
        for (std::uint64_t c : v.histogram) n += c;
        FUZZ_CHECK(n == v.finite);
    }
    s.seen.elements += v.elements;
    s.seen.values += v.values;
    s.seen.nan += v.nan;
}

void count_finding(void* user, const numeric_finding& f) {
    FUZZ_CHECK(numeric_code_severity(f.code) == f.severity);
    FUZZ_CHECK(!f.path.empty() && !f.message.empty());
    ++*static_cast<std::uint64_t*>(user);
}

void check_json(const std::string& json) {
    fuzz_check_json_nesting(json);
    FUZZ_CHECK(json.size() >= 2 && json.compare(json.size() - 2, 2, "}\n") == 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > (1u << 20)) return 0;
    if (!verify(data, size, schema::msg_ModelProto, options{}).ok()) return 0;
    result<model_file> mf = model_file::adopt_self_contained(mapped_file::from_memory(data, size));
    if (!mf) return 0;
    model_file& model = mf.value();
    sums s;
    model_stats_options opts;
    opts.histogram_bins = 7;
    const result<model_stats_totals> totals = model_stats(model, opts, check_tensor, &s);
    if (!totals) {
        FUZZ_CHECK(totals.err().code == errc::depth_exceeded);
        return 0;
    }
    FUZZ_CHECK(totals->tensors == s.seen.tensors && totals->unreadable == s.seen.unreadable);
    FUZZ_CHECK(totals->values == s.seen.values && totals->nan == s.seen.nan && totals->elements == s.seen.elements);
    std::uint64_t findings = 0;
    const result<numeric_result> n = numeric_check(model, numeric_check_options(), count_finding, &findings);
    FUZZ_CHECK(n.ok());
    FUZZ_CHECK(n->errors + n->warnings + n->infos == findings);
    const result<std::string> json = model_stats_json(model, "fuzz", model_stats_options());
    FUZZ_CHECK(json.ok());
    check_json(*json);
    return 0;
}
