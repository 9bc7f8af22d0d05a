// onnxview/wire_message.hpp - a view of one protobuf message and a cursor
// over its fields, including messages merged from several occurrences.
//
// Protobuf merges repeated occurrences of a singular message field: two
// `graph` fields in a model mean one graph holding the fields of both, in
// order. A `message` is therefore a region of bytes plus a short path of field
// numbers: its fields are those of every occurrence of path[0] in the region,
// then of path[1] inside each of those, and so on. Still knows nothing of ONNX.
//
// Merges are rare, so only the code that meets one pays for it: the path is
// one packed word (merge_path), a message is three pointers, its depths, the
// offset where a oneof member restarts and that word (40 bytes), and a cursor
// over a plain message is a reader whose merge state is never touched. Walking a merged message keeps one end
// pointer per level, the rest of each level being the reader's position.
#ifndef ONNXVIEW_WIRE_MESSAGE_HPP
#define ONNXVIEW_WIRE_MESSAGE_HPP

#include "onnxview/wire.hpp"

namespace onnxview {
namespace wire {

// The field numbers a merged message follows, packed into one word: seven
// bits per level, the number of levels in the top byte. A path holds at most
// max_merge_path numbers, each at most max_number; merged_child() refuses a
// merge that does not fit with merge_too_deep. ONNX field numbers are all
// below 32; a generic message whose merged field has a larger number is the
// one case this costs.
class merge_path {
public:
    static constexpr unsigned bits_per_number = 7;
    static constexpr std::uint32_t max_number = (1u << bits_per_number) - 1;

    unsigned size() const noexcept { return static_cast<unsigned>(bits_ >> size_shift); }
    bool empty() const noexcept { return bits_ == 0; }
    // The number followed at level i < size().
    std::uint32_t operator[](unsigned i) const noexcept {
        return static_cast<std::uint32_t>(bits_ >> (bits_per_number * i)) & max_number;
    }
    // Whether number can be appended: the path is not full and it fits.
    bool fits(std::uint32_t number) const noexcept {
        return size() < max_merge_path && number <= max_number;
    }
    // This path with number appended. Precondition: fits(number).
    merge_path then(std::uint32_t number) const noexcept {
        merge_path p;
        const std::uint64_t levels = (bits_ & number_bits) | std::uint64_t(number) << (bits_per_number * size());
        p.bits_ = levels | std::uint64_t(size() + 1) << size_shift;
        return p;
    }

private:
    static constexpr unsigned size_shift = 56;
    static constexpr std::uint64_t number_bits = (std::uint64_t(1) << size_shift) - 1;
    static_assert(max_merge_path * bits_per_number <= size_shift, "the numbers stay below the size byte");
    std::uint64_t bits_ = 0;
};

class message {
public:
    class cursor;

    // An empty message (all fields absent).
    message() noexcept = default;
    // The message in [begin, end); base is the start of the root buffer.
    // max_depth above max_depth_limit is max_depth_limit; depth <= max_depth.
    message(const char* base, const char* begin, const char* end, std::uint32_t depth = 0,
            std::uint32_t max_depth = default_max_depth) noexcept
        : base_(base), begin_(begin), end_(end),
          depth_(static_cast<std::uint16_t>(depth)),
          max_depth_(static_cast<std::uint16_t>(max_depth > max_depth_limit ? max_depth_limit : max_depth)) {
        ONNXVIEW_ASSERT(depth <= max_depth_, "a message nested deeper than its depth limit");
    }
    // A root message over a whole buffer, with effective_max_depth(max_depth).
    static message root(const void* data, std::size_t size, std::uint32_t max_depth = 0) noexcept {
        const char* p = static_cast<const char*>(data);
        return message(p, p, p + size, 0, effective_max_depth(max_depth));
    }

    // Fields in wire order. O(1) to create; a full pass is linear in the bytes
    // of this message's own fields (nested payloads are skipped, not parsed).
    cursor fields() const noexcept;

