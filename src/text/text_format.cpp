// The protobuf text format, byte for byte as protoc 3.21's TextFormat::Printer
// (the printer `protoc --decode` uses).
#include "onnxview/text_format.hpp"

#include "walk.hpp"

namespace onnxview {
namespace text_detail {
namespace {

using wire::wire_type;

// protobuf's CEscape: \n \r \t \" \' \\, other bytes outside 0x20..0x7e as
// three octal digits.
void put_cescaped(out_buf& o, const char* p, std::size_t n) noexcept {
    for (std::size_t i = 0; i < n; ++i) {
        const auto c = static_cast<unsigned char>(p[i]);
        switch (c) {
            case '\n': o.put("\\n", 2); break;
            case '\r': o.put("\\r", 2); break;
            case '\t': o.put("\\t", 2); break;
            case '"': o.put("\\\"", 2); break;
            case '\'': o.put("\\'", 2); break;
            case '\\': o.put("\\\\", 2); break;
            default:
                if (c < 0x20 || c >= 0x7f) {
                    const char e[4] = {'\\', static_cast<char>('0' + (c >> 6)),
                                       static_cast<char>('0' + ((c >> 3) & 7)),
                                       static_cast<char>('0' + (c & 7))};
                    o.put(e, 4);
                } else {
                    o.put(static_cast<char>(c));
                }
        }
    }
}

void put_hex(out_buf& o, std::uint64_t v, unsigned digits) noexcept {
    char b[18] = {'0', 'x'};
    for (unsigned i = 0; i < digits; ++i)
        b[2 + i] = "0123456789abcdef"[(v >> (4 * (digits - 1 - i))) & 15];
    o.put(b, 2 + digits);
}

void put_u64(out_buf& o, std::uint64_t v) noexcept {
    char b[24];
    o.put(b, write_decimal(b, v));
}
void put_i64(out_buf& o, std::int64_t v) noexcept {
    char b[24];
    o.put(b, fmt_i64(b, v));
}

// ---------------------------------------------------------------------------
// Unknown fields, as TextFormat::Printer::PrintUnknownFields. A
// length-delimited value is printed as a nested message when it parses as an
// UnknownFieldSet through a CodedInputStream whose recursion limit is the
// remaining budget (WireFormat::SkipMessage + ConsumedEntireMessage), and
// only while the budget is > 0; its fields get the budget minus one. A group
// is always printed as a group (the parse already bounded its depth), but its
// fields get the budget minus one too, so under deep groups the budget goes
// to zero or below and every length-delimited value there is a string. Each
// known message starts again at the full budget.

constexpr int unknown_recursion_limit = 10;  // kUnknownFieldRecursionLimit

// CodedInputStream::ReadVarint32: up to 10 bytes, the low 32 bits kept.
bool cis_varint32(const char*& p, const char* end, std::uint32_t& v) noexcept {
    std::uint64_t x;
    if (wire::decode_varint(p, end, x) != errc::ok) return false;
    v = static_cast<std::uint32_t>(x);
    return true;
}

// 0: consumed to the end; 1: stopped at an end-group tag (end_tag); -1: fails.
int cis_skip_message(const char*& p, const char* end, int& budget, std::uint32_t& end_tag) noexcept {
    for (;;) {
        if (p == end) return 0;
        std::uint32_t tag;
        if (!cis_varint32(p, end, tag) || tag == 0) return -1;  // tag 0: not a legitimate end
        const std::uint32_t wt = tag & 7;
        if (wt == 4) {
            end_tag = tag;
            return 1;
        }
        if ((tag >> 3) == 0) return -1;
        std::uint64_t v;
        switch (wt) {
            case 0:
                if (wire::decode_varint(p, end, v) != errc::ok) return -1;
                break;
            case 1:
                if (end - p < 8) return -1;
                p += 8;
                break;
            case 5:
                if (end - p < 4) return -1;
                p += 4;
                break;
            case 2: {
                std::uint32_t len;
                if (!cis_varint32(p, end, len)) return -1;
                if (len > 0x7fffffffu || len > static_cast<std::uint64_t>(end - p)) return -1;
                p += len;
                break;
            }
            case 3: {
                if (--budget < 0) return -1;
                std::uint32_t et = 0;
                if (cis_skip_message(p, end, budget, et) != 1) return -1;
                if (et != ((tag & ~7u) | 4u)) return -1;
                ++budget;
                break;
            }
            default:
                return -1;
        }
    }
}

bool parses_as_message(const char* p, std::size_t n, int budget) noexcept {
    if (n == 0 || budget <= 0) return false;
    std::uint32_t et;
    return cis_skip_message(p, p + n, budget, et) == 0;
}

// Prints the fields of an UnknownFieldSet held in bytes that parse (checked by
// parses_as_message). Stops at the end or after an end-group tag.
void print_unknown_bytes(out_buf& o, const char*& p, const char* end, std::size_t indent,
                         int budget) noexcept;

void print_unknown_len(out_buf& o, std::uint32_t number, const char* payload, std::size_t n,
                       std::size_t indent, int budget) noexcept {
    o.spaces(2 * indent);
    put_u64(o, number);
    if (parses_as_message(payload, n, budget)) {
        o.put(" {\n", 3);
        const char* q = payload;
        print_unknown_bytes(o, q, payload + n, indent + 1, budget - 1);
        o.spaces(2 * indent);
        o.put("}\n", 2);
    } else {
        o.put(": \"", 3);
        put_cescaped(o, payload, n);
        o.put("\"\n", 2);
    }
}

void print_unknown_bytes(out_buf& o, const char*& p, const char* end, std::size_t indent,
                         int budget) noexcept {
    while (p != end) {
        std::uint32_t tag;
        if (!cis_varint32(p, end, tag)) return;
        const std::uint32_t number = tag >> 3;
        std::uint64_t v = 0;
        switch (tag & 7) {
            case 0:
                if (wire::decode_varint(p, end, v) != errc::ok) return;
                o.spaces(2 * indent);
                put_u64(o, number);
                o.put(": ", 2);
                put_u64(o, v);
                o.put('\n');
                break;
            case 1:
                v = wire::load_le64(p);
                p += 8;
                o.spaces(2 * indent);
                put_u64(o, number);
                o.put(": ", 2);
                put_hex(o, v, 16);
                o.put('\n');
                break;
            case 5:
                v = wire::load_le32(p);
                p += 4;
                o.spaces(2 * indent);
                put_u64(o, number);
                o.put(": ", 2);
                put_hex(o, v, 8);
                o.put('\n');
                break;
            case 2: {
                std::uint32_t len;
                if (!cis_varint32(p, end, len)) return;
                const char* payload = p;
                p += len;
                print_unknown_len(o, number, payload, len, indent, budget);
                break;
            }
            case 3:
                o.spaces(2 * indent);
                put_u64(o, number);
                o.put(" {\n", 3);
                // Not checked, but spent (as protobuf).
                print_unknown_bytes(o, p, end, indent + 1, budget - 1);
                o.spaces(2 * indent);
                o.put("}\n", 2);
                break;
            case 4:
                return;
            default:
                return;
        }
    }
}

// One unknown field of a parsed message (from the main parse).
void print_unknown_field(out_buf& o, const wire::field& f, const schema::field_desc* fd,
                         std::size_t indent) noexcept {
    switch (f.type) {
        case wire_type::varint: {
            std::uint64_t v = f.raw;
            // A closed enum's unknown value is stored as the int32 it was read as.
            if (fd && fd->type == schema::type::enum_)
                v = static_cast<std::uint64_t>(static_cast<std::int64_t>(f.as_int32()));
            o.spaces(2 * indent);
            put_u64(o, f.number);
            o.put(": ", 2);
            put_u64(o, v);
            o.put('\n');
            break;
        }
        case wire_type::fixed64:
            o.spaces(2 * indent);
            put_u64(o, f.number);
            o.put(": ", 2);
            put_hex(o, f.raw, 16);
            o.put('\n');
            break;
        case wire_type::fixed32:
            o.spaces(2 * indent);
            put_u64(o, f.number);
            o.put(": ", 2);
            put_hex(o, f.raw, 8);
            o.put('\n');
            break;
        case wire_type::length_delimited:
            print_unknown_len(o, f.number, f.payload, static_cast<std::size_t>(f.raw), indent,
                              unknown_recursion_limit);
            break;
        case wire_type::start_group: {
            o.spaces(2 * indent);
            put_u64(o, f.number);
            o.put(" {\n", 3);
            const char* q = f.payload;
            print_unknown_bytes(o, q, f.payload + f.raw, indent + 1, unknown_recursion_limit - 1);
            o.spaces(2 * indent);
            o.put("}\n", 2);
            break;
        }
        case wire_type::end_group:
            break;
    }
}

// ---------------------------------------------------------------------------
// Known fields.

struct printer {
    out_buf& o;
    const options& opt;

