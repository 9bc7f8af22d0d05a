// Which fields lead to TensorProtos (tensor_walk.hpp).
#include "tensor_walk.hpp"

namespace onnxview {
namespace tensor_walk {

namespace {

constexpr std::size_t max_messages = 64;

struct holders {
    const schema::message_desc* message[max_messages] = {};
    bool holds[max_messages] = {};
    std::size_t count = 0;
};

// A fixed point over the schema: a message holds a tensor when one of its
// message fields is TensorProto or holds one (the schema is cyclic: graphs
// hold nodes hold attributes hold graphs).
holders compute() noexcept {
    holders h;
    for (const schema::message_desc* d : schema::all_messages()) {
        if (h.count == max_messages) break;
        h.message[h.count] = d;
        h.holds[h.count++] = d == &schema::msg_TensorProto;
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (std::size_t i = 0; i < h.count; ++i) {
            if (h.holds[i]) continue;
            for (const schema::field_desc& fd : h.message[i]->all_fields()) {
                if (fd.type != schema::type::message) continue;
                for (std::size_t j = 0; j < h.count; ++j)
                    if (h.message[j] == fd.message && h.holds[j]) h.holds[i] = true;
            }
            changed |= h.holds[i];
        }
    }
    return h;
}

}  // namespace

bool holds_tensor(const schema::message_desc& d) noexcept {
    static const holders h = compute();
    for (std::size_t i = 0; i < h.count; ++i)
        if (h.message[i] == &d) return h.holds[i];
    return false;
}

bool counts_occurrences(const schema::message_desc& d) noexcept {
    for (const schema::field_desc& fd : d.all_fields())
        if (fd.type == schema::type::message && !fd.repeated()) return true;
    return false;
}

const schema::message_desc* followed(const schema::message_desc& d, const wire::field& f,
                                     const occurrences& occ) noexcept {
    const schema::field_desc* fd = d.find(f.number);
    if (fd == nullptr || fd->type != schema::type::message || f.type != wire::wire_type::length_delimited)
        return nullptr;
    if (!holds_tensor(*fd->message)) return nullptr;
    if (!fd->repeated() && (f.number >= 64 || occ.count[f.number] != 1)) return nullptr;
    return fd->message;
}

const schema::message_desc* any_message(const schema::message_desc& d, const wire::field& f) noexcept {
    const schema::field_desc* fd = d.find(f.number);
    if (fd == nullptr || fd->type != schema::type::message || f.type != wire::wire_type::length_delimited)
        return nullptr;
    return fd->message;
}

bool raw_layout_offset(const wire::message& m, const storage_info& si, std::uint64_t& offset) noexcept {
    if (si.kind == storage_kind::raw) {
        offset = si.offset;
        return true;
    }
    if (si.kind != storage_kind::typed || (si.field != typed_field::float_data && si.field != typed_field::double_data))
        return false;
    wire::reader r(m.base(), m.begin(), m.end(), m.depth(), m.max_depth());
    wire::field f, run;
    unsigned runs = 0;
    while (!r.at_end()) {
        if (r.next(f)) return false;
        if (f.number == static_cast<std::uint32_t>(si.field)) {
            run = f;
            ++runs;
        }
    }
    if (runs != 1 || run.type != wire::wire_type::length_delimited || run.raw != si.byte_size) return false;
    offset = m.offset_of(run.payload);
    return true;
}

}  // namespace tensor_walk
}  // namespace onnxview