    // True when the view covers no bytes at all.
    bool empty() const noexcept { return begin_ == end_; }
    // True when the view is the merge of several occurrences.
    bool merged() const noexcept { return !path_.empty(); }
    const merge_path& path() const noexcept { return path_; }
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
    // `from`, when not null, is the tag of one of the occurrences: those
    // before it are left out, as libprotobuf does for a oneof member set
    // again after another member of its oneof cleared it.
    // Errors: the framing errors of this message, depth_exceeded, and
    // merge_too_deep when several occurrences would make a merge path that
    // does not fit (merge_path: more than max_merge_path levels, or a field
    // number above merge_path::max_number; in a merged message, a `from`
    // more than 4 GiB past the start of its region).
    result<message> merged_child(std::uint32_t number, const field* last = nullptr,
                                 std::uint32_t count = 0, const char* from = nullptr) const noexcept;

    // The last occurrence of field `number` (any wire type). found is false
    // when there is none. Linear in the message's fields.
    [[nodiscard]] error find_last(std::uint32_t number, field& out, bool& found) const noexcept;

    // Checks the framing of this message's own fields (not of nested ones).
    [[nodiscard]] error validate() const noexcept;

private:
    const char* base_ = nullptr;
    const char* begin_ = nullptr;
    const char* end_ = nullptr;
    std::uint16_t depth_ = 0;  // of this (merged) message; the region sits at depth_ - path_.size()
    std::uint16_t max_depth_ = default_max_depth;
    // Merged messages only: fields before begin_ + from_ are left out (0:
    // none). It is the tag of a merged occurrence at some level of the path
    // (see merged_child's `from`); a cursor starts there.
    std::uint32_t from_ = 0;
    merge_path path_;
};
static_assert(sizeof(void*) != 8 || sizeof(message) <= 40, "a message handle carries no merge state");

// A forward cursor over a message's fields:
//   field f; auto c = msg.fields();
//   while (c.next(f)) { ... }
//   if (c.err()) { ... }
// For a merged message it walks each occurrence in turn. Copying it saves the
// position.
class message::cursor {
public:
    // A cursor with no fields. outer_end_ is left unset: it is written before
    // it is read, and only in a merged message.
    cursor() noexcept {}
    explicit cursor(const message& m) noexcept
        : r_(m.base_, m.begin_, m.end_, m.depth_ - m.path_.size(), m.max_depth_), path_(m.path_) {
        if (m.from_ != 0) seek(m.begin_ + m.from_);
    }

    // Decodes the next field of the message into f. Returns false at the end
    // or on an error; err() tells which.
    bool next(field& f) noexcept {
        if (level_ == path_.size()) {  // fast path: a plain message
            if (!r_.at_end()) {
                err_ = r_.next(f);
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
        const std::uint32_t depth = r_.depth() - level_ + path_.size();  // of the (merged) message
        if (f.type != wire_type::length_delimited)
            return error(errc::bad_wire_type, static_cast<std::uint64_t>(f.tag - r_.base()));
        if (depth + 1 > r_.max_depth())
            return error(errc::depth_exceeded, static_cast<std::uint64_t>(f.tag - r_.base()));
        return message(r_.base(), f.payload, f.payload + f.raw, depth + 1, r_.max_depth());
    }
    // Position of the cursor in the root buffer (offset of the next field).
    std::uint64_t offset() const noexcept { return r_.offset(); }

private:
    bool next_merged(field& f) noexcept;
    // Enters the merged occurrences that enclose `from` and stops at it.
    void seek(const char* from) noexcept;

    // The level being read: the message itself, or (in a merged message) the
    // occurrence level_ levels down. An enclosing level continues where the
    // occurrence inside it ends, so only its end is kept.
    reader r_;
    merge_path path_;
    std::uint32_t level_ = 0;
    error err_;
    const char* outer_end_[max_merge_path];
};

inline message::cursor message::fields() const noexcept { return cursor(*this); }

}  // namespace wire
}  // namespace onnxview

#endif  // ONNXVIEW_WIRE_MESSAGE_HPP