    void put_string(const wire::field& f) {
        std::size_t n = static_cast<std::size_t>(f.raw);
        const bool elide = opt.max_printed_bytes && f.raw > opt.max_printed_bytes;
        if (elide) n = static_cast<std::size_t>(opt.max_printed_bytes);
        o.put('"');
        put_cescaped(o, f.payload, n);
        o.put('"');
        if (elide) {
            o.put("  # ... ", 8);
            put_u64(o, f.raw - opt.max_printed_bytes);
            o.put(" bytes elided", 13);
        }
    }

    void scalar_line(const schema::field_desc& fd, std::uint64_t raw, std::size_t indent) {
        o.spaces(2 * indent);
        o.put(fd.name);
        o.put(": ", 2);
        char b[40];
        switch (fd.type) {
            case schema::type::int32:
                put_i64(o, static_cast<std::int32_t>(static_cast<std::uint32_t>(raw)));
                break;
            case schema::type::int64:
                put_i64(o, static_cast<std::int64_t>(raw));
                break;
            case schema::type::uint64:
                put_u64(o, raw);
                break;
            case schema::type::float_:
                o.put(b, fmt_float(b, wire::bits_to_float(static_cast<std::uint32_t>(raw))));
                break;
            case schema::type::double_:
                o.put(b, fmt_double(b, wire::bits_to_double(raw)));
                break;
            case schema::type::enum_: {
                const auto* v = fd.enum_type->find(static_cast<std::int32_t>(static_cast<std::uint32_t>(raw)));
                if (v) o.put(v->name);
                else put_i64(o, static_cast<std::int32_t>(static_cast<std::uint32_t>(raw)));
                break;
            }
            default:
                break;
        }
        o.put('\n');
    }

