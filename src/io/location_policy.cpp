// The lexical rules for external-data locations (location_policy.hpp).
#include "location_policy.hpp"

#include <cstdlib>
#include <cstring>

namespace onnxview {
namespace detail {

namespace {

bool is_separator(char c) noexcept { return c == '/' || c == '\\'; }

char ascii_lower(char c) noexcept { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

errc normalize_location(std::string_view loc, path_flavor flavor, char* out,
                        std::size_t* out_size) noexcept {
    if (loc.empty()) return errc::external_empty_location;
    if (loc.find('\0') != std::string_view::npos) return errc::external_nul_in_location;
    if (loc.size() > max_location) return errc::external_location_too_long;
    if (loc.size() >= 2 && is_separator(loc[0]) && is_separator(loc[1])) return errc::external_unc_path;
    if (is_separator(loc[0])) return errc::external_absolute_path;
    const std::size_t first_end = loc.find_first_of("/\\");
    // Views made from data() and a length: substr's out_of_range throw would
    // link the C++ exception runtime into every program that resolves
    // external data (scripts/code_size.sh).
    const std::string_view first(loc.data(), first_end == std::string_view::npos ? loc.size() : first_end);
    if (first.find(':') != std::string_view::npos) return errc::external_drive_path;
    if (flavor == path_flavor::windows && loc.find(':') != std::string_view::npos) {
        return errc::external_drive_path;
    }
    if (loc.find('\\') != std::string_view::npos) return errc::external_backslash;
    std::size_t n = 0;
    std::size_t pos = 0;
    while (pos <= loc.size()) {
        std::size_t end = loc.find('/', pos);
        if (end == std::string_view::npos) end = loc.size();
        const std::string_view component(loc.data() + pos, end - pos);
        pos = end + 1;
        if (component.empty() || component == ".") continue;
        if (component == "..") return errc::external_parent_component;
        if (n != 0) out[n++] = '/';
        std::memcpy(out + n, component.data(), component.size());
        n += component.size();
    }
    if (n == 0) out[n++] = '.';
    out[n] = '\0';
    *out_size = n;
    return errc::ok;
}

errc check_in_memory_location(std::string_view loc) noexcept {
    if (loc.find('\0') != std::string_view::npos) return errc::external_nul_in_location;
    if (loc.size() > max_location) return errc::external_location_too_long;
    return errc::ok;
}

std::string_view model_directory(std::string_view model_path, path_flavor flavor) noexcept {
    const std::size_t slash = model_path.find_last_of(flavor == path_flavor::windows ? "/\\" : "/");
    if (slash == std::string_view::npos) return ".";
    if (slash == 0) return "/";
    return std::string_view(model_path.data(), slash);
}

bool is_beneath(std::string_view base, std::string_view path, path_flavor flavor) noexcept {
    const std::size_t b = base.size();
    if (b == 0 || path.size() <= b) return false;
    for (std::size_t i = 0; i < b; ++i) {
        const bool same = flavor == path_flavor::windows ? ascii_lower(base[i]) == ascii_lower(path[i])
                                                         : base[i] == path[i];
        if (!same) return false;
    }
    const char separator = flavor == path_flavor::windows ? '\\' : '/';
    if (base[b - 1] == separator) return true;  // a root: anything longer is beneath it
    return path[b] == separator && path.size() > b + 1;
}

char* join_path(const heap& h, const char* base, std::string_view relative) noexcept {
    const std::size_t b = base == nullptr ? 0 : std::strlen(base);
    const bool add_separator = base != nullptr && (b == 0 || !is_separator(base[b - 1]));
    // Exactly the string's size: free_string gives back strlen + 1.
    char* p = static_cast<char*>(h.allocate(b + (add_separator ? 1 : 0) + relative.size() + 1));
    if (p == nullptr) return nullptr;
    std::size_t n = 0;
    if (base != nullptr) {
        std::memcpy(p, base, b);
        n = b;
        if (add_separator) p[n++] = '/';
    }
    std::memcpy(p + n, relative.data(), relative.size());
    p[n + relative.size()] = '\0';
    return p;
}

}  // namespace detail
}  // namespace onnxview
