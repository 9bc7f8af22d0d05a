// tests/model/summary.cpp - see summary.hpp and tests/oracle/README.md.
//
// One file of ~900 lines on purpose: it is the C++ half of the summary
// format, section for section the same as tests/oracle/export_summary.py, so
// that a difference between the two is found by reading them side by side.
//
// Only onnxview's public API is used: the views (onnxview/model.hpp),
// verify() for the up-front check libprotobuf's parser makes, tensor_data
// (onnxview/tensor_data.hpp) for the elements, float_formats.hpp for
// FLOAT16/BFLOAT16, and the io layer for files and external data.
#include "summary.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "onnxview/enums.hpp"
#include "onnxview/external_data.hpp"
#include "onnxview/external_source.hpp"
#include "onnxview/file.hpp"
#include "onnxview/float_formats.hpp"
#include "onnxview/model.hpp"
#include "onnxview/schema.hpp"
#include "onnxview/tensor_data.hpp"
#include "onnxview/verify.hpp"

namespace onnxview_test {

using namespace onnxview;

namespace {

// ---------------------------------------------------------------------------
// scalars
// ---------------------------------------------------------------------------

std::string esc(std::string_view s) {
    static const char hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(s.size() + 2);
    out += '"';
    for (unsigned char c : s) {
        if (c == '"') {
            out += "\\\"";
        } else if (c == '\\') {
            out += "\\\\";
        } else if (c >= 0x20 && c <= 0x7E) {
            out += static_cast<char>(c);
        } else {
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    out += '"';
    return out;
}

std::string fmt_g(double x, int digits) {
    if (std::isnan(x)) return "nan";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*g", digits, x);
    return buf;
}
// A value of a type of 32 bits or narrower.
std::string f32(double x) { return fmt_g(x, 9); }
// A value of a 64-bit type, and every sum.
std::string f64(double x) { return fmt_g(x, 17); }

std::string dec(std::int64_t v) { return std::to_string(v); }
std::string udec(std::uint64_t v) { return std::to_string(v); }

// The numbers onnx 1.12 knows.
constexpr std::int32_t onnx112_max_data_type = 16;  // BFLOAT16
constexpr std::int32_t onnx112_max_attribute_type = 14;  // TYPE_PROTOS

std::string data_type_enum(std::int32_t v) {
    return dec(v) + " " + (v >= 0 && v <= onnx112_max_data_type ? data_type_name(v) : "UNKNOWN");
}
std::string elem_name(std::int32_t v) {
    return v >= 0 && v <= onnx112_max_data_type ? std::string(data_type_name(v)) : dec(v);
}
std::string attr_type_name(std::int32_t v) {
    return v >= 0 && v <= onnx112_max_attribute_type ? std::string(attribute_type_name(v)) : dec(v);
}
std::string location_enum(std::int32_t v) {
    return dec(v) + (v == 0 ? " DEFAULT" : v == 1 ? " EXTERNAL" : " UNKNOWN");
}
std::string value_kind_enum(std::int32_t v) {
    static const char* const names[] = {"UNDEFINED", "TENSOR", "SPARSE_TENSOR",
                                        "SEQUENCE",  "MAP",    "OPTIONAL"};
    return dec(v) + " " + (v >= 0 && v <= 5 ? names[v] : "UNKNOWN");
}

template <class Range, class F>
std::string lst(const Range& r, F f) {
    std::string s = "[";
    bool first = true;
    for (auto x : r) {
        if (!first) s += ", ";
        first = false;
        s += f(x);
    }
    s += "]";
    return s;
}

std::string str_list(const string_range& r) {
    return lst(r, [](std::string_view x) { return esc(x); });
}
template <class Repeated>
std::string int_list(const Repeated& r) {
    return lst(r, [](std::int64_t x) { return dec(x); });
}

// The product of the dims as exact decimal digits (Python ints do not
// overflow; tensor_data refuses such tensors, the count line still shows it).
template <class Dims>
std::string product_of(const Dims& dims) {
    // magnitude in base 1e9, little-endian limbs
    constexpr std::uint64_t base = 1000000000u;
    std::vector<std::uint64_t> mag{1};
    bool negative = false;
    for (std::int64_t d : dims) {
        if (d < 0) negative = !negative;
        std::uint64_t m = d < 0 ? 0 - static_cast<std::uint64_t>(d) : static_cast<std::uint64_t>(d);
        std::vector<std::uint64_t> ml;  // |d| in base 1e9
        do {
            ml.push_back(m % base);
            m /= base;
        } while (m != 0);
        std::vector<std::uint64_t> prod(mag.size() + ml.size() + 1, 0);
        for (std::size_t i = 0; i < mag.size(); ++i) {
            std::uint64_t carry = 0;
            for (std::size_t j = 0; j < ml.size(); ++j) {
                const std::uint64_t v = prod[i + j] + mag[i] * ml[j] + carry;  // < 2^64
                prod[i + j] = v % base;
                carry = v / base;
            }
            for (std::size_t k = i + ml.size(); carry != 0; ++k) {
                const std::uint64_t v = prod[k] + carry;
                prod[k] = v % base;
                carry = v / base;
            }
        }
        while (prod.size() > 1 && prod.back() == 0) prod.pop_back();
        mag = prod;
    }
    if (mag.size() == 1 && mag[0] == 0) negative = false;
    std::string s = (negative ? "-" : "") + std::to_string(mag.back());
    for (std::size_t i = mag.size() - 1; i-- > 0;) {
        char buf[16];
        std::snprintf(buf, sizeof buf, "%09u", static_cast<unsigned>(mag[i]));
        s += buf;
    }
    return s;
}

// ---------------------------------------------------------------------------
// crc32 (zlib's)
// ---------------------------------------------------------------------------

struct crc_table {
    std::uint32_t t[256];
    crc_table() {
        for (std::uint32_t i = 0; i < 256; ++i) {
            std::uint32_t c = i;
            for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            t[i] = c;
        }
    }
};

class crc32 {
public:
    void update(const void* data, std::size_t n) {
        static const crc_table table;
        const unsigned char* p = static_cast<const unsigned char*>(data);
        std::uint32_t c = state_;
        for (std::size_t i = 0; i < n; ++i) c = table.t[(c ^ p[i]) & 0xFF] ^ (c >> 8);
        state_ = c;
    }
    void update_le(std::uint64_t v, unsigned width) {
        unsigned char b[8];
        for (unsigned i = 0; i < width; ++i) b[i] = static_cast<unsigned char>(v >> (8 * i));
        update(b, width);
    }
    std::string hex() const {
        char buf[16];
        std::snprintf(buf, sizeof buf, "%08x", static_cast<unsigned>(state_ ^ 0xFFFFFFFFu));
        return buf;
    }

private:
    std::uint32_t state_ = 0xFFFFFFFFu;
};

// ---------------------------------------------------------------------------
// output
// ---------------------------------------------------------------------------

class out {
public:
    void operator()(int level, const std::string& text) {
        s_.append(static_cast<std::size_t>(2 * level), ' ');
        s_ += text;
        s_ += '\n';
    }
    std::string& str() { return s_; }

private:
    std::string s_;
};

struct context {
    std::string base_dir;
    summary_options options;
    // created on the first external tensor
    bool resolver_tried = false;
    bool resolver_ok = false;
    external_data_resolver resolver;
    std::string external_why;  // the resolver's message for the last failed fetch
};

// ---------------------------------------------------------------------------
// tensors
// ---------------------------------------------------------------------------

enum class category { floating, complex, integer, other };

// Element width in bytes, category, signedness of each data type of onnx 1.12.
struct type_info {
    unsigned width = 0;
    category cat = category::other;
    bool is_signed = false;
};

type_info info_of(std::int32_t dt) {
    switch (static_cast<data_type>(dt)) {
    case data_type::float32: return {4, category::floating, true};
    case data_type::uint8: return {1, category::integer, false};
    case data_type::int8: return {1, category::integer, true};
    case data_type::uint16: return {2, category::integer, false};
    case data_type::int16: return {2, category::integer, true};
    case data_type::int32: return {4, category::integer, true};
    case data_type::int64: return {8, category::integer, true};
    case data_type::boolean: return {1, category::integer, false};
    case data_type::float16: return {2, category::floating, true};
    case data_type::float64: return {8, category::floating, true};
    case data_type::uint32: return {4, category::integer, false};
    case data_type::uint64: return {8, category::integer, false};
    case data_type::complex64: return {4, category::complex, true};   // width of one part
    case data_type::complex128: return {8, category::complex, true};
    case data_type::bfloat16: return {2, category::floating, true};
    default: return {};
    }
}

double bits_to_double(std::uint64_t bits, std::int32_t dt) {
    switch (static_cast<data_type>(dt)) {
    case data_type::float16: return float16_to_double(static_cast<std::uint16_t>(bits));
    case data_type::bfloat16: return bfloat16_to_double(static_cast<std::uint16_t>(bits));
    case data_type::float32:
    case data_type::complex64: {
        const std::uint32_t b = static_cast<std::uint32_t>(bits);
        float f;
        std::memcpy(&f, &b, 4);
        return f;
    }
    default: {
        double d;
        std::memcpy(&d, &bits, 8);
        return d;
    }
    }
}

std::uint64_t canonical_nan(unsigned width, std::int32_t dt) {
    if (dt == static_cast<std::int32_t>(data_type::bfloat16)) return 0x7FC0;
    if (width == 2) return 0x7E00;
    if (width == 4) return 0x7FC00000u;
    return 0x7FF8000000000000ull;
}

// The elements of a tensor, each as the bit pattern of its element type
// (floating and complex types) or its value zero/sign-extended to 64 bits
// (integers, BOOL as 0/1). Complex tensors hold 2 * count parts.
struct elements {
    std::vector<std::uint64_t> v;
};

std::uint64_t normalize_int(std::uint64_t raw, std::int32_t dt, const type_info& ti) {
    if (dt == static_cast<std::int32_t>(data_type::boolean)) return raw != 0 ? 1 : 0;
    if (ti.width < 8) {
        const std::uint64_t mask = (std::uint64_t(1) << (8 * ti.width)) - 1;
        raw &= mask;
        if (ti.is_signed && (raw >> (8 * ti.width - 1)) != 0) raw |= ~mask;
    }
    return raw;
}

// The elements of a validated tensor_data, read with its element_cursor.
bool collect_elements(const tensor_data& d, std::int32_t dt, elements& e) {
    const type_info ti = info_of(dt);
    element_cursor c(d);
    std::uint64_t lo = 0, hi = 0;
    e.v.reserve(static_cast<std::size_t>(d.scalar_count()));
    while (c.next(lo, hi)) {
        if (ti.cat == category::integer) {
            e.v.push_back(normalize_int(lo, dt, ti));
        } else {
            e.v.push_back(lo);
            if (ti.cat == category::complex) e.v.push_back(hi);
        }
    }
    return e.v.size() == d.scalar_count();
}

// The value lines of a numeric tensor. The sums are numpy's add.accumulate:
// sequential double additions starting from the first finite value (so a
// sum of only -0 stays -0; README.md's "s = 0.0" start would give 0).
void emit_element_lines(out& o, int level, std::int32_t dt, const elements& e) {
    const type_info ti = info_of(dt);
    crc32 crc;
    if (ti.cat == category::integer) {
        std::uint64_t sum = 0;
        for (std::uint64_t x : e.v) {
            sum += x;
            crc.update_le(x, ti.width);
        }
        o(level, "sum: " + udec(sum));
        o(level, "crc32: " + crc.hex());
        std::string first = "[";
        for (std::size_t i = 0; i < e.v.size() && i < 8; ++i) {
            if (i) first += ", ";
            first += ti.is_signed ? dec(static_cast<std::int64_t>(e.v[i])) : udec(e.v[i]);
        }
        o(level, "first: " + first + "]");
        return;
    }
    const bool wide = ti.width == 8;
    std::uint64_t nan = 0, pinf = 0, ninf = 0;
    double sums[2] = {0.0, 0.0};
    bool started[2] = {false, false};
    const std::size_t stride = ti.cat == category::complex ? 2 : 1;
    for (std::size_t i = 0; i < e.v.size(); ++i) {
        const double x = bits_to_double(e.v[i], dt);
        if (std::isnan(x)) {
            ++nan;
            crc.update_le(canonical_nan(ti.width, dt), ti.width);
            continue;
        }
        crc.update_le(e.v[i], ti.width);
        if (std::isinf(x)) {
            ++(x > 0 ? pinf : ninf);
            continue;
        }
        const std::size_t k = i % stride;
        if (started[k]) {
            sums[k] = sums[k] + x;
        } else {
            sums[k] = x;
            started[k] = true;
        }
    }
    o(level, "nan: " + udec(nan));
    o(level, "pos_inf: " + udec(pinf));
    o(level, "neg_inf: " + udec(ninf));
    if (ti.cat == category::complex) {
        o(level, "sum_re: " + f64(sums[0]));
        o(level, "sum_im: " + f64(sums[1]));
    } else {
        o(level, "sum: " + f64(sums[0]));
    }
    o(level, "crc32: " + crc.hex());
    auto fmt = [&](std::uint64_t bits) {
        const double x = bits_to_double(bits, dt);
        return wide ? f64(x) : f32(x);
    };
    std::string first = "[";
    for (std::size_t i = 0; i * stride < e.v.size() && i < 8; ++i) {
        if (i) first += ", ";
        if (stride == 2) {
            first += "(" + fmt(e.v[2 * i]) + ", " + fmt(e.v[2 * i + 1]) + ")";
        } else {
            first += fmt(e.v[i]);
        }
    }
    o(level, "first: " + first + "]");
}

bool is_external(const tensor_view& t) {
    return t.has_data_location() && t.data_location() == location_kind::external;
}

// tensor_data for t; EXTERNAL tensors are fetched through the io layer's
// resolver (onnxview/external_source.hpp) with the model's directory as
// base, created on the first one.
result<tensor_data> make_data(const tensor_view& t, context& ctx) {
    ctx.external_why.clear();
    if (is_external(t) && !ctx.resolver_tried) {
        ctx.resolver_tried = true;
        options opts{};
        opts.external_base_dir = ctx.base_dir.c_str();
        auto r = external_data_resolver::create(opts);
        if (r.ok()) {
            ctx.resolver = std::move(r.value());
            ctx.resolver_ok = true;
        }
    }
    if (!ctx.resolver_ok) return tensor_data::make(t);  // EXTERNAL: invalid_argument
    auto d = tensor_data::make(t, external_source(ctx.resolver));
    if (!d.ok() && is_external(t)) {
        char why[512];
        ctx.external_why = describe_external_error(d.err(), t, why, sizeof why);
    }
    return d;
}

// Python's message after "error:" is not reproduced (the comparison stops
// there); this one names onnxview's error.
std::string data_error(error e, const context& ctx) {
    std::string s = std::string("error: ") + errc_name(e.code) + " at byte " + udec(e.offset);
    if (!ctx.external_why.empty()) s += ": " + ctx.external_why;
    return s;
}

void emit_values(out& o, int level, const tensor_view& t, context& ctx) {
    const std::int32_t dt = t.data_type();
    if (dt == static_cast<std::int32_t>(data_type::string)) {
        auto d = make_data(t, ctx);
        if (!d.ok()) {
            o(level, data_error(d.err(), ctx));
            return;
        }
        if (!d.value().holds<std::string_view>()) {
            o(level, "error: tensor_data does not hold strings");
            return;
        }
        const auto data = d.value().elements<std::string_view>();
        std::uint64_t total = 0;
        crc32 crc;
        std::string first = "[";
        std::size_t i = 0;
        for (std::string_view s : data) {
            total += s.size();
            crc.update_le(s.size(), 8);
            crc.update(s.data(), s.size());
            if (i < 8) first += (i ? ", " : "") + esc(s);
            ++i;
        }
        o(level, "bytes: " + udec(total));
        o(level, "crc32: " + crc.hex());
        o(level, "first: " + first + "]");
        return;
    }
    // onnx 1.12 knows no other types; numpy_helper refuses segments
    if (info_of(dt).cat == category::other) {
        o(level, "error: unsupported data_type " + dec(dt));
        return;
    }
    if (t.has_segment()) {
        o(level, "error: segment not supported");
        return;
    }
    auto d = make_data(t, ctx);
    if (!d.ok()) {
        o(level, data_error(d.err(), ctx));
        return;
    }
    elements e;
    if (!collect_elements(d.value(), dt, e)) {
        o(level, "error: element_cursor stopped early");
        return;
    }
    emit_element_lines(o, level, dt, e);
}

void emit_tensor(out& o, int level, const tensor_view& t, context& ctx) {
    o(level, "tensor " + esc(t.name()));
    ++level;
    o(level, "data_type: " + data_type_enum(t.data_type()));
    o(level, "dims: " + int_list(t.dims()));
    o(level, "data_location: " + location_enum(static_cast<std::int32_t>(t.data_location())));
    for (const string_entry_view& e : t.external_data())
        o(level, "external_data: " + esc(e.key()) + " " + esc(e.value()));
    if (!t.doc_string().empty()) o(level, "doc_string: " + esc(t.doc_string()));
    const char* storage = t.data_location() == location_kind::external ? "external"
                          : t.has_raw_data()                           ? "raw"
                                                                       : "typed";
    o(level, std::string("storage: ") + storage);
    o(level, "count: " + product_of(t.dims()));
    if (ctx.options.values) emit_values(o, level, t, ctx);
}

void emit_sparse(out& o, int level, const sparse_tensor_view& sp, context& ctx) {
    o(level, "sparse_tensor");
    o(level + 1, "dims: " + int_list(sp.dims()));
    o(level + 1, "values");
    emit_tensor(o, level + 2, sp.values(), ctx);
    o(level + 1, "indices");
    emit_tensor(o, level + 2, sp.indices(), ctx);
}

// ---------------------------------------------------------------------------
// types
// ---------------------------------------------------------------------------

std::string shape_str(bool has_shape, const tensor_shape_view& shape) {
    if (!has_shape) return "";
    return ", " + lst(shape.dim(), [](const dimension_view& d) {
               if (d.has_dim_value()) return dec(d.dim_value());
               if (d.has_dim_param()) return esc(d.dim_param());
               return std::string("?");
           });
}

std::string type_str(const type_view& tp) {
    if (tp.has_tensor_type()) {
        const tensor_type_view tt = tp.tensor_type();
        return "tensor(" + elem_name(tt.elem_type()) + shape_str(tt.has_shape(), tt.shape()) + ")";
    }
    if (tp.has_sparse_tensor_type()) {
        const sparse_tensor_type_view st = tp.sparse_tensor_type();
        return "sparse_tensor(" + elem_name(st.elem_type()) + shape_str(st.has_shape(), st.shape()) + ")";
    }
    if (tp.has_sequence_type()) return "seq(" + type_str(tp.sequence_type().elem_type()) + ")";
    if (tp.has_map_type()) {
        const map_type_view mt = tp.map_type();
        return "map(" + elem_name(mt.key_type()) + ", " + type_str(mt.value_type()) + ")";
    }
    if (tp.has_optional_type()) return "optional(" + type_str(tp.optional_type().elem_type()) + ")";
    if (tp.has_opaque_type()) {
        const opaque_type_view ot = tp.opaque_type();
        return "opaque(" + esc(ot.domain()) + ", " + esc(ot.name()) + ")";
    }
    return "none";
}

void emit_value_info(out& o, int level, const char* kind, const value_info_view& vi) {
    o(level, std::string(kind) + " " + esc(vi.name()) + " " + type_str(vi.type()));
    if (!vi.doc_string().empty()) o(level + 1, "doc_string: " + esc(vi.doc_string()));
}

// ---------------------------------------------------------------------------
// graphs, nodes, attributes, functions, models
// ---------------------------------------------------------------------------

void emit_graph(out& o, int level, const graph_view& g, context& ctx);

void emit_attribute(out& o, int level, const attribute_view& a, context& ctx) {
    const std::int32_t type = static_cast<std::int32_t>(a.type());
    std::string head = "attribute " + esc(a.name()) + " " + attr_type_name(type);
    switch (a.type()) {
    case attribute_type::float32: head += " " + f32(a.f()); break;
    case attribute_type::int64: head += " " + dec(a.i()); break;
    case attribute_type::string: head += " " + esc(a.s()); break;
    case attribute_type::floats:
        head += " " + lst(a.floats(), [](float x) { return f32(x); });
        break;
    case attribute_type::ints: head += " " + int_list(a.ints()); break;
    case attribute_type::strings: head += " " + str_list(a.strings()); break;
    case attribute_type::type_proto: head += " " + type_str(a.tp()); break;
    case attribute_type::type_protos:
        head += " " + lst(a.type_protos(), [](const type_view& x) { return type_str(x); });
        break;
    case attribute_type::tensors: head += " " + udec(a.tensors().size()); break;
    case attribute_type::graphs: head += " " + udec(a.graphs().size()); break;
    case attribute_type::sparse_tensors: head += " " + udec(a.sparse_tensors().size()); break;
    default: break;
    }
    o(level, head);
    ++level;
    if (!a.ref_attr_name().empty()) o(level, "ref_attr_name: " + esc(a.ref_attr_name()));
    if (!a.doc_string().empty()) o(level, "doc_string: " + esc(a.doc_string()));
    switch (a.type()) {
    case attribute_type::tensor: emit_tensor(o, level, a.t(), ctx); break;
    case attribute_type::graph: emit_graph(o, level, a.g(), ctx); break;
    case attribute_type::sparse_tensor: emit_sparse(o, level, a.sparse_tensor(), ctx); break;
    case attribute_type::tensors:
        for (const tensor_view& t : a.tensors()) emit_tensor(o, level, t, ctx);
        break;
    case attribute_type::graphs:
        for (const graph_view& g : a.graphs()) emit_graph(o, level, g, ctx);
        break;
    case attribute_type::sparse_tensors:
        for (const sparse_tensor_view& sp : a.sparse_tensors()) emit_sparse(o, level, sp, ctx);
        break;
    default: break;
    }
}

void emit_node(out& o, int level, const node_view& n, context& ctx) {
    o(level, "node " + esc(n.name()));
    ++level;
    o(level, "op_type: " + esc(n.op_type()));
    o(level, "domain: " + esc(n.domain()));
    o(level, "input: " + str_list(n.input()));
    o(level, "output: " + str_list(n.output()));
    if (!n.doc_string().empty()) o(level, "doc_string: " + esc(n.doc_string()));
    for (const attribute_view& a : n.attribute()) emit_attribute(o, level, a, ctx);
}

void emit_graph(out& o, int level, const graph_view& g, context& ctx) {
    o(level, "graph " + esc(g.name()));
    ++level;
    if (!g.doc_string().empty()) o(level, "doc_string: " + esc(g.doc_string()));
    for (const value_info_view& vi : g.input()) emit_value_info(o, level, "input", vi);
    for (const value_info_view& vi : g.output()) emit_value_info(o, level, "output", vi);
    for (const value_info_view& vi : g.value_info()) emit_value_info(o, level, "value_info", vi);
    for (const tensor_view& t : g.initializer()) emit_tensor(o, level, t, ctx);
    for (const sparse_tensor_view& sp : g.sparse_initializer()) emit_sparse(o, level, sp, ctx);
    for (const node_view& n : g.node()) emit_node(o, level, n, ctx);
}

void emit_opsets(out& o, int level, const message_range<opset_id_view>& opsets) {
    for (const opset_id_view& op : opsets)
        o(level, "opset_import: " + esc(op.domain()) + " " + dec(op.version()));
}

void emit_function(out& o, int level, const function_view& f, context& ctx) {
    o(level, "function " + esc(f.domain()) + " " + esc(f.name()));
    ++level;
    if (!f.doc_string().empty()) o(level, "doc_string: " + esc(f.doc_string()));
    o(level, "input: " + str_list(f.input()));
    o(level, "output: " + str_list(f.output()));
    o(level, "attribute: " + str_list(f.attribute()));
    emit_opsets(o, level, f.opset_import());
    for (const node_view& n : f.node()) emit_node(o, level, n, ctx);
}

void emit_model(out& o, const model_view& m, context& ctx) {
    o(0, "model");
    o(1, "ir_version: " + dec(m.ir_version()));
    o(1, "producer_name: " + esc(m.producer_name()));
    o(1, "producer_version: " + esc(m.producer_version()));
    o(1, "domain: " + esc(m.domain()));
    o(1, "model_version: " + dec(m.model_version()));
    if (!m.doc_string().empty()) o(1, "doc_string: " + esc(m.doc_string()));
    emit_opsets(o, 1, m.opset_import());
    for (const string_entry_view& p : m.metadata_props())
        o(1, "metadata_prop: " + esc(p.key()) + " " + esc(p.value()));
    emit_graph(o, 1, m.graph(), ctx);
    for (const function_view& f : m.functions()) emit_function(o, 1, f, ctx);
}

// ---------------------------------------------------------------------------
// test-data containers
// ---------------------------------------------------------------------------

void emit_map(out& o, int level, const map_view& m, context& ctx);
void emit_optional(out& o, int level, const optional_view& v, context& ctx);

void emit_sequence(out& o, int level, const sequence_view& s, context& ctx) {
    o(level, "sequence " + esc(s.name()));
    ++level;
    o(level, "elem_type: " + value_kind_enum(s.elem_type()));
    for (const tensor_view& t : s.tensor_values()) emit_tensor(o, level, t, ctx);
    for (const sparse_tensor_view& sp : s.sparse_tensor_values()) emit_sparse(o, level, sp, ctx);
    for (const sequence_view& x : s.sequence_values()) emit_sequence(o, level, x, ctx);
    for (const map_view& x : s.map_values()) emit_map(o, level, x, ctx);
    for (const optional_view& x : s.optional_values()) emit_optional(o, level, x, ctx);
}

void emit_map(out& o, int level, const map_view& m, context& ctx) {
    o(level, "map " + esc(m.name()));
    ++level;
    o(level, "key_type: " + data_type_enum(m.key_type()));
    o(level, "keys: " + int_list(m.keys()));
    o(level, "string_keys: " + str_list(m.string_keys()));
    emit_sequence(o, level, m.values(), ctx);
}

void emit_optional(out& o, int level, const optional_view& v, context& ctx) {
    o(level, "optional " + esc(v.name()));
    ++level;
    o(level, "elem_type: " + value_kind_enum(v.elem_type()));
    if (v.has_tensor_value()) emit_tensor(o, level, v.tensor_value(), ctx);
    if (v.has_sparse_tensor_value()) emit_sparse(o, level, v.sparse_tensor_value(), ctx);
    if (v.has_sequence_value()) emit_sequence(o, level, v.sequence_value(), ctx);
    if (v.has_map_value()) emit_map(o, level, v.map_value(), ctx);
    if (v.has_optional_value()) emit_optional(o, level, v.optional_value(), ctx);
}

std::string parse_error_line(const char* what, error e) {
    return "error: cannot parse as " + std::string(what) + ": " + errc_name(e.code) + " at byte " +
           udec(e.offset) + "\n";
}

std::string dirname_of(const std::string& path) {
    const std::size_t slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    if (slash == 0) return "/";
    return path.substr(0, slash);
}

std::string absolute(const std::string& path) {
    if (!path.empty() && path[0] == '/') return path;
    char buf[4096];
    if (::getcwd(buf, sizeof buf) == nullptr) return path;
    return std::string(buf) + "/" + path;
}

bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

// ---------------------------------------------------------------------------
// public
// ---------------------------------------------------------------------------

std::string summarize_model(std::string_view bytes, const std::string& base_dir,
                            const summary_options& options) {
    // libprotobuf rejects a malformed message anywhere in the tree.
    const error e = verify(bytes.data(), bytes.size(), schema::msg_ModelProto);
    if (e) return parse_error_line("ModelProto", e);
    context ctx;
    ctx.base_dir = base_dir;
    ctx.options = options;
    out o;
    emit_model(o, parse_model(bytes.data(), bytes.size()), ctx);
    return std::move(o.str());
}

std::string summarize_pb(std::string_view bytes, pb_kind kind, const std::string& base_dir,
                         const summary_options& options) {
    const schema::message_desc* desc = &schema::msg_TensorProto;
    const char* name = "TensorProto";
    switch (kind) {
    case pb_kind::tensor: break;
    case pb_kind::sequence: desc = &schema::msg_SequenceProto, name = "SequenceProto"; break;
    case pb_kind::optional: desc = &schema::msg_OptionalProto, name = "OptionalProto"; break;
    case pb_kind::map: desc = &schema::msg_MapProto, name = "MapProto"; break;
    }
    const error e = verify(bytes.data(), bytes.size(), *desc);
    if (e) return parse_error_line(name, e);
    context ctx;
    ctx.base_dir = base_dir;
    ctx.options = options;
    out o;
    const char* d = bytes.data();
    const std::size_t n = bytes.size();
    switch (kind) {
    case pb_kind::tensor: emit_tensor(o, 0, parse_as<tensor_view>(d, n), ctx); break;
    case pb_kind::sequence: emit_sequence(o, 0, parse_as<sequence_view>(d, n), ctx); break;
    case pb_kind::optional: emit_optional(o, 0, parse_as<optional_view>(d, n), ctx); break;
    case pb_kind::map: emit_map(o, 0, parse_as<map_view>(d, n), ctx); break;
    }
    return std::move(o.str());
}

bool read_file(const std::string& path, std::string& out_bytes) {
    auto f = mapped_file::open(path.c_str());
    if (!f.ok()) {
        if (f.err().code == errc::file_empty) {
            out_bytes.clear();
            return true;
        }
        return false;
    }
    out_bytes.assign(f.value().data(), f.value().size());
    return true;
}

pb_kind pb_kind_for(const std::string& path) {
    const std::string abs = absolute(path);
    const std::string base = abs.substr(abs.rfind('/') + 1);
    const std::string stem = base.substr(0, base.rfind('.'));
    static const char* const prefixes[] = {"input_", "output_"};
    for (int which = 0; which < 2; ++which) {
        const std::string prefix = prefixes[which];
        if (stem.size() <= prefix.size() || stem.compare(0, prefix.size(), prefix) != 0) continue;
        const std::string digits = stem.substr(prefix.size());
        if (digits.find_first_not_of("0123456789") != std::string::npos) continue;
        // one cached model: the test data sets of a model are consecutive
        static std::string cached_path;
        static std::string cached_bytes;
        static bool cached_ok = false;
        const std::string model_path = dirname_of(dirname_of(abs)) + "/model.onnx";
        if (model_path != cached_path) {
            cached_path = model_path;
            cached_ok = read_file(model_path, cached_bytes) &&
                        !verify(cached_bytes.data(), cached_bytes.size(), schema::msg_ModelProto);
        }
        if (!cached_ok) return pb_kind::tensor;
        const model_view m = parse_model(cached_bytes.data(), cached_bytes.size());
        const graph_view g = m.graph();
        const auto values = which == 0 ? g.input() : g.output();
        const std::uint64_t idx = std::stoull(digits.size() > 18 ? std::string("99999999999999999") : digits);
        if (idx >= values.size()) return pb_kind::tensor;
        const type_view t = values.at(static_cast<std::size_t>(idx)).type();
        if (t.has_sequence_type()) return pb_kind::sequence;
        if (t.has_optional_type()) return pb_kind::optional;
        if (t.has_map_type()) return pb_kind::map;
        return pb_kind::tensor;
    }
    return pb_kind::tensor;
}

std::string summarize_file(const std::string& path, const summary_options& options) {
    std::string bytes;
    if (!read_file(path, bytes)) return "error: cannot read\n";
    const std::string base_dir = dirname_of(absolute(path));
    if (ends_with(path, ".pb")) return summarize_pb(bytes, pb_kind_for(path), base_dir, options);
    return summarize_model(bytes, base_dir, options);
}

std::string strip_value_lines(std::string_view summary) {
    static const char* const keys[] = {"nan: ",    "pos_inf: ", "neg_inf: ", "sum: ", "sum_re: ",
                                       "sum_im: ", "crc32: ",   "first: ",   "bytes: "};
    std::string out_text;
    std::size_t pos = 0;
    while (pos < summary.size()) {
        std::size_t end = summary.find('\n', pos);
        if (end == std::string_view::npos) end = summary.size();
        const std::string_view line = summary.substr(pos, end - pos);
        pos = end + 1;
        const std::size_t indent = line.find_first_not_of(' ');
        const std::string_view body = indent == std::string_view::npos ? line : line.substr(indent);
        bool value_line = false;
        for (const char* k : keys)
            if (body.compare(0, std::strlen(k), k) == 0) value_line = true;
        // an error line in place of the value lines (not a whole-file error)
        if (body.compare(0, 6, "error:") == 0 && indent != 0) value_line = true;
        if (value_line) continue;
        out_text.append(line.data(), line.size());
        out_text += '\n';
    }
    return out_text;
}

namespace {
std::vector<std::string_view> split_lines(std::string_view s) {
    std::vector<std::string_view> lines;
    std::size_t pos = 0;
    while (pos < s.size()) {
        std::size_t end = s.find('\n', pos);
        if (end == std::string_view::npos) end = s.size();
        lines.push_back(s.substr(pos, end - pos));
        pos = end + 1;
    }
    return lines;
}

bool line_matches(std::string_view expected, std::string_view actual) {
    if (expected == actual) return true;
    const std::size_t indent = expected.find_first_not_of(' ');
    if (indent == std::string_view::npos) return false;
    if (expected.compare(indent, 6, "error:") != 0) return false;
    return actual.size() >= indent + 6 && actual.compare(0, indent + 6, expected.substr(0, indent + 6)) == 0;
}
}  // namespace

summary_diff compare_summaries(std::string_view expected, std::string_view actual) {
    summary_diff d;
    const auto e = split_lines(expected);
    const auto a = split_lines(actual);
    const bool e_nl = expected.empty() || expected.back() == '\n';
    const bool a_nl = actual.empty() || actual.back() == '\n';
    const std::size_t n = std::max(e.size(), a.size());
    for (std::size_t i = 0; i < n; ++i) {
        const bool he = i < e.size(), ha = i < a.size();
        if (he && ha && line_matches(e[i], a[i])) continue;
        d.equal = false;
        d.line = i + 1;
        d.expected = he ? std::string(e[i]) : "<end of summary>";
        d.actual = ha ? std::string(a[i]) : "<end of summary>";
        return d;
    }
    if (e_nl != a_nl) {
        d.equal = false;
        d.line = n;
        d.expected = e_nl ? "<final newline>" : "<no final newline>";
        d.actual = a_nl ? "<final newline>" : "<no final newline>";
    }
    return d;
}

std::string summary_diff::describe() const {
    if (equal) return "equal";
    return "line " + std::to_string(line) + ":\n  expected: " + expected + "\n  actual:   " + actual;
}

}  // namespace onnxview_test
