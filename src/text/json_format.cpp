// The protobuf JSON mapping, as google.protobuf.json_format.MessageToJson
// (proto2 presence: a field set to its default is printed; unknown fields are
// dropped).
#include "onnxview/json_format.hpp"

#include <cmath>
#include <cstdio>

#include "walk.hpp"

namespace onnxview {
namespace text_detail {
namespace {

using wire::wire_type;

void put_json_string(out_buf& o, const char* p, std::size_t n) noexcept {
    o.put('"');
    for (std::size_t i = 0; i < n; ++i) {
        const auto c = static_cast<unsigned char>(p[i]);
        switch (c) {
            case '"': o.put("\\\"", 2); break;
            case '\\': o.put("\\\\", 2); break;
            case '\n': o.put("\\n", 2); break;
            case '\r': o.put("\\r", 2); break;
            case '\t': o.put("\\t", 2); break;
            case '\b': o.put("\\b", 2); break;
            case '\f': o.put("\\f", 2); break;
            default:
                if (c < 0x20) {
                    char b[8];
                    std::snprintf(b, sizeof b, "\\u%04x", c);
                    o.put(b, 6);
                } else {
                    o.put(static_cast<char>(c));  // UTF-8 passes through
                }
        }
    }
    o.put('"');
}

void put_base64(out_buf& o, const unsigned char* p, std::size_t n) noexcept {
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    o.put('"');
    std::size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        const std::uint32_t v = (std::uint32_t(p[i]) << 16) | (std::uint32_t(p[i + 1]) << 8) | p[i + 2];
        const char b[4] = {tab[v >> 18], tab[(v >> 12) & 63], tab[(v >> 6) & 63], tab[v & 63]};
        o.put(b, 4);
    }
    if (n - i == 1) {
        const std::uint32_t v = std::uint32_t(p[i]) << 16;
        const char b[4] = {tab[v >> 18], tab[(v >> 12) & 63], '=', '='};
        o.put(b, 4);
    } else if (n - i == 2) {
        const std::uint32_t v = (std::uint32_t(p[i]) << 16) | (std::uint32_t(p[i + 1]) << 8);
        const char b[4] = {tab[v >> 18], tab[(v >> 12) & 63], tab[(v >> 6) & 63], '='};
        o.put(b, 4);
    }
    o.put('"');
}

// Shortest %.{6..9}g that reads back as the same float (type_checkers.ToShortestFloat).
std::size_t shortest_float(char* buf, float v) noexcept {
    int n = 0;
    for (int prec = 6; prec <= 9; ++prec) {
        n = std::snprintf(buf, 40, "%.*g", prec, static_cast<double>(v));
        if (static_cast<float>(std::strtod(buf, nullptr)) == v) break;
    }
    return static_cast<std::size_t>(n);
}

struct json_printer {
    out_buf& o;
    const options& opt;

    void newline(std::size_t indent) {
        o.put('\n');
        o.spaces(2 * indent);
    }

