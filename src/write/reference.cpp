// The weight-less proxy's source record (reference.hpp, find_reference_source).
#include "reference.hpp"

#include "onnxview/decimal.hpp"
#include "onnxview/model.hpp"

namespace onnxview {
namespace detail {

namespace {

constexpr std::string_view size_label = "size=";
constexpr std::string_view mtime_label = ";mtime_ns=";
constexpr std::string_view location_label = ";location=";

// "size=N;mtime_ns=M;location=" into out (at most 64 bytes); returns its length.
std::size_t record_head(char* out, const file_stamp& s) noexcept {
    std::size_t n = 0;
    const auto text = [&](std::string_view t) {
        for (char c : t) out[n++] = c;
    };
    text(size_label);
    n += write_decimal(out + n, s.size);
    text(mtime_label);
    if (s.mtime_ns < 0) out[n++] = '-';
    // The magnitude of a negative time, INT64_MIN included, as unsigned.
    const std::uint64_t magnitude = s.mtime_ns < 0 ? 0 - static_cast<std::uint64_t>(s.mtime_ns)
                                                   : static_cast<std::uint64_t>(s.mtime_ns);
    n += write_decimal(out + n, magnitude);
    text(location_label);
    return n;
}

// Takes `label`, then a decimal number (a `-` first when may_be_negative), up to `end`, which must follow.
bool take_number(std::string_view& text, std::string_view label, std::string_view end, bool may_be_negative,
                 std::uint64_t& value, bool& negative) noexcept {
    if (text.substr(0, label.size()) != label) return false;
    text.remove_prefix(label.size());
    negative = may_be_negative && !text.empty() && text[0] == '-';
    if (negative) text.remove_prefix(1);
    const std::size_t stop = text.find(end);
    if (stop == std::string_view::npos) return false;
    const result<std::uint64_t> number = parse_decimal(text.substr(0, stop));
    if (!number) return false;
    value = *number;
    text.remove_prefix(stop);
    return true;
}

bool parse_record(std::string_view text, reference_source& r) noexcept {
    std::uint64_t size = 0, magnitude = 0;
    bool negative = false, unused = false;
    if (!take_number(text, size_label, mtime_label, false, size, unused)) return false;
    if (!take_number(text, mtime_label, location_label, true, magnitude, negative)) return false;
    if (magnitude > (negative ? std::uint64_t(1) << 63 : (std::uint64_t(1) << 63) - 1)) return false;
    text.remove_prefix(location_label.size());
    if (text.empty()) return false;
    r.location = text;
    r.stamp.size = size;
    r.stamp.mtime_ns = negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
    return true;
}

}  // namespace

void emit_reference_record(emitter& out, const reference_source& r) noexcept {
    char head[64];
    const std::size_t head_size = record_head(head, r.stamp);
    emit_string_entry(out, model_view::field::metadata_props, reference_source_key, std::string_view(head, head_size),
                      r.location);
}

bool is_reference_record(const wire::message& m, const wire::field& f) noexcept {
    if (f.number != model_view::field::metadata_props || f.type != wire::wire_type::length_delimited) return false;
    const result<wire::message> entry = m.child(f);
    return entry && string_entry_view(entry).key() == reference_source_key;
}

}  // namespace detail

result<reference_source> find_reference_source(std::string_view model, const options& opts) noexcept {
    const model_view m = parse_model(model.data(), model.size(), opts);
    if (!m.ok()) return m.err();
    bool found = false;
    std::string_view value;
    for (const string_entry_view& e : m.metadata_props()) {
        if (!e.ok()) return e.err();
        if (e.key() != reference_source_key) continue;
        found = true;  // the last entry counts, as a dict built from the list keeps it
        value = e.value();
    }
    if (!found) return errc::not_found;
    reference_source r;
    if (!detail::parse_record(value, r))
        return error(errc::external_bad_entry,
                     value.data() == nullptr ? 0 : static_cast<std::uint64_t>(value.data() - model.data()));
    return r;
}

}  // namespace onnxview
