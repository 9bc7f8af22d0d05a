// check.cpp - the model checker (see onnxview/check.hpp).
//
// The walk follows onnx/checker.cc (onnx 1.12): graphs in node order with a
// stack of lexical scopes, so "defined before use" and SSA are checked the
// way onnx.checker does. Names are kept as string_views into the model
// buffer; a scope is one hash set.
#include "onnxview/check.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "onnxview/enums.hpp"
#include "onnxview/external_source.hpp"
#include "onnxview/field_path.hpp"
#include "onnxview/model.hpp"
#include "onnxview/tensor_data.hpp"
#include "onnxview/verify.hpp"

namespace onnxview {
namespace {

// Newest IR version this checker knows (onnx 1.18: IR 11).
constexpr std::int64_t newest_ir_version = 11;

using name_set = std::unordered_set<std::string_view>;

// Bits per element; 0 for STRING and numbers the schema does not define.
unsigned element_bits(std::int32_t dt) noexcept {
    switch (static_cast<data_type>(dt)) {
        case data_type::uint8: case data_type::int8: case data_type::boolean:
        case data_type::float8e4m3fn: case data_type::float8e4m3fnuz: case data_type::float8e5m2:
        case data_type::float8e5m2fnuz: case data_type::float8e8m0: return 8;
        case data_type::uint16: case data_type::int16: case data_type::float16:
        case data_type::bfloat16: return 16;
        case data_type::float32: case data_type::int32: case data_type::uint32: return 32;
        case data_type::int64: case data_type::float64: case data_type::uint64:
        case data_type::complex64: return 64;
        case data_type::complex128: return 128;
        case data_type::uint4: case data_type::int4: case data_type::float4e2m1: return 4;
        case data_type::uint2: case data_type::int2: return 2;
        default: return 0;
    }
}

// Typed field a data type's values live in when not in raw_data (TensorProto
// comments in onnx.proto), and how many field elements one tensor element takes.
enum class value_field : std::uint8_t { none, float_data, int32_data, string_data, int64_data, double_data, uint64_data };

const char* field_name(value_field f) noexcept {
    switch (f) {
        case value_field::float_data: return "float_data";
        case value_field::int32_data: return "int32_data";
        case value_field::string_data: return "string_data";
        case value_field::int64_data: return "int64_data";
        case value_field::double_data: return "double_data";
        case value_field::uint64_data: return "uint64_data";
        default: return "(none)";
    }
}

value_field field_for(std::int32_t dt) noexcept {
    switch (static_cast<data_type>(dt)) {
        case data_type::float32: case data_type::complex64: return value_field::float_data;
        case data_type::float64: case data_type::complex128: return value_field::double_data;
        case data_type::int64: return value_field::int64_data;
        case data_type::uint32: case data_type::uint64: return value_field::uint64_data;
        case data_type::string: return value_field::string_data;
        case data_type::undefined: return value_field::none;
        default:
            return static_cast<std::int32_t>(dt) <= max_data_type ? value_field::int32_data
                                                                   : value_field::none;
    }
}

struct function_key {
    std::string_view domain, name, overload;
    bool operator==(const function_key& o) const noexcept {
        return domain == o.domain && name == o.name && overload == o.overload;
    }
};
struct function_key_hash {
    std::size_t operator()(const function_key& k) const noexcept {
        const std::hash<std::string_view> h;
        return h(k.domain) * 31u + h(k.name) * 7u + h(k.overload);
    }
};


class checker {
public:
    checker(const char* data, std::size_t size, const check_options& o, check_callback cb, void* user)
        : data_(data), size_(size), opt_(o), cb_(cb), user_(user) {
        max_depth_ = o.max_depth ? o.max_depth : 32;
        max_findings_ = o.max_findings ? o.max_findings : 1000;
    }

    check_result run();

private:
    // --- findings and paths ---------------------------------------------
    void report(check_severity s, const char* code, const std::string& msg, std::uint64_t offset = 0) {
        if (stopped_) return;
        if (s == check_severity::warning && !opt_.warnings) return;
        if (result_.errors + result_.warnings >= max_findings_) {
            result_.truncated = true;
            stopped_ = true;
            return;
        }
        (s == check_severity::error ? result_.errors : result_.warnings)++;
        if (cb_ == nullptr) return;
        check_finding f;
        f.severity = s;
        f.code = code;
        f.path = path_.empty() ? std::string_view("model") : std::string_view(path_);
        f.message = msg;
        f.offset = offset;
        cb_(user_, f);
    }
    void error(const char* code, const std::string& msg, std::uint64_t offset = 0) {
        report(check_severity::error, code, msg, offset);
    }
    void warning(const char* code, const std::string& msg, std::uint64_t offset = 0) {
        report(check_severity::warning, code, msg, offset);
    }
    template <class View>
    std::uint64_t offset_of(const View& v) const noexcept {
        const wire::message& m = v.wire_message();
        return m.begin() ? m.offset_of(m.begin()) : 0;
    }

