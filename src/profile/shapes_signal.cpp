// src/profile/shapes_signal.cpp - output shapes of the signal and text
// feature ops: DFT (opsets 17 and 20), STFT, HannWindow, HammingWindow,
// BlackmanWindow, MelWeightMatrix, TfIdfVectorizer. Their sizes are
// values (a window's size, a DFT's length): known when the model stores
// them, data-dependent otherwise.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "onnxview/enums.hpp"
#include "rules.hpp"

namespace onnxview {
namespace profile_detail {
namespace {

constexpr std::int32_t float_type = static_cast<std::int32_t>(data_type::float32);

bool has_input(const node_context& c, std::size_t i) {
    return i < c.input_names.size() && !c.input_names[i].empty();
}

// The one value of scalar input i, else a data-dependent dim named for
// output `output`, axis `axis`.
quantity scalar_or_named(const node_context& c, std::size_t i, std::size_t output, std::size_t axis) {
    if (const std::vector<quantity>* v = known_values(c, i); v && v->size() == 1) return (*v)[0];
    return data_dependent(c, output, axis);
}

// floor(n / 2) + 1: the bins a one-sided transform of n points keeps.
quantity one_sided(const quantity& n) { return plus(floor_divide(n, 2), quantity(std::int64_t{1})); }

// DFT: the input [batch, n..., 1 or 2] with its last axis 2 (complex), the
// transformed axis dft_length long (or as it is), halved + 1 when onesided.
std::string dft(const node_context& c, std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* x = ranked_input(c, 0, reason);
    if (!x) return reason;
    if (x->dims.size() < 2) return "input of rank below 2";
    std::int64_t axis_value = c.int_attribute("axis", 1);
    if (c.opset >= 20) {
        // Opset 20 takes the axis as input 2 (default -2, the last signal axis).
        axis_value = -2;
        if (has_input(c, 2)) {
            const std::optional<std::vector<std::int64_t>> a = constant_values(c, 2);
            if (!a || a->size() != 1) return "axis input not a known constant";
            axis_value = (*a)[0];
        }
    }
    std::size_t axis = 0;
    if (!normalize_axis(axis_value, x->dims.size(), axis) || axis == x->dims.size() - 1) return "axis out of range";
    out[0].elem_type = input_type(c, 0);
    out[0].shape = *x;
    out[0].shape.dims.back() = quantity(std::int64_t{2});
    quantity length = has_input(c, 1) ? scalar_or_named(c, 1, 0, axis) : x->dims[axis];
    if (c.int_attribute("onesided", 0) != 0) length = one_sided(length);
    out[0].shape.dims[axis] = length;
    return std::string();
}

// STFT(signal [batch, length, 1 or 2], frame_step, window [frame_length],
// frame_length): [batch, frames, bins, 2], frames = floor((length -
// frame_length) / frame_step) + 1, bins = frame_length (halved + 1 when
// onesided, the default).
std::string stft(const node_context& c, std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* x = ranked_input(c, 0, reason);
    if (!x) return reason;
    if (x->dims.size() != 3) return "signal not of rank 3";
    quantity frame_length;
    if (has_input(c, 3)) {
        frame_length = scalar_or_named(c, 3, 0, 2);
    } else if (has_input(c, 2)) {
        const value_shape* w = ranked_input(c, 2, reason);
        if (!w) return reason;
        if (w->dims.size() != 1) return "window not of rank 1";
        frame_length = w->dims[0];
    } else {
        return "neither a window nor a frame_length";
    }
    quantity frames;
    const std::optional<std::vector<std::int64_t>> step = constant_values(c, 1);
    if (step && step->size() == 1 && (*step)[0] > 0)
        frames = plus(floor_divide(minus(x->dims[1], frame_length), (*step)[0]), quantity(std::int64_t{1}));
    if (!frames.known) frames = data_dependent(c, 0, 1);
    quantity bins = c.int_attribute("onesided", 1) != 0 ? one_sided(frame_length) : frame_length;
    if (!bins.known) bins = data_dependent(c, 0, 2);
    out[0].elem_type = input_type(c, 0);
    out[0].shape = shape_of({x->dims[0], frames, bins, quantity(std::int64_t{2})});
    return std::string();
}

}  // namespace

rule_outcome infer_signal_op(const node_context& c, std::string_view op, std::vector<value_fact>& out) {
    if (op == "DFT") return dft(c, out);
    if (op == "STFT") return stft(c, out);
    if (op == "HannWindow" || op == "HammingWindow" || op == "BlackmanWindow") {
        out[0].elem_type = static_cast<std::int32_t>(c.int_attribute("output_datatype", float_type));
        out[0].shape = shape_of({scalar_or_named(c, 0, 0, 0)});
        return std::string();
    }
    if (op == "MelWeightMatrix") {
        // [floor(dft_length / 2) + 1, num_mel_bins]
        out[0].elem_type = static_cast<std::int32_t>(c.int_attribute("output_datatype", float_type));
        quantity bins = one_sided(scalar_or_named(c, 1, 0, 0));
        if (!bins.known) bins = data_dependent(c, 0, 0);
        out[0].shape = shape_of({bins, scalar_or_named(c, 0, 0, 1)});
        return std::string();
    }
    if (op == "TfIdfVectorizer") {
        // [C] -> [size], [N, C] -> [N, size]: size the largest of ngram_indexes + 1.
        std::string reason;
        const value_shape* x = ranked_input(c, 0, reason);
        if (!x) return reason;
        const std::optional<std::vector<std::int64_t>> indexes = c.ints_attribute("ngram_indexes");
        if (!indexes || indexes->empty()) return "no ngram_indexes";
        const quantity size(*std::max_element(indexes->begin(), indexes->end()) + 1);
        out[0].elem_type = float_type;
        if (x->dims.size() == 1) out[0].shape = shape_of({size});
        else if (x->dims.size() == 2) out[0].shape = shape_of({x->dims[0], size});
        else return "input not of rank 1 or 2";
        return std::string();
    }
    return std::nullopt;
}

}  // namespace profile_detail
}  // namespace onnxview
