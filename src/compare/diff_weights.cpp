// src/compare/diff_weights.cpp - the weights and layout sections of
// diff_models() (docs/diff.md): initializers, sparse initializers and
// Constant tensors by name and scope, their types, shapes, values and where
// their payloads are stored.
#include <map>
#include <string>
#include <vector>

#include "diff_internal.hpp"
#include "onnxview/compare/model_hash.hpp"
#include "onnxview/compare/values.hpp"
#include "onnxview/display.hpp"
#include "onnxview/enums.hpp"
#include "onnxview/tensor_data.hpp"
#include "onnxview/traverse.hpp"

namespace onnxview {
namespace diff_detail {
namespace {

struct weight {
    change_subject what;  // initializer, constant, sparse_initializer
    std::string name;  // as its model calls it
    const char* part;  // a sparse tensor's "indices" or "values", else ""
    std::string scope;  // append_scope_path, "" in the main graph
    tensor_view tensor;
};

// Initializers, sparse initializers and Constant tensors, by what they are
// and where; other tensor attributes are compared in the graph section.
// Keyed by what, name (a's as b calls them) and scope, in the order the
// report lists them.
std::map<std::string, weight> weights_of(const model_view& m, const value_names* names, error& failure) {
    std::map<std::string, weight> out;
    failure = for_each_tensor(m, [&out, names](const stored_tensor& st) {
        if (st.origin == tensor_origin::attribute) return;
        std::string ns;
        for (const model_scope* s = st.scope; s != nullptr; s = s->parent)
            if (s->kind == scope_kind::function) {
                ns = "function ";
                text_quote(ns, s->function.domain());
                ns += ':';
                text_quote(ns, s->function.name());
                if (!s->function.overload().empty()) ns += ':', text_quote(ns, s->function.overload());
            }
        std::string_view name;
        if (st.origin == tensor_origin::constant) {
            const auto outputs = st.holder.node.output();
            name = outputs.begin() != outputs.end() ? *outputs.begin() : st.holder.node.name();
        } else {
            name = st.sparse_part ? st.sparse.values().name() : st.tensor.name();
        }
        weight w{st.origin == tensor_origin::constant      ? change_subject::constant
                 : st.origin == tensor_origin::initializer ? change_subject::initializer
                                                           : change_subject::sparse_initializer,
                 std::string(name), !st.sparse_part ? "" : st.sparse_indices ? "indices" : "values", std::string(),
                 st.tensor};
        if (st.scope->kind != scope_kind::main_graph) append_scope_path(*st.scope, w.scope);
        std::string tail;
        if (*w.part != '\0') tail = std::string(" ") + w.part;
        if (!w.scope.empty()) tail += " in " + w.scope;
        std::string key = std::string(change_subject_name(w.what)) + " " + quoted(names != nullptr ? names->in_b(ns, name) : name) + tail;
        out[std::move(key)] = std::move(w);
    });
    return out;
}

// "[3,3]", as type_string writes a value's shape.
std::string dims_of(const tensor_view& t) {
    std::string s = "[";
    bool first = true;
    for (std::int64_t d : t.dims()) {
        if (!first) s += ',';
        first = false;
        s += std::to_string(d);
    }
    return s + "]";
}

std::string tensor_type(const tensor_view& t) { return data_type_name(t.data_type()) + dims_of(t); }

std::string where_stored(const tensor_view& t) {
    const result<storage_info> info = describe_storage(t);
    if (!info) return "invalid";
    const storage_info& s = *info;
    std::string out = storage_kind_name(s.kind);
    if (s.kind == storage_kind::external) out += " " + quoted(s.location);
    return out;
}

// A change of weight `w` (a's name and place).
model_change weight_change(diff_section section, change_kind kind, const weight& w) {
    model_change c = make_change(section, kind, w.what, w.name, section == diff_section::weights);
    c.scope = w.scope;
    c.part = w.part;
    return c;
}

// How the values of a and b differ, in c.figures; none when their element
// counts differ, they cannot be compared as numbers, or none differs. With
// allclose, values all within the tolerance set `tolerated` instead.
error value_figures(model_file& fa, const tensor_view& a, model_file& fb, const tensor_view& b,
                    const diff_options& options, model_change& c, bool& tolerated) {
    tolerated = false;
    const result<tensor_data> da = fa.tensor(a);
    const result<tensor_data> db = fb.tensor(b);
    if (!da) return da.err();
    if (!db) return db.err();
    if (da->scalar_count() != db->scalar_count()) return error();
    const result<value_difference> d = compare_values(*da, *db, options.tolerance);
    if (!d) return d.err().code == errc::bad_data_type ? error() : d.err();
    if (d->differing == 0) return error();
    if (options.weights == weights_comparison::allclose && d->beyond_tolerance == 0 && a.data_type() == b.data_type()) {
        tolerated = true;
        return error();
    }
    c.figures = *d;
    c.string_values = da->info().kind == element_kind::string;
    return error();
}

// The digest of `t`: the one model_digest made, or made now.
result<digest128> digest_of(const tensor_view& t, const tensor_digests& seen, const external_payload_source& ext,
                            const model_file& mf) {
    const auto it = seen.find(t.wire_message().begin());
    if (it != seen.end()) return it->second;
    digest_options releasing;
    releasing.payload_hashed = release_hashed_payload;
    releasing.user = const_cast<mapped_file*>(&mf.file());
    return tensor_digest(t, &ext, releasing);
}

}  // namespace

error diff_weights(model_file& fa, model_file& fb, bool values, const diff_options& options, const value_names& names,
                   const tensor_digests& seen_a, const tensor_digests& seen_b, change_list& out,
                   std::size_t& tolerated) {
    error failure;
    const std::map<std::string, weight> wa = weights_of(fa.model(), &names, failure);
    if (failure) return failure;
    const std::map<std::string, weight> wb = weights_of(fb.model(), nullptr, failure);
    if (failure) return failure;
    const external_payload_source ea = fa.external(), eb = fb.external();
    for (const auto& entry : wa) {
        // Not a structured binding: clang 14 does not let the lambda below capture one.
        const std::string& key = entry.first;
        const weight& w = entry.second;
        const auto other = wb.find(key);
        if (other == wb.end()) {
            out.push_back(weight_change(diff_section::weights, change_kind::removed, w));
            out.back().before = tensor_type(w.tensor);
            continue;
        }
        const tensor_view& a = w.tensor;
        const tensor_view& b = other->second.tensor;
        const auto change = [&](diff_section section, change_kind kind, std::string before, std::string after) {
            out.push_back(weight_change(section, kind, w));
            out.back().before = std::move(before);
            out.back().after = std::move(after);
        };
        if (a.data_type() != b.data_type())
            change(diff_section::weights, change_kind::data_type, data_type_name(a.data_type()), data_type_name(b.data_type()));
        const bool same_dims = dims_of(a) == dims_of(b);
        if (!same_dims) change(diff_section::weights, change_kind::shape, dims_of(a), dims_of(b));
        if (where_stored(a) != where_stored(b)) change(diff_section::layout, change_kind::storage, where_stored(a), where_stored(b));
        if (!values) continue;
        const result<digest128> da = digest_of(a, seen_a, ea, fa);
        const result<digest128> db = digest_of(b, seen_b, eb, fb);
        if (!da) return da.err();
        if (!db) return db.err();
        if (*da == *db) continue;
        model_change c = weight_change(diff_section::weights, change_kind::values, w);
        bool within = false;
        if (error e = value_figures(fa, a, fb, b, options, c, within)) return e;
        if (within) ++tolerated;
        // Values that differ in a way no figure tells (other counts or types
        // are listed above): still a change.
        else if (c.figures || (same_dims && a.data_type() == b.data_type())) out.push_back(std::move(c));
    }
    for (const auto& [key, w] : wb)
        if (wa.find(key) == wa.end()) {
            out.push_back(weight_change(diff_section::weights, change_kind::added, w));
            out.back().after = tensor_type(w.tensor);
        }
    return error();
}

}  // namespace diff_detail
}  // namespace onnxview
