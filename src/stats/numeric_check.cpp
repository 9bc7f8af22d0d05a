// Numeric findings from every stored tensor's statistics (numeric_check,
// onnxview/stats.hpp); the quantized operators' rules are in quantization.cpp.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "numeric_internal.hpp"

namespace onnxview {

namespace {

struct code_facts {
    const char* name;
    numeric_severity severity;
    const char* description;
};

constexpr code_facts facts[] = {
    {"non_finite", numeric_severity::error, "NaN or infinite values in a weight"},
    {"fp16_overflow", numeric_severity::warning, "values beyond fp16's range (|x| > 65504): a conversion to fp16 clamps them or makes them infinite"},
    {"bf16_overflow", numeric_severity::warning, "values beyond bf16's range (|x| > 3.39e38): a conversion to bf16 makes them infinite"},
    {"fp16_underflow", numeric_severity::warning, "nonzero values that become 0 in fp16 (|x| <= 2^-25)"},
    {"subnormal", numeric_severity::warning, "subnormal values: a slow path on many processors"},
    {"all_zero", numeric_severity::info, "a tensor whose values are all 0"},
    {"constant", numeric_severity::info, "a tensor whose values are all the same nonzero number"},
    {"duplicate", numeric_severity::info, "a tensor with the same data type, dims and values as an earlier one"},
    {"quant_scale", numeric_severity::error, "a quantization scale that is not a positive normal finite number"},
    {"quant_zero_point", numeric_severity::error, "a quantization zero point outside its data type's range"},
    {"quant_shape", numeric_severity::error, "a scale or zero point whose shape does not fit its input, axis and block_size"},
    {"packing", numeric_severity::error, "packed sub-byte data of the wrong size"},
    {"unreadable", numeric_severity::warning, "a tensor whose values could not be read (not checked)"},
};
static_assert(sizeof(facts) / sizeof(facts[0]) == numeric_code_count, "one row per numeric_code");

// Types whose all-zero or constant tensors are worth a word: floats and the
// narrow integers weights are quantized to (wider integers hold shapes and
// indices, where repeated values are normal).
bool weight_like(const data_type_info& info) noexcept {
    switch (info.kind) {
        case element_kind::ieee_float:
        case element_kind::narrow_float:
        case element_kind::complex: return true;
        case element_kind::signed_int:
        case element_kind::unsigned_int: return info.bits <= 16;
        default: return false;
    }
}

// Types whose subnormals the subnormal finding reports.
bool subnormal_checked(std::int32_t type) noexcept {
    return type == 1 || type == 11 || type == 10 || type == 16;  // FLOAT, DOUBLE, FLOAT16, BFLOAT16
}

// What identical payloads share: equal fingerprints are compared value by value.
struct fingerprint {
    std::int32_t type;
    std::vector<std::int64_t> dims;
    std::uint64_t words[9];
    bool operator==(const fingerprint& o) const noexcept {
        return type == o.type && dims == o.dims && std::memcmp(words, o.words, sizeof words) == 0;
    }
};
struct fingerprint_hash {
    std::size_t operator()(const fingerprint& f) const noexcept {
        std::uint64_t h = static_cast<std::uint64_t>(f.type);
        for (std::int64_t d : f.dims) h = (h ^ static_cast<std::uint64_t>(d)) * 0x9E3779B97F4A7C15u;
        for (std::uint64_t w : f.words) h = (h ^ w) * 0x9E3779B97F4A7C15u;
        return static_cast<std::size_t>(h ^ (h >> 29));
    }
};

std::uint64_t bits_of(double x) noexcept {
    std::uint64_t b;
    std::memcpy(&b, &x, 8);
    return b;
}

fingerprint fingerprint_of(const tensor_stats& t) {
    const value_stats& v = t.values;
    return {t.data_type,
            t.dims,
            {v.zeros, v.nan, v.pos_inf + (v.neg_inf << 32), bits_of(v.min), bits_of(v.max), bits_of(v.mean),
             bits_of(v.std), static_cast<std::uint64_t>(v.min_i) ^ v.min_u, static_cast<std::uint64_t>(v.max_i) ^ v.max_u}};
}

struct earlier_tensor {
    tensor_view tensor;
    std::string label;  // "'w' (graph.initializer[0])"
};

std::uint64_t element_count_of(const std::vector<std::int64_t>& dims) {
    std::uint64_t n = 1;
    for (std::int64_t d : dims) n *= d < 0 ? 0 : static_cast<std::uint64_t>(d);
    return n;
}

std::string count_of(std::uint64_t n, std::uint64_t of) {
    return std::to_string(n) + " of " + std::to_string(of) + (of == 1 ? " value" : " values");
}

std::string number(double x) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.9g", x);
    return buf;
}

struct checking {
    model_file& mf;
    const numeric_check_options& opts;
    numeric_reporter& out;
    std::unordered_map<fingerprint, std::vector<earlier_tensor>, fingerprint_hash> seen;

