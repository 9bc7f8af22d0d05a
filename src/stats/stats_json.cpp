// The JSON report of `onnxview stats` (onnxview/stats.hpp; docs/stats.md
// documents every field).
#include <cmath>

#include "onnxview/stats.hpp"

namespace onnxview {
namespace {

// A statistic over finite values: null when there is none.
void number_or_null(json_writer& w, std::string_view key, double v) {
    w.key(key);
    if (std::isfinite(v)) w.value(v);
    else w.null();
}

}  // namespace

void write_tensor_stats_json(json_writer& w, const tensor_stats& t) {
    w.begin_object();
    w.field("name", std::string_view(t.name));
    w.field("path", std::string_view(t.path));
    w.field("origin", tensor_origin_name(t.origin));
    const char* type = data_type_name(t.data_type);
    w.field("data_type", type != nullptr ? type : "UNKNOWN");
    w.key("dims");
    w.begin_array();
    for (std::int64_t d : t.dims) w.value(d);
    w.end_array();
    w.field("storage", storage_kind_name(t.storage));
    if (t.failure) {
        w.field("error", errc_message(t.failure.code));
        w.end_object();
        return;
    }
    const value_stats& v = t.values;
    w.field("elements", v.elements);
    w.field("values", v.values);
    const data_type_info* info = find_data_type_info(t.data_type);
    if (info == nullptr || info->kind == element_kind::string) {
        w.end_object();
        return;
    }
    w.field("finite", v.finite);
    if (v.integral && v.finite != 0) {
        w.key("min");
        v.unsigned64 ? w.value(v.min_u) : w.value(v.min_i);
        w.key("max");
        v.unsigned64 ? w.value(v.max_u) : w.value(v.max_i);
    } else {
        number_or_null(w, "min", v.min);
        number_or_null(w, "max", v.max);
    }
    number_or_null(w, "mean", v.mean);
    number_or_null(w, "std", v.std);
    w.field("zeros", v.zeros);
    w.field("nan", v.nan);
    w.field("pos_inf", v.pos_inf);
    w.field("neg_inf", v.neg_inf);
    w.field("subnormal", v.subnormal);
    if (info->kind == element_kind::ieee_float) {
        w.field("fp16_overflow", v.fp16_overflow);
        w.field("fp16_underflow", v.fp16_underflow);
        w.field("fp16_subnormal", v.fp16_subnormal);
        w.field("bf16_overflow", v.bf16_overflow);
    }
    if (!v.histogram.empty()) {
        w.key("histogram");
        w.begin_object();
        w.field("bins", static_cast<std::uint64_t>(v.histogram.size()));
        w.field("low", v.min);
        w.field("high", v.max);
        w.key("counts");
        w.begin_array();
        for (std::uint64_t c : v.histogram) w.value(c);
        w.end_array();
        w.end_object();
    }
    w.end_object();
}

void write_stats_totals_json(json_writer& w, const model_stats_totals& t) {
    w.begin_object();
    w.field("tensors", t.tensors);
    w.field("elements", t.elements);
    w.field("values", t.values);
    w.field("zeros", t.zeros);
    w.field("nan", t.nan);
    w.field("pos_inf", t.pos_inf);
    w.field("neg_inf", t.neg_inf);
    w.field("subnormal", t.subnormal);
    w.field("unreadable", t.unreadable);
    w.end_object();
}

result<std::string> model_stats_json(model_file& mf, std::string_view file, const model_stats_options& opts) {
    json_writer w;
    w.begin_object();
    w.field("file", file);
    w.key("tensors");
    w.begin_array();
    result<model_stats_totals> totals = model_stats(
        mf, opts, [](void* user, const tensor_stats& t) { write_tensor_stats_json(*static_cast<json_writer*>(user), t); },
        &w);
    if (!totals) return totals.err();
    w.end_array();
    w.key("totals");
    write_stats_totals_json(w, *totals);
    w.end_object();
    return w.str();
}

}  // namespace onnxview
