// The schema-driven walk shared by the printers: validation as libprotobuf
// parses, acceptance of occurrences, per-message statistics, merged sources,
// number formatting.
#include "walk.hpp"

#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace onnxview {
namespace text_detail {

using wire::wire_type;

bool accepts(const schema::field_desc& fd, const wire::field& f, std::uint32_t release) noexcept {
    using schema::type;
    if (release != 0 && fd.since > release) return false;
    switch (fd.type) {
        case type::message:
        case type::string:
        case type::bytes:
            return f.type == wire_type::length_delimited;
        case type::float_:
            return f.type == wire_type::fixed32 ||
                   (fd.packable() && f.type == wire_type::length_delimited);
        case type::double_:
            return f.type == wire_type::fixed64 ||
                   (fd.packable() && f.type == wire_type::length_delimited);
        case type::enum_:
            if (f.type == wire_type::varint) {
                // Closed enum: an unknown value is kept as an unknown field.
                const schema::enum_value* v = fd.enum_type->find(f.as_int32());
                return v && (release == 0 || v->since <= release);
            }
            return fd.packable() && f.type == wire_type::length_delimited;
        case type::int32:
        case type::int64:
        case type::uint64:
            return f.type == wire_type::varint ||
                   (fd.packable() && f.type == wire_type::length_delimited);
    }
    return false;
}

void collect(const source& s, const schema::message_desc& d, std::uint32_t release,
             message_stats& st) noexcept {
    for (std::uint16_t i = 0; i < d.field_count; ++i) st.fields[i] = field_stat();
    for (auto& m : st.oneof_member) m = -1;
    st.unknown = 0;
    source_cursor c(s);
    wire::field f;
    while (c.next(f)) {
        const schema::field_desc* fd = d.find(f.number);
        if (!fd || !accepts(*fd, f, release)) {
            ++st.unknown;
            continue;
        }
        const auto i = static_cast<std::size_t>(fd - d.fields);
        field_stat& fs = st.fields[i];
        if (fd->oneof_index >= 0) {
            std::int8_t& cur = st.oneof_member[fd->oneof_index];
            if (cur != static_cast<std::int8_t>(i)) {  // another member: it is cleared
                cur = static_cast<std::int8_t>(i);
                fs = field_stat();
            }
        }
        if (fs.count++ == 0) fs.first = f.tag;
        fs.last = f;
    }
}

error child_source(const source& parent, const schema::field_desc& fd, const field_stat& fs,
                   source& out) noexcept {
    if (fs.count == 1) {
        out = plain_source(parent.base, fs.last, parent.depth + parent.len + 1);
        return error();
    }
    if (parent.len == max_chain)
        return error(errc::merge_too_deep, static_cast<std::uint64_t>(fs.last.tag - parent.base));
    out = parent;
    out.chain[out.len++] = chain_level{fd.number, fs.first};
    return error();
}

// The printers' traversal without the printing: every singular message field
// made a source as the printers make it, so that a merge chain they cannot
// follow is found before the first byte is written.
error check_merges(const source& s, const schema::message_desc& d, std::uint32_t release) noexcept {
    message_stats st;
    collect(s, d, release, st);
    for (std::uint16_t i = 0; i < d.field_count; ++i) {
        const schema::field_desc& fd = d.fields[i];
        const field_stat& fs = st.fields[i];
        if (fs.count == 0 || fd.type != schema::type::message) continue;
        if (fd.oneof_index >= 0 && st.oneof_member[fd.oneof_index] != static_cast<std::int8_t>(i)) continue;
        if (!fd.repeated()) {
            source child;
            if (error e = child_source(s, fd, fs, child)) return e;
            if (error e = check_merges(child, *fd.message, release)) return e;
            continue;
        }
        source_cursor c(s, fs.first);
        wire::field f;
        std::uint32_t left = fs.count;
        while (left && c.next(f)) {
            if (f.number != fd.number || f.tag < fs.first || !accepts(fd, f, release)) continue;
            --left;
            if (error e = check_merges(plain_source(s.base, f, s.depth + s.len + 1), *fd.message, release))
                return e;
        }
    }
    return error();
}

// ---------------------------------------------------------------------------
// Validation, as libprotobuf's parser: every occurrence of a known message
// field is parsed as that message; packed payloads element by element.

namespace {

error validate_region(const char* base, const char* b, const char* e, const schema::message_desc& d,
                      std::uint32_t depth, std::uint32_t max_depth, std::uint32_t release) noexcept {
    wire::reader r(base, b, e, depth, max_depth);
    wire::field f;
    while (!r.at_end()) {
        if (error err = r.next(f)) return err;
        const schema::field_desc* fd = d.find(f.number);
        if (!fd || !accepts(*fd, f, release)) continue;
        if (fd->type == schema::type::message) {
            if (depth + 1 > max_depth)
                return error(errc::depth_exceeded, static_cast<std::uint64_t>(f.tag - base));
            if (error err = validate_region(base, f.payload, f.payload + f.raw, *fd->message, depth + 1,
                                            max_depth, release))
                return err;
        } else if (fd->packable() && f.type == wire_type::length_delimited) {
            if (error err = wire::check_packed(base, f, fd->packed_width())) return err;
        }
    }
    return error();
}

}  // namespace

}  // namespace text_detail

