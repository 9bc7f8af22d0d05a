// A schema-driven walk over every nested message, validating the framing of
// each field the way libprotobuf's parser would meet it.
#include "onnxview/verify.hpp"

namespace onnxview {
namespace {

using wire::wire_type;

// Walks the message tree the way the views read it: occurrences of a
// repeated message field one by one; a singular message field that occurs
// once as that one message; one that occurs several times as their merge
// (verified once, when its second occurrence is met). So anything the views
// would refuse - including more than wire::max_merge_path nested merges -
// is refused here too.
error verify_message(const wire::message& msg, const schema::message_desc& desc) noexcept {
    constexpr std::uint32_t tracked = 32;  // ONNX field numbers stay below this
    std::uint8_t seen[tracked] = {};       // occurrences of singular message fields, capped at 2
    auto cursor = msg.fields();
    wire::field f;
    while (cursor.next(f)) {
        if (f.type != wire_type::length_delimited) continue;  // framing checked by the cursor
        const schema::field_desc* fd = desc.find(f.number);
        if (fd == nullptr) continue;  // unknown: kept as bytes, never parsed
        if (fd->type == schema::type::message) {
            result<wire::message> child = msg.child(f);
            if (!fd->repeated() && f.number < tracked) {
                std::uint8_t& n = seen[f.number];
                if (n == 2) continue;  // the merge was verified whole
                if (++n == 2) child = msg.merged_child(f.number);
            }
            if (!child.ok()) return child.err();
            const error e = verify_message(child.value(), *fd->message);
            if (e) return e;
        } else if (fd->packable()) {
            const error e = wire::check_packed(msg.base(), f, fd->packed_width());
            if (e) return e;
        }
    }
    return cursor.err();
}

}  // namespace

error verify(const void* data, std::size_t size, const schema::message_desc& root,
             const parse_options& options) noexcept {
    return verify_message(wire::message::root(data, size, options.max_depth), root);
}

}  // namespace onnxview
