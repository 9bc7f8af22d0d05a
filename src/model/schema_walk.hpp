// Internal: the schema-driven walk over a message as libprotobuf holds it
// after parsing, shared by verify() and the printers (src/text): which
// occurrences a field takes (accepts), per-message statistics with last-wins
// and oneof resets (collect), merged singular messages (source), and the one
// whole-tree validation (validate_tree).
//
// A `source` is either one byte range, or the merge of the occurrences of a
// singular message field in a parent source (a short chain of field numbers).
// Occurrences before `from` are excluded, which is how oneof members restart
// after another member of the same oneof was seen.
#ifndef ONNXVIEW_SRC_MODEL_SCHEMA_WALK_HPP
#define ONNXVIEW_SRC_MODEL_SCHEMA_WALK_HPP

#include <cstddef>
#include <cstdint>

#include "onnxview/schema.hpp"
#include "onnxview/wire.hpp"

namespace onnxview {
namespace schema_walk {

constexpr unsigned max_chain = wire::max_merge_path;

struct chain_level {
    std::uint32_t number;
    const char* from;
};

struct source {
    const char* base = nullptr;
    const char* begin = nullptr;  // of the region the chain starts in
    const char* end = nullptr;
    std::uint32_t depth = 0;      // of the region
    chain_level chain[max_chain];
    std::uint8_t len = 0;
};

// Walks the fields of a source in wire order. Input is validated beforehand,
// so framing errors cannot happen here; they end the walk.
class source_cursor {
public:
    explicit source_cursor(const source& s, const char* start = nullptr) noexcept : s_(&s) {
        stack_[0] = wire::reader(s.base, start && s.len == 0 ? start : s.begin, s.end, s.depth, 0xFFFFFFFFu);
    }
    bool next(wire::field& f) noexcept {
        for (;;) {
            wire::reader& r = stack_[level_];
            if (r.at_end()) {
                if (level_ == 0) return false;
                --level_;
                continue;
            }
            wire::field g;
            if (r.next(g)) return false;
            if (level_ == s_->len) {
                f = g;
                return true;
            }
            const chain_level& c = s_->chain[level_];
            if (g.number != c.number || g.type != wire::wire_type::length_delimited || g.tag < c.from)
                continue;
            stack_[level_ + 1] = wire::reader(s_->base, g.payload, g.payload + g.raw, 0, 0xFFFFFFFFu);
            ++level_;
        }
    }

private:
    const source* s_;
    wire::reader stack_[max_chain + 1];
    std::uint8_t level_ = 0;
};

// Does libprotobuf take this occurrence as field fd (right wire type, enum
// value known)? Otherwise it is an unknown field.
bool accepts(const schema::field_desc& fd, const wire::field& f, std::uint32_t release) noexcept;

// Per known field of one message: occurrences that count (after oneof resets).
struct field_stat {
    std::uint32_t count = 0;
    const char* first = nullptr;  // tag of the first counted occurrence
    wire::field last;
};

struct message_stats {
    field_stat fields[32];  // >= the largest message_desc::field_count
    std::int8_t oneof_member[8];  // index into fields of the current member, or -1
    std::uint32_t unknown = 0;
};

// One pass over the source's fields: fills stats.
void collect(const source& s, const schema::message_desc& d, std::uint32_t release,
             message_stats& st) noexcept;

// The source of a singular message field given its stat; error merge_too_deep.
error child_source(const source& parent, const schema::field_desc& fd, const field_stat& fs,
                   source& out) noexcept;
// merge_too_deep when a merged singular message field anywhere in s nests
// deeper than the printers follow (checked before printing, so that nothing
// is written then); the input must be validated.
error check_merges(const source& s, const schema::message_desc& d, std::uint32_t release) noexcept;
inline source plain_source(const char* base, const wire::field& f, std::uint32_t depth) noexcept {
    source s;
    s.base = base;
    s.begin = f.payload;
    s.end = f.payload + f.raw;
    s.depth = depth;
    return s;
}

// Checks [data, data + size) as message `root` the way libprotobuf's parser
// does (framing, every known nested message, packed payloads, depth), with
// the schema of `release` (0: newest; newer fields are unknown), then refuses
// merged singular messages nested deeper than the views and printers follow
// (merge_too_deep). The first error and its offset; ok otherwise.
error validate_tree(const char* data, std::size_t size, const schema::message_desc& root,
                    std::uint32_t max_depth, std::uint32_t release) noexcept;

}  // namespace schema_walk
}  // namespace onnxview

#endif  // ONNXVIEW_SRC_MODEL_SCHEMA_WALK_HPP
