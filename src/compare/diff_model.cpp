// src/compare/diff_model.cpp - the model and signature sections of
// diff_models() (docs/diff.md): ir_version, opsets, producer, metadata; the
// main graph's inputs and outputs.
#include <map>
#include <string>
#include <vector>

#include "diff_internal.hpp"
#include "onnxview/display.hpp"
#include "onnxview/enums.hpp"

namespace onnxview {
namespace diff_detail {

model_change make_change(diff_section section, change_kind kind, change_subject what, std::string subject,
                         bool counted) {
    model_change c;
    c.section = section;
    c.kind = kind;
    c.what = what;
    c.subject = std::move(subject);
    c.counted = counted;
    return c;
}

namespace {

// ---- model ----------------------------------------------------------------

std::map<std::string, std::int64_t> opsets(const model_view& m) {
    std::map<std::string, std::int64_t> out;
    for (const opset_id_view& o : m.opset_import())
        out[o.domain() == "ai.onnx" ? std::string() : std::string(o.domain())] = o.version();
    return out;
}

std::map<std::string, std::string> metadata(const model_view& m) {
    std::map<std::string, std::string> out;
    for (const string_entry_view& e : m.metadata_props()) out[std::string(e.key())] = std::string(e.value());
    return out;
}

// One change per key added, removed or whose value differs; values as
// `show` prints them.
template <class Map, class Show>
void diff_maps(const Map& a, const Map& b, change_subject what, bool counted, Show show, change_list& out) {
    const auto change = [&](change_kind kind, const std::string& key) {
        out.push_back(make_change(diff_section::model, kind, what, key, counted));
        return &out.back();
    };
    for (const auto& [key, value] : a) {
        const auto other = b.find(key);
        if (other == b.end()) {
            change(change_kind::removed, key)->before = show(value);
        } else if (other->second != value) {
            model_change* c = change(change_kind::changed, key);
            c->before = show(value);
            c->after = show(other->second);
        }
    }
    for (const auto& [key, value] : b)
        if (a.find(key) == a.end()) change(change_kind::added, key)->after = show(value);
}

// A model field's change: `before` -> `after`.
void field_change(change_subject what, std::string before, std::string after, bool counted, change_list& out) {
    out.push_back(make_change(diff_section::model, change_kind::changed, what, "", counted));
    out.back().before = std::move(before);
    out.back().after = std::move(after);
}

}  // namespace

void diff_model_fields(const model_view& a, const model_view& b, const diff_ignore& skip, change_list& out) {
    if (a.ir_version() != b.ir_version())
        field_change(change_subject::ir_version, std::to_string(a.ir_version()), std::to_string(b.ir_version()), true, out);
    diff_maps(opsets(a), opsets(b), change_subject::opset, true, [](std::int64_t v) { return std::to_string(v); }, out);
    const auto producer = [](const model_view& m) {
        std::string p;
        text_quote(p, m.producer_name());
        if (!m.producer_version().empty()) p += ' ', text_quote(p, m.producer_version());
        return p;
    };
    if (!skip.producer && producer(a) != producer(b)) field_change(change_subject::producer, producer(a), producer(b), false, out);
    if (!skip.producer && a.model_version() != b.model_version())
        field_change(change_subject::model_version, std::to_string(a.model_version()), std::to_string(b.model_version()), false, out);
    if (!skip.metadata)
        diff_maps(metadata(a), metadata(b), change_subject::metadata, false, [](const std::string& v) { return quoted(v); }, out);
    // The doc strings themselves, unquoted: they may be long, and are not printed.
    if (!skip.doc_string && a.doc_string() != b.doc_string())
        field_change(change_subject::doc_string, std::string(a.doc_string()), std::string(b.doc_string()), false, out);
}

// ---- signature ------------------------------------------------------------

// Graph inputs and outputs by name (a's as b calls them, with --match=auto);
// a renamed one is a counted change: callers bind them by name.
void diff_value_infos(const message_range<value_info_view>& a, const message_range<value_info_view>& b,
                      change_subject what, const value_names& names, change_list& out) {
    const auto change = [&](change_kind kind, std::string_view name, std::string before, std::string after) {
        out.push_back(make_change(diff_section::signature, kind, what, std::string(name), true));
        out.back().before = std::move(before);
        out.back().after = std::move(after);
    };
    std::map<std::string, type_view> in_b;
    for (const value_info_view& v : b) in_b[std::string(v.name())] = v.type();
    std::map<std::string, type_view> in_a;
    for (const value_info_view& v : a) {
        const std::string name(names.in_b("", v.name()));
        in_a[name] = v.type();
        const auto other = in_b.find(name);
        if (other == in_b.end()) {
            change(change_kind::removed, v.name(), type_string(v.type()), "");
            continue;
        }
        if (name != v.name()) change(change_kind::renamed, v.name(), "", name);
        const type_view& t = other->second;
        const bool tensors = v.type().has_tensor_type() && t.has_tensor_type();
        if (tensors && v.type().tensor_type().elem_type() != t.tensor_type().elem_type())
            change(change_kind::element_type, v.name(), data_type_name(v.type().tensor_type().elem_type()),
                   data_type_name(t.tensor_type().elem_type()));
        // The shape, or the whole type when it is not a tensor's.
        const std::string old_type = type_string(v.type()), new_type = type_string(t);
        if (tensors) {
            const std::string old_shape = old_type.substr(old_type.find_first_of("[("));
            const std::string new_shape = new_type.substr(new_type.find_first_of("[("));
            if (old_shape != new_shape) change(change_kind::shape, v.name(), old_shape, new_shape);
        } else if (old_type != new_type) {
            change(change_kind::type, v.name(), old_type, new_type);
        }
    }
    for (const value_info_view& v : b)
        if (in_a.find(std::string(v.name())) == in_a.end()) change(change_kind::added, v.name(), "", type_string(v.type()));
}

}  // namespace diff_detail
}  // namespace onnxview
