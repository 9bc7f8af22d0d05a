// The schema-driven walk over messages as libprotobuf holds them after
// parsing: acceptance of occurrences, per-message statistics, merged
// messages, and the one whole-tree validation (verify() and the printers).
#include "schema_walk.hpp"

namespace onnxview {
namespace schema_walk {

using wire::wire_type;

bool accepts(const schema::field_desc& fd, const wire::field& f, std::uint32_t release) noexcept {
    if (release != 0 && fd.since > release) return false;
    if (!wire::takes_wire_type(fd.encoding(), fd.packable(), f.type)) return false;
    if (fd.type != schema::type::enum_ || f.type != wire_type::varint) return true;
    const schema::enum_desc& e = *fd.enum_type;
    if (!wire::closed_enum_takes(f.raw, e.max_number())) return false;
    return release == 0 || e.values[f.as_int32()].since <= release;
}

void collect(const wire::message& m, const schema::message_desc& d, std::uint32_t release,
             message_stats& st) noexcept {
    for (std::uint16_t i = 0; i < d.field_count; ++i) st.fields[i] = field_stat();
    for (auto& m : st.oneof_member) m = -1;
    st.unknown = 0;
    auto c = m.fields();
    wire::field f;
    while (c.next(f)) {
        const schema::field_desc* fd = d.find(f.number);
        if (!fd || !accepts(*fd, f, release)) {
            ++st.unknown;
            continue;
        }
        const auto i = static_cast<std::size_t>(fd - d.fields);
        field_stat& fs = st.fields[i];
        if (fd->oneof_index >= 0) {  // setting a member clears the one set before
            std::int8_t& cur = st.oneof_member[fd->oneof_index];
            if (cur >= 0 && cur != static_cast<std::int8_t>(i)) st.fields[cur] = field_stat();
            cur = static_cast<std::int8_t>(i);
        }
        if (fs.count++ == 0) fs.first = f.tag;
        fs.last = f;
    }
}

// The printers' traversal without the printing: every singular message field
// made a message as the printers make it, so that a merge chain they cannot
// follow is found before the first byte is written.
error check_merges(const wire::message& m, const schema::message_desc& d, std::uint32_t release) noexcept {
    message_stats st;
    collect(m, d, release, st);
    for (std::uint16_t i = 0; i < d.field_count; ++i) {
        const schema::field_desc& fd = d.fields[i];
        const field_stat& fs = st.fields[i];
        if (fs.count == 0 || fd.type != schema::type::message) continue;
        if (!fd.repeated()) {
            const result<wire::message> child = field_message(m, fd, fs);
            if (!child) return child.err();
            if (error e = check_merges(*child, *fd.message, release)) return e;
            continue;
        }
        auto c = fields_from(m, fs.first);
        wire::field f;
        std::uint32_t left = fs.count;
        while (left && c.next(f)) {
            if (f.number != fd.number || f.tag < fs.first || !accepts(fd, f, release)) continue;
            --left;
            const result<wire::message> child = c.child(f);
            if (!child) return child.err();
            if (error e = check_merges(*child, *fd.message, release)) return e;
        }
    }
    return error();
}

// ---------------------------------------------------------------------------
// Validation, as libprotobuf's parser: every occurrence of a known message
// field is parsed as that message; packed payloads element by element. Then
// merges: libprotobuf follows merged singular messages at any depth, the
// views and printers as far as wire::merge_path holds (merge_too_deep past it).

namespace {

struct tree {
    const char* base;
    std::uint32_t max_depth;
    std::uint32_t release;
    void (*verified)(void* user, const char* data, std::size_t size);
    void* verified_user;
    const char* passed;  // verified() has been given the bytes before this
};

constexpr std::size_t verified_run = std::size_t(4) << 20;

// Hands the bytes from t.passed to `to` to t.verified once they make a run.
void pass_to(tree& t, const char* to) noexcept {
    if (t.verified == nullptr || to <= t.passed || static_cast<std::size_t>(to - t.passed) < verified_run) return;
    t.verified(t.verified_user, t.passed, static_cast<std::size_t>(to - t.passed));
    t.passed = to;
}

// `merges_checked`: an ancestor's check_merges already covered this region.
error validate_region(tree& t, const char* b, const char* e, const schema::message_desc& d,
                      std::uint32_t depth, bool merges_checked) noexcept {
    wire::reader r(t.base, b, e, depth, t.max_depth);
    wire::field f;
    // Accepted occurrences of each singular message field, capped at 2: a
    // second one means a merge, rare enough to check with the exact walk.
    std::uint8_t seen[sizeof(message_stats::fields) / sizeof(field_stat)] = {};
    bool merged = false;
    while (!r.at_end()) {
        if (error err = r.next(f)) return err;
        const schema::field_desc* fd = d.find(f.number);
        if (!fd || !accepts(*fd, f, t.release)) continue;
        if (fd->type == schema::type::message) {
            if (depth + 1 > t.max_depth)
                return error(errc::depth_exceeded, static_cast<std::uint64_t>(f.tag - t.base));
            if (!fd->repeated()) {
                std::uint8_t& n = seen[fd - d.fields];
                if (n < 2 && ++n == 2) merged = true;
            }
            if (error err = validate_region(t, f.payload, f.payload + f.raw, *fd->message, depth + 1,
                                            merges_checked || merged))
                return err;
        } else if (fd->packable() && f.type == wire_type::length_delimited) {
            if (error err = wire::check_packed(t.base, f, fd->packed_width())) return err;
        }
        pass_to(t, r.position());
    }
    if (merged && !merges_checked) return check_merges(wire::message(t.base, b, e, depth, t.max_depth), d, t.release);
    return error();
}

}  // namespace

error validate_tree(const char* data, std::size_t size, const schema::message_desc& root,
                    std::uint32_t max_depth, std::uint32_t release,
                    void (*verified)(void* user, const char* data, std::size_t size), void* verified_user) noexcept {
    if (!data && size) return error(errc::invalid_argument, 0);
    tree t{data, wire::effective_max_depth(max_depth), release, verified, verified_user, data};
    return validate_region(t, data, data + size, root, 0, false);
}

}  // namespace schema_walk
}  // namespace onnxview
