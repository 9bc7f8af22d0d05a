// The out-of-line parts of wire::message: merged-occurrence walking and
// whole-message scans.
#include "onnxview/wire_message.hpp"

namespace onnxview {
namespace wire {

bool message::cursor::next_merged(field& f) noexcept {
    for (;;) {
        if (r_.at_end()) {
            if (level_ == 0) return false;
            // The occurrence is done; its level goes on right after it.
            --level_;
            r_ = reader(r_.base(), r_.end(), outer_end_[level_], r_.depth() - 1, r_.max_depth());
            continue;
        }
        field g;
        err_ = r_.next(g);
        if (!err_.ok()) return false;
        if (level_ == path_.size()) {
            f = g;
            return true;
        }
        // Occurrences of the merged field with another wire type are unknown
        // fields to libprotobuf, not part of the merged message.
        if (g.number != path_[level_] || g.type != wire_type::length_delimited) continue;
        const std::uint32_t depth = r_.depth() + 1;
        if (depth > r_.max_depth()) {
            err_ = error(errc::depth_exceeded, static_cast<std::uint64_t>(g.tag - r_.base()));
            return false;
        }
        outer_end_[level_] = r_.end();
        r_ = reader(r_.base(), g.payload, g.payload + g.raw, depth, r_.max_depth());
        ++level_;
    }
}

void message::cursor::seek(const char* from) noexcept {
    for (;;) {
        if (r_.position() == from) return;
        field g;
        // The bytes up to `from` were read when it was found; an error or
        // the end here means the message was not made by merged_child.
        if (r_.at_end() || level_ == path_.size() || !(err_ = r_.next(g)).ok()) break;
        const bool encloses = g.number == path_[level_] && g.type == wire_type::length_delimited &&
                              g.payload <= from && from < g.payload + g.raw;
        if (!encloses) continue;
        if (r_.depth() + 1 > r_.max_depth()) {
            err_ = error(errc::depth_exceeded, static_cast<std::uint64_t>(g.tag - r_.base()));
            break;
        }
        outer_end_[level_] = r_.end();
        r_ = reader(r_.base(), g.payload, g.payload + g.raw, r_.depth() + 1, r_.max_depth());
        ++level_;
    }
    if (err_.ok()) err_ = error(errc::invalid_argument, static_cast<std::uint64_t>(from - r_.base()));
    r_ = reader(r_.base(), r_.end(), r_.end(), r_.depth(), r_.max_depth());
    level_ = 0;  // nothing more to read
}

result<message> message::merged_child(std::uint32_t number, const field* last, std::uint32_t count,
                                      const char* from) const noexcept {
    field found;
    if (count == 0) {
        auto c = fields();
        field f;
        while (c.next(f)) {
            if (f.number == number && f.type == wire_type::length_delimited &&
                (from == nullptr || f.tag >= from)) {
                found = f;
                ++count;
            }
        }
        if (c.err()) return c.err();
        last = &found;
    }
    // Absent: an empty message, at any depth (libprotobuf reads an absent
    // field below a message at the limit); it has no fields to go deeper.
    if (count == 0) return message(base_, end_, end_, depth_ < max_depth_ ? depth_ + 1 : depth_, max_depth_);
    if (count == 1) return child(*last);
    if (depth_ + 1 > max_depth_) return error(errc::depth_exceeded, offset_of(last->tag));
    if (!path_.fits(number)) return error(errc::merge_too_deep, offset_of(last->tag));
    message m = *this;
    if (from != nullptr && !merged()) {
        m.begin_ = from;  // a plain region simply starts there
    } else if (from != nullptr) {
        const auto past_begin = static_cast<std::uint64_t>(from - begin_);
        if (past_begin > 0xFFFFFFFFu) return error(errc::merge_too_deep, offset_of(last->tag));
        m.from_ = static_cast<std::uint32_t>(past_begin);
    }
    m.path_ = path_.then(number);
    m.depth_ = static_cast<std::uint16_t>(depth_ + 1);
    return m;
}

error message::find_last(std::uint32_t number, field& out, bool& found) const noexcept {
    found = false;
    auto c = fields();
    field f;
    while (c.next(f)) {
        if (f.number == number) {
            out = f;
            found = true;
        }
    }
    return c.err();
}

error message::validate() const noexcept {
    auto c = fields();
    field f;
    while (c.next(f)) {
    }
    return c.err();
}

}  // namespace wire
}  // namespace onnxview
