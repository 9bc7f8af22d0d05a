// ONNX messages other than ModelProto that are saved as files of their own:
// TensorProto (a test input, a saved weight), GraphProto, and the data
// messages of onnx-data.proto (SequenceProto, OptionalProto, MapProto), which
// onnx's backend tests use for sequence, optional and map inputs.
//
// Almost any bytes parse as some protobuf message (unknown fields are
// skipped, a wire-type mismatch makes a field unknown), so verifying is not
// enough: each message must also make sense as what it claims to be - a
// tensor whose payload fits its dims, nodes with operator names, elements of
// the declared element type and nothing else.
#include "line.hpp"
#include "onnxview/data_types.hpp"
#include "onnxview/enums.hpp"
#include "onnxview/model.hpp"
#include "onnxview/tensor_storage.hpp"
#include "onnxview/verify.hpp"

namespace onnxview {
namespace diagnosis_detail {
namespace {

// Nesting of sequences, maps and optionals followed here; verify() has
// bounded it already, this keeps the recursion's stack small regardless.
constexpr int max_data_depth = 32;

// ---- TensorProto ----------------------------------------------------------

bool plausible_tensor(const tensor_view& t) noexcept {
    if (!t.ok() || !t.has_data_type() || find_data_type_info(t.data_type()) == nullptr) return false;
    const result<storage_info> s = describe_storage(t);
    // A payload that fits its dims is what tells a tensor from bytes that merely parse.
    return s && !(s->element_count > 0 && s->kind == storage_kind::none);
}

bool tensor_proto(const char* p, std::size_t n, const options& opts, diagnosis& d) noexcept {
    if (verify(p, n, schema::msg_TensorProto, opts)) return false;
    const tensor_view t = parse_tensor(p, n, opts);
    if (!plausible_tensor(t)) return false;
    d.kind = diagnosis_kind::tensor_proto;
    d.number = static_cast<std::uint64_t>(t.data_type());
    d.detail = t.name();
    line_builder l(d);
    l.text("a valid onnx.TensorProto (");
    if (t.has_name()) l.quoted(t.name(), 60).text(", ");
    l.text(data_type_name(t.data_type())).text(" [");
    bool first = true;
    for (std::int64_t dim : t.dims()) {
        if (!first) l.text(",");
        first = false;
        l.number(static_cast<std::uint64_t>(dim));
    }
    l.text("]), not a ModelProto: read it with `onnxview dump --type onnx.TensorProto FILE`");
    return true;
}

// ---- GraphProto -----------------------------------------------------------

bool is_operator_name(std::string_view s) noexcept {
    if (s.empty() || s.size() > 128) return false;
    for (char c : s)
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
    return true;
}

bool graph_proto(const char* p, std::size_t n, const options& opts, diagnosis& d) noexcept {
    if (verify(p, n, schema::msg_GraphProto, opts)) return false;
    const graph_view g = parse_as<graph_view>(p, n, opts);
    if (!g.ok()) return false;
    std::uint64_t nodes = 0;
    for (const node_view& node : g.node()) {
        if (!is_operator_name(node.op_type())) return false;
        ++nodes;
    }
    if (nodes == 0) return false;
    d.kind = diagnosis_kind::graph_proto;
    d.number = nodes;
    d.detail = g.name();
    line_builder l(d);
    l.text("a valid onnx.GraphProto (");
    if (g.has_name()) l.quoted(g.name(), 60).text(", ");
    l.number(nodes).text(nodes == 1 ? " node" : " nodes");
    l.text("), not a ModelProto: read it with `onnxview dump --type onnx.GraphProto FILE`");
    return true;
}

// ---- SequenceProto, OptionalProto, MapProto -------------------------------

bool plausible_map(const map_view& m, std::uint64_t& entries, int depth) noexcept;

template <class Range, class Check>
bool all_plausible(const Range& r, Check check, std::uint64_t& count) noexcept {
    for (const auto& v : r) {
        if (!check(v)) return false;
        ++count;
    }
    return true;
}

// SequenceProto and OptionalProto have the same fields with the same numbers
// and wire types (elem_type 2, then one field per element type, 3 to 7);
// OptionalProto's are singular, SequenceProto's repeated. So both are read
// as a sequence: the elements must all sit in the field elem_type names
// (none for an empty optional, whose elem_type is UNDEFINED). Counts them.
bool plausible_sequence(const sequence_view& s, std::uint64_t& count, int depth) noexcept {
    count = 0;
    if (!s.ok() || !s.has_elem_type() || depth > max_data_depth) return false;
    const auto kind = static_cast<value_kind>(s.elem_type());
    std::uint64_t elsewhere = 0;
    const auto any = [](const auto&) noexcept { return true; };
    const auto tensor = [](const tensor_view& t) noexcept { return plausible_tensor(t); };
    const auto sparse = [](const sparse_tensor_view& t) noexcept {
        return t.ok() && t.has_values() && plausible_tensor(t.values());
    };
    const auto sequence = [depth](const sequence_view& v) noexcept {
        std::uint64_t n = 0;
        return plausible_sequence(v, n, depth + 1);
    };
    const auto map = [depth](const map_view& v) noexcept {
        std::uint64_t n = 0;
        return plausible_map(v, n, depth + 1);
    };
    const auto optional = [depth](const optional_view& v) noexcept {
        std::uint64_t n = 0;
        // An optional's bytes read as a sequence (see above).
        return plausible_sequence(sequence_view(result<wire::message>(v.wire_message())), n, depth + 1) && n <= 1;
    };
    bool ok = true;
    switch (kind) {
        case value_kind::undefined: break;
        case value_kind::tensor: ok = all_plausible(s.tensor_values(), tensor, count); break;
        case value_kind::sparse_tensor: ok = all_plausible(s.sparse_tensor_values(), sparse, count); break;
        case value_kind::sequence: ok = all_plausible(s.sequence_values(), sequence, count); break;
        case value_kind::map: ok = all_plausible(s.map_values(), map, count); break;
        case value_kind::optional: ok = all_plausible(s.optional_values(), optional, count); break;
        default: return false;
    }
    if (!ok) return false;
    if (kind != value_kind::tensor) all_plausible(s.tensor_values(), any, elsewhere);
    if (kind != value_kind::sparse_tensor) all_plausible(s.sparse_tensor_values(), any, elsewhere);
    if (kind != value_kind::sequence) all_plausible(s.sequence_values(), any, elsewhere);
    if (kind != value_kind::map) all_plausible(s.map_values(), any, elsewhere);
    if (kind != value_kind::optional) all_plausible(s.optional_values(), any, elsewhere);
    return elsewhere == 0;
}

// onnx-data.proto allows integer and string keys only.
bool is_key_type(std::int32_t t) noexcept {
    switch (static_cast<data_type>(t)) {
        case data_type::uint8: case data_type::int8: case data_type::uint16: case data_type::int16:
        case data_type::int32: case data_type::int64: case data_type::uint32: case data_type::uint64:
        case data_type::string:
            return true;
        default: return false;
    }
}

// One key per value: as many keys (keys, or string_keys for STRING) as the
// values sequence has elements, and no keys of the other kind.
bool plausible_map(const map_view& m, std::uint64_t& entries, int depth) noexcept {
    entries = 0;
    if (!m.ok() || !m.has_key_type() || !is_key_type(m.key_type()) || depth > max_data_depth) return false;
    const result<std::uint64_t> int_keys = m.keys().count();
    if (!int_keys) return false;
    const std::uint64_t string_keys = m.string_keys().size();
    const bool strings = m.key_type() == static_cast<std::int32_t>(data_type::string);
    const std::uint64_t keys = strings ? string_keys : *int_keys;
    if ((strings ? *int_keys : string_keys) != 0) return false;
    std::uint64_t values = 0;
    if (m.has_values() && !plausible_sequence(m.values(), values, depth + 1)) return false;
    if (keys != values) return false;
    entries = keys;
    return true;
}

void name_part(line_builder& l, std::string_view name) noexcept {
    if (!name.empty()) l.quoted(name, 60).text(", ");
}

bool map_proto(const char* p, std::size_t n, const options& opts, diagnosis& d) noexcept {
    if (verify(p, n, schema::msg_MapProto, opts)) return false;
    const map_view m = parse_as<map_view>(p, n, opts);
    std::uint64_t entries = 0;
    if (!plausible_map(m, entries, 0)) return false;
    d.kind = diagnosis_kind::map_proto;
    d.number = entries;
    d.detail = m.name();
    line_builder l(d);
    l.text("a valid onnx.MapProto (");
    name_part(l, m.name());
    l.number(entries).text(entries == 1 ? " entry, " : " entries, ").text(data_type_name(m.key_type()));
    l.text(" keys), not a ModelProto: read it with `onnxview dump --type onnx.MapProto FILE`");
    return true;
}

bool sequence_or_optional(const char* p, std::size_t n, const options& opts, diagnosis& d) noexcept {
    if (verify(p, n, schema::msg_SequenceProto, opts)) return false;
    const sequence_view s = parse_as<sequence_view>(p, n, opts);
    std::uint64_t count = 0;
    if (!plausible_sequence(s, count, 0)) return false;
    d.number = count;
    d.detail = s.name();
    line_builder l(d);
    const char* element = value_kind_name(s.elem_type());
    if (count >= 2) {
        d.kind = diagnosis_kind::sequence_proto;
        l.text("a valid onnx.SequenceProto (");
        name_part(l, s.name());
        l.number(count).text(" ").text(element).text(" elements), not a ModelProto: read it with ");
        l.text("`onnxview dump --type onnx.SequenceProto FILE`");
        return true;
    }
    d.kind = diagnosis_kind::sequence_or_optional_proto;
    l.text("a valid onnx.OptionalProto or onnx.SequenceProto (the two share one wire form; ");
    name_part(l, s.name());
    if (count == 0) l.text("no element");
    else l.text("one ").text(element).text(" element");
    l.text("), not a ModelProto: read it with `onnxview dump --type onnx.OptionalProto FILE` ");
    l.text("or --type onnx.SequenceProto");
    return true;
}

}  // namespace

bool recognize_onnx_message(const char* p, std::size_t n, const options& opts, diagnosis& d) noexcept {
    return tensor_proto(p, n, opts, d) || graph_proto(p, n, opts, d) || map_proto(p, n, opts, d) ||
           sequence_or_optional(p, n, opts, d);
}

}  // namespace diagnosis_detail
}  // namespace onnxview