    static void quote(std::string& out, std::string_view s) {
        static const char hex[] = "0123456789abcdef";
        out += '\'';
        for (char ch : s) {
            const unsigned char c = static_cast<unsigned char>(ch);
            if (c >= 0x20 && c != 0x7F && c != '\'' && c != '\\') {
                out += ch;
            } else {
                out += "\\x";
                out += hex[c >> 4];
                out += hex[c & 15];
            }
        }
        out += '\'';
    }
    static std::string q(std::string_view s) {
        std::string out;
        quote(out, s);
        return out;
    }

    // Appends ".field[i] 'name'" to the path for the lifetime of the guard.
    class path_guard {
    public:
        path_guard(checker& c, const char* field, std::int64_t index = -1, std::string_view name = {},
                   bool show_name = false)
            : c_(c), len_(c.path_.size()) {
            if (!c.path_.empty()) c.path_ += '.';
            c.path_ += field;
            if (index >= 0) {
                c.path_ += '[';
                c.path_ += std::to_string(index);
                c.path_ += ']';
            }
            if (show_name && !name.empty()) {
                c.path_ += ' ';
                quote(c.path_, name);
            }
        }
        ~path_guard() { c_.path_.resize(len_); }
        path_guard(const path_guard&) = delete;
        path_guard& operator=(const path_guard&) = delete;

    private:
        checker& c_;
        std::size_t len_;
    };

    // --- scopes -------------------------------------------------------------
    bool defined_in_scopes(std::string_view name) const {
        for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
            if (it->count(name)) return true;
        return false;
    }

    // --- the walk -----------------------------------------------------------
    void check_model_fields(const model_view& m);
    void check_graph(const graph_view& g, bool main_graph, std::uint32_t depth);
    void check_value_info(const value_info_view& v, bool main_graph);
    void check_type(const type_view& t, std::string_view name);
    void check_node(const node_view& n, const std::unordered_map<std::string_view, std::int64_t>& opsets,
                    bool in_function, std::uint32_t depth);
    void check_attribute(const attribute_view& a, bool in_function, std::uint32_t depth);
    void check_tensor(const tensor_view& t);
    void check_tensor_rules(const tensor_view& t);
    void check_external(const tensor_view& t, std::uint64_t expected);
    void check_sparse(const sparse_tensor_view& s);
    void check_functions(const model_view& m);
    void check_function_calls(const model_view& m);
    void collect_calls(const graph_view& g, std::vector<std::size_t>& out, std::uint32_t depth);
    void collect_call(const node_view& n, std::vector<std::size_t>& out, std::uint32_t depth);

    const char* data_;
    std::size_t size_;
    check_options opt_;
    check_callback cb_;
    void* user_;
    std::uint32_t max_depth_;
    std::uint32_t max_findings_;
    bool stopped_ = false;
    check_result result_;
    std::string path_;

