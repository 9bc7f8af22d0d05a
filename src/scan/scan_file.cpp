// One file's scan record (scan_file, onnxview/scan.hpp): what it is, what
// the model holds, and its security findings. docs/scan.md is the
// definition of every field and code; this file follows it.
#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "onnxview/check.hpp"
#include "onnxview/data_types.hpp"
#include "onnxview/diagnose.hpp"
#include "onnxview/display.hpp"
#include "onnxview/enums.hpp"
#include "onnxview/json_writer.hpp"
#include "onnxview/model_file.hpp"
#include "onnxview/scan.hpp"
#include "onnxview/stats.hpp"
#include "onnxview/traverse.hpp"
#include "external_files.hpp"
#include "scan_internal.hpp"
#ifdef ONNXVIEW_SCAN_DIGEST
#include "onnxview/compare/model_hash.hpp"
#endif

namespace onnxview {

void add_finding(scan_record& r, const char* code, scan_severity s, std::string message, std::string where) {
    r.findings.push_back({code, s, std::move(message), std::move(where)});
    if (s > r.highest) r.highest = s;
}

bool element_product(const std::vector<std::int64_t>& dims, std::uint64_t& out) {
    out = 1;
    for (std::int64_t d : dims) {
        if (d < 0) return false;
        const auto u = static_cast<std::uint64_t>(d);
        out = u != 0 && out > ~std::uint64_t(0) / u ? ~std::uint64_t(0) : out * u;
    }
    return true;
}

const char* scan_severity_name(scan_severity s) noexcept {
    switch (s) {
        case scan_severity::info: return "info";
        case scan_severity::warning: return "warning";
        case scan_severity::error: return "error";
        case scan_severity::none: break;
    }
    return "none";
}

namespace {


// The finding code of a diagnosis that is not a model.
const char* diagnosis_code(diagnosis_kind k) noexcept {
    switch (k) {
        case diagnosis_kind::git_lfs_pointer: return "lfs_pointer";
        case diagnosis_kind::truncated:
        case diagnosis_kind::zero_filled_tail: return "truncated";
        default: return "not_a_model";
    }
}

// Operators that run code the model carries (onnxruntime's PythonOp and
// PyOp contrib kernels, and their cousins).
bool is_dangerous_op(std::string_view op) noexcept {
    return op == "PythonOp" || op == "PythonOpGrad" || op == "PyOp" || op == "PyFunc";
}

// Domains whose operators runtimes implement: the standard ones and those of
// onnxruntime's contrib ops and the PyTorch exporter's library.
bool is_known_domain(std::string_view d) noexcept {
    static const char* const known[] = {"ai.onnx",          "ai.onnx.ml",          "ai.onnx.preview.training",
                                        "com.microsoft",    "com.microsoft.nchwc", "com.microsoft.experimental",
                                        "com.microsoft.dml", "pkg.onnxscript.torch_lib"};
    for (const char* k : known)
        if (d == k) return true;
    return false;
}

struct counts {
    std::uint64_t tensors = 0, elements = 0, bytes = 0;
};

// What the walk over every scope gathers.
struct model_facts {
    std::uint64_t nodes = 0, subgraphs = 0;
    std::map<std::string, std::uint64_t> domains, ops;
    counts parameters;
    std::map<std::string, counts> by_type;
    std::uint64_t payloads = 0, payload_bytes = 0, aligned = 0, aligned_bytes = 0;
};

class scanner {
public:
    scanner(model_file& mf, const scan_options& opts, scan_record& r) : mf_(mf), opts_(opts), r_(r), external_(mf, r) {}

    void run(json_writer& w) {
        const model_view& m = mf_.model();
        r_.ir_version = m.ir_version();
        r_.producer_name = std::string(m.producer_name());
        r_.producer_version = std::string(m.producer_version());
        for (const opset_id_view& o : m.opset_import()) r_.opsets.emplace_back(std::string(o.domain()), o.version());
        for (const function_view& f : m.functions()) local_domains_.emplace_back(f.domain());
        walk_scopes_and_tensors();
        external_.finish(opts_.digests);
        write_model(w, m);
    }

private:
    // --- nodes and tensors, in every scope
    struct walker : tensor_scope_visitor<walker> {
        scanner& s;
        explicit walker(scanner& sc) : tensor_scope_visitor<walker>(*this), s(sc) {}
        void operator()(const stored_tensor& st) { s.tensor(st); }
        bool enter(const model_scope& sc) {
            if (sc.kind == scope_kind::subgraph) ++s.facts_.subgraphs;
            if (sc.is_graph()) s.declared_shapes(sc);
            return tensor_scope_visitor<walker>::enter(sc);
        }
        void node(const model_scope& sc, const node_view& n, std::uint32_t i) {
            s.node(sc, n, i);
            tensor_scope_visitor<walker>::node(sc, n, i);
        }
    };

