// src/stats/numeric_internal.hpp - what numeric_check.cpp and
// quantization.cpp share: the reporter that counts findings and calls back.
#ifndef ONNXVIEW_SRC_STATS_NUMERIC_INTERNAL_HPP
#define ONNXVIEW_SRC_STATS_NUMERIC_INTERNAL_HPP

#include <string>
#include <string_view>

#include "onnxview/display.hpp"
#include "onnxview/stats.hpp"

namespace onnxview {

// Where a finding is: the tensor's path with its name, its name, its offset.
struct finding_place {
    std::string_view path;
    std::string_view tensor;
    std::uint64_t offset = 0;
};

struct numeric_reporter {
    numeric_callback callback;
    void* user;
    bool errors_only;
    numeric_result result;

    // Counts the finding (unless errors_only drops it) and passes it on.
    void report(numeric_code code, const finding_place& at, const std::string& message, std::uint64_t count,
                bool has_count);
};

// The quantized operators' scales, zero points and packed sizes, in every
// scope of the model (quantization.cpp).
error check_quantization(model_file& mf, numeric_reporter& out);

}  // namespace onnxview

#endif  // ONNXVIEW_SRC_STATS_NUMERIC_INTERNAL_HPP