    void scalar(const schema::field_desc& fd, std::uint64_t raw) {
        char b[48];
        switch (fd.type) {
            case schema::type::int32:
                o.put(b, fmt_i64(b, static_cast<std::int32_t>(static_cast<std::uint32_t>(raw))));
                break;
            case schema::type::int64:
                o.put('"');
                o.put(b, fmt_i64(b, static_cast<std::int64_t>(raw)));
                o.put('"');
                break;
            case schema::type::uint64:
                o.put('"');
                o.put(b, write_decimal(b, raw));
                o.put('"');
                break;
            case schema::type::float_:
            case schema::type::double_: {
                const double d = fd.type == schema::type::float_
                                     ? static_cast<double>(wire::bits_to_float(static_cast<std::uint32_t>(raw)))
                                     : wire::bits_to_double(raw);
                if (std::isnan(d)) o.put("\"NaN\"");
                else if (std::isinf(d)) o.put(d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
                else if (fd.type == schema::type::float_)
                    o.put(b, shortest_float(b, wire::bits_to_float(static_cast<std::uint32_t>(raw))));
                else
                    o.put(b, static_cast<std::size_t>(std::snprintf(b, sizeof b, "%.17g", d)));
                break;
            }
            case schema::type::enum_: {
                const auto* v = fd.enum_type->find(static_cast<std::int32_t>(static_cast<std::uint32_t>(raw)));
                if (v) {
                    o.put('"');
                    o.put(v->name);
                    o.put('"');
                } else {
                    o.put(b, fmt_i64(b, static_cast<std::int32_t>(static_cast<std::uint32_t>(raw))));
                }
                break;
            }
            default:
                break;
        }
    }

    // One element (or, for a packed chunk, several). `first` tracks commas.
    void element(const wire::message& s, const schema::field_desc& fd, const wire::field& f,
                 std::size_t indent, bool& first, error& err) {
        if (fd.type == schema::type::message) {
            if (!first) o.put(',');
            first = false;
            if (fd.repeated()) newline(indent);
            const result<wire::message> child = s.child(f);
            if (!child) {
                err = child.err();
                return;
            }
            message(*child, *fd.message, indent, err);
        } else if (fd.type == schema::type::string || fd.type == schema::type::bytes) {
            if (!first) o.put(',');
            first = false;
            if (fd.repeated()) newline(indent);
            std::size_t n = static_cast<std::size_t>(f.raw);
            if (opt.max_printed_bytes && f.raw > opt.max_printed_bytes) n = static_cast<std::size_t>(opt.max_printed_bytes);
            if (fd.type == schema::type::string) put_json_string(o, f.payload, n);
            else put_base64(o, reinterpret_cast<const unsigned char*>(f.payload), n);
        } else {
            for_each_element(fd, f, [&](std::uint64_t v) {
                if (!first) o.put(',');
                first = false;
                if (fd.repeated()) newline(indent);
                scalar(fd, v);
            });
        }
    }

    void message(const wire::message& s, const schema::message_desc& d, std::size_t indent, error& err) {
        if (err) return;
        message_stats st;
        collect(s, d, opt.release, st);
        o.put('{');
        bool any = false;
        for (std::uint16_t i = 0; i < d.field_count && !err; ++i) {
            const schema::field_desc& fd = d.fields[i];
            const field_stat& fs = st.fields[i];
            if (fs.count == 0) continue;
            if (any) o.put(',');
            any = true;
            newline(indent + 1);
            o.put('"');
            o.put(fd.json_name);
            o.put("\": ", 3);
            bool first = true;
            if (!fd.repeated()) {
                if (fd.type == schema::type::message) {
                    const result<wire::message> child = field_message(s, fd, fs);
                    if (!child) {
                        err = child.err();
                        return;
                    }
                    message(*child, *fd.message, indent + 1, err);
                } else {
                    element(s, fd, fs.last, indent + 1, first, err);
                }
                continue;
            }
            o.put('[');
            auto c = fields_from(s, fs.first);
            wire::field f;
            std::uint32_t left = fs.count;
            while (left && c.next(f)) {
                if (f.number != fd.number || f.tag < fs.first || !accepts(fd, f, opt.release)) continue;
                --left;
                element(s, fd, f, indent + 2, first, err);
            }
            newline(indent + 1);
            o.put(']');
        }
        if (any) newline(indent);
        o.put('}');
    }
};

}  // namespace
}  // namespace text_detail

error print_json(const void* data, std::size_t size, const schema::message_desc& root,
                 output_sink sink, const options& opts) noexcept {
    wire::message s;
    if (error e = text_detail::start_printing(data, size, root, sink, opts, s)) return e;
    text_detail::out_buf o(sink);
    text_detail::json_printer pr{o, opts};
    error err;
    pr.message(s, root, 0, err);
    o.put('\n');
    return err;
}

}  // namespace onnxview
