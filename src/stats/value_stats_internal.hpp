// src/stats/value_stats_internal.hpp - compute_value_stats with a second
// thread, which model_stats lends for the whole model.
#ifndef ONNXVIEW_SRC_STATS_VALUE_STATS_INTERNAL_HPP
#define ONNXVIEW_SRC_STATS_VALUE_STATS_INTERNAL_HPP

#include "helper_thread.hpp"
#include "onnxview/stats.hpp"

namespace onnxview {

// compute_value_stats(d, opts), a large mapped FLOAT payload counted by
// this thread and `helper` (null: this thread alone). The same numbers
// either way.
result<value_stats> count_values(const tensor_data& d, const value_stats_options& opts,
                                 detail::helper_thread* helper) noexcept;

}  // namespace onnxview

#endif  // ONNXVIEW_SRC_STATS_VALUE_STATS_INTERNAL_HPP
