// edit_options applied during the walk (edits.hpp).
#include "edits.hpp"

#include "onnxview/model.hpp"

namespace onnxview {
namespace detail {

namespace {

bool is_doc_string(const schema::message_desc& d, const wire::field& f) noexcept {
    return d.doc_string != 0 && f.number == d.doc_string && f.type == wire::wire_type::length_delimited;
}

// The key of a StringStringEntryProto occurrence (the last `key` field wins).
std::string_view entry_key(const wire::message& parent, const wire::field& f) noexcept {
    const result<wire::message> entry = parent.child(f);
    if (!entry) return {};
    return string_entry_view(entry).key();
}

}  // namespace

bool edit_drops(const edit_options& e, const schema::message_desc& d, bool root, const wire::message& m,
                const wire::field& f) noexcept {
    if (e.strip_doc_strings && is_doc_string(d, f)) return true;
    if (!root) return false;
    if (e.set_producer_name && f.number == model_view::field::producer_name) return true;
    if (e.set_producer_version && f.number == model_view::field::producer_version) return true;
    if (f.number == model_view::field::metadata_props && f.type == wire::wire_type::length_delimited &&
        e.metadata_count != 0) {
        const std::string_view key = entry_key(m, f);
        for (std::size_t i = 0; i < e.metadata_count; ++i)
            if (e.metadata[i].key == key) return true;
    }
    return false;
}

const dim_change* find_dim_change(const edit_options& e, std::string_view name, std::uint64_t axis) noexcept {
    const dim_change* found = nullptr;
    for (std::size_t i = 0; i < e.dim_count; ++i)
        if (e.dims[i].value_name == name && e.dims[i].axis == axis) found = &e.dims[i];  // the last one wins
    return found;
}

error emit_dimension(const dim_change& c, const wire::message& m, emitter& out) noexcept {
    wire::reader r(m.base(), m.begin(), m.end(), m.depth(), m.max_depth());
    wire::field f;
    while (!r.at_end()) {
        const char* at = r.position();
        if (error e = r.next(f)) return e;
        if (f.number == dimension_view::field::dim_value || f.number == dimension_view::field::dim_param) continue;
        out.bytes(at, static_cast<std::uint64_t>(r.position() - at));
    }
    if (c.is_param) {
        emit_string(out, dimension_view::field::dim_param, c.param);
    } else {
        out.tag(dimension_view::field::dim_value, wire::wire_type::varint);
        out.varint(static_cast<std::uint64_t>(c.value));
    }
    return error();
}

void edit_appends(const edit_options& e, emitter& out) noexcept {
    if (e.set_producer_name) emit_string(out, model_view::field::producer_name, e.producer_name);
    if (e.set_producer_version) emit_string(out, model_view::field::producer_version, e.producer_version);
    for (std::size_t i = 0; i < e.metadata_count; ++i) {
        const metadata_change& c = e.metadata[i];
        if (c.remove) continue;
        // A later change of the same key wins, as it would applied one by one.
        bool later = false;
        for (std::size_t j = i + 1; j < e.metadata_count; ++j) later |= e.metadata[j].key == c.key;
        if (later) continue;
        emit_string_entry(out, model_view::field::metadata_props, c.key, c.value);
    }
}

}  // namespace detail
}  // namespace onnxview