    void walk_scopes_and_tensors() {
        walker w(*this);
        if (error e = walk_scopes(mf_.model(), w))
            add_finding(r_, "invalid_model", scan_severity::error, std::string("graphs nest too deep: ") + errc_message(e.code));
        stored_shape_checks();
    }

    std::string place(const model_scope& s, const char* what, std::uint32_t index, std::string_view name) {
        std::string p;
        append_scope_path(s, p);
        p += std::string(".") + what + "[" + std::to_string(index) + "]";
        if (!name.empty()) p += " " + quoted(name);
        return p;
    }

    void node(const model_scope& s, const node_view& n, std::uint32_t index) {
        ++facts_.nodes;
        const std::string_view domain = n.domain();
        const std::string op(n.op_type());
        const bool standard = domain.empty() || domain == "ai.onnx";
        ++facts_.domains[standard ? std::string("ai.onnx") : std::string(domain)];
        ++facts_.ops[standard ? op : std::string(domain) + "::" + op];
        if (is_dangerous_op(op))
            add_finding(r_, "dangerous_op", scan_severity::error,
                op + " runs code the model carries (domain " + quoted(standard ? "ai.onnx" : domain) + ")",
                place(s, "node", index, n.name()));
        if (!standard && !is_known_domain(domain) &&
            std::find(local_domains_.begin(), local_domains_.end(), domain) == local_domains_.end() &&
            reported_domains_.insert(std::string(domain)).second)
            add_finding(r_, "custom_domain", scan_severity::warning,
                "operators of the custom domain " + quoted(domain) + " need a runtime that registers them",
                place(s, "node", index, n.name()));
        if (is_constant_node(n) && n.output().size() != 0)
            for (const attribute_view& a : n.attribute()) {
                const std::string out(*n.output().begin());
                if (a.name() == "value" && a.has_t()) stored_.emplace(out, a.t());
                if (a.name() == "value_ints") stored_ints_.emplace(out, std::vector<std::int64_t>(a.ints().begin(), a.ints().end()));
            }
        const std::string_view op_type = n.op_type();
        if (standard && (op_type == "ConstantOfShape" || op_type == "Expand" || op_type == "Reshape" || op_type == "Tile"))
            shape_users_.push_back({place(s, "node", index, n.name()), n});
    }

    void declared_shapes(const model_scope& s) {
        for (const tensor_view& t : s.graph.initializer()) stored_.emplace(std::string(t.name()), t);
        const auto each = [&](const message_range<value_info_view>& vs, const char* field) {
            std::uint32_t i = 0;
            for (const value_info_view& v : vs) {
                const type_view t = v.type();
                if (t.has_tensor_type() && t.tensor_type().has_shape()) {
                    std::vector<std::int64_t> dims;
                    for (const dimension_view& d : t.tensor_type().shape().dim())
                        dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
                    std::uint64_t n = 0;
                    // Unknown dims count as 1: the known ones alone ask for this much.
                    for (std::int64_t& d : dims)
                        if (d < 0) d = 1;
                    if (element_product(dims, n) && n > opts_.max_elements)
                        add_finding(r_, "huge_elements", scan_severity::warning,
                            "declared with " + grouped_count(n) + " elements (limit " + grouped_count(opts_.max_elements) + ")",
                            place(s, field, i, v.name()));
                }
                ++i;
            }
        };
        each(s.graph.input(), "input");
        each(s.graph.output(), "output");
        each(s.graph.value_info(), "value_info");
    }

