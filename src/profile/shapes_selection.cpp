// src/profile/shapes_selection.cpp - output shapes of the ops whose sizes
// are values: TopK's K, Resize's and Upsample's sizes or scales, OneHot's
// depth, and the data's own choice (NonZero, Unique, Compress,
// NonMaxSuppression, StringNormalizer, StringSplit, ImageDecoder:
// data-dependent dims); with them the index and region ops GatherND,
// RoiAlign, MaxRoiPool, MaxUnpool, Col2Im, CenterCropPad, AffineGrid, and
// the generators RandomNormal, RandomUniform, Multinomial.
#include <cstddef>
#include <climits>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "onnxview/enums.hpp"
#include "rules.hpp"

namespace onnxview {
namespace profile_detail {
namespace {

constexpr std::int32_t int64_type = static_cast<std::int32_t>(data_type::int64);

// TopK: the input's shape with axis `axis` of size K (input 1); values and
// their INT64 indices.
std::string top_k(const node_context& c, std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* x = ranked_input(c, 0, reason);
    if (!x) return reason;
    std::size_t axis = 0;
    if (!normalize_axis(c.int_attribute("axis", -1), x->dims.size(), axis)) return "axis out of range";
    const std::vector<quantity>* k = known_values(c, 1);
    if (k && k->size() != 1) return "K not a single value";
    for (std::size_t i = 0; i < out.size() && i < 2; ++i) {
        out[i].shape = *x;
        out[i].shape.dims[axis] = k ? (*k)[0] : data_dependent(c, 0, axis);
        out[i].elem_type = i == 0 ? input_type(c, 0) : int64_type;
    }
    return std::string();
}


// One dim scaled by a float factor as onnxruntime computes it: the product
// in single precision, truncated (the spec's floor for the non-negative
// sizes). A symbol only by a scale of few binary digits (2, 0.5, 1.5),
// where the float product is exact: 2*x, floor(x/2), floor(3*x/2).
quantity scaled_dim(const quantity& x, double scale) {
    if (!x.known || !(scale >= 0) || scale > 1e9) return quantity();
    if (x.concrete()) {
        const float product = static_cast<float>(scale) * static_cast<float>(x.value.constant_term());
        return product < 9.2e18f ? quantity(static_cast<std::int64_t>(product)) : quantity();
    }
    // scale = m / 2^j: floor(x * m / 2^j), which the float product is for the dims a tensor can have.
    for (std::int64_t k = 1; k <= (std::int64_t{1} << 20); k *= 2) {
        const double m = scale * static_cast<double>(k);
        if (m == static_cast<double>(static_cast<std::int64_t>(m)) && m <= 65536.0)
            return k == 1 ? times(x, static_cast<std::int64_t>(m))
                          : floor_divide(times(x, static_cast<std::int64_t>(m)), k);
    }
    return quantity();
}

// Resize: its `sizes` (input 3) when given, else its `scales` (input 2;
// input 1 at opset 10, as Upsample's, whose opset 7 has them as an
// attribute), on `axes` when given (opset 18).
std::string resize(const node_context& c, std::string_view op, std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* x = ranked_input(c, 0, reason);
    if (!x) return reason;
    std::vector<std::int64_t> axes;
    if (const std::optional<std::vector<std::int64_t>> a = c.ints_attribute("axes")) axes = *a;
    else
        for (std::size_t i = 0; i < x->dims.size(); ++i) axes.push_back(static_cast<std::int64_t>(i));
    std::vector<quantity> dims;
    // Sizes or scales computed from values the profile does not follow (known only by length).
    bool computed = false;
    const bool by_sizes = op == "Resize" && c.input_count() > 3 && !c.input_names[3].empty();
    if (by_sizes) {
        const std::vector<quantity>* sizes = known_values(c, 3);
        const std::optional<std::size_t> length = vector_length(c, 3);
        if (!sizes && !length) return "sizes of no known length";
        if (!sizes) {
            dims.resize(*length);  // named below, by axis
            computed = true;
        }
        if (c.string_attribute("keep_aspect_ratio_policy", "stretch") != "stretch")
            return "sizes with keep_aspect_ratio_policy not covered";
        if (sizes) dims = *sizes;
    } else {
        if (c.string_attribute("coordinate_transformation_mode", "") == "tf_crop_and_resize")
            return "scales with tf_crop_and_resize not covered";
        std::vector<double> scales;
        const std::size_t at = op == "Upsample" || c.input_count() == 2 ? 1 : 2;
        if (const value_fact* f = c.input(at); f && f->reals()) scales = *f->reals();
        else if (std::optional<attribute_view> a = c.attribute("scales"); a && op == "Upsample")
            for (float v : a->floats()) scales.push_back(static_cast<double>(v));
        else if (vector_length(c, at) == axes.size()) computed = true;  // named below, by axis
        else return "scales of no known length";
        if (!computed && scales.size() != axes.size()) return "scales of the wrong length";
        for (std::size_t i = 0; i < axes.size(); ++i) {
            std::size_t axis = 0;
            if (!normalize_axis(axes[i], x->dims.size(), axis)) return "axis out of range";
            dims.push_back(computed ? quantity() : scaled_dim(x->dims[axis], scales[i]));
        }
    }
    if (axes.size() != dims.size()) return "sizes of the wrong length";
    out[0].elem_type = input_type(c, 0);
    out[0].shape = *x;
    for (std::size_t i = 0; i < axes.size(); ++i) {
        std::size_t axis = 0;
        if (!normalize_axis(axes[i], x->dims.size(), axis)) return "axis out of range";
        out[0].shape.dims[axis] = computed ? data_dependent(c, 0, axis) : dims[i];
    }
    return std::string();
}

// The ops whose output size is how many elements the data selects: a
// data-dependent dim (NonZero's count, Unique's distinct values, Compress's
// kept slices, NonMaxSuppression's boxes, StringNormalizer's words left
// after its stopwords).
std::string selection(const node_context& c, std::string_view op, std::vector<value_fact>& out) {
    if (op == "NonMaxSuppression") {
        out[0].elem_type = int64_type;
        out[0].shape = shape_of({data_dependent(c, 0, 0), quantity(std::int64_t{3})});
        return std::string();
    }
    std::string reason;
    const value_shape* x = ranked_input(c, 0, reason);
    if (!x) return reason;
    if (op == "NonZero") {
        out[0].elem_type = int64_type;
        out[0].shape = shape_of({quantity(static_cast<std::int64_t>(x->dims.size())), data_dependent(c, 0, 1)});
        return std::string();
    }
    if (op == "StringNormalizer") {
        out[0].elem_type = input_type(c, 0);
        out[0].shape = *x;
        if (c.attribute("stopwords") && !x->dims.empty())
            out[0].shape.dims.back() = data_dependent(c, 0, x->dims.size() - 1);
        return std::string();
    }
    // Unique and Compress: flattened without an axis, else that axis selected.
    const std::optional<attribute_view> axis_attribute = c.attribute("axis");
    std::size_t axis = 0;
    if (axis_attribute && !normalize_axis(axis_attribute->i(), x->dims.size(), axis)) return "axis out of range";
    const quantity count = data_dependent(c, 0, axis_attribute ? axis : 0);
    out[0].elem_type = input_type(c, 0);
    if (axis_attribute) {
        out[0].shape = *x;
        out[0].shape.dims[axis] = count;
    } else {
        out[0].shape = shape_of({count});
    }
    if (op == "Unique")
        for (std::size_t i = 1; i < out.size() && i < 4; ++i) {
            out[i].elem_type = int64_type;
            // inverse_indices: one per element (or slice) of the input; indices and counts one per unique.
            out[i].shape = shape_of({i != 2 ? count : axis_attribute ? x->dims[axis] : x->element_count()});
        }
    return std::string();
}

// OneHot: the indices' shape with a `depth` (input 1) axis inserted at `axis`.
std::string one_hot(const node_context& c, std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* indices = ranked_input(c, 0, reason);
    if (!indices) return reason;
    std::size_t axis = 0;
    if (!normalize_axis(c.int_attribute("axis", -1), indices->dims.size() + 1, axis)) return "axis out of range";
    const value_fact* depth = c.input(1);
    quantity d = depth && depth->values_known && depth->values.size() == 1 ? depth->values[0] : quantity();
    // A float depth (allowed) is not followed: the values decide.
    if (!d.known) d = data_dependent(c, 0, axis);
    out[0].elem_type = input_type(c, 2);
    out[0].shape = *indices;
    out[0].shape.dims.insert(out[0].shape.dims.begin() + static_cast<std::ptrdiff_t>(axis), d);
    return std::string();
}

// GatherND(data [r], indices [q] of last dim k, batch_dims b):
// indices.shape[:-1] + data.shape[b + k:].
std::string gather_nd(const node_context& c, std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* data = ranked_input(c, 0, reason);
    const value_shape* indices = data ? ranked_input(c, 1, reason) : nullptr;
    if (!indices) return reason;
    if (indices->dims.empty() || !indices->dims.back().concrete()) return "indices' last dim not a constant";
    const std::int64_t k = indices->dims.back().value.constant_term();
    const std::int64_t b = c.int_attribute("batch_dims", 0);
    if (b < 0 || k < 0 || static_cast<std::size_t>(b + k) > data->dims.size()) return "indices deeper than the data";
    out[0].elem_type = input_type(c, 0);
    out[0].shape = shape_of(std::vector<quantity>(indices->dims.begin(), indices->dims.end() - 1));
    out[0].shape.dims.insert(out[0].shape.dims.end(), data->dims.begin() + b + k, data->dims.end());
    return std::string();
}

// RoiAlign(X [N,C,H,W], rois [R,4], batch_indices [R]): [R, C,
// output_height, output_width].
std::string roi_align(const node_context& c, std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* x = ranked_input(c, 0, reason);
    const value_shape* rois = x ? ranked_input(c, 1, reason) : nullptr;
    if (!rois) return reason;
    if (x->dims.size() != 4 || rois->dims.size() != 2) return "X not of rank 4 or rois not of rank 2";
    out[0].elem_type = input_type(c, 0);
    out[0].shape = shape_of({rois->dims[0], x->dims[1], quantity(c.int_attribute("output_height", 1)),
                             quantity(c.int_attribute("output_width", 1))});
    return std::string();
}

// MaxUnpool(X [N,C,D...], I, output_shape): output_shape's values when
// given, else each spatial dim (in - 1) x stride + kernel - pads.
std::string max_unpool(const node_context& c, std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* x = ranked_input(c, 0, reason);
    if (!x) return reason;
    out[0].elem_type = input_type(c, 0);
    if (c.input_count() > 2 && !c.input_names[2].empty()) {
        if (const std::vector<quantity>* v = known_values(c, 2)) out[0].shape = shape_of(*v);
        else if (const std::optional<std::size_t> n = vector_length(c, 2)) {
            out[0].shape = shape_of(std::vector<quantity>(*n));
            name_unknown_dims(c, 0, out[0].shape);
        } else return "output_shape of no known length";
        return std::string();
    }
    const std::optional<std::vector<std::int64_t>> kernel = c.ints_attribute("kernel_shape");
    if (!kernel || x->dims.size() != kernel->size() + 2) return "kernel_shape missing or of the wrong rank";
    const std::size_t n = kernel->size();
    const std::vector<std::int64_t> strides = c.ints_attribute("strides").value_or(std::vector<std::int64_t>(n, 1));
    const std::vector<std::int64_t> pads = c.ints_attribute("pads").value_or(std::vector<std::int64_t>(2 * n, 0));
    if (strides.size() != n || pads.size() != 2 * n) return "strides or pads of the wrong length";
    out[0].shape = *x;
    for (std::size_t i = 0; i < n; ++i)
        out[0].shape.dims[2 + i] = plus(times(minus(x->dims[2 + i], quantity(std::int64_t{1})), strides[i]),
                                        quantity((*kernel)[i] - pads[i] - pads[n + i]));
    return std::string();
}

// RandomNormal, RandomUniform: the `shape` attribute; Multinomial: [batch,
// sample_size].
std::string generator(const node_context& c, std::string_view op, std::vector<value_fact>& out) {
    if (op == "Multinomial") {
        std::string reason;
        const value_shape* x = ranked_input(c, 0, reason);
        if (!x) return reason;
        if (x->dims.size() != 2) return "input not of rank 2";
        out[0].elem_type = static_cast<std::int32_t>(c.int_attribute("dtype", static_cast<std::int64_t>(data_type::int32)));
        out[0].shape = shape_of({x->dims[0], quantity(c.int_attribute("sample_size", 1))});
        return std::string();
    }
    const std::optional<std::vector<std::int64_t>> shape = c.ints_attribute("shape");
    if (!shape) return "no shape attribute";
    out[0].elem_type = static_cast<std::int32_t>(c.int_attribute("dtype", static_cast<std::int64_t>(data_type::float32)));
    out[0].shape = shape_of(std::vector<quantity>(shape->begin(), shape->end()));
    return std::string();
}

// MaxRoiPool(X [N,C,H,W], rois [R,5]): [R, C, pooled_shape...].
std::string max_roi_pool(const node_context& c, std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* x = ranked_input(c, 0, reason);
    const value_shape* rois = x ? ranked_input(c, 1, reason) : nullptr;
    if (!rois) return reason;
    const std::optional<std::vector<std::int64_t>> pooled = c.ints_attribute("pooled_shape");
    if (x->dims.size() != 4 || rois->dims.size() != 2 || !pooled || pooled->size() != 2)
        return "X not of rank 4, rois not of rank 2, or no pooled_shape of 2";
    out[0].elem_type = input_type(c, 0);
    out[0].shape = shape_of({rois->dims[0], x->dims[1], quantity((*pooled)[0]), quantity((*pooled)[1])});
    return std::string();
}

// Col2Im(input [N, C x prod(block_shape), L], image_shape, block_shape):
// [N, C, image_shape...].
std::string col2im(const node_context& c, std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* x = ranked_input(c, 0, reason);
    if (!x) return reason;
    const std::optional<std::vector<std::int64_t>> block = constant_values(c, 2);
    if (x->dims.size() != 3 || !block) return "input not of rank 3 or block_shape not a known constant";
    std::int64_t cells = 1;
    for (std::int64_t b : *block) cells = b > 0 && cells <= INT64_MAX / b ? cells * b : 0;
    if (cells <= 0) return "block_shape not positive";
    out[0].elem_type = input_type(c, 0);
    out[0].shape = shape_of({x->dims[0], divide_exactly(x->dims[1], quantity(cells))});
    if (const std::vector<quantity>* image = known_values(c, 1)) {
        out[0].shape.dims.insert(out[0].shape.dims.end(), image->begin(), image->end());
    } else {
        for (std::size_t i = 0; i < block->size(); ++i) out[0].shape.dims.push_back(data_dependent(c, 0, 2 + i));
    }
    return std::string();
}

// CenterCropPad(input, shape; axes): the axes' dims (all, or `axes`) the
// shape's values.
std::string center_crop_pad(const node_context& c, std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* x = ranked_input(c, 0, reason);
    if (!x) return reason;
    std::vector<std::int64_t> axes;
    if (const std::optional<std::vector<std::int64_t>> a = c.ints_attribute("axes")) axes = *a;
    else
        for (std::size_t i = 0; i < x->dims.size(); ++i) axes.push_back(static_cast<std::int64_t>(i));
    const std::vector<quantity>* sizes = known_values(c, 1);
    if (sizes && sizes->size() != axes.size()) return "shape of the wrong length";
    out[0].elem_type = input_type(c, 0);
    out[0].shape = *x;
    for (std::size_t i = 0; i < axes.size(); ++i) {
        std::size_t axis = 0;
        if (!normalize_axis(axes[i], x->dims.size(), axis)) return "axis out of range";
        out[0].shape.dims[axis] = sizes ? (*sizes)[i] : data_dependent(c, 0, axis);
    }
    return std::string();
}

// AffineGrid(theta [N, 2 or 3, 3 or 4], size [N, C, H, W] or [N, C, D, H,
// W]): [N, H, W, 2] or [N, D, H, W, 3].
std::string affine_grid(const node_context& c, std::vector<value_fact>& out) {
    const std::optional<std::size_t> n = vector_length(c, 1);
    if (!n || (*n != 4 && *n != 5)) return "size of no known length 4 or 5";
    const std::vector<quantity>* size = known_values(c, 1);
    out[0].elem_type = input_type(c, 0);
    out[0].shape = shape_of({});
    for (std::size_t i = 0; i < *n; ++i)
        if (i != 1) out[0].shape.dims.push_back(size ? (*size)[i] : data_dependent(c, 0, out[0].shape.dims.size()));
    out[0].shape.dims.push_back(quantity(static_cast<std::int64_t>(*n - 2)));
    return std::string();
}

}  // namespace

rule_outcome infer_selection_op(const node_context& c, std::string_view op, std::vector<value_fact>& out) {
    if (op == "TopK") return top_k(c, out);
    if (op == "Resize" || op == "Upsample") return resize(c, op, out);
    if (op == "NonZero" || op == "Unique" || op == "Compress" || op == "NonMaxSuppression" ||
        op == "StringNormalizer")
        return selection(c, op, out);
    if (op == "OneHot") return one_hot(c, out);
    if (op == "GatherND") return gather_nd(c, out);
    if (op == "RoiAlign") return roi_align(c, out);
    if (op == "MaxUnpool") return max_unpool(c, out);
    if (op == "MaxRoiPool") return max_roi_pool(c, out);
    if (op == "RandomNormal" || op == "RandomUniform" || op == "Multinomial") return generator(c, op, out);
    if (op == "Col2Im") return col2im(c, out);
    if (op == "CenterCropPad") return center_crop_pad(c, out);
    if (op == "AffineGrid") return affine_grid(c, out);
    if (op == "StringSplit") {
        // Each string's pieces: a data-dependent last axis; the count of pieces per string int64.
        std::string reason;
        const value_shape* x = ranked_input(c, 0, reason);
        if (!x) return reason;
        out[0].elem_type = input_type(c, 0);
        out[0].shape = *x;
        out[0].shape.dims.push_back(data_dependent(c, 0, x->dims.size()));
        if (out.size() > 1) {
            out[1].elem_type = int64_type;
            out[1].shape = *x;
        }
        return std::string();
    }
    if (op == "ImageDecoder") {
        // [H, W, C]: the encoded image's size is its data's.
        out[0].elem_type = static_cast<std::int32_t>(data_type::uint8);
        out[0].shape = shape_of({data_dependent(c, 0, 0), data_dependent(c, 0, 1), data_dependent(c, 0, 2)});
        if (c.string_attribute("pixel_format", "RGB") == "Grayscale") out[0].shape.dims[2] = quantity(std::int64_t{1});
        else out[0].shape.dims[2] = quantity(std::int64_t{3});
        return std::string();
    }
    return std::nullopt;
}

}  // namespace profile_detail
}  // namespace onnxview
