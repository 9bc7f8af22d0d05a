// onnxview/wire_message.hpp - a view of one protobuf message and a cursor
// over its fields, including messages merged from several occurrences.
//
// Protobuf merges repeated occurrences of a singular message field: two
// `graph` fields in a model mean one graph holding the fields of both, in
// order. A `message` is therefore a region of bytes plus a short path of field
// numbers: its fields are those of every occurrence of path[0] in the region,
// then of path[1] inside each of those, and so on. In the common case the path
// is empty and the view is just a byte range. Still knows nothing of ONNX.
#ifndef ONNXVIEW_WIRE_MESSAGE_HPP
#define ONNXVIEW_WIRE_MESSAGE_HPP

#include <new>
#include <type_traits>

#include "onnxview/wire.hpp"

namespace onnxview {
namespace wire {

class message {
public:
    class cursor;

    // An empty message (all fields absent).
    message() noexcept = default;
    // The message in [begin, end); base is the start of the root buffer.
    message(const char* base, const char* begin, const char* end, std::uint32_t depth = 0,
            std::uint32_t max_depth = default_max_depth) noexcept
        : base_(base), begin_(begin), end_(end), depth_(depth), max_depth_(max_depth) {}
    // A root message over a whole buffer. max_depth 0 means the default (100).
    static message root(const void* data, std::size_t size, std::uint32_t max_depth = 0) noexcept {
        const char* p = static_cast<const char*>(data);
        return message(p, p, p + size, 0, max_depth == 0 ? default_max_depth : max_depth);
    }

    // Fields in wire order. O(1) to create; a full pass is linear in the bytes
    // of this message's own fields (nested payloads are skipped, not parsed).
    cursor fields() const noexcept;

    // True when the view covers no bytes at all.
    bool empty() const noexcept { return begin_ == end_; }
    // True when the view is the merge of several occurrences.
    bool merged() const noexcept { return path_len_ != 0; }
    const char* base() const noexcept { return base_; }
    const char* begin() const noexcept { return begin_; }  // of the region
    const char* end() const noexcept { return end_; }      // of the region
    std::uint32_t depth() const noexcept { return depth_; }
    std::uint32_t max_depth() const noexcept { return max_depth_; }
    std::uint64_t offset_of(const char* p) const noexcept {
        return static_cast<std::uint64_t>(p - base_);
    }
    // The bytes of a non-merged message (for merged ones: the whole region).
    std::string_view bytes() const noexcept {
        return std::string_view(begin_, static_cast<std::size_t>(end_ - begin_));
    }

    // The message carried by one length-delimited field of this message.
    // Errors: bad_wire_type if f is not length-delimited, depth_exceeded.
    result<message> child(const field& f) const noexcept {
        if (f.type != wire_type::length_delimited) return error(errc::bad_wire_type, offset_of(f.tag));
        if (depth_ + 1 > max_depth_) return error(errc::depth_exceeded, offset_of(f.tag));
        return message(base_, f.payload, f.payload + f.raw, depth_ + 1, max_depth_);
    }

    // The merged value of singular message field `number`: all of its
    // length-delimited occurrences, merged. Absent: an empty message. `last`
    // and `count` are the last occurrence and the number of occurrences when
    // the caller already knows them (count == 0: unknown, scan for them).
    result<message> merged_child(std::uint32_t number, const field* last = nullptr,
                                 std::uint32_t count = 0) const noexcept;

    // The last occurrence of field `number` (any wire type). found is false
    // when there is none. Linear in the message's fields.
    [[nodiscard]] error find_last(std::uint32_t number, field& out, bool& found) const noexcept;

    // Checks the framing of this message's own fields (not of nested ones).
    [[nodiscard]] error validate() const noexcept;

private:
    friend class cursor;
    const char* base_ = nullptr;
    const char* begin_ = nullptr;
    const char* end_ = nullptr;
    std::uint32_t depth_ = 0;  // of this (merged) message; the region sits at depth_ - path_len_
    std::uint32_t max_depth_ = default_max_depth;
    std::uint32_t path_[max_merge_path] = {};
    std::uint8_t path_len_ = 0;
};

// A forward cursor over a message's fields:
//   field f; auto c = msg.fields();
//   while (c.next(f)) { ... }
//   if (c.err()) { ... }
// For a merged message it walks each occurrence in turn. Copying it saves the
// position.
class message::cursor {
public:
    cursor() noexcept { ::new (static_cast<void*>(&stack_[0].r)) reader(); }
    explicit cursor(const message& m) noexcept : path_len_(m.path_len_) {
        for (unsigned i = 0; i < path_len_; ++i) path_[i] = m.path_[i];
        ::new (static_cast<void*>(&stack_[0].r))
            reader(m.base_, m.begin_, m.end_, m.depth_ - m.path_len_, m.max_depth_);
    }

    // Decodes the next field of the message into f. Returns false at the end
    // or on an error; err() tells which.
    bool next(field& f) noexcept {
        if (level_ == path_len_) {  // fast path: a plain message
            reader& r = stack_[level_].r;
            if (!r.at_end()) {
                err_ = r.next(f);
                return err_.ok();
            }
            if (level_ == 0) return false;
        }
        return next_merged(f);
    }

    // Decodes the next occurrence of field `number` (any wire type) into f,
    // skipping the fields in between. Returns false at the end or on an
    // error; err() tells which.
    bool next(std::uint32_t number, field& f) noexcept {
        while (next(f))
            if (f.number == number) return true;
        return false;
    }

    error err() const noexcept { return err_; }
    // The message carried by a length-delimited field this cursor returned,
    // as message::child() of the message being walked would make it.
    result<message> child(const field& f) const noexcept {
        const reader& root = stack_[0].r;
        const std::uint32_t depth = root.depth() + path_len_;  // of the (merged) message
        if (f.type != wire_type::length_delimited)
            return error(errc::bad_wire_type, static_cast<std::uint64_t>(f.tag - root.base()));
        if (depth + 1 > root.max_depth())
            return error(errc::depth_exceeded, static_cast<std::uint64_t>(f.tag - root.base()));
        return message(root.base(), f.payload, f.payload + f.raw, depth + 1, root.max_depth());
    }
    // Position of the cursor in the root buffer (offset of the next field).
    std::uint64_t offset() const noexcept { return stack_[level_].r.offset(); }

private:
    bool next_merged(field& f) noexcept;

    // Level 0 is the message itself; levels 1.. are used only while walking a
    // merged message, and each is written before it is read. They are left
    // uninitialized: zeroing nine readers on every cursor (one per view and
    // per range iteration) cost about a tenth of a metadata walk (callgrind,
    // bench/analysis.md).
    static_assert(std::is_trivially_copyable<reader>::value, "readers are kept in raw storage");
    union level {
        reader r;
        level() noexcept {}
    };
    level stack_[max_merge_path + 1];
    std::uint32_t path_[max_merge_path] = {};
    std::uint8_t path_len_ = 0;
    std::uint8_t level_ = 0;
    error err_;
};

inline message::cursor message::fields() const noexcept { return cursor(*this); }

}  // namespace wire
}  // namespace onnxview

#endif  // ONNXVIEW_WIRE_MESSAGE_HPP
