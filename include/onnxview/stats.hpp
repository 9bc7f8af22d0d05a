// onnxview/stats.hpp - what the values of a model's weights are, and what is
// wrong with them: the optional library `onnxview_stats` (src/stats/).
//
//   auto mf = onnxview::model_file::open("net.onnx", onnxview::stats_file_options());
//   onnxview::model_stats(*mf, {}, [](void*, const onnxview::tensor_stats& t) {
//       std::printf("%s: %llu NaN\n", t.name.c_str(), (unsigned long long)t.values.nan);
//   }, nullptr);
//   onnxview::numeric_check(*mf, {}, on_finding, nullptr);   // NaN, fp16 overflow, bad scales ...
//
// Three parts:
//   - value_stats of one tensor_data (compute_value_stats): count, min, max,
//     mean, standard deviation, zeros, NaN, +-Inf, subnormals in the tensor's
//     own format, and for FLOAT/DOUBLE what a conversion to fp16 or bf16
//     would lose; an optional histogram;
//   - model_stats: every tensor a model stores (onnxview::for_each_tensor,
//     sparse values included, sparse indices not), read once, front to back,
//     the pages of each payload given back behind the pass;
//   - numeric_check: findings from those numbers (non-finite values,
//     overflow and underflow of a conversion, subnormals, all-zero, constant
//     and duplicate tensors) and from the quantized operators' scales and zero
//     points (QuantizeLinear, DequantizeLinear, QLinear*, com.microsoft's
//     MatMulNBits, QAttention, QGemm, DynamicQuantizeMatMul,
//     MatMulIntegerToFloat). docs/stats.md lists each code.
//
// Statistics over "values": the elements, or for COMPLEX64/128 their real
// and imaginary parts (two values an element). min, max, mean and std are
// over the finite values (NaN and +-Inf counted apart); std is the population
// standard deviation (numpy's ddof=0). Integer and BOOL tensors keep an exact
// integer min and max. Mean and std are computed in double, per block of
// values then merged (Chan et al.), so that they are the same whatever the
// storage of the payload (raw, typed, external) and are within 1e-12 relative
// of an exact computation for ordinary data.
//
// Cost: one pass over each payload; O(1) memory per tensor (a histogram: a
// second pass over it, and one counter per bin). Allocation: the records and
// the findings' strings (std::string, std::vector); exceptions are not used
// (std::bad_alloc propagates where enabled). Not in the single header.
#ifndef ONNXVIEW_STATS_HPP
#define ONNXVIEW_STATS_HPP

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "onnxview/json_writer.hpp"
#include "onnxview/model_file.hpp"
#include "onnxview/tensor_data.hpp"
#include "onnxview/traverse.hpp"