error validate_message(const void* data, std::size_t size, const schema::message_desc& root,
                       const print_options& options) noexcept {
    const char* p = static_cast<const char*>(data);
    if (!p && size) return error(errc::invalid_argument, 0);
    const std::uint32_t max_depth = options.max_depth ? options.max_depth : wire::default_max_depth;
    return text_detail::validate_region(p, p, p + size, root, 0, max_depth, options.release);
}

namespace text_detail {

// ---------------------------------------------------------------------------
// Numbers.

std::size_t fmt_u64(char* buf, std::uint64_t v) noexcept {
    char tmp[24];
    std::size_t n = 0;
    do {
        tmp[n++] = static_cast<char>('0' + v % 10);
        v /= 10;
    } while (v);
    for (std::size_t i = 0; i < n; ++i) buf[i] = tmp[n - 1 - i];
    return n;
}

std::size_t fmt_i64(char* buf, std::int64_t v) noexcept {
    if (v < 0) {
        buf[0] = '-';
        return 1 + fmt_u64(buf + 1, ~static_cast<std::uint64_t>(v) + 1);
    }
    return fmt_u64(buf, static_cast<std::uint64_t>(v));
}

// protobuf's FloatToBuffer: %.*g with FLT_DIG digits, FLT_DIG + 3 when that
// does not read back as the same float through safe_strtof, which also fails
// when strtof sets errno (ERANGE for every subnormal).
std::size_t fmt_float(char* buf, float v) noexcept {
    if (std::isnan(v)) return static_cast<std::size_t>(std::snprintf(buf, 32, "nan"));
    if (std::isinf(v)) return static_cast<std::size_t>(std::snprintf(buf, 32, v > 0 ? "inf" : "-inf"));
    int n = std::snprintf(buf, 32, "%.*g", FLT_DIG, static_cast<double>(v));
    const int saved = errno;
    errno = 0;
    const float back = std::strtof(buf, nullptr);
    const bool exact = errno == 0 && back == v;
    errno = saved;
    if (!exact) n = std::snprintf(buf, 32, "%.*g", FLT_DIG + 3, static_cast<double>(v));
    return static_cast<std::size_t>(n);
}

// protobuf's DoubleToBuffer: %.*g with DBL_DIG digits, then DBL_DIG + 2.
std::size_t fmt_double(char* buf, double v) noexcept {
    if (std::isnan(v)) return static_cast<std::size_t>(std::snprintf(buf, 32, "nan"));
    if (std::isinf(v)) return static_cast<std::size_t>(std::snprintf(buf, 32, v > 0 ? "inf" : "-inf"));
    int n = std::snprintf(buf, 32, "%.*g", DBL_DIG, v);
    if (std::strtod(buf, nullptr) != v) n = std::snprintf(buf, 32, "%.*g", DBL_DIG + 2, v);
    return static_cast<std::size_t>(n);
}

}  // namespace text_detail
}  // namespace onnxview