    void tensor(const stored_tensor& st) {
        const tensor_view& t = st.tensor;
        std::string where;
        append_tensor_path(st, where);
        if (!t.name().empty()) where += " " + quoted(t.name());
        std::vector<std::int64_t> dims(t.dims().begin(), t.dims().end());
        std::uint64_t elements = 0;
        const bool sized = element_product(dims, elements);
        if (sized && elements > opts_.max_elements)
            add_finding(r_, "huge_elements", scan_severity::warning,
                "dims ask for " + grouped_count(elements) + " elements (limit " + grouped_count(opts_.max_elements) + ")",
                where);
        if (st.sparse_indices) return;  // positions, not parameters
        const data_type_info* info = find_data_type_info(t.data_type());
        std::uint64_t bytes = 0;
        if (info != nullptr && sized) bytes = info->bits == 0 ? 0 : (elements * info->bits + 7) / 8;
        ++facts_.parameters.tensors;
        facts_.parameters.elements += sized ? elements : 0;
        facts_.parameters.bytes += bytes;
        counts& c = facts_.by_type[info != nullptr ? info->name : "UNKNOWN"];
        ++c.tensors;
        c.elements += sized ? elements : 0;
        c.bytes += bytes;
        if (t.data_location() == location_kind::external) {
            const std::string_view bytes = external_.add(t, where);
            if (!bytes.empty()) payload(bytes, info);
        } else if (t.has_raw_data() && !t.raw_data().empty()) {
            payload(t.raw_data(), info);
        }
    }

    // Zero-copy readiness of a raw or external payload: whether
    // tensor_data::as_span() can hand it out in place on this host (natural
    // element of at least a byte, little-endian host, address aligned for
    // it; BOOL's values are not read for this).
    void payload(std::string_view bytes, const data_type_info* info) {
        if (info == nullptr || info->kind == element_kind::string) return;
        ++facts_.payloads;
        facts_.payload_bytes += bytes.size();
        unsigned width = info->element_bytes();
        if (info->kind == element_kind::complex) width /= 2;  // std::complex<T> is aligned as T
        const auto address = reinterpret_cast<std::uintptr_t>(bytes.data());
        if (width != 0 && host_is_little_endian && address % width == 0) {
            ++facts_.aligned;
            facts_.aligned_bytes += bytes.size();
        }
    }

    // --- stored shapes asking for too much
    struct shape_user {
        std::string where;
        node_view node;
    };

    // The INT64 (or INT32) values of a stored tensor of at most 64 elements.
    bool stored_values(std::string_view name, std::vector<std::int64_t>& out) {
        const auto ints = stored_ints_.find(std::string(name));
        if (ints != stored_ints_.end()) {
            out = ints->second;
            return out.size() <= 64;
        }
        const auto it = stored_.find(std::string(name));
        if (it == stored_.end()) return false;
        const result<tensor_data> d = mf_.tensor(it->second);
        if (!d || d->size() > 64) return false;
        out.clear();
        if (d->holds<std::int64_t>()) {
            for (std::int64_t v : d->elements<std::int64_t>()) out.push_back(v);
        } else if (d->holds<std::int32_t>()) {
            for (std::int32_t v : d->elements<std::int32_t>()) out.push_back(v);
        } else {
            return false;
        }
        return out.size() == d->size();
    }

    void stored_shape_checks() {
        for (const shape_user& u : shape_users_) {
            const node_view& n = u.node;
            const std::string_view d = n.domain();
            if (!(d.empty() || d == "ai.onnx")) continue;
            const std::string_view op = n.op_type();
            int input = -1;
            if (op == "ConstantOfShape") input = 0;
            else if (op == "Expand" || op == "Reshape" || op == "Tile") input = 1;
            else continue;
            std::string_view name;
            int i = 0;
            for (std::string_view s : n.input())
                if (i++ == input) name = s;
            std::vector<std::int64_t> values;
            if (name.empty() || !stored_values(name, values)) continue;
            for (std::int64_t& v : values)
                if (v <= 0 && op == "Reshape") v = 1;  // 0 copies a dim, -1 is inferred: not asked for here
            std::uint64_t n_elements = 0;
            if (!element_product(values, n_elements) || n_elements <= opts_.max_elements) continue;
            add_finding(r_, "huge_elements", scan_severity::warning,
                std::string(op) + " asks for " + grouped_count(n_elements) + " elements (" +
                    (op == "Tile" ? "repeats " : "shape ") + quoted(name) + "; limit " +
                    grouped_count(opts_.max_elements) + ")",
                u.where);
        }
    }

