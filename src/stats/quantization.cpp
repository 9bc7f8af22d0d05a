// The quantized operators' scales, zero points and packed sizes
// (check_quantization, numeric_internal.hpp; docs/stats.md lists the rules).
//
// A scale or zero point is checked when it is stored in the model (an
// initializer or a Constant node's value); one computed at run time
// (DynamicQuantizeLinear's) is not known here. Shapes are checked where the
// quantized input's dims are known: an initializer's, or a declared value's
// whose dims are all numbers.
#include <cmath>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "numeric_internal.hpp"

namespace onnxview {
namespace {

constexpr int none = -1;

// One (input, scale, zero point) triple of an operator, by input index.
struct quant_inputs {
    int x = none;       // the quantized (or quantizing) input, for its shape
    int scale = none;
    int zero_point = none;
    // How the scale's shape relates to x's: by the operator's axis and
    // block_size attributes (QuantizeLinear, DequantizeLinear), per output
    // channel (QLinearConv's weight: axis 0), or not checked.
    enum class shape_rule : std::uint8_t { axis_attribute, axis_zero, unchecked } rule = shape_rule::unchecked;
};

struct quant_op {
    bool microsoft;  // com.microsoft; else the default domain
    const char* op_type;
    quant_inputs inputs[3];
};

using rule = quant_inputs::shape_rule;

// Input indices from onnx's operator schemas and onnxruntime's contrib op
// documentation.
const quant_op quant_ops[] = {
    {false, "QuantizeLinear", {{0, 1, 2, rule::axis_attribute}}},
    {false, "DequantizeLinear", {{0, 1, 2, rule::axis_attribute}}},
    {true, "QuantizeLinear", {{0, 1, 2, rule::axis_attribute}}},
    {true, "DequantizeLinear", {{0, 1, 2, rule::axis_attribute}}},
    {false, "QLinearConv", {{0, 1, 2}, {3, 4, 5, rule::axis_zero}, {none, 6, 7}}},
    {false, "QLinearMatMul", {{0, 1, 2}, {3, 4, 5}, {none, 6, 7}}},
    {true, "QLinearAdd", {{0, 1, 2}, {3, 4, 5}, {none, 6, 7}}},
    {true, "QLinearMul", {{0, 1, 2}, {3, 4, 5}, {none, 6, 7}}},
    {true, "QGemm", {{0, 1, 2}, {3, 4, 5}, {none, 7, 8}}},
    {true, "QAttention", {{0, 3, 6}, {1, 4, 7}}},
    {true, "DynamicQuantizeMatMul", {{1, 2, 3}}},
    {true, "MatMulIntegerToFloat", {{0, 2, 4}, {1, 3, 5}}},
    {true, "QLinearSigmoid", {{0, 1, 2}, {none, 3, 4}}},
    {true, "QLinearLeakyRelu", {{0, 1, 2}, {none, 3, 4}}},
    {true, "QLinearAveragePool", {{0, 1, 2}, {none, 3, 4}}},
    {true, "QLinearGlobalAveragePool", {{0, 1, 2}, {none, 3, 4}}},
};

const quant_op* find_quant_op(const node_view& n) noexcept {
    const std::string_view d = n.domain();
    const bool standard = d.empty() || d == "ai.onnx";
    const bool microsoft = d == "com.microsoft";
    if (!standard && !microsoft) return nullptr;
    for (const quant_op& q : quant_ops)
        if (q.microsoft == microsoft && n.op_type() == q.op_type) return &q;
    return nullptr;
}

struct stored_ref {
    tensor_view tensor;
    std::string path;  // "graph.initializer[2] 'scale'"
};

// A value's dims: -1 where unknown.
using dims_t = std::vector<std::int64_t>;

std::int64_t int_attribute(const node_view& n, std::string_view name, std::int64_t fallback) {
    for (const attribute_view& a : n.attribute())
        if (a.name() == name) return a.i();
    return fallback;
}

bool has_attribute(const node_view& n, std::string_view name) {
    for (const attribute_view& a : n.attribute())
        if (a.name() == name) return true;
    return false;
}

std::string dims_text(const dims_t& d) {
    std::string s = "[";
    for (std::size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
    return s + "]";
}

dims_t dims_of(const tensor_view& t) { return dims_t(t.dims().begin(), t.dims().end()); }

std::uint64_t element_count(const dims_t& d) {
    std::uint64_t n = 1;
    for (std::int64_t x : d) n *= static_cast<std::uint64_t>(x < 0 ? 0 : x);
    return n;
}

bool all_known(const dims_t& d) {
    for (std::int64_t x : d)
        if (x < 0) return false;
    return true;
}

// The smallest positive normal number of a scale's float type; 0 when the
// type is no float type.
double min_normal(std::int32_t type) noexcept {
    switch (type) {
        case 1: case 16: return std::numeric_limits<float>::min();  // FLOAT, BFLOAT16
        case 11: return std::numeric_limits<double>::min();          // DOUBLE
        case 10: return 6.103515625e-05;                             // FLOAT16
        default: return 0;
    }
}

// The range of a zero point's integer type; false for other types.
bool integer_range(std::int32_t type, std::int64_t& lo, std::int64_t& hi) noexcept {
    switch (type) {
        case 2: lo = 0, hi = 255; return true;           // UINT8
        case 3: lo = -128, hi = 127; return true;        // INT8
        case 4: lo = 0, hi = 65535; return true;         // UINT16
        case 5: lo = -32768, hi = 32767; return true;    // INT16
        default: return false;
    }
}

struct quantization_walk : scope_visitor {
    model_file& mf;
    numeric_reporter& out;
    error failure;
    std::unordered_map<std::string_view, stored_ref> stored;
    std::unordered_map<std::string_view, dims_t> shapes;

    quantization_walk(model_file& m, numeric_reporter& o) : mf(m), out(o) {}

    void declare(const value_info_view& v) {
        if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return;
        dims_t d;
        for (const dimension_view& dim : v.type().tensor_type().shape().dim())
            d.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
        shapes[v.name()] = d;
    }

    bool enter(const model_scope& s) {
        if (!s.is_graph()) return true;
        for (const value_info_view& v : s.graph.input()) declare(v);
        for (const value_info_view& v : s.graph.value_info()) declare(v);
        for (const value_info_view& v : s.graph.output()) declare(v);
        std::uint32_t i = 0;
        for (const tensor_view& t : s.graph.initializer()) {
            stored_tensor st;
            st.tensor = t;
            st.scope = &s;
            st.index = i++;
            remember(t.name(), st);
        }
        return true;
    }

    void remember(std::string_view name, const stored_tensor& st) {
        if (name.empty()) return;
        stored_ref r{st.tensor, std::string()};
        append_tensor_path(st, r.path);
        r.path += " " + quoted(name);
        shapes[name] = dims_of(st.tensor);
        stored[name] = std::move(r);
    }

    const stored_ref* find(const node_view& n, int index) const {
        if (index == none || static_cast<std::size_t>(index) >= n.input().size()) return nullptr;
        std::string_view name;
        int i = 0;
        for (std::string_view s : n.input())
            if (i++ == index) name = s;
        const auto it = stored.find(name);
        return it == stored.end() ? nullptr : &it->second;
    }

    const dims_t* shape_of(const node_view& n, int index) const {
        if (index == none) return nullptr;
        int i = 0;
        for (std::string_view s : n.input())
            if (i++ == index) {
                const auto it = shapes.find(s);
                return it == shapes.end() ? nullptr : &it->second;
            }
        return nullptr;
    }

    void report(numeric_code code, const stored_ref& r, const std::string& message, std::uint64_t count, bool has) {
        const std::string_view name = r.tensor.name();
        out.report(code, finding_place{r.path, name, r.tensor.wire_message().offset_of(r.tensor.wire_message().begin())},
                   message, count, has);
    }

    void check_scale(const stored_ref& s, const node_view& n) {
        const double smallest = min_normal(s.tensor.data_type());
        if (smallest == 0) return;  // not a float scale: not this check's
        result<tensor_data> d = mf.tensor(s.tensor);
        if (!d) return;  // the tensor pass reports it unreadable
        std::uint64_t bad = 0, values = 0;
        double first_bad = 0;
        for (double x : d->scalars<double>()) {
            ++values;
            if (!(x >= smallest) || std::isinf(x)) {
                if (bad++ == 0) first_bad = x;
            }
        }
        if (bad == 0) return;
        char v[40];
        std::snprintf(v, sizeof v, "%.9g", first_bad);
        report(numeric_code::quant_scale, s,
               std::to_string(bad) + " of " + std::to_string(values) + " scales of " + std::string(n.op_type()) +
                   " " + quoted(node_label(n)) + " are not positive normal numbers (first: " + v + ")",
               bad, true);
    }

    static std::string_view node_label(const node_view& n) {
        if (!n.name().empty()) return n.name();
        for (std::string_view o : n.output()) return o;
        return n.op_type();
    }

    void check_zero_point(const stored_ref& z) {
        std::int64_t lo = 0, hi = 0;
        if (!integer_range(z.tensor.data_type(), lo, hi)) return;
        // raw_data cannot hold a value outside the type; int32_data can.
        std::uint64_t bad = 0, entries = 0;
        std::int64_t first_bad = 0;
        for (std::int32_t e : z.tensor.int32_data()) {
            ++entries;
            if (e < lo || e > hi) {
                if (bad++ == 0) first_bad = e;
            }
        }
        if (bad == 0) return;
        const data_type_info* info = find_data_type_info(z.tensor.data_type());
        report(numeric_code::quant_zero_point, z,
               std::to_string(bad) + " of " + std::to_string(entries) + " zero points are outside " + info->name +
                   "'s range [" + std::to_string(lo) + ", " + std::to_string(hi) + "] (first: " +
                   std::to_string(first_bad) + ")",
               bad, true);
    }

    // The scale's (and zero point's) shape against x's, axis and block_size.
    void check_shape(const node_view& n, const quant_inputs& q, const stored_ref& s, const stored_ref* z) {
        const dims_t sd = dims_of(s.tensor);
        if (z != nullptr && dims_of(z->tensor) != sd) {
            report(numeric_code::quant_shape, *z,
                   "zero point of shape " + dims_text(dims_of(z->tensor)) + " for a scale of shape " + dims_text(sd),
                   0, false);
            return;
        }
        if (q.rule == rule::unchecked) return;
        const dims_t* xd = shape_of(n, q.x);
        if (xd == nullptr || !all_known(*xd)) return;
        const auto rank = static_cast<std::int64_t>(xd->size());
        const bool per_tensor = element_count(sd) == 1 && sd.size() <= 1;
        if (per_tensor) return;
        std::int64_t axis = q.rule == rule::axis_zero ? 0 : int_attribute(n, "axis", 1);
        if (axis < 0) axis += rank;
        const std::int64_t block = q.rule == rule::axis_attribute ? int_attribute(n, "block_size", 0) : 0;
        std::string expected;
        if (axis < 0 || axis >= rank) {
            expected = "an axis within x's rank " + std::to_string(rank) + " (axis " + std::to_string(axis) + ")";
        } else if (block > 0) {
            dims_t want = *xd;
            want[static_cast<std::size_t>(axis)] = (want[static_cast<std::size_t>(axis)] + block - 1) / block;
            if (sd != want) expected = dims_text(want) + " (blocks of " + std::to_string(block) + " along axis " +
                                       std::to_string(axis) + ")";
        } else if (sd.size() != 1 || sd[0] != (*xd)[static_cast<std::size_t>(axis)]) {
            expected = "[" + std::to_string((*xd)[static_cast<std::size_t>(axis)]) + "] (one per element of axis " +
                       std::to_string(axis) + ") or one value";
        }
        if (!expected.empty())
            report(numeric_code::quant_shape, s,
                   "scale of shape " + dims_text(sd) + " for " + std::string(n.op_type()) + " " +
                       quoted(node_label(n)) + " whose input has shape " + dims_text(*xd) + ": expected " + expected,
                   0, false);
    }

    // com.microsoft MatMulNBits: B [N, k_blocks, blob], scales N x k_blocks,
    // packed uint8 zero points N x ceil(k_blocks x bits / 8).
    void check_nbits(const node_view& n) {
        if (!has_attribute(n, "K") || !has_attribute(n, "N") || !has_attribute(n, "block_size")) return;
        const std::int64_t k = int_attribute(n, "K", 0), cols = int_attribute(n, "N", 0);
        const std::int64_t bits = int_attribute(n, "bits", 4), block = int_attribute(n, "block_size", 0);
        if (k <= 0 || cols <= 0 || block <= 0 || bits <= 0 || bits > 8 || k > (std::int64_t(1) << 40) ||
            cols > (std::int64_t(1) << 40))
            return;
        const std::uint64_t blocks = static_cast<std::uint64_t>((k + block - 1) / block);
        const std::uint64_t blob = static_cast<std::uint64_t>(block * bits / 8);
        const std::uint64_t rows = static_cast<std::uint64_t>(cols);
        const std::string what = std::string("MatMulNBits ") + quoted(node_label(n)) + " (K " + std::to_string(k) +
                                 ", N " + std::to_string(cols) + ", bits " + std::to_string(bits) + ", block_size " +
                                 std::to_string(block) + ")";
        if (const stored_ref* b = find(n, 1)) {
            const std::uint64_t have = element_count(dims_of(b->tensor)), want = rows * blocks * blob;
            if (have != want)
                report(numeric_code::packing, *b,
                       "packed weight of " + std::to_string(have) + " bytes " + dims_text(dims_of(b->tensor)) + " for " +
                           what + ": expected " + std::to_string(want) + " [" + std::to_string(rows) + "," +
                           std::to_string(blocks) + "," + std::to_string(blob) + "]",
                       0, false);
        }
        if (const stored_ref* s = find(n, 2)) {
            check_scale(*s, n);
            const std::uint64_t have = element_count(dims_of(s->tensor));
            if (have != rows * blocks)
                report(numeric_code::quant_shape, *s,
                       std::to_string(have) + " scales for " + what + ": expected " + std::to_string(rows * blocks), 0,
                       false);
        }
        if (const stored_ref* z = find(n, 3)) {
            const std::uint64_t have = element_count(dims_of(z->tensor));
            const bool packed = z->tensor.data_type() == 2;  // UINT8: bits-wide values packed in bytes
            const std::uint64_t want = packed ? rows * ((blocks * static_cast<std::uint64_t>(bits) + 7) / 8) : rows * blocks;
            if (have != want)
                report(packed ? numeric_code::packing : numeric_code::quant_shape, *z,
                       std::to_string(have) + (packed ? " packed zero-point bytes" : " zero points") + " for " + what +
                           ": expected " + std::to_string(want),
                       0, false);
        }
    }

    void node(const model_scope& s, const node_view& n, std::uint32_t node_index) {
        if (is_constant_node(n)) {
            for (const attribute_view& a : n.attribute())
                if (a.name() == "value" && a.has_t() && n.output().size() != 0) {
                    stored_tensor st;
                    st.tensor = a.t();
                    st.scope = &s;
                    st.origin = tensor_origin::constant;
                    st.field = tensor_field::t;
                    st.holder = {n, a, node_index, 0};
                    std::uint32_t ai = 0;
                    for (const attribute_view& b : n.attribute()) {
                        if (b.name() == "value") break;
                        ++ai;
                    }
                    st.holder.attribute_index = ai;
                    remember(*n.output().begin(), st);
                }
            return;
        }
        if (n.domain() == "com.microsoft" && n.op_type() == "MatMulNBits") return check_nbits(n);
        const quant_op* q = find_quant_op(n);
        if (q == nullptr) return;
        for (const quant_inputs& in : q->inputs) {
            if (in.scale == none) continue;
            const stored_ref* scale = find(n, in.scale);
            const stored_ref* zero = find(n, in.zero_point);
            if (scale != nullptr) check_scale(*scale, n);
            if (zero != nullptr) check_zero_point(*zero);
            if (scale != nullptr) check_shape(n, in, *scale, zero);
        }
    }
};

}  // namespace

error check_quantization(model_file& mf, numeric_reporter& out) {
    quantization_walk w(mf, out);
    return walk_scopes(mf.model(), w);
}

}  // namespace onnxview
