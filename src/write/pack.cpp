// pack_model (onnxview/write.hpp): the model re-emitted from its own bytes,
// tensors moved, aligned or converted, everything else copied.
//
// Layout. A message on the way to a tensor is re-emitted with a new length
// prefix whose width is fixed before its content is written; the content's
// size depends on alignment padding, which depends on absolute offsets,
// which depend on the widths before it. Measuring passes therefore repeat
// until no width grows (widths only grow, so this ends; a width larger than
// its length needs is written as a padded varint). The writing pass lays out
// exactly what the last measuring pass counted. (Over 600 lines: the passes
// and every way a tensor is re-emitted share the one walk state, `pass`.)
#include <algorithm>
#include <vector>

#include "../io/heap.hpp"
#include "dedupe.hpp"
#include "edits.hpp"
#include "emitter.hpp"
#include "extract.hpp"
#include "toposort.hpp"
#include "onnxview/decimal.hpp"
#include "onnxview/model.hpp"
#include "onnxview/tensor_data.hpp"
#include "onnxview/write.hpp"
#include "reference.hpp"
#include "rename.hpp"
#include "tensor_walk.hpp"

namespace onnxview {

namespace {

using detail::emitter;

constexpr std::uint64_t protobuf_limit = 0x7FFFFFFF;  // libprotobuf refuses larger messages
constexpr std::uint32_t padding_tag_bytes = wire::tag_size(pack_padding_field);

// A re-emitted message's length prefix: its size and width, in the order
// the walk meets the messages (the same in every pass).
struct length_record {
    std::uint64_t size = 0;
    std::uint8_t width = 0;
};

// reference: an external_data reference into the input (pack_options::reference).
enum class target : std::uint8_t { keep, inline_raw, external, reference };

struct settings {
    std::uint64_t threshold;
    std::uint64_t inline_align;
    std::uint64_t external_align;
};

struct pass {
    const pack_options& po;
    settings s;
    const external_payload_source* source;
    emitter& model;
    emitter& external;
    std::vector<length_record, detail::heap_allocator<length_record>>& records;
    bool first = true;        // records are appended, and external payloads checked
    std::size_t next_record = 0;
    bool grew = false;        // a width grew: measure again
    std::uint64_t total = 0;  // writing: the bytes of both outputs, as measured
    detail::dedupe_table* dedupe = nullptr;  // with pack_options::dedupe
    bool strip = false;                      // edits: doc strings are left out
    std::string_view io_name{};              // edits: the main-graph input or output being walked
    // Edits: how far the walk is down the path from the main graph to an
    // input's or output's dims (io_path), and whether it walks the main
    // graph's own fields (not a subgraph's).
    std::uint8_t io_step = 0;
    bool in_main_graph = false;
    const dim_change* dim_override = nullptr;  // edits: the Dimension about to be walked is replaced
    detail::renamer* renames = nullptr;        // edits: value names renamed
    std::uint64_t next_external = 0;         // payloads the dedupe table has numbered
    detail::extraction* extract = nullptr;   // edits: the main graph cut down
    detail::node_orders* orders = nullptr;   // edits: nodes in topological order
    bool loaded_scope = false;  // in the main graph or its subgraphs, whose tensors onnx.load resolves
    bool referable = false;     // the tensor about to be walked may become a reference (pack_options::reference)
    pack_stats stats{};
    detail::heap memory{};      // the caller's allocator (options::memory)
};

bool is_power_of_two(std::uint64_t v) noexcept { return v != 0 && (v & (v - 1)) == 0; }

std::uint64_t align_up(std::uint64_t v, std::uint64_t a) noexcept { return (v + a - 1) & ~(a - 1); }

std::uint64_t distance(const char* from, const char* to) noexcept { return static_cast<std::uint64_t>(to - from); }


bool reference_mode(const pack_options& po) noexcept { return !po.reference.location.empty(); }

// A proxy's source record is rewritten by reference mode, and means nothing
// once every external payload has moved.
bool drops_reference_record(const pack_options& po) noexcept {
    return reference_mode(po) || po.internalize || !po.external_location.empty();
}

// An unknown length-delimited field of exactly `total` bytes (total >= the
// tag and one length byte): the alignment padding.
void emit_padding(emitter& out, std::uint64_t total) noexcept {
    out.tag(pack_padding_field, wire::wire_type::length_delimited);
    const std::uint64_t rest = total - padding_tag_bytes;
    unsigned width = 1;
    while (wire::varint_size(rest - width) > width) ++width;
    out.varint(rest - width, width);
    out.zeros(rest - width);
}

// Padding that makes a payload starting `header` bytes from now begin at a
// multiple of `align`: 0, or at least the smallest padding field.
std::uint64_t padding_for(std::uint64_t position, std::uint64_t header, std::uint64_t align) noexcept {
    if (align <= 1) return 0;
    std::uint64_t pad = (align - (position + header) % align) % align;
    while (pad != 0 && pad < padding_tag_bytes + 1u) pad += align;
    return pad;
}

struct chunk_target {
    emitter* out;
    // An external payload: its pages handed to this as each piece is
    // written, so that a payload of any size never lies mapped whole.
    const pack_options* external = nullptr;
};
error chunk_to(void* user, const char* data, std::size_t size) noexcept {
    const auto* t = static_cast<chunk_target*>(user);
    if (t->external == nullptr) {
        t->out->bytes(data, size);
        return t->out->err();
    }
    constexpr std::size_t piece = std::size_t(4) << 20;
    for (std::size_t done = 0; done < size; done += piece) {
        const std::size_t n = size - done < piece ? size - done : piece;
        t->out->bytes(data + done, n);
        if (error e = t->out->err()) return e;
        t->external->payload_written(t->external->user, data + done, n);
    }
    return error();
}

// The payload of t (byte_size bytes in raw_data layout) into out.
error emit_payload(pass& p, emitter& out, const tensor_view& t, const storage_info& si) noexcept {
    const bool needs_source = si.kind == storage_kind::external;
    if (!out.writing() && !(needs_source && p.first)) {
        out.skip(si.byte_size);
        return error();
    }
    result<tensor_data> d = tensor_data::make(t, needs_source ? p.source : nullptr);
    if (!d) return d.err();
    if (!out.writing()) {  // first pass: the external payload is there
        out.skip(si.byte_size);
        return error();
    }
    const std::uint64_t before = out.position();
    // A raw_data payload is bytes of the source: the emitter copies it file
    // to file and gives its pages back.
    chunk_target ct{&out};
    if (p.po.payload_written != nullptr && d->storage() == storage_kind::external) ct.external = &p.po;
    if (error e = for_each_raw_chunk(*d, chunk_to, &ct)) return e;
    if (out.position() - before != si.byte_size) return error(errc::payload_size_mismatch, si.offset);
    if (p.po.progress != nullptr) p.po.progress(p.po.user, p.model.position() + p.external.position(), p.total);
    return error();
}

// `raw_layout`: the payload lies in the input in raw_data layout (reference mode only).
target choose(const pass& p, const storage_info& si, bool raw_layout) noexcept {
    const bool large = si.byte_size >= p.s.threshold;
    if (reference_mode(p.po))
        return p.referable && large && raw_layout && si.data_type != static_cast<std::int32_t>(data_type::int64)
                   ? target::reference
                   : target::keep;
    if (!p.po.external_location.empty()) {
        if (large) return target::external;
        if (si.kind == storage_kind::external) return target::inline_raw;
    } else if (si.kind == storage_kind::external) {
        return p.po.internalize ? target::inline_raw : target::keep;
    }
    if (si.kind == storage_kind::typed) return p.po.keep_typed ? target::keep : target::inline_raw;
    return large && p.s.inline_align > 1 ? target::inline_raw : target::keep;
}

// The fields a re-emitted tensor drops: its payload fields, earlier
// padding, and, when the payload was or becomes external, the entries
// saying where it lives (rewritten or no longer true).
bool dropped(std::uint32_t number, const storage_info& si, target to) noexcept {
    const bool relocated = si.kind == storage_kind::external || to == target::external || to == target::reference;
    return number == tensor_view::field::raw_data || number == static_cast<std::uint32_t>(si.field) ||
           number == pack_padding_field ||
           (relocated && (number == tensor_view::field::data_location || number == tensor_view::field::external_data));
}

// Copies the fields of m that `keep(number)` keeps, consecutive ones as one
// range; a name the renames change is replaced.
template <class Keep>
error copy_fields(pass& p, emitter& out, const wire::message& m, Keep keep) noexcept {
    wire::reader r(m.base(), m.begin(), m.end(), m.depth(), m.max_depth());
    const char* from = m.begin();
    wire::field f;
    while (!r.at_end()) {
        const char* at = r.position();
        if (error e = r.next(f)) return e;
        const bool kept = keep(f.number);
        const std::string_view* renamed = kept && p.renames != nullptr ? p.renames->replacement(m, f) : nullptr;
        if (kept && renamed == nullptr) continue;
        out.bytes(from, distance(from, at));
        if (renamed != nullptr) {
            detail::emit_renamed(out, f, *renamed);
            ++p.stats.names_renamed;
        }
        from = r.position();
    }
    out.bytes(from, distance(from, m.end()));
    return error();
}

// Where t's payload goes in the external file: after the payloads so far,
// aligned, or (dedupe) the range of an identical earlier payload.
error place_external(pass& p, const tensor_view& t, const storage_info& si, std::uint64_t& offset) noexcept {
    const bool contiguous = si.kind == storage_kind::raw || si.kind == storage_kind::external;
    std::uint64_t number = 0, original = detail::dedupe_table::none;
    if (p.dedupe != nullptr && contiguous) {
        number = p.next_external++;
        if (p.first) {
            const result<tensor_data> d =
                tensor_data::make(t, si.kind == storage_kind::external ? p.source : nullptr);
            if (!d) return d.err();
            original = p.dedupe->first_pass(t, d->bytes());
        } else {
            original = p.dedupe->shared_with(number);
        }
    }
    if (original != detail::dedupe_table::none) {
        offset = p.dedupe->offset(original);
        ++p.stats.deduplicated;
    } else {
        offset = align_up(p.external.position(), p.s.external_align);
        p.external.zeros(offset - p.external.position());
        if (error e = emit_payload(p, p.external, t, si)) return e;
    }
    if (p.dedupe != nullptr && contiguous) p.dedupe->set_offset(number, offset);
    return error();
}

// The content of one TensorProto occurrence.
// A tensor kept as it is: its bytes, less its doc_string when stripping.
error keep_tensor(pass& p, const wire::message& m) noexcept {
    ++p.stats.kept;
    if (tensor_view(result<wire::message>(m)).data_location() == location_kind::external) ++p.stats.external_kept;
    if (!p.strip && !(p.renames != nullptr && p.renames->may_rename())) {
        p.model.bytes(m.begin(), distance(m.begin(), m.end()));
        return error();
    }
    const bool strip = p.strip;
    return copy_fields(p, p.model, m, [=](std::uint32_t n) { return !strip || n != tensor_view::field::doc_string; });
}

// A tensor's payload placed in external data: its `location`, `offset` and
// `length` entries and data_location EXTERNAL.
void emit_external_entries(emitter& out, std::string_view location, std::uint64_t offset,
                           std::uint64_t length) noexcept {
    char number[max_decimal_digits];
    constexpr std::uint32_t entry = tensor_view::field::external_data;
    emit_string_entry(out, entry, "location", location);
    emit_string_entry(out, entry, "offset", std::string_view(number, write_decimal(number, offset)));
    emit_string_entry(out, entry, "length", std::string_view(number, write_decimal(number, length)));
    out.tag(tensor_view::field::data_location, wire::wire_type::varint);
    out.varint(static_cast<std::uint64_t>(location_kind::external));
}

// The rebind edit_options::rebinds gives the tensor m, or null.
const tensor_rebind* rebind_of(const pass& p, const wire::message& m) noexcept {
    if (p.po.edits == nullptr || p.po.edits->rebind_count == 0) return nullptr;
    const tensor_rebind* const end = p.po.edits->rebinds + p.po.edits->rebind_count;
    const std::uint64_t at = m.offset_of(m.begin());
    const tensor_rebind* r = std::lower_bound(p.po.edits->rebinds, end, at,
                                              [](const tensor_rebind& x, std::uint64_t v) { return x.tensor < v; });
    return r != end && r->tensor == at ? r : nullptr;
}

// A tensor without a payload given the reference r: its fields (but a
// data_location, which the reference sets) and the reference's entries.
error rebind_tensor(pass& p, const wire::message& m, const tensor_rebind& r) noexcept {
    if (!tensor_walk::has_no_payload(m)) return error(errc::invalid_argument, m.offset_of(m.begin()));
    const bool strip = p.strip;
    if (error e = copy_fields(p, p.model, m, [=](std::uint32_t n) {
            return n != tensor_view::field::data_location && !(strip && n == tensor_view::field::doc_string);
        }))
        return e;
    emit_external_entries(p.model, r.location, r.offset, r.length);
    ++p.stats.rebound;
    return error();
}

// `merged`: the tensor is one of several occurrences of a singular field,
// which protobuf merges, so its payload stays where it is.
error walk_tensor(pass& p, const wire::message& m, bool merged) noexcept {
    if (const tensor_rebind* r = merged ? nullptr : rebind_of(p, m)) return rebind_tensor(p, m, *r);
    if (merged) return keep_tensor(p, m);
    ++p.stats.tensors;
    const tensor_view t{result<wire::message>(m)};
    const result<storage_info> described = describe_storage(t);
    // Left as they are: STRING tensors (byte_size 0: no raw_data layout) and
    // empty payloads, but for EXTERNAL ones: those still name a place in a
    // file, which moving or internalizing them resolves as every reader does.
    if (!t.ok() || !described) ++p.stats.unreadable;
    if (!t.ok() || !described || described->kind == storage_kind::none ||
        (described->byte_size == 0 && described->kind != storage_kind::external))
        return keep_tensor(p, m);
    const storage_info& si = *described;
    std::uint64_t raw_layout_at = 0;
    const bool raw_layout = reference_mode(p.po) && tensor_walk::raw_layout_offset(m, si, raw_layout_at);
    const target to = choose(p, si, raw_layout);
    tensor_walk::occurrences occ;
    if (error e = occ.collect(wire::reader(m.base(), m.begin(), m.end(), m.depth(), m.max_depth()))) return e;
    const std::uint64_t align = si.byte_size >= p.s.threshold ? p.s.inline_align : 1;
    const bool unchanged_layout = (!p.strip || occ.count[tensor_view::field::doc_string] == 0) &&
                                  !(p.renames != nullptr && p.renames->may_rename());
    if (to == target::keep ||
        (to == target::inline_raw && si.kind == storage_kind::raw && occ.count[tensor_view::field::raw_data] == 1 &&
         unchanged_layout && (p.model.position() + distance(m.begin(), t.raw_data().data())) % align == 0))
        return keep_tensor(p, m);  // already where it should be
    const bool strip = p.strip;
    if (error e = copy_fields(p, p.model, m, [&](std::uint32_t n) {
            return !dropped(n, si, to) && !(strip && n == tensor_view::field::doc_string);
        }))
        return e;
    if (to == target::external || to == target::reference) {
        // A reference names the payload where it is in the input.
        std::uint64_t offset = raw_layout_at;
        if (to == target::external)
            if (error e = place_external(p, t, si, offset)) return e;
        const std::string_view location = to == target::external ? p.po.external_location : p.po.reference.location;
        emit_external_entries(p.model, location, offset, si.byte_size);
        ++(to == target::external ? p.stats.externalized : p.stats.referenced);
        return error();
    }
    const std::uint64_t header = wire::tag_size(tensor_view::field::raw_data) + wire::varint_size(si.byte_size);
    const std::uint64_t pad = padding_for(p.model.position(), header, align);
    if (pad != 0) emit_padding(p.model, pad);
    p.model.tag(tensor_view::field::raw_data, wire::wire_type::length_delimited);
    p.model.varint(si.byte_size);
    if (error e = emit_payload(p, p.model, t, si)) return e;
    if (si.kind == storage_kind::typed) ++p.stats.converted;
    else if (si.kind == storage_kind::external) ++p.stats.internalized;
    else ++p.stats.aligned;
    return error();
}

error walk_message(pass& p, const wire::message& m, const schema::message_desc& d) noexcept;

// The path from the main graph to the shape of one of its inputs or outputs,
// whose dims edit_options::dims may set: GraphProto.input or .output (step
// 1), ValueInfoProto.type (2), TypeProto.tensor_type (3), .shape (4).
constexpr std::uint8_t io_path_length = 4;

// The step reached by walking `field` of a `parent` message at step `step`
// (0: off the path); `main_graph`: the parent is the main graph itself.
std::uint8_t next_io_step(std::uint8_t step, bool main_graph, const schema::message_desc& parent,
                          std::uint32_t field) noexcept {
    if (step == 0)
        return main_graph && &parent == &schema::msg_GraphProto &&
                       (field == graph_view::field::input || field == graph_view::field::output)
                   ? 1
                   : 0;
    if (step == 1) return &parent == &schema::msg_ValueInfoProto && field == value_info_view::field::type ? 2 : 0;
    if (step == 2) return &parent == &schema::msg_TypeProto && field == type_view::field::tensor_type ? 3 : 0;
    if (step == 3) return &parent == &schema::msg_TypeProto_Tensor && field == tensor_type_view::field::shape ? 4 : 0;
    return 0;
}

// One followed field: its tag as it was (or for field `renumber`), a length
// prefix of the recorded width, and its re-emitted content.
error walk_child(pass& p, const wire::message& parent, const schema::message_desc& parent_desc, const wire::field& f,
                 const schema::message_desc& d, bool merged, std::uint32_t renumber = 0) noexcept {
    const result<wire::message> child = parent.child(f);
    if (!child) return child.err();
    const dim_change* const replaced = p.dim_override;
    p.dim_override = nullptr;
    const std::uint32_t field = renumber != 0 ? renumber : f.number;
    const bool was_main_graph = p.in_main_graph;
    const std::uint8_t was_step = p.io_step;
    p.io_step = 0;
    if (p.po.edits != nullptr && p.po.edits->dim_count != 0) {
        p.io_step = next_io_step(was_step, was_main_graph, parent_desc, field);
        if (p.io_step == 1) p.io_name = value_info_view(child).name();
    }
    p.in_main_graph = &parent_desc == &schema::msg_ModelProto && field == model_view::field::graph;
    const char* tag_end = f.tag;
    std::uint32_t number;
    wire::wire_type type;
    if (wire::decode_tag(tag_end, f.payload, number, type) != errc::ok) return error(errc::truncated, parent.offset_of(f.tag));
    if (renumber != 0) p.model.tag(renumber, type);
    else p.model.bytes(f.tag, distance(f.tag, tag_end));
    if (p.first) p.records.push_back({f.raw, static_cast<std::uint8_t>(distance(tag_end, f.payload))});
    const std::size_t index = p.next_record++;
    p.model.varint(p.records[index].size, p.records[index].width);
    const std::uint64_t start = p.model.position();
    if (p.renames != nullptr)
        if (error e = p.renames->enter(parent, f)) return e;
    // onnx.load resolves the external data of the main graph's initializers
    // and attribute tensors (t, tensors), in its subgraphs too; not of
    // functions, training graphs or sparse tensors.
    const bool was_loaded = p.loaded_scope;
    if (&parent_desc == &schema::msg_ModelProto) p.loaded_scope = field == model_view::field::graph;
    p.referable = p.loaded_scope &&
                  ((&parent_desc == &schema::msg_GraphProto && field == graph_view::field::initializer) ||
                   (&parent_desc == &schema::msg_AttributeProto &&
                    (field == attribute_view::field::t || field == attribute_view::field::tensors)));
    error e;
    if (replaced != nullptr) {
        ++p.stats.dims_set;
        e = detail::emit_dimension(*replaced, *child, p.model);
    } else {
        e = &d == &schema::msg_TensorProto ? walk_tensor(p, *child, merged) : walk_message(p, *child, d);
    }
    p.io_step = was_step;
    p.in_main_graph = was_main_graph;
    p.loaded_scope = was_loaded;
    if (p.renames != nullptr) p.renames->leave();
    if (e) return e;
    length_record& r = p.records[index];
    const std::uint64_t size = p.model.position() - start;
    if (p.model.writing()) {
        if (size != r.size) return error(errc::invalid_argument, parent.offset_of(f.tag));  // a pass disagreed
        return error();
    }
    r.size = size;
    if (wire::varint_size(size) > r.width) {
        r.width = static_cast<std::uint8_t>(wire::varint_size(size));
        p.grew = true;
    }
    return error();
}

error walk_message(pass& p, const wire::message& m, const schema::message_desc& d) noexcept {
    tensor_walk::occurrences occ;
    if (tensor_walk::counts_occurrences(d))
        if (error e = occ.collect(wire::reader(m.base(), m.begin(), m.end(), m.depth(), m.max_depth()))) return e;
    const bool root = &d == &schema::msg_ModelProto && m.depth() == 0;
    const bool io_shape = p.io_step == io_path_length && &d == &schema::msg_TensorShapeProto;
    std::uint64_t axis = 0;
    // Toposort: node occurrence k of m is emitted as its node (*order)[k].
    const detail::node_orders::order* order = nullptr;
    std::vector<wire::field, detail::heap_allocator<wire::field>> nodes{detail::heap_allocator<wire::field>(p.memory)};
    const std::uint32_t node_number = &d == &schema::msg_FunctionProto
                                          ? static_cast<std::uint32_t>(function_view::field::node)
                                          : static_cast<std::uint32_t>(graph_view::field::node);
    if (p.orders != nullptr && detail::node_orders::orders(d)) {
        if (error e = p.orders->find(m, d, order)) return e;
        for (wire::reader scan(m.base(), m.begin(), m.end(), m.depth(), m.max_depth()); order != nullptr && !scan.at_end();) {
            wire::field g;
            if (error e = scan.next(g)) return e;
            if (g.number == node_number) nodes.push_back(g);
        }
    }
    std::size_t node_at = 0;
    wire::reader r(m.base(), m.begin(), m.end(), m.depth(), m.max_depth());
    const char* from = m.begin();
    wire::field f;
    while (!r.at_end()) {
        const char* at = r.position();
        if (error e = r.next(f)) return e;
        if ((root && drops_reference_record(p.po) && detail::is_reference_record(m, f)) ||
            (p.po.edits != nullptr && detail::edit_drops(*p.po.edits, d, root, m, f)) ||
            (p.extract != nullptr && p.extract->drops(d, m, f))) {
            p.model.bytes(from, distance(from, at));
            from = r.position();
            continue;
        }
        if (const std::string_view* renamed = p.renames != nullptr ? p.renames->replacement(m, f) : nullptr) {
            p.model.bytes(from, distance(from, at));
            detail::emit_renamed(p.model, f, *renamed);
            ++p.stats.names_renamed;
            from = r.position();
            continue;
        }
        if (order != nullptr && f.number == node_number) {
            p.model.bytes(from, distance(from, at));
            const wire::field& g = nodes[(*order)[node_at++]];
            const schema::message_desc* node_desc = tensor_walk::followed(d, g, occ);
            if (node_desc == nullptr && detail::edit_enters_all(p.po.edits)) node_desc = tensor_walk::any_message(d, g);
            if (node_desc != nullptr) {
                if (error e = walk_child(p, m, d, g, *node_desc, false)) return e;
            } else {
                p.model.bytes(g.tag, distance(g.tag, g.payload) + g.raw);
            }
            from = r.position();
            continue;
        }
        const schema::message_desc* child = tensor_walk::followed(d, f, occ);
        bool merged = false;
        if (child == nullptr && detail::edit_enters_all(p.po.edits)) {
            child = tensor_walk::any_message(d, f);
            merged = child != nullptr;  // only a merged singular message is not followed for tensors
        }
        if (child == nullptr) continue;
        if (io_shape && f.number == tensor_shape_view::field::dim)
            p.dim_override = detail::find_dim_change(*p.po.edits, p.io_name, axis++);
        p.model.bytes(from, distance(from, f.tag));
        if (error e = walk_child(p, m, d, f, *child, merged)) return e;
        from = r.position();
    }
    p.model.bytes(from, distance(from, m.end()));
    if (root && p.po.edits != nullptr) detail::edit_appends(*p.po.edits, p.model);
    if (root && reference_mode(p.po)) detail::emit_reference_record(p.model, p.po.reference);
    if (p.extract != nullptr && detail::extraction::is_main_graph(d, m))
        for (std::size_t k = 0; k < p.extract->io_count(); ++k)
            if (error e = walk_child(p, m, d, p.extract->io_field(k), schema::msg_ValueInfoProto, false,
                                     p.extract->io_number(k)))
                return e;
    return p.model.err();
}

// pack_model's refusal of renames check_renames() refuses.
error rename_error(const rename_check& c) noexcept {
    if (c.problem == rename_problem::none) return error();
    return error(c.problem == rename_problem::not_in_main_graph ? errc::not_found : errc::invalid_argument, c.offset);
}

const edit_options no_edits{};

error run_pass(pass& p, const wire::message& root) noexcept {
    p.next_record = 0;
    p.next_external = 0;
    p.grew = false;
    p.stats = pack_stats{};
    if (p.extract != nullptr) p.extract->restart();
    if (error e = walk_message(p, root, schema::msg_ModelProto)) return e;
    if (error e = p.model.finish()) return e;
    return p.external.finish();
}

}  // namespace

error pack_model(std::string_view model, const external_payload_source* source, const pack_options& po,
                 const write_sink& model_out, const write_sink* external_out, pack_stats* stats) noexcept {
    const settings s{po.threshold == 0 ? 1024 : po.threshold, po.inline_align == 0 ? 64 : po.inline_align,
                     po.external_align == 0 ? 4096 : po.external_align};
    if (!is_power_of_two(s.inline_align) || !is_power_of_two(s.external_align)) return errc::invalid_argument;
    if (!po.external_location.empty() && (external_out == nullptr || external_out->write == nullptr))
        return errc::invalid_argument;
    if (model_out.write == nullptr) return errc::invalid_argument;
    constexpr std::size_t max_location = 4095;  // the resolver's limit (external_location_too_long)
    if (reference_mode(po) && (!po.external_location.empty() || po.internalize || po.dedupe ||
                               po.reference.location.size() > max_location))
        return errc::invalid_argument;
    const detail::heap memory(po.read_options.memory);
    std::vector<length_record, detail::heap_allocator<length_record>> records{
        detail::heap_allocator<length_record>(memory)};
    const wire::message root =
        wire::message::root(model.data(), model.size(), po.read_options.max_message_depth);

    const detail::source from{model, po.source_fd, po.payload_written, po.user};
    detail::dedupe_table dedupe(memory);
    const edit_options& edits = po.edits != nullptr ? *po.edits : no_edits;
    if (edits.rename_count != 0 && edits.extract != nullptr) return errc::invalid_argument;
    if (!edits.prefix.empty() && (edits.rename_count != 0 || edits.extract != nullptr)) return errc::invalid_argument;
    if (edits.toposort && edits.extract != nullptr) return errc::invalid_argument;
    for (std::size_t i = 0; i < edits.rebind_count; ++i)  // sorted, each with a location the resolver takes
        if ((i != 0 && edits.rebinds[i - 1].tensor >= edits.rebinds[i].tensor) || edits.rebinds[i].location.empty() ||
            edits.rebinds[i].location.size() > max_location)
            return errc::invalid_argument;
    detail::node_orders orders(memory, edits.cycle,
                               po.read_options.max_graph_depth != 0 ? po.read_options.max_graph_depth : 32);
    detail::renamer renames(edits, memory);
    if (error e = rename_error(renames.check_list())) return e;
    detail::extraction extraction(memory);
    detail::extraction* const extract = edits.extract != nullptr ? &extraction : nullptr;
    if (extract != nullptr)
        if (error e = extract->select(model, *edits.extract, po.read_options)) return e;
    // What every pass shares besides its emitters.
    const auto prepare = [&](pass& p, bool first) {
        p.first = first;
        p.strip = edits.strip_doc_strings;
        if (po.dedupe && !po.external_location.empty()) p.dedupe = &dedupe;
        if (edits.rename_count != 0 || !edits.prefix.empty()) p.renames = &renames;
        p.extract = extract;
        if (edits.toposort) p.orders = &orders;
        p.memory = memory;
    };
    std::uint32_t passes = 0;
    std::uint64_t model_size = 0, external_size = 0;
    for (bool first = true;; first = false) {
        emitter counted_model(nullptr, &from), counted_external(nullptr);
        pass p{po, s, source, counted_model, counted_external, records};
        prepare(p, first);
        if (error e = run_pass(p, root)) return e;
        if (error e = rename_error(renames.verdict())) return e;
        // A rebind that met no tensor names a place that is none.
        if (p.stats.rebound != edits.rebind_count) return errc::invalid_argument;
        ++passes;
        model_size = counted_model.position();
        external_size = counted_external.position();
        if (!p.grew) break;
    }
    if (model_size > protobuf_limit && !po.allow_over_2gib) return error(errc::message_too_large, model_size);

    emitter written_model(&model_out, &from), written_external(external_out, &from);
    pass p{po, s, source, written_model, written_external, records};
    prepare(p, false);
    p.total = model_size + external_size;
    if (error e = run_pass(p, root)) return e;
    if (po.progress != nullptr) po.progress(po.user, p.total, p.total);
    p.stats.passes = passes;
    p.stats.nodes_moved = orders.moved();
    p.stats.model_bytes = written_model.position();
    p.stats.external_bytes = written_external.position();
    if (stats != nullptr) *stats = p.stats;
    return error();
}

error check_renames(std::string_view model, const edit_options& e, rename_check* check, const options& opts) noexcept {
    const detail::heap memory(opts.memory);
    edit_options only{};
    only.renames = e.renames;
    only.rename_count = e.rename_count;
    detail::renamer renames(only, memory);
    rename_check c = renames.check_list();
    if (c.problem == rename_problem::none && only.rename_count != 0) {
        // One measuring pass with tensors left as they are: payloads are
        // skipped, never read.
        pack_options po{};
        po.inline_align = 1;
        po.keep_typed = true;
        po.edits = &only;
        po.read_options = opts;
        std::vector<length_record, detail::heap_allocator<length_record>> records{
            detail::heap_allocator<length_record>(memory)};
        emitter counted_model(nullptr), counted_external(nullptr);
        pass p{po, settings{1024, 1, 4096}, nullptr, counted_model, counted_external, records};
        p.renames = &renames;
        if (error err = run_pass(p, wire::message::root(model.data(), model.size(), opts.max_message_depth)))
            return err;
        c = renames.verdict();
    }
    if (check != nullptr) *check = c;
    return error();
}

}  // namespace onnxview
