// Internal: which fields of a message lead to TensorProtos, as the writer
// and same_tensors() follow them. A field is followed when its schema type
// is a message that is, or can hold, a TensorProto, its occurrence is
// length-delimited, and it is repeated or occurs once in its message
// (libprotobuf merges the occurrences of a singular message field, so those
// are left whole).
#ifndef ONNXVIEW_SRC_WRITE_TENSOR_WALK_HPP
#define ONNXVIEW_SRC_WRITE_TENSOR_WALK_HPP

#include <cstdint>

#include "onnxview/model.hpp"
#include "onnxview/schema.hpp"
#include "onnxview/tensor_storage.hpp"
#include "onnxview/wire.hpp"

namespace onnxview {
namespace tensor_walk {

// Whether a message of type d is a TensorProto or holds one at any depth
// (graphs in attributes, functions, training info). O(1) after the first call.
bool holds_tensor(const schema::message_desc& d) noexcept;

// Occurrences of each field number below 64 in one message: enough for
// every ONNX message's fields.
struct occurrences {
    std::uint32_t count[64] = {};
    [[nodiscard]] error collect(wire::reader r) noexcept {
        wire::field f;
        while (!r.at_end()) {
            if (error e = r.next(f)) return e;
            if (f.number < 64) ++count[f.number];
        }
        return error();
    }
};

// Whether messages of type d have a singular message field, whose
// occurrences followed() must count. GraphProto has none: its fields, all
// of its tensors' headers, need not be read twice.
bool counts_occurrences(const schema::message_desc& d) noexcept;

// The schema message of field f of message d when the walk follows it, else null.
// `occ` matters only when counts_occurrences(d).
const schema::message_desc* followed(const schema::message_desc& d, const wire::field& f,
                                     const occurrences& occ) noexcept;

// The schema message of field f of message d when it is a length-delimited
// occurrence of a message field, whatever it holds (edits reach every
// message), else null.
const schema::message_desc* any_message(const schema::message_desc& d, const wire::field& f) noexcept;

// Whether two tensors have the same dims, element for element.
inline bool same_dims(const tensor_view& a, const tensor_view& b) noexcept {
    const auto da = a.dims(), db = b.dims();
    auto x = da.begin(), xe = da.end();
    auto y = db.begin(), ye = db.end();
    for (; x != xe && y != ye; ++x, ++y)
        if (*x != *y) return false;
    return x == xe && y == ye;
}

// Where the payload of tensor m (described by si) lies in its model's
// bytes in raw_data layout, if it does: raw_data's bytes, or float_data
// (FLOAT, COMPLEX64) or double_data (DOUBLE, COMPLEX128) stored as one
// packed run, whose fixed32 / fixed64 entries are little-endian, raw_data's
// layout byte for byte. The other typed fields are varints. What a proxy
// may reference (pack_options::reference) and a put-back rebind to.
bool raw_layout_offset(const wire::message& m, const storage_info& si, std::uint64_t& offset) noexcept;

// Whether a tensor's message holds no payload at all: no raw_data, no
// typed data, no external_data entries (what a tool leaves of a proxy's
// reference when it drops external_data). A malformed message: false.
inline bool has_no_payload(const wire::message& m) noexcept {
    wire::reader r(m.base(), m.begin(), m.end(), m.depth(), m.max_depth());
    wire::field f;
    while (!r.at_end()) {
        if (r.next(f)) return false;
        if (f.number == tensor_view::field::raw_data || f.number == tensor_view::field::external_data) return false;
        for (typed_field typed : all_typed_fields)
            if (f.number == static_cast<std::uint32_t>(typed)) return false;
    }
    return true;
}

}  // namespace tensor_walk
}  // namespace onnxview

#endif  // ONNXVIEW_SRC_WRITE_TENSOR_WALK_HPP