    std::int64_t ir_version_ = 0;
    std::unordered_map<std::string_view, std::int64_t> model_opsets_;
    std::vector<name_set> scopes_;
    bool resolver_tried_ = false;
    bool external_warned_ = false;
    external_data_resolver resolver_;
    bool have_resolver_ = false;
    std::unordered_map<function_key, std::size_t, function_key_hash> functions_;
};

check_result checker::run() {
    if (const onnxview::error e = verify(data_, size_)) {
        char fp[512] = {};
        auto n = field_path_at(data_, size_, e.offset, schema::msg_ModelProto, fp, sizeof fp);
        if (n.ok() || n.err().code == errc::buffer_too_small) path_ = fp;
        std::string msg = "the bytes do not parse as onnx.ModelProto: ";
        msg += errc_message(e.code);
        msg += " (";
        msg += errc_name(e.code);
        msg += ") at byte ";
        msg += std::to_string(e.offset);
        error("wire_format", msg, e.offset);
        return result_;
    }
    const model_view m = parse_model(data_, size_);
    check_model_fields(m);
    return result_;
}

void checker::check_model_fields(const model_view& m) {
    ir_version_ = m.ir_version();
    if (!m.has_ir_version() || m.ir_version() == 0) {
        error("missing_ir_version", "the model has no ir_version");
    } else if (m.ir_version() < 0) {
        error("bad_ir_version", "ir_version " + std::to_string(m.ir_version()) + " is negative");
    } else if (m.ir_version() > newest_ir_version) {
        warning("new_ir_version", "ir_version " + std::to_string(m.ir_version()) +
                                      " is newer than this checker knows (" +
                                      std::to_string(newest_ir_version) + ")");
    }
    if (m.metadata_props().size() > 1) {
        name_set keys;
        std::int64_t i = 0;
        for (const string_entry_view& e : m.metadata_props()) {
            if (!keys.insert(e.key()).second) {
                path_guard p(*this, "metadata_props", i);
                error("duplicate_metadata_key", "metadata key " + q(e.key()) + " appears more than once",
                      offset_of(e));
            }
            ++i;
        }
    }
    {
        std::int64_t i = 0;
        for (const opset_id_view& op : m.opset_import()) {
            std::string_view d = op.domain();
            if (d == "ai.onnx") d = std::string_view();
            if (!model_opsets_.emplace(d, op.version()).second) {
                path_guard p(*this, "opset_import", i);
                warning("duplicate_opset", "domain " + q(op.domain()) + " is imported more than once",
                        offset_of(op));
            }
            ++i;
        }
    }
    if (ir_version_ >= 3) {
        if (m.opset_import().empty())
            error("missing_opset_import", "a model with IR version >= 3 must have opset_import");
    } else if (m.has_ir_version()) {
        if (!m.opset_import().empty())
            error("unexpected_opset_import", "a model with IR version < 3 cannot have opset_import");
        else
            model_opsets_.emplace(std::string_view(), 1);
    }
    if (!m.has_graph()) {
        error("missing_graph", "the model has no graph");
    } else {
        path_guard p(*this, "graph");
        check_graph(m.graph(), true, 0);
    }
    if (!stopped_) check_functions(m);
}

// onnx's check_value_info: only the outermost type of a main-graph input or
// output must be complete; element types inside sequences, maps and
// optionals may stay partial.
void checker::check_type(const type_view& t, std::string_view name) {
    if (t.has_tensor_type()) {
        const auto tt = t.tensor_type();
        if (!tt.has_elem_type())
            error("missing_elem_type", "value " + q(name) + " has a tensor type without elem_type");
        if (!tt.has_shape())
            error("missing_shape", "value " + q(name) + " has a tensor type without shape");
    } else if (t.has_sparse_tensor_type()) {
        const auto st = t.sparse_tensor_type();
        if (!st.has_elem_type())
            error("missing_elem_type", "value " + q(name) + " has a sparse tensor type without elem_type");
        if (!st.has_shape())
            error("missing_shape", "value " + q(name) + " has a sparse tensor type without shape");
    } else if (t.has_sequence_type()) {
        if (!t.sequence_type().has_elem_type())
            error("missing_elem_type", "value " + q(name) + " has a sequence type without elem_type");
    } else if (t.has_optional_type()) {
        if (!t.optional_type().has_elem_type())
            error("missing_elem_type", "value " + q(name) + " has an optional type without elem_type");
    } else if (t.has_map_type()) {
        const auto mt = t.map_type();
        if (!mt.has_key_type() || !mt.has_value_type())
            error("missing_elem_type", "value " + q(name) + " has a map type without key_type or value_type");
    } else if (!t.has_opaque_type()) {
        error("missing_type", "value " + q(name) + " has a type with no kind set");
    }
}

void checker::check_value_info(const value_info_view& v, bool main_graph) {
    if (v.name().empty()) error("empty_name", "a value info has an empty name", offset_of(v));
    if (!main_graph) return;  // onnx relaxes subgraph inputs and outputs
    if (!v.has_type()) {
        error("missing_type", "value " + q(v.name()) + " has no type", offset_of(v));
        return;
    }
    check_type(v.type(), v.name());
}

void checker::check_graph(const graph_view& g, bool main_graph, std::uint32_t depth) {
    if (depth > max_depth_) {
        error("too_deep", "subgraphs nest deeper than " + std::to_string(max_depth_) + " levels", offset_of(g));
        return;
    }
    if (g.name().empty()) error("empty_graph_name", "the graph has an empty name", offset_of(g));
    {
        std::int64_t i = 0;
        for (const value_info_view& v : g.input()) {
            path_guard p(*this, "input", i++, v.name(), true);
            check_value_info(v, main_graph);
        }
        i = 0;
        for (const value_info_view& v : g.output()) {
            path_guard p(*this, "output", i++, v.name(), true);
            check_value_info(v, main_graph);
        }
    }
    scopes_.emplace_back();
    struct scope_pop {
        std::vector<name_set>& s;
        ~scope_pop() { s.pop_back(); }
    } pop{scopes_};

    std::int64_t i = 0;
    for (const value_info_view& v : g.input()) {
        if (!scopes_.back().insert(v.name()).second) {
            path_guard p(*this, "input", i, v.name(), true);
            error("duplicate_input", "graph input " + q(v.name()) + " is declared more than once (SSA)",
                  offset_of(v));
        }
        ++i;
    }
    name_set initializer_names;
    i = 0;
    for (const tensor_view& t : g.initializer()) {
        path_guard p(*this, "initializer", i++, t.name(), true);
        if (t.name().empty()) {
            error("empty_name", "an initializer has an empty name", offset_of(t));
        } else if (!initializer_names.insert(t.name()).second) {
            error("duplicate_initializer", "initializer name " + q(t.name()) + " is not unique", offset_of(t));
        }
        check_tensor(t);
        if (ir_version_ != 0 && ir_version_ <= 3) {
            if (!t.name().empty() && !scopes_.back().count(t.name()))
                error("initializer_not_input",
                      "initializer " + q(t.name()) + " is not a graph input (required for IR version <= 3)",
                      offset_of(t));
        } else {
            scopes_.back().insert(t.name());
        }
        if (stopped_) return;
    }
    i = 0;
    for (const sparse_tensor_view& s : g.sparse_initializer()) {
        const std::string_view name = s.values().name();
        path_guard p(*this, "sparse_initializer", i++, name, true);
        if (name.empty()) {
            error("empty_name", "a sparse initializer has an empty name", offset_of(s));
        } else if (!initializer_names.insert(name).second) {
            error("duplicate_initializer",
                  "sparse initializer name " + q(name) + " is not unique across initializers", offset_of(s));
        }
        check_sparse(s);
        scopes_.back().insert(name);
        if (stopped_) return;
    }
    i = 0;
    for (const node_view& n : g.node()) {
        path_guard p(*this, "node", i++, n.name(), true);
        std::int64_t k = 0;
        for (std::string_view in : n.input()) {
            if (!in.empty() && !defined_in_scopes(in)) {
                path_guard pi(*this, "input", k);
                error("undefined_input",
                      "input " + q(in) + " of " + q(n.op_type()) + " node is not a graph input, an "
                      "initializer or an output of an earlier node (nodes must be topologically sorted)",
                      offset_of(n));
            }
            ++k;
        }
        check_node(n, model_opsets_, false, depth);
        k = 0;
        for (std::string_view out : n.output()) {
            if (!out.empty()) {
                if (defined_in_scopes(out)) {
                    path_guard po(*this, "output", k);
                    error("duplicate_output", "value " + q(out) +
                                                  " is already defined (graphs must be in SSA form)",
                          offset_of(n));
                }
                scopes_.back().insert(out);
            }
            ++k;
        }
        if (stopped_) return;
    }
    i = 0;
    for (const value_info_view& v : g.output()) {
        if (!v.name().empty() && !defined_in_scopes(v.name())) {
            path_guard p(*this, "output", i, v.name(), true);
            error("undefined_output", "graph output " + q(v.name()) + " is not produced by any node, "
                  "graph input or initializer", offset_of(v));
        }
        ++i;
    }
}

void checker::check_node(const node_view& n,
                         const std::unordered_map<std::string_view, std::int64_t>& opsets,
                         bool in_function, std::uint32_t depth) {
    if (n.op_type().empty()) error("empty_op_type", "the node has an empty op_type", offset_of(n));
    if (n.input().empty() && n.output().empty())
        error("no_inputs_outputs", "the node has neither inputs nor outputs", offset_of(n));
    std::string_view d = n.domain();
    if (d == "ai.onnx") d = std::string_view();
    if (!opsets.count(d))
        error("missing_opset", "no opset_import for domain " + q(n.domain()) + " of " + q(n.op_type()) +
                                   " node",
              offset_of(n));
    name_set names;
    std::int64_t i = 0;
    for (const attribute_view& a : n.attribute()) {
        path_guard p(*this, "attribute", i++, a.name(), true);
        if (!a.name().empty() && !names.insert(a.name()).second)
            error("duplicate_attribute", "attribute " + q(a.name()) + " appears more than once", offset_of(a));
        check_attribute(a, in_function, depth);
        if (stopped_) return;
    }
}

void checker::check_attribute(const attribute_view& a, bool in_function, std::uint32_t depth) {
    if (a.name().empty()) error("empty_name", "an attribute has an empty name", offset_of(a));
    if (ir_version_ >= 2 && !a.has_type())
        error("missing_attribute_type", "attribute " + q(a.name()) + " has no type", offset_of(a));
    struct present {
        bool set;
        attribute_type type;
        const char* field;
    };
    const present fields[] = {
        {a.has_f(), attribute_type::float32, "f"},
        {a.has_i(), attribute_type::int64, "i"},
        {a.has_s(), attribute_type::string, "s"},
        {a.has_t(), attribute_type::tensor, "t"},
        {a.has_g(), attribute_type::graph, "g"},
        {a.has_sparse_tensor(), attribute_type::sparse_tensor, "sparse_tensor"},
        {a.has_tp(), attribute_type::type_proto, "tp"},
        {a.floats().begin() != a.floats().end(), attribute_type::floats, "floats"},
        {a.ints().begin() != a.ints().end(), attribute_type::ints, "ints"},
        {!a.strings().empty(), attribute_type::strings, "strings"},
        {!a.tensors().empty(), attribute_type::tensors, "tensors"},
        {!a.graphs().empty(), attribute_type::graphs, "graphs"},
        {!a.sparse_tensors().empty(), attribute_type::sparse_tensors, "sparse_tensors"},
        {!a.type_protos().empty(), attribute_type::type_protos, "type_protos"},
    };
    int used = 0;
    std::string list;
    for (const present& f : fields) {
        if (!f.set) continue;
        ++used;
        if (!list.empty()) list += ", ";
        list += f.field;
        if (a.has_type() && a.type() != f.type)
            error("attribute_type_mismatch",
                  "attribute " + q(a.name()) + " has type " +
                      attribute_type_name(static_cast<std::int32_t>(a.type())) + " but holds field '" +
                      f.field + "'",
                  offset_of(a));
    }
    if (used > 1)
        error("attribute_several_values", "attribute " + q(a.name()) + " holds more than one value field (" +
                                              list + ")",
              offset_of(a));
    if (a.has_ref_attr_name()) {
        if (!in_function)
            warning("ref_attr_outside_function",
                    "attribute " + q(a.name()) + " refers to a function attribute outside a function body",
                    offset_of(a));
        else if (used != 0)
            error("ref_attr_with_value",
                  "attribute " + q(a.name()) + " refers to a parent attribute and also holds a value",
                  offset_of(a));
    }
    if (a.has_t()) {
        path_guard p(*this, "t");
        check_tensor(a.t());
    }
    if (a.has_sparse_tensor()) {
        path_guard p(*this, "sparse_tensor");
        check_sparse(a.sparse_tensor());
    }
    if (a.has_g()) {
        path_guard p(*this, "g");
        check_graph(a.g(), false, depth + 1);
    }
    std::int64_t i = 0;
    for (const tensor_view& t : a.tensors()) {
        path_guard p(*this, "tensors", i++);
        check_tensor(t);
    }
    i = 0;
    for (const sparse_tensor_view& s : a.sparse_tensors()) {
        path_guard p(*this, "sparse_tensors", i++);
        check_sparse(s);
    }
    i = 0;
    for (const graph_view& g : a.graphs()) {
        path_guard p(*this, "graphs", i++);
        check_graph(g, false, depth + 1);
        if (stopped_) return;
    }
}

void checker::check_tensor(const tensor_view& t) {
    const std::uint64_t before = result_.errors;
    check_tensor_rules(t);
    if (result_.errors != before || stopped_ || t.data_location() == location_kind::external) return;
    // The element-access layer's rules (tensor_data.hpp) are the ones every
    // reader of the values applies; a tensor they refuse cannot be read.
    auto s = describe_storage(t);
    if (!s)
        error(errc_name(s.err().code), "tensor " + q(t.name()) + ": " + errc_message(s.err().code) +
                                           " (byte " + std::to_string(s.err().offset) + ")",
              offset_of(t));
}

void checker::check_tensor_rules(const tensor_view& t) {
    const std::uint64_t off = offset_of(t);
    const std::string name = q(t.name());
    if (!t.has_data_type()) {
        error("missing_data_type", "tensor " + name + " has no data_type", off);
        return;
    }
    const std::int32_t dt = t.data_type();
    if (dt == 0) {
        error("undefined_data_type", "tensor " + name + " has data_type UNDEFINED", off);
        return;
    }
    if (dt < 0 || dt > max_data_type) {
        error("unknown_data_type", "tensor " + name + " has unknown data_type " + std::to_string(dt), off);
        return;
    }
    // Element count, with negative dims and overflow refused.
    std::uint64_t n = 1;
    bool dims_ok = true;
    for (std::int64_t d : t.dims()) {
        if (d < 0) {
            error("negative_dim", "tensor " + name + " has a negative dimension " + std::to_string(d), off);
            dims_ok = false;
            break;
        }
        if (d != 0 && n > UINT64_MAX / static_cast<std::uint64_t>(d)) {
            error("dims_overflow", "tensor " + name + " has more than 2^64 elements", off);
            dims_ok = false;
            break;
        }
        n *= static_cast<std::uint64_t>(d);
    }
    const unsigned bits = element_bits(dt);
    std::uint64_t expected_bytes = unknown_size;
    if (dims_ok && bits != 0) {
        if (n > UINT64_MAX / bits) {
            error("dims_overflow", "tensor " + name + " holds more than 2^64 bytes", off);
            dims_ok = false;
        } else {
            expected_bytes = (n * bits + 7) / 8;
        }
    }

    struct count {
        value_field f;
        std::uint64_t n;
    };
    auto repeated_count = [](const auto& r) -> std::uint64_t {
        auto c = r.count();
        return c.ok() ? c.value() : 0;
    };
    const count counts[] = {
        {value_field::float_data, repeated_count(t.float_data())},
        {value_field::int32_data, repeated_count(t.int32_data())},
        {value_field::string_data, t.string_data().size()},
        {value_field::int64_data, repeated_count(t.int64_data())},
        {value_field::double_data, repeated_count(t.double_data())},
        {value_field::uint64_data, repeated_count(t.uint64_data())},
    };
    // onnx counts a value field only when it is non-empty (an empty raw_data
    // is how proto3 writers and numpy_helper store a 0-element tensor).
    const bool has_raw = !t.raw_data().empty();
    int fields = has_raw ? 1 : 0;
    value_field typed = value_field::none;
    std::uint64_t typed_count = 0;
    for (const count& c : counts) {
        if (c.n == 0) continue;
        ++fields;
        typed = c.f;
        typed_count = c.n;
    }

    if (t.data_location() == location_kind::external) {
        if (fields != 0)
            error("external_with_data", "tensor " + name + " is stored externally but also holds data", off);
        check_external(t, dims_ok ? expected_bytes : unknown_size);
        return;
    }
    if (!t.external_data().empty())
        warning("external_data_ignored",
                "tensor " + name + " has external_data entries but data_location is not EXTERNAL", off);
    if (!dims_ok) return;
    if (n == 0) {
        if (fields != 0) error("empty_with_data", "tensor " + name + " has 0 elements but holds data", off);
        return;
    }
    if (fields != 1) {
        error("value_field_count", "tensor " + name + " must hold exactly one value field, it holds " +
                                       std::to_string(fields),
              off);
        return;
    }
    if (has_raw) {
        if (dt == static_cast<std::int32_t>(data_type::string)) {
            error("string_in_raw_data", "STRING tensor " + name + " cannot be stored in raw_data", off);
            return;
        }
        if (t.raw_data().size() != expected_bytes)
            error("payload_size_mismatch", "tensor " + name + " has raw_data of " +
                                               std::to_string(t.raw_data().size()) + " bytes, but dims x " +
                                               data_type_name(dt) + " need " + std::to_string(expected_bytes),
                  off);
        return;
    }
    const value_field want = field_for(dt);
    if (typed != want) {
        error("wrong_value_field", std::string("values of ") + data_type_name(dt) + " tensor " + name +
                                      " must be in " + field_name(want) + ", not " + field_name(typed),
              off);
        return;
    }
    std::uint64_t expect = n;
    if (dt == static_cast<std::int32_t>(data_type::complex64) ||
        dt == static_cast<std::int32_t>(data_type::complex128)) {
        if (n > UINT64_MAX / 2) return;
        expect = 2 * n;
    }
    bool ok = typed_count == expect;
    if (bits == 4 || bits == 2) ok = ok || typed_count == (n * bits + 31) / 32 || typed_count == (n * bits + 7) / 8;
    if (!ok)
        error("payload_size_mismatch", "tensor " + name + " has " + std::to_string(typed_count) + " " +
                                           field_name(typed) + " values, but dims give " + std::to_string(expect),
              off);
}

void checker::check_external(const tensor_view& t, std::uint64_t expected) {
    const std::uint64_t off = offset_of(t);
    std::vector<external_entry> entries;
    bool has_location = false;
    for (const string_entry_view& e : t.external_data()) {
        entries.push_back(external_entry{e.key(), e.value()});
        if (e.key() == "location") has_location = true;
    }
    if (!has_location) {
        error("external_no_location", "tensor " + q(t.name()) + " is stored externally without a location", off);
        return;
    }
    if (!resolver_tried_) {
        resolver_tried_ = true;
        external_data_options eo{};
        if (opt_.external) eo = *opt_.external;
        else eo.model_path = opt_.model_path;
        if (opt_.external || opt_.model_path) {
            auto r = external_data_resolver::create(eo);
            if (r) {
                resolver_ = std::move(r.value());
                have_resolver_ = true;
            } else {
                error("external_base", std::string("cannot open the directory of external data: ") +
                                           errc_message(r.err().code));
            }
        }
    }
    if (!have_resolver_) {
        if (!external_warned_ && !opt_.external && !opt_.model_path) {
            external_warned_ = true;
            warning("external_not_checked", "external data was not checked (no model path given)", off);
        }
        return;
    }
    auto span = resolver_.resolve(entries.data(), entries.size(), expected);
    if (!span) {
        char why[512];
        std::string msg = describe_external_error(span.err(), t, why, sizeof why);
        msg += " [";
        msg += errc_name(span.err().code);
        msg += "]";
        error("external_data", msg, off);
    }
}

// The idx-th int64 of an INT64 tensor (raw little-endian or int64_data).
bool int64_values(const tensor_view& t, std::vector<std::int64_t>& out, std::uint64_t limit) {
    out.clear();
    if (!t.raw_data().empty()) {
        const std::string_view raw = t.raw_data();
        if (raw.size() % 8 != 0 || raw.size() / 8 != limit) return false;
        out.reserve(static_cast<std::size_t>(limit));  // bounded by bytes present
        for (std::size_t i = 0; i < raw.size(); i += 8) {
            std::uint64_t v = 0;
            for (int b = 7; b >= 0; --b) v = (v << 8) | static_cast<unsigned char>(raw[i + static_cast<std::size_t>(b)]);
            out.push_back(static_cast<std::int64_t>(v));
        }
        return true;
    }
    for (std::int64_t v : t.int64_data()) {
        if (out.size() >= limit) return false;
        out.push_back(v);
    }
    return out.size() == limit;
}

void checker::check_sparse(const sparse_tensor_view& s) {
    const std::uint64_t off = offset_of(s);
    if (!s.has_values()) {
        error("sparse_no_values", "sparse tensor has no values", off);
        return;
    }
    const tensor_view values = s.values();
    const std::string name = q(values.name());
    {
        path_guard p(*this, "values");
        check_tensor(values);
    }
    std::vector<std::int64_t> vdims(values.dims().begin(), values.dims().end());
    if (vdims.size() != 1) {
        error("sparse_values_rank", "sparse tensor " + name + " values must have rank 1", off);
        return;
    }
    const std::int64_t nnz = vdims[0];
    std::vector<std::int64_t> dims;
    for (std::int64_t d : s.dims()) dims.push_back(d);
    if (dims.empty()) {
        error("sparse_rank", "sparse tensor " + name + " must have a dense rank > 0", off);
        return;
    }
    std::uint64_t dense = 1;
    for (std::int64_t d : dims) {
        if (d <= 0) {
            error("sparse_dims", "sparse tensor " + name + " has a dimension that is not positive", off);
            return;
        }
        if (dense > static_cast<std::uint64_t>(INT64_MAX) / static_cast<std::uint64_t>(d)) {
            error("dims_overflow", "sparse tensor " + name + " has more than 2^63 elements", off);
            return;
        }
        dense *= static_cast<std::uint64_t>(d);
    }
    if (!s.has_indices()) {
        if (nnz != 0) error("sparse_no_indices", "sparse tensor " + name + " has values but no indices", off);
        return;
    }
    const tensor_view indices = s.indices();
    {
        path_guard p(*this, "indices");
        check_tensor(indices);
    }
    if (indices.data_type() != static_cast<std::int32_t>(data_type::int64)) {
        error("sparse_indices_type", "sparse tensor " + name + " indices must be INT64", off);
        return;
    }
    if (indices.data_location() == location_kind::external) return;  // not read here
    std::vector<std::int64_t> idims(indices.dims().begin(), indices.dims().end());
    if (idims.size() != 1 && idims.size() != 2) {
        error("sparse_indices_rank", "sparse tensor " + name + " indices must have rank 1 or 2", off);
        return;
    }
    if (idims[0] != nnz) {
        error("sparse_indices_count", "sparse tensor " + name + " has " + std::to_string(idims[0]) +
                                          " indices but " + std::to_string(nnz) + " values",
              off);
        return;
    }
    const std::uint64_t rank = idims.size() == 1 ? 1 : dims.size();
    if (idims.size() == 2 && idims[1] != static_cast<std::int64_t>(dims.size())) {
        error("sparse_indices_rank", "sparse tensor " + name + " indices second dimension " +
                                         std::to_string(idims[1]) + " differs from the dense rank " +
                                         std::to_string(dims.size()),
              off);
        return;
    }
    if (nnz < 0) return;  // reported by check_tensor
    // The count is bounded by the bytes present: int64_values refuses a
    // payload whose size does not match before reserving anything.
    const std::uint64_t want = static_cast<std::uint64_t>(nnz) * rank;
    if (rank != 0 && want / rank != static_cast<std::uint64_t>(nnz)) return;
    std::vector<std::int64_t> idx;
    if (!int64_values(indices, idx, want)) return;  // size mismatch: reported by check_tensor
    std::int64_t prev = -1;
    for (std::uint64_t i = 0; i < static_cast<std::uint64_t>(nnz); ++i) {
        std::int64_t linear = 0;
        if (idims.size() == 1) {
            linear = idx[static_cast<std::size_t>(i)];
            if (linear < 0 || static_cast<std::uint64_t>(linear) >= dense) {
                error("sparse_index_range", "sparse tensor " + name + " index " + std::to_string(linear) +
                                                " at position " + std::to_string(i) + " is out of range",
                      off);
                return;
            }
        } else {
            for (std::size_t j = 0; j < dims.size(); ++j) {
                const std::int64_t v = idx[static_cast<std::size_t>(i * rank + j)];
                if (v < 0 || v >= dims[j]) {
                    error("sparse_index_range", "sparse tensor " + name + " index at position [" +
                                                    std::to_string(i) + "," + std::to_string(j) +
                                                    "] is out of range",
                          off);
                    return;
                }
                linear = linear * dims[j] + v;
            }
        }
        if (linear <= prev) {
            error("sparse_index_order", "sparse tensor " + name + " index at position " + std::to_string(i) +
                                            " is not in increasing order",
                  off);
            return;
        }
        prev = linear;
    }
}

void checker::check_functions(const model_view& m) {
    std::int64_t i = 0;
    // Merged opsets: the model's, then each function's (onnx 1.12
    // check_model_local_functions).
    std::unordered_map<std::string_view, std::int64_t> merged = model_opsets_;
    for (const function_view& f : m.functions())
        for (const opset_id_view& op : f.opset_import())
            merged.emplace(op.domain() == "ai.onnx" ? std::string_view() : op.domain(), op.version());
    for (const function_view& f : m.functions()) {
        path_guard p(*this, "functions", i, f.name(), true);
        const std::uint64_t off = offset_of(f);
        if (f.name().empty()) error("empty_name", "a function has an empty name", off);
        if (!f.has_domain() && ir_version_ >= 8)
            error("function_no_domain", "function " + q(f.name()) + " has no domain", off);
        const function_key key{f.domain(), f.name(), f.overload()};
        if (!functions_.emplace(key, static_cast<std::size_t>(i)).second)
            error("duplicate_function", "function " + q(f.domain()) + "::" + q(f.name()) +
                                            " is defined more than once",
                  off);
        std::unordered_map<std::string_view, std::int64_t> opsets;
        for (const opset_id_view& op : f.opset_import())
            opsets.emplace(op.domain() == "ai.onnx" ? std::string_view() : op.domain(), op.version());
        scopes_.emplace_back();
        std::vector<name_set> outer;
        outer.swap(scopes_);  // a function sees no outer values
        scopes_.emplace_back();
        for (std::string_view in : f.input())
            if (!scopes_.back().insert(in).second)
                error("duplicate_input", "function input " + q(in) + " is declared more than once", off);
        name_set names;
        for (std::string_view out : f.output())
            if (!names.insert(out).second)
                error("duplicate_output", "function output " + q(out) + " is declared more than once", off);
        names.clear();
        for (std::string_view a : f.attribute())
            if (!names.insert(a).second)
                error("duplicate_attribute", "function attribute " + q(a) + " is declared more than once", off);
        for (const attribute_view& a : f.attribute_proto())
            if (!names.insert(a.name()).second)
                error("duplicate_attribute", "function attribute " + q(a.name()) + " is declared more than once",
                      off);
        std::int64_t k = 0;
        for (const node_view& n : f.node()) {
            path_guard pn(*this, "node", k++, n.name(), true);
            std::int64_t j = 0;
            for (std::string_view in : n.input()) {
                if (!in.empty() && !defined_in_scopes(in)) {
                    path_guard pi(*this, "input", j);
                    error("undefined_input", "input " + q(in) + " of " + q(n.op_type()) +
                                                 " node is neither a function input nor an output of an "
                                                 "earlier node",
                          offset_of(n));
                }
                ++j;
            }
            check_node(n, opsets.empty() ? merged : opsets, true, 0);
            j = 0;
            for (std::string_view out : n.output()) {
                if (!out.empty()) {
                    if (defined_in_scopes(out)) {
                        path_guard po(*this, "output", j);
                        error("duplicate_output", "value " + q(out) + " is already defined (SSA)", offset_of(n));
                    }
                    scopes_.back().insert(out);
                }
                ++j;
            }
            if (stopped_) break;
        }
        k = 0;
        for (std::string_view out : f.output()) {
            if (!out.empty() && !scopes_.back().count(out)) {
                path_guard po(*this, "output", k);
                error("undefined_output", "function output " + q(out) + " is not produced by any node", off);
            }
            ++k;
        }
        scopes_.swap(outer);
        scopes_.pop_back();
        ++i;
        if (stopped_) return;
    }
    check_function_calls(m);
}

void checker::collect_call(const node_view& n, std::vector<std::size_t>& out, std::uint32_t depth) {
    auto it = functions_.find(function_key{n.domain(), n.op_type(), n.overload()});
    if (it != functions_.end()) out.push_back(it->second);
    for (const attribute_view& a : n.attribute()) {
        if (a.has_g()) collect_calls(a.g(), out, depth + 1);
        for (const graph_view& g : a.graphs()) collect_calls(g, out, depth + 1);
    }
}

void checker::collect_calls(const graph_view& g, std::vector<std::size_t>& out, std::uint32_t depth) {
    if (depth > max_depth_) return;
    for (const node_view& n : g.node()) collect_call(n, out, depth);
}

// A function that reaches itself through calls would expand forever: find
// cycles in the call graph with an iterative depth-first search.
void checker::check_function_calls(const model_view& m) {
    if (functions_.empty()) return;
    std::vector<function_view> fs(m.functions().begin(), m.functions().end());
    std::vector<std::vector<std::size_t>> calls(fs.size());
    for (std::size_t i = 0; i < fs.size(); ++i) {
        for (const node_view& n : fs[i].node()) collect_call(n, calls[i], 1);
        std::sort(calls[i].begin(), calls[i].end());
        calls[i].erase(std::unique(calls[i].begin(), calls[i].end()), calls[i].end());
    }
    enum : std::uint8_t { white, grey, black };
    std::vector<std::uint8_t> color(fs.size(), white);
    std::vector<std::pair<std::size_t, std::size_t>> stack;  // (function, next callee index)
    for (std::size_t root = 0; root < fs.size(); ++root) {
        if (color[root] != white) continue;
        stack.emplace_back(root, 0);
        color[root] = grey;
        while (!stack.empty()) {
            auto& top = stack.back();
            if (top.second == calls[top.first].size()) {
                color[top.first] = black;
                stack.pop_back();
                continue;
            }
            const std::size_t callee = calls[top.first][top.second++];
            if (color[callee] == grey) {
                // The cycle is the stack from callee to the top.
                std::string chain;
                bool on = false;
                for (const auto& fr : stack) {
                    if (fr.first == callee) on = true;
                    if (on) chain += q(fs[fr.first].name()) + " -> ";
                }
                chain += q(fs[callee].name());
                path_guard p(*this, "functions", static_cast<std::int64_t>(callee), fs[callee].name(), true);
                error("recursive_function", "function calls itself: " + chain, offset_of(fs[callee]));
            } else if (color[callee] == white) {
                color[callee] = grey;
                stack.emplace_back(callee, 0);
            }
        }
    }
}

}  // namespace

check_result check_model(const void* data, std::size_t size, const check_options& options,
                         check_callback callback, void* user) {
    checker c(static_cast<const char*>(data), size, options, callback, user);
    return c.run();
}

}  // namespace onnxview