    // --- the record
    void write_model(json_writer& w, const model_view& m) {
        w.key("model");
        w.begin_object();
        w.field("ir_version", m.ir_version());
        w.field("producer_name", m.producer_name());
        w.field("producer_version", m.producer_version());
        w.field("domain", m.domain());
        w.field("model_version", m.model_version());
        w.key("opsets");
        w.begin_object();
        for (const auto& [domain, version] : r_.opsets) w.field(domain, version);
        w.end_object();
        w.field("nodes", facts_.nodes);
        w.field("functions", static_cast<std::uint64_t>(m.functions().size()));
        w.field("subgraphs", facts_.subgraphs);
        w.key("domains");
        w.begin_object();
        for (const auto& [k, v] : facts_.domains) w.field(k, v);
        w.end_object();
        w.key("ops");
        w.begin_object();
        for (const auto& [k, v] : facts_.ops) w.field(k, v);
        w.end_object();
        const auto signature = [&](const char* key, const message_range<value_info_view>& vs) {
            w.key(key);
            w.begin_array();
            for (const value_info_view& v : vs) {
                w.begin_object();
                w.field("name", v.name());
                w.field("type", std::string_view(type_string(v.type())));
                w.end_object();
            }
            w.end_array();
        };
        const graph_view g = m.graph();
        signature("inputs", g.input());
        signature("outputs", g.output());
        r_.parameters = facts_.parameters.elements;
        w.key("parameters");
        w.begin_object();
        w.field("tensors", facts_.parameters.tensors);
        w.field("elements", facts_.parameters.elements);
        w.field("bytes", facts_.parameters.bytes);
        w.key("by_type");
        w.begin_object();
        for (const auto& [type, c] : facts_.by_type) {
            w.key(type);
            w.begin_object();
            w.field("tensors", c.tensors);
            w.field("elements", c.elements);
            w.field("bytes", c.bytes);
            w.end_object();
        }
        w.end_object();
        w.end_object();
        w.key("external_files");
        w.begin_array();
        for (const scan_external_file& f : r_.external_files) {
            w.begin_object();
            w.field("location", std::string_view(f.location));
            w.field("tensors", f.tensors);
            w.field("bytes", f.bytes);
            w.field("exists", f.exists);
            w.key("size");
            if (f.exists) w.value(f.size);
            else w.null();
            w.field("in_range", f.in_range);
            if (!f.sha256.empty()) w.field("sha256", std::string_view(f.sha256));
            w.end_object();
        }
        w.end_array();
        check(w);
        if (opts_.numeric) numeric(w);
        w.key("zero_copy");
        w.begin_object();
        w.field("payloads", facts_.payloads);
        w.field("bytes", facts_.payload_bytes);
        w.field("zero_copy", facts_.aligned);
        w.field("zero_copy_bytes", facts_.aligned_bytes);
        w.end_object();
        digest(w, m);
        w.end_object();
    }

    void check(json_writer& w) {
        options o;
        o.model_path = r_.path.c_str();
        struct tally {
            std::map<std::string, std::uint64_t> codes;
            std::string first_error;
        } t;
        const check_result c = check_model(mf_.bytes(), o, [](void* user, const check_finding& f) {
            tally& t = *static_cast<tally*>(user);
            ++t.codes[finding_code_name(f.code)];
            if (f.severity == check_severity::error && t.first_error.empty())
                t.first_error = std::string(f.path) + ": " + std::string(f.message);
        }, &t);
        w.key("check");
        w.begin_object();
        w.field("errors", c.errors);
        w.field("warnings", c.warnings);
        w.key("codes");
        w.begin_object();
        for (const auto& [k, v] : t.codes) w.field(k, v);
        w.end_object();
        w.end_object();
        if (c.errors != 0)
            add_finding(r_, "invalid_model", scan_severity::error,
                std::to_string(c.errors) + (c.errors == 1 ? " error" : " errors") + " of onnx.checker's rules, first: " +
                    t.first_error);
    }

