// Skipping protobuf groups (wire types 3 and 4). ONNX never writes groups,
// but a protobuf parser must skip unknown ones, nested or not, and reject an
// end-group tag that does not match its start.
#include "onnxview/wire.hpp"

namespace onnxview {
namespace wire {

errc skip_group(const char*& p, const char* end, std::uint32_t number, std::uint32_t depth,
                std::uint32_t max_depth, const char*& content_end, const char*& error_at) noexcept {
    if (depth > max_depth) {
        error_at = p;
        return errc::depth_exceeded;
    }
    const char* q = p;
    for (;;) {
        const char* at = q;
        std::uint32_t n;
        wire_type t;
        errc e = decode_tag(q, end, n, t);
        if (e != errc::ok) {
            error_at = at;
            return e;  // truncated here also covers a missing end-group tag
        }
        std::uint64_t v;
        switch (t) {
            case wire_type::varint:
                at = q;
                e = decode_varint(q, end, v);
                break;
            case wire_type::fixed64:
                at = q;
                if (end - q < 8) e = errc::truncated; else q += 8;
                break;
            case wire_type::fixed32:
                at = q;
                if (end - q < 4) e = errc::truncated; else q += 4;
                break;
            case wire_type::length_delimited:
                at = q;
                e = decode_varint(q, end, v);
                if (e == errc::ok && v > static_cast<std::uint64_t>(end - q))
                    e = v == 0 || q == end ? errc::truncated : errc::length_out_of_bounds;
                if (e == errc::ok) q += v;
                break;
            case wire_type::start_group: {
                const char* inner_end;
                e = skip_group(q, end, n, depth + 1, max_depth, inner_end, at);
                break;
            }
            case wire_type::end_group:
                if (n != number) {
                    error_at = at;
                    return errc::unmatched_end_group;
                }
                content_end = at;
                p = q;
                return errc::ok;
        }
        if (e != errc::ok) {
            error_at = at;
            return e;
        }
    }
}

}  // namespace wire
}  // namespace onnxview