    // Elements of one accepted occurrence of a repeated scalar field.
    void scalar_elements(const schema::field_desc& fd, const wire::field& f, std::size_t indent) {
        for_each_element(fd, f, [&](std::uint64_t v) { scalar_line(fd, v, indent); });
    }

    void value(const wire::message& s, const schema::field_desc& fd, const wire::field& f,
               std::size_t indent, error& err) {
        if (fd.type == schema::type::message) {
            o.spaces(2 * indent);
            o.put(fd.name);
            o.put(" {\n", 3);
            const result<wire::message> child = s.child(f);
            if (!child) {
                err = child.err();
                return;
            }
            message(*child, *fd.message, indent + 1, err);
            o.spaces(2 * indent);
            o.put("}\n", 2);
        } else if (fd.type == schema::type::string || fd.type == schema::type::bytes) {
            o.spaces(2 * indent);
            o.put(fd.name);
            o.put(": ", 2);
            put_string(f);
            o.put('\n');
        } else {
            scalar_elements(fd, f, indent);
        }
    }

    void message(const wire::message& s, const schema::message_desc& d, std::size_t indent, error& err) {
        if (err) return;
        message_stats st;
        collect(s, d, opt.release, st);
        for (std::uint16_t i = 0; i < d.field_count && !err; ++i) {
            const schema::field_desc& fd = d.fields[i];
            const field_stat& fs = st.fields[i];
            if (fs.count == 0) continue;
            if (!fd.repeated()) {
                if (fd.type == schema::type::message) {
                    const result<wire::message> child = field_message(s, fd, fs);
                    if (!child) {
                        err = child.err();
                        return;
                    }
                    o.spaces(2 * indent);
                    o.put(fd.name);
                    o.put(" {\n", 3);
                    message(*child, *fd.message, indent + 1, err);
                    o.spaces(2 * indent);
                    o.put("}\n", 2);
                } else {
                    value(s, fd, fs.last, indent, err);  // last one wins
                }
                continue;
            }
            // Repeated: every accepted occurrence from the first, in wire order.
            auto c = fields_from(s, fs.first);
            wire::field f;
            std::uint32_t left = fs.count;
            while (left && c.next(f)) {
                if (f.number != fd.number || f.tag < fs.first || !accepts(fd, f, opt.release)) continue;
                --left;
                value(s, fd, f, indent, err);
            }
        }
        if (st.unknown == 0 || err) return;
        auto c = s.fields();
        wire::field f;
        while (c.next(f)) {
            const schema::field_desc* fd = d.find(f.number);
            if (fd && accepts(*fd, f, opt.release)) continue;
            print_unknown_field(o, f, fd && (opt.release == 0 || fd->since <= opt.release) ? fd : nullptr,
                                indent);
        }
    }
};

}  // namespace
}  // namespace text_detail

error print_text(const void* data, std::size_t size, const schema::message_desc& root,
                 output_sink sink, const options& opts) noexcept {
    wire::message s;
    if (error e = text_detail::start_printing(data, size, root, sink, opts, s)) return e;
    text_detail::out_buf o(sink);
    text_detail::printer pr{o, opts};
    error err;
    pr.message(s, root, 0, err);
    return err;
}

}  // namespace onnxview