namespace onnxview {

// The numbers of one tensor's values. Counters are of values (see above).
struct value_stats {
    std::uint64_t elements = 0;  // product of dims
    std::uint64_t values = 0;    // elements, or 2 x elements for complex; 0 for STRING
    std::uint64_t finite = 0;    // values that are neither NaN nor +-Inf
    std::uint64_t zeros = 0;     // +0 and -0 (integers: 0)
    std::uint64_t nan = 0;
    std::uint64_t pos_inf = 0;
    std::uint64_t neg_inf = 0;
    // Subnormal in the tensor's own format (FLOAT, DOUBLE, FLOAT16, BFLOAT16,
    // FLOAT8E4M3FN/FNUZ, FLOAT8E5M2/FNUZ, FLOAT4E2M1); 0 for other types.
    std::uint64_t subnormal = 0;
    // FLOAT and DOUBLE only: what converting the values would lose.
    std::uint64_t fp16_overflow = 0;   // finite |x| > 65504 (clamped or made infinite)
    std::uint64_t fp16_underflow = 0;  // 0 < |x| <= 2^-25 (becomes 0)
    std::uint64_t fp16_subnormal = 0;  // 2^-25 < |x| < 2^-14 (becomes an fp16 subnormal)
    std::uint64_t bf16_overflow = 0;   // finite |x| > 3.3895313892515355e38
    // Over the finite values; NaN when there is none.
    double min = 0, max = 0, mean = 0, std = 0;
    // Integer and BOOL types (integral): min and max exactly; unsigned 64-bit
    // types in the u fields, every other integer type in the i fields.
    bool integral = false;
    bool unsigned64 = false;
    std::int64_t min_i = 0, max_i = 0;
    std::uint64_t min_u = 0, max_u = 0;
    // With value_stats_options::histogram_bins: the finite values counted in
    // bins equal-width bins over [min, max], the last bin closed (numpy's
    // histogram). Empty otherwise.
    std::vector<std::uint64_t> histogram;
};

struct value_stats_options {
    std::uint32_t histogram_bins = 0;  // 0: no histogram (one pass)
    // Called with each piece of raw-layout payload once it has been counted
    // (256 KiB; a chunk of 16 MiB when two threads count a FLOAT payload):
    // model_stats gives the pages back here.
    void (*piece_done)(void* user, const char* data, std::size_t size) = nullptr;
    void* user = nullptr;
    // The model whose mapped files hold the payload: a helper thread then
    // takes the page faults of a mapped payload ahead of the counting
    // (src/stats/read_ahead.hpp). Null: the payload is read in this thread.
    const model_file* payload_file = nullptr;
};

// The statistics of `d`'s values. Errors: those of reading the payload
// (payload_size_mismatch, io_read_failed); STRING tensors give elements only.
result<value_stats> compute_value_stats(const tensor_data& d, const value_stats_options& opts = {}) noexcept;

// Whether two payloads hold the same values (raw_data layout compared: a
// tensor stored in float_data equals one in raw_data with the same bits).
// Data type and dims are the caller's to compare.
bool same_values(const tensor_data& a, const tensor_data& b) noexcept;

// One tensor of a model with its statistics.
struct tensor_stats {
    std::string name;        // TensorProto.name ("" when none)
    std::string path;        // "graph.initializer[2]", "graph.sparse_initializer[0].values"
    tensor_origin origin = tensor_origin::initializer;
    std::int32_t data_type = 0;
    std::vector<std::int64_t> dims;
    storage_kind storage = storage_kind::none;
    std::uint64_t offset = 0;  // of the TensorProto in the model
    error failure;             // the payload could not be read: values is empty
    value_stats values;
    stored_tensor where;       // valid during the callback only
};

struct model_stats_options {
    // Only tensors of these names (all when empty).
    std::vector<std::string> names;
    std::uint32_t histogram_bins = 0;
};

// Totals over the tensors reported.
struct model_stats_totals {
    std::uint64_t tensors = 0, elements = 0, values = 0, zeros = 0, nan = 0, pos_inf = 0, neg_inf = 0,
                  subnormal = 0, unreadable = 0;
};

using tensor_stats_callback = void (*)(void* user, const tensor_stats& t);

// Options for model_file::open that suit a pass over every weight: the
// metadata read ahead, the whole model verified.
options stats_file_options(options base = {}) noexcept;

// Calls `callback` for each tensor `mf` stores (for_each_tensor() order,
// sparse indices left out), with its statistics; a tensor whose payload
// cannot be read is reported with `failure` set. Errors: the model's graphs
// nest too deep (depth_exceeded). Pages of the model's own file are given
// back behind the pass (release_payload).
result<model_stats_totals> model_stats(model_file& mf, const model_stats_options& opts,
                                       tensor_stats_callback callback, void* user);

// One tensor's record as `onnxview stats --json` writes it (docs/stats.md),
// appended to `w` as an object.
void write_tensor_stats_json(json_writer& w, const tensor_stats& t);
// The totals' object of the same report.
void write_stats_totals_json(json_writer& w, const model_stats_totals& t);

// The whole report of `onnxview stats --json` for `mf`, whose path is
// `file` (what Python's onnxview.stats() returns, parsed). Errors: those of
// model_stats.
result<std::string> model_stats_json(model_file& mf, std::string_view file, const model_stats_options& opts);

// ---------------------------------------------------------------------------
// Numeric findings.

enum class numeric_code : std::uint8_t {
    non_finite,        // (error) NaN or +-Inf values
    fp16_overflow,     // (warning) FLOAT/DOUBLE values beyond fp16's range
    bf16_overflow,     // (warning) FLOAT/DOUBLE values beyond bf16's range
    fp16_underflow,    // (warning) FLOAT/DOUBLE values that become 0 in fp16
    subnormal,         // (warning) subnormal FLOAT, DOUBLE, FLOAT16 or BFLOAT16 values
    all_zero,          // (info) every value 0
    constant,          // (info) every value the same nonzero number
    duplicate,         // (info) the same type, dims and values as an earlier tensor
    quant_scale,       // (error) a quantization scale <= 0, NaN, Inf or subnormal
    quant_zero_point,  // (error) a zero point outside its type's range
    quant_shape,       // (error) scale or zero-point shape inconsistent with x, axis, block_size
    packing,           // (error) sub-byte payload size, or MatMulNBits sizes, inconsistent
    unreadable,        // (warning) a payload that could not be read: not checked
};
constexpr std::size_t numeric_code_count = static_cast<std::size_t>(numeric_code::unreadable) + 1;

// The code's stable identifier ("non_finite"); "unknown" for other numbers.
const char* numeric_code_name(numeric_code code) noexcept;
// What the code means, in one line (SARIF's rule description).
const char* numeric_code_description(numeric_code code) noexcept;

enum class numeric_severity : std::uint8_t { info = 0, warning = 1, error = 2 };
// The fixed severity of each code (the comments above).
numeric_severity numeric_code_severity(numeric_code code) noexcept;
// "info", "warning", "error".
const char* numeric_severity_name(numeric_severity s) noexcept;

// One finding. Strings are valid during the callback only.
struct numeric_finding {
    numeric_code code = numeric_code::non_finite;
    numeric_severity severity = numeric_severity::error;
    std::string_view path;     // the tensor's place: "graph.initializer[3] 'w'"
    std::string_view tensor;   // its name
    std::string_view message;  // for people
    std::uint64_t count = 0;   // values concerned (has_count)
    bool has_count = false;
    std::uint64_t offset = 0;  // of the TensorProto
};

using numeric_callback = void (*)(void* user, const numeric_finding& f);

struct numeric_check_options {
    bool errors_only = false;  // no warnings nor infos
    // Tensors with fewer values are not reported as all-zero or constant
    // (shape-like constants), nor as duplicates.
    std::uint64_t min_values_constant = 2;
    std::uint64_t min_values_duplicate = 16;
};

struct numeric_result {
    std::uint64_t errors = 0, warnings = 0, infos = 0;
};

// Reads every stored tensor of `mf` once (model_stats) and reports the
// findings above, in model order (quantization findings after the
// tensors'). Errors: those of model_stats.
result<numeric_result> numeric_check(model_file& mf, const numeric_check_options& opts,
                                     numeric_callback callback, void* user);

}  // namespace onnxview

#endif  // ONNXVIEW_STATS_HPP
