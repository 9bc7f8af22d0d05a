// Internal: the schema-driven walk over a message as libprotobuf holds it
// after parsing, shared by verify() and the printers (src/text): which
// occurrences a field takes (accepts), per-message statistics with last-wins
// and oneof resets (collect), merged singular messages (field_message), and the one
// whole-tree validation (validate_tree).
//
// Messages are wire::message handles, as for the views: one byte range, or
// the merge of the occurrences of a singular message field (merged_child,
// the one merge walker), whose occurrences before a oneof member's restart
// are left out.
#ifndef ONNXVIEW_SRC_MODEL_SCHEMA_WALK_HPP
#define ONNXVIEW_SRC_MODEL_SCHEMA_WALK_HPP

#include <cstddef>
#include <cstdint>

#include "onnxview/schema.hpp"
#include "onnxview/wire_message.hpp"

namespace onnxview {
namespace schema_walk {

// Does libprotobuf take this occurrence as field fd (right wire type, enum
// value known)? Otherwise it is an unknown field.
bool accepts(const schema::field_desc& fd, const wire::field& f, std::uint32_t release) noexcept;

// Per known field of one message: occurrences that count. A oneof member
// set after another clears it, as in the views (detail::clear_oneof): only
// the member set last has a count.
struct field_stat {
    std::uint32_t count = 0;
    const char* first = nullptr;  // tag of the first counted occurrence
    wire::field last;
};

struct message_stats {
    field_stat fields[32];  // >= the largest message_desc::field_count
    std::int8_t oneof_member[8];  // index into fields of the member set last, or -1
    std::uint32_t unknown = 0;
};

// One pass over the message's fields: fills stats.
void collect(const wire::message& m, const schema::message_desc& d, std::uint32_t release,
             message_stats& st) noexcept;

// The value of singular message field fd given its stat: its occurrence, or
// the merge of those counted. Error merge_too_deep (see merged_child).
inline result<wire::message> field_message(const wire::message& parent, const schema::field_desc& fd,
                                           const field_stat& fs) noexcept {
    return parent.merged_child(fd.number, &fs.last, fs.count, fs.first);
}
// The fields of m from `first` (a field of m) on: a plain message starts
// there; a merged one is walked whole, and the caller skips the fields
// before `first`.
inline wire::message::cursor fields_from(const wire::message& m, const char* first) noexcept {
    if (m.merged()) return m.fields();
    return wire::message(m.base(), first, m.end(), m.depth(), m.max_depth()).fields();
}
// Each element of one accepted occurrence of repeated scalar field fd, as
// its raw value: the occurrence's own, or those of its packed payload (which
// validation checked), less the undefined values of a closed enum
// (libprotobuf moves those to unknown fields).
template <class Each>
void for_each_element(const schema::field_desc& fd, const wire::field& f, Each&& each) noexcept {
    if (f.type != wire::wire_type::length_delimited) {
        each(f.raw);
        return;
    }
    const char* p = f.payload;
    const char* const e = f.payload + f.raw;
    const unsigned width = fd.packed_width();
    std::uint64_t v = 0;
    while (p != e && wire::next_packed(p, e, width, v) == errc::ok) {
        if (fd.type == schema::type::enum_ && !fd.enum_type->find(static_cast<std::int32_t>(v))) continue;
        each(v);
    }
}
// merge_too_deep when a merged singular message field anywhere in m nests
// deeper than the printers follow (checked before printing, so that nothing
// is written then); the input must be validated.
error check_merges(const wire::message& m, const schema::message_desc& d, std::uint32_t release) noexcept;

// Checks [data, data + size) as message `root` the way libprotobuf's parser
// does (framing, every known nested message, packed payloads, depth), with
// the schema of `release` (0: newest; newer fields are unknown), then refuses
// merged singular messages nested deeper than the views and printers follow
// (merge_too_deep). The first error and its offset; ok otherwise.
// `verified` (may be null) gets the bytes walked, in order, in runs of at
// least 4 MiB (options::verified).
error validate_tree(const char* data, std::size_t size, const schema::message_desc& root,
                    std::uint32_t max_depth, std::uint32_t release,
                    void (*verified)(void* user, const char* data, std::size_t size) = nullptr,
                    void* verified_user = nullptr) noexcept;

}  // namespace schema_walk
}  // namespace onnxview

#endif  // ONNXVIEW_SRC_MODEL_SCHEMA_WALK_HPP