    void numeric(json_writer& w) {
        struct tally {
            scan_record& r;
            std::map<std::string, std::uint64_t> codes;
        } t{r_, {}};
        const result<numeric_result> n = numeric_check(mf_, numeric_check_options(), [](void* user, const numeric_finding& f) {
            tally& t = *static_cast<tally*>(user);
            ++t.codes[numeric_code_name(f.code)];
            const scan_severity s = f.severity == numeric_severity::error     ? scan_severity::error
                                    : f.severity == numeric_severity::warning ? scan_severity::warning
                                                                              : scan_severity::info;
            add_finding(t.r, numeric_code_name(f.code), s, std::string(f.message), std::string(f.path));
        }, &t);
        w.key("numeric");
        w.begin_object();
        if (n) {
            w.field("errors", n->errors);
            w.field("warnings", n->warnings);
            w.field("infos", n->infos);
        } else {
            w.field("error", errc_message(n.err().code));
        }
        w.key("codes");
        w.begin_object();
        for (const auto& [k, v] : t.codes) w.field(k, v);
        w.end_object();
        w.end_object();
    }

    void digest(json_writer& w, const model_view& m) {
        w.key("digest");
#ifdef ONNXVIEW_SCAN_DIGEST
        external_payload_source ext = mf_.external();
        const result<digest128> d = model_digest(m, &ext, reading_payloads_once(mf_));
        if (d) {
            char hex[33];
            d->to_hex(hex);
            w.value(hex);
            return;
        }
#else
        (void)m;
#endif
        w.null();
    }

    model_file& mf_;
    const scan_options& opts_;
    scan_record& r_;
    model_facts facts_;
    std::vector<std::string_view> local_domains_;
    std::set<std::string> reported_domains_;
    std::map<std::string, tensor_view> stored_;
    std::map<std::string, std::vector<std::int64_t>> stored_ints_;  // Constant value_ints
    std::vector<shape_user> shape_users_;
    detail::external_inventory external_;
};

}  // namespace

scan_record scan_file(const char* path, const scan_options& opts) {
    scan_record r;
    r.path = path;
    json_writer w(true);
    w.begin_object();
    w.field("schema", "onnxview-scan/1");
    w.field("path", std::string_view(r.path));
    options o;
    o.reads = model_reads::metadata;
    o.keep_malformed = true;
    result<model_file> opened = model_file::open(path, o);
    if (!opened) {
        const error e = opened.err();
        std::string why = errc_message(e.code);
        if (e.sys_errno != 0) why += std::string(" (") + std::strerror(e.sys_errno) + ")";
        add_finding(r, "file_unreadable", scan_severity::error, "cannot read the file: " + why);
        w.field("error", std::string_view(why));
    } else {
        model_file& mf = opened.value();
        r.readable = true;
        r.size = mf.bytes().size();
        w.field("size", r.size);
        if (opts.digests) r.sha256 = sha256_hex(mf.bytes().data(), mf.bytes().size());
        const diagnosis d = diagnose(mf.bytes().data(), mf.bytes().size());
        w.key("diagnosis");
        w.begin_object();
        w.field("kind", diagnosis_kind_name(d.kind));
        w.field("line", std::string_view(d.line));
        w.end_object();
        r.is_model = d.healthy() && !mf.model_error();
        if (r.is_model) {
            scanner(mf, opts, r).run(w);
        } else {
            add_finding(r, diagnosis_code(d.kind), scan_severity::error, d.line);
        }
    }
    if (opts.digests && !r.sha256.empty()) {
        w.field("sha256", std::string_view(r.sha256));
        w.key("external_sha256");
        w.begin_object();
        for (const scan_external_file& f : r.external_files)
            if (!f.sha256.empty()) w.field(f.location, std::string_view(f.sha256));
        w.end_object();
    }
    w.key("findings");
    w.begin_array();
    for (const scan_finding& f : r.findings) {
        w.begin_object();
        w.field("code", std::string_view(f.code));
        w.field("severity", scan_severity_name(f.severity));
        w.field("message", std::string_view(f.message));
        w.field("where", std::string_view(f.where));
        w.end_object();
    }
    w.end_array();
    w.key("highest");
    if (r.highest == scan_severity::none) w.null();
    else w.value(scan_severity_name(r.highest));
    w.end_object();
    r.json = w.str();
    while (!r.json.empty() && r.json.back() == '\n') r.json.pop_back();
    return r;
}

}  // namespace onnxview