    void tensor(const tensor_stats& t) {
        const std::string path = t.path + " " + quoted(t.name);
        const finding_place at{path, t.name, t.offset};
        const data_type_info* info = find_data_type_info(t.data_type);
        if (t.failure && info != nullptr && info->sub_byte() && t.failure.code == errc::payload_size_mismatch &&
            t.where.tensor.has_raw_data()) {
            const std::uint64_t elements = element_count_of(t.dims);
            out.report(numeric_code::packing, at,
                       std::string(info->name) + " payload of " + std::to_string(t.where.tensor.raw_data().size()) +
                           " bytes for " + std::to_string(elements) + " elements: expected " +
                           std::to_string((elements + info->elements_per_entry - 1) / info->elements_per_entry),
                       0, false);
            return;
        }
        if (t.failure) {
            out.report(numeric_code::unreadable, at,
                       std::string("values not checked: ") + errc_message(t.failure.code), 0, false);
            return;
        }
        const value_stats& v = t.values;
        if (info == nullptr || info->kind == element_kind::string || v.values == 0) return;
        if (const std::uint64_t bad = v.nan + v.pos_inf + v.neg_inf)
            out.report(numeric_code::non_finite, at,
                       count_of(bad, v.values) + " are not finite (" + std::to_string(v.nan) + " NaN, " +
                           std::to_string(v.pos_inf) + " +Inf, " + std::to_string(v.neg_inf) + " -Inf)",
                       bad, true);
        if (v.fp16_overflow != 0)
            out.report(numeric_code::fp16_overflow, at,
                       count_of(v.fp16_overflow, v.values) + " overflow fp16 (|x| > 65504; min " + number(v.min) +
                           ", max " + number(v.max) + ")",
                       v.fp16_overflow, true);
        if (v.bf16_overflow != 0)
            out.report(numeric_code::bf16_overflow, at,
                       count_of(v.bf16_overflow, v.values) + " overflow bf16 (|x| > 3.3895e38)", v.bf16_overflow, true);
        if (v.fp16_underflow != 0)
            out.report(numeric_code::fp16_underflow, at,
                       count_of(v.fp16_underflow, v.values) + " are nonzero and become 0 in fp16 (|x| <= 2^-25)",
                       v.fp16_underflow, true);
        if (v.subnormal != 0 && subnormal_checked(t.data_type))
            out.report(numeric_code::subnormal, at,
                       count_of(v.subnormal, v.values) + " are subnormal " + info->name + " numbers", v.subnormal, true);
        if (weight_like(*info) && v.values >= opts.min_values_constant && v.finite == v.values) {
            if (v.zeros == v.values)
                out.report(numeric_code::all_zero, at, "all " + std::to_string(v.values) + " values are 0", v.values, true);
            else if (v.min == v.max)
                out.report(numeric_code::constant, at,
                           "all " + std::to_string(v.values) + " values are " + number(v.min), v.values, true);
        }
        if (v.values >= opts.min_values_duplicate) duplicate(t, at);
    }

    // Reports `t` when an earlier tensor holds the same values.
    void duplicate(const tensor_stats& t, const finding_place& at) {
        std::vector<earlier_tensor>& same = seen[fingerprint_of(t)];
        if (!same.empty()) {
            result<tensor_data> mine = mf.tensor(t.where.tensor);
            for (const earlier_tensor& e : same) {
                result<tensor_data> theirs = mf.tensor(e.tensor);
                if (mine && theirs && same_values(*mine, *theirs)) {
                    out.report(numeric_code::duplicate, at, "the same data type, dims and values as " + e.label, 0, false);
                    return;
                }
            }
        }
        same.push_back({t.where.tensor, quoted(t.name) + " (" + t.path + ")"});
    }
};

void on_tensor(void* user, const tensor_stats& t) { static_cast<checking*>(user)->tensor(t); }

}  // namespace

const char* numeric_code_name(numeric_code code) noexcept {
    const auto i = static_cast<std::size_t>(code);
    return i < numeric_code_count ? facts[i].name : "unknown";
}

const char* numeric_code_description(numeric_code code) noexcept {
    const auto i = static_cast<std::size_t>(code);
    return i < numeric_code_count ? facts[i].description : "unknown";
}

numeric_severity numeric_code_severity(numeric_code code) noexcept {
    const auto i = static_cast<std::size_t>(code);
    return i < numeric_code_count ? facts[i].severity : numeric_severity::error;
}

const char* numeric_severity_name(numeric_severity s) noexcept {
    switch (s) {
        case numeric_severity::info: return "info";
        case numeric_severity::warning: return "warning";
        case numeric_severity::error: return "error";
    }
    return "error";
}

void numeric_reporter::report(numeric_code code, const finding_place& at, const std::string& message,
                              std::uint64_t count, bool has_count) {
    const numeric_severity s = numeric_code_severity(code);
    if (errors_only && s != numeric_severity::error) return;
    (s == numeric_severity::error ? result.errors : s == numeric_severity::warning ? result.warnings : result.infos)++;
    if (callback == nullptr) return;
    numeric_finding f;
    f.code = code;
    f.severity = s;
    f.path = at.path;
    f.tensor = at.tensor;
    f.message = message;
    f.count = count;
    f.has_count = has_count;
    f.offset = at.offset;
    callback(user, f);
}

result<numeric_result> numeric_check(model_file& mf, const numeric_check_options& opts, numeric_callback callback,
                                     void* user) {
    numeric_reporter out{callback, user, opts.errors_only, {}};
    checking c{mf, opts, out, {}};
    result<model_stats_totals> totals = model_stats(mf, model_stats_options(), on_tensor, &c);
    if (!totals) return totals.err();
    if (error e = check_quantization(mf, out)) return e;
    return out.result;
}

}  // namespace onnxview
