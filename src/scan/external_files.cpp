// A model's external data as `onnxview scan` reports it (external_files.hpp).
#include "external_files.hpp"

#include <algorithm>
#include <map>

#include "onnxview/data_types.hpp"
#include "onnxview/decimal.hpp"
#include "onnxview/display.hpp"
#include "onnxview/external_data.hpp"

namespace onnxview {
namespace detail {

std::string_view external_inventory::add(const tensor_view& t, const std::string& where) {
    std::string_view location;
    std::map<std::string_view, int> keys;
    for (const string_entry_view& e : t.external_data()) {
        if (++keys[e.key()] == 2 && (e.key() == "location" || e.key() == "offset" || e.key() == "length" ||
                                     e.key() == "checksum"))
            add_finding(r_, "external_duplicate_key", scan_severity::error,
                "the external_data key " + quoted(e.key()) + " is given twice (readers disagree on which wins)",
                where);
        if (e.key() == "location" && location.empty()) location = e.value();
    }
    use_of_file& use = uses_[std::string(location)];
    use.file.location = std::string(location);
    ++use.file.tensors;
    use.file.bytes += declared_length(t);
    const result<tensor_data> d = mf_.tensor(t);
    if (!d) {
        use.file.in_range = false;  // not verified
        refused(d.err(), t, location, where, use);
        return {};
    }
    const std::string_view bytes = d->bytes();
    const mapped_file* f = bytes.empty() ? nullptr : mf_.file_holding(bytes.data(), bytes.size());
    if (f != nullptr) {
        use.file.exists = true;
        use.file.size = f->bytes().size();
        use.mapped = f;
        const auto begin = static_cast<std::uint64_t>(bytes.data() - f->data());
        use.extents.push_back({begin, begin + bytes.size(), where});
    }
    return bytes;
}

// The length an external tensor's entries give, else its dims x element
// width: what it claims, whether or not the file holds it.
std::uint64_t external_inventory::declared_length(const tensor_view& t) {
    for (const string_entry_view& e : t.external_data())
        if (e.key() == "length") {
            const result<std::uint64_t> n = parse_decimal(e.value());
            return n ? *n : 0;
        }
    const data_type_info* info = find_data_type_info(t.data_type());
    std::uint64_t elements = 0;
    if (info == nullptr || info->bits == 0 || !element_product(std::vector<std::int64_t>(t.dims().begin(), t.dims().end()), elements))
        return 0;
    return elements > ~std::uint64_t(0) / info->bits ? 0 : (elements * info->bits + 7) / 8;
}

void external_inventory::refused(error e, const tensor_view& t, std::string_view location, const std::string& where,
                             use_of_file& use) {
    char text[512];
    const std::string why = describe_external_error(e, t.name(), location, text, sizeof text);
    const char* code = "external_bad_entry";
    switch (e.code) {
        case errc::external_absolute_path: code = "external_absolute"; break;
        case errc::external_parent_component:
        case errc::external_drive_path:
        case errc::external_unc_path:
        case errc::external_backslash:
        case errc::external_nul_in_location: code = "external_escape"; break;
        case errc::external_symlink_escape: code = "external_symlink_escape"; break;
        case errc::external_hard_link: code = "external_hard_link"; break;
        case errc::not_regular_file:
        case errc::is_directory: code = "external_special_file"; break;
        case errc::io_resolve_failed:
        case errc::io_open_failed:
        case errc::io_stat_failed: code = "external_missing"; break;
        case errc::external_number_too_large:
        case errc::external_range_overflow:
        case errc::external_offset_past_end:
        case errc::external_range_past_end:
            code = "external_out_of_range";
            use.file.in_range = false;
            break;
        case errc::external_duplicate_key: return;  // reported from the entries, once
        default: break;
    }
    add_finding(r_, code, scan_severity::error, why, where);
}

void external_inventory::finish(bool digests) {
    for (auto& [location, use] : uses_) {
        std::sort(use.extents.begin(), use.extents.end(),
                  [](const extent& a, const extent& b) { return a.begin < b.begin; });
        for (std::size_t i = 1; i < use.extents.size(); ++i)
            if (use.extents[i].begin < use.extents[i - 1].end &&
                !(use.extents[i].begin == use.extents[i - 1].begin && use.extents[i].end == use.extents[i - 1].end))
                add_finding(r_, "external_overlap", scan_severity::error,
                    "its extent [" + std::to_string(use.extents[i].begin) + ", " + std::to_string(use.extents[i].end) +
                        ") of " + quoted(location) + " overlaps that of " + use.extents[i - 1].where,
                    use.extents[i].where);
        if (digests && use.mapped != nullptr)
            use.file.sha256 = sha256_hex(use.mapped->data(), use.mapped->bytes().size());
        r_.external_files.push_back(use.file);
    }
}

}  // namespace detail
}  // namespace onnxview
