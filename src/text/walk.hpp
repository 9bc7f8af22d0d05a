// Internal: the schema-driven walk shared by the text and JSON printers.
//
// A `source` is a message as libprotobuf would hold it after parsing: either
// one byte range, or the merge of the occurrences of a singular message field
// in a parent source (a short chain of field numbers). Occurrences before
// `from` are excluded, which is how oneof members restart after another member
// of the same oneof was seen.
#ifndef ONNXVIEW_SRC_TEXT_WALK_HPP
#define ONNXVIEW_SRC_TEXT_WALK_HPP

#include <cstddef>
#include <cstdint>

#include "onnxview/schema.hpp"
#include "onnxview/text_format.hpp"
#include "onnxview/wire.hpp"

namespace onnxview {
namespace text_detail {

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

// A small buffered writer to an output_sink.
class out_buf {
public:
    explicit out_buf(output_sink s) noexcept : sink_(s) {}
    ~out_buf() { flush(); }
    void put(const char* p, std::size_t n) noexcept {
        while (n) {
            if (n_ == sizeof buf_) flush();
            std::size_t k = sizeof buf_ - n_;
            if (k > n) k = n;
            for (std::size_t i = 0; i < k; ++i) buf_[n_ + i] = p[i];
            n_ += k;
            p += k;
            n -= k;
        }
    }
    void put(char c) noexcept {
        if (n_ == sizeof buf_) flush();
        buf_[n_++] = c;
    }
    void put(const char* s) noexcept {
        std::size_t n = 0;
        while (s[n]) ++n;
        put(s, n);
    }
    void spaces(std::size_t n) noexcept {
        while (n--) put(' ');
    }
    void flush() noexcept {
        if (n_) sink_.write(sink_.user, buf_, n_);
        n_ = 0;
    }

private:
    output_sink sink_;
    char buf_[4096];
    std::size_t n_ = 0;
};

// Number formatting (C locale).
std::size_t fmt_u64(char* buf, std::uint64_t v) noexcept;
std::size_t fmt_i64(char* buf, std::int64_t v) noexcept;
// protobuf's SimpleFtoa / SimpleDtoa ("inf", "-inf", "nan" for specials).
std::size_t fmt_float(char* buf, float v) noexcept;
std::size_t fmt_double(char* buf, double v) noexcept;

}  // namespace text_detail
}  // namespace onnxview

#endif
