// Field path of a byte offset, walking the schema over the wire format.
#include "onnxview/field_path.hpp"

#include <cstdio>
#include <cstring>

#include "onnxview/wire.hpp"
#include "walk.hpp"

namespace onnxview {
namespace {

using wire::wire_type;

// Each level of the walk reads one region with a reader of its own, so the
// walk itself is iterative; a reader still skips unknown groups recursively,
// and that recursion needs a bound (nesting 1,000,000 groups overflowed the
// stack when there was none). Past it a field is broken, like any other.
constexpr std::uint32_t group_depth_limit = wire::default_max_depth;

struct path_writer {
    char* out;
    std::size_t cap;
    std::size_t len = 0;
    void put(char c) noexcept {
        if (len + 1 < cap) out[len] = c;
        ++len;
    }
    void put(const char* s) noexcept {
        while (*s) put(*s++);
    }
    void put_u64(std::uint64_t v) noexcept {
        char b[24];
        const std::size_t n = write_decimal(b, v);
        for (std::size_t i = 0; i < n; ++i) put(b[i]);
    }
    // NUL-terminates what fits; returns the whole length.
    std::size_t finish() noexcept {
        if (cap) out[len < cap ? len : cap - 1] = '\0';
        return len;
    }
};

// Number of elements of field fd (accepted occurrences) in [b, stop).
std::uint64_t elements_before(const char* base, const char* b, const char* stop,
                              const schema::field_desc& fd, std::uint32_t release) noexcept {
    wire::reader r(base, b, stop, 0, group_depth_limit);
    wire::field f;
    std::uint64_t n = 0;
    while (!r.at_end() && !r.next(f)) {
        if (f.number != fd.number || !text_detail::accepts(fd, f, release)) continue;
        n += f.type == wire_type::length_delimited && fd.packable() ? 0 : 1;
        if (f.type == wire_type::length_delimited && fd.packable()) {
            if (fd.type == schema::type::float_) n += f.raw / 4;
            else if (fd.type == schema::type::double_) n += f.raw / 8;
            else {
                const char* p = f.payload;
                const char* e = f.payload + f.raw;
                std::uint64_t v;
                while (p != e && wire::decode_varint(p, e, v) == errc::ok) ++n;
            }
        }
    }
    return n;
}

}  // namespace

result<std::size_t> field_path_at(const void* data, std::size_t size, std::uint64_t offset,
                                  const schema::message_desc& root, char* out,
                                  std::size_t out_size, std::uint32_t release) noexcept {
    if (offset > size || (!out && out_size)) return error(errc::invalid_argument, 0);
    const char* base = static_cast<const char*>(data);
    const char* target = base + offset;
    path_writer w{out, out_size};
    const char* b = base;
    const char* e = base + size;
    const schema::message_desc* d = &root;
    while (d) {
        wire::reader r(base, b, e, 0, group_depth_limit);
        const schema::message_desc* next = nullptr;
        while (!r.at_end()) {
            const char* tag_at = r.position();
            if (tag_at > target) break;
            wire::field f;
            const error err = r.next(f);
            // The field's extent; a broken field extends to the region's end.
            const char* fend = err ? e : r.position();
            if (target >= fend && !err) continue;
            // This field holds the target (or is broken and starts before it).
            std::uint32_t number = 0;
            wire_type wt = wire_type::varint;
            {
                const char* q = tag_at;
                if (wire::decode_tag(q, e, number, wt) != errc::ok) {
                    r = wire::reader();
                    break;
                }
            }
            if (w.len) w.put('.');
            const schema::field_desc* fd = d->find(number, release);
            f.number = number;
            f.type = wt;
            if (!err && fd && !text_detail::accepts(*fd, f, release)) fd = nullptr;
            if (!fd) {
                w.put_u64(number);
                break;
            }
            w.put(fd->name);
            if (fd->repeated()) {
                std::uint64_t index = elements_before(base, b, tag_at, *fd, release);
                if (!err && fd->packable() && wt == wire_type::length_delimited && target >= f.payload) {
                    if (fd->type == schema::type::float_) index += static_cast<std::uint64_t>(target - f.payload) / 4;
                    else if (fd->type == schema::type::double_) index += static_cast<std::uint64_t>(target - f.payload) / 8;
                    else {
                        const char* p = f.payload;
                        std::uint64_t v;
                        while (p < target && wire::decode_varint(p, f.payload + f.raw, v) == errc::ok)
                            if (p <= target) ++index;
                    }
                }
                w.put('[');
                w.put_u64(index);
                w.put(']');
            }
            if (!err && fd->type == schema::type::message && target >= f.payload) {
                next = fd->message;
                b = f.payload;
                e = f.payload + f.raw;
            }
            break;
        }
        d = next;
    }
    if (out_size) out[w.len < out_size ? w.len : out_size - 1] = '\0';
    if (w.len >= out_size) return error(errc::buffer_too_small, w.len);
    return w.len;
}

std::size_t format_error_location(std::uint64_t offset, const void* data, std::size_t size,
                                  const schema::message_desc& root, char* out, std::size_t out_size,
                                  std::uint32_t release) noexcept {
    path_writer w{out, out_size};
    w.put("at byte ");
    w.put_u64(offset);
    if (data != nullptr && offset <= size) {
        char path[512];
        const auto n = field_path_at(data, size, offset, root, path, sizeof path, release);
        if ((n.ok() || n.err().code == errc::buffer_too_small) && path[0] != '\0') {
            w.put(" in ");
            w.put(path);
            if (!n.ok()) w.put("...");
        }
    }
    return w.finish();
}

std::size_t format_error(error e, const void* data, std::size_t size, const schema::message_desc& root, char* out,
                         std::size_t out_size, std::uint32_t release) noexcept {
    path_writer w{out, out_size};
    w.put(errc_message(e.code));
    w.put(" (");
    w.put(errc_name(e.code));
    w.put(") ");
    const std::size_t at = w.len;
    w.len += format_error_location(e.offset, data, size, root, at < out_size ? out + at : nullptr,
                                   at < out_size ? out_size - at : 0, release);
    const bool http_status = e.code == errc::remote_failed || e.code == errc::remote_changed;
    if (e.sys_errno != 0 && http_status) {
        // A remote file's error carries the HTTP status, not errno.
        char status[24];
        std::snprintf(status, sizeof status, " (HTTP %d)", static_cast<int>(e.sys_errno));
        w.put(status);
    } else if (e.sys_errno != 0) {
        w.put(" (");
        w.put(std::strerror(e.sys_errno));
        w.put(')');
    }
    return w.finish();
}

}  // namespace onnxview
