// The lexical rules for external-data locations (src/io/location_policy.hpp),
// every accepted and refused form, for both POSIX and Windows rules. No file
// is touched: these hold on every host.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>
#include <string_view>

#include "location_policy.hpp"

using onnxview::errc;
using onnxview::detail::path_flavor;

namespace {

constexpr path_flavor posix = path_flavor::posix;
constexpr path_flavor windows = path_flavor::windows;

struct normalized {
    errc code;
    std::string path;  // empty unless code is ok
};

normalized normalize(std::string_view location, path_flavor flavor = posix) {
    char out[onnxview::detail::max_location + 2];
    std::size_t size = 0;
    const errc code = onnxview::detail::normalize_location(location, flavor, out, &size);
    if (code != errc::ok) return {code, {}};
    CHECK(out[size] == '\0');
    return {code, std::string(out, size)};
}

// Accepted under both flavors, with this normalized form.
void accepts(std::string_view location, const std::string& expected) {
    INFO("location '" << std::string(location) << "'");
    for (const path_flavor flavor : {posix, windows}) {
        const normalized n = normalize(location, flavor);
        CHECK(n.code == errc::ok);
        CHECK(n.path == expected);
    }
}

// Refused under both flavors with `code`.
void refuses(std::string_view location, errc code) {
    INFO("location '" << std::string(location) << "'");
    CHECK(normalize(location, posix).code == code);
    CHECK(normalize(location, windows).code == code);
}

}  // namespace

TEST_CASE("location policy: relative paths are accepted and normalized", "[io][location]") {
    accepts("w.bin", "w.bin");
    accepts("./w.bin", "w.bin");
    accepts("a/b/w.bin", "a/b/w.bin");
    accepts("a//b", "a/b");
    accepts("a/./b/", "a/b");
    accepts("a/..b/c..", "a/..b/c..");  // only a whole ".." component leaves
    accepts("...", "...");
    accepts("#not-special-here", "#not-special-here");  // '#' names are the resolver's business
    accepts(".", ".");                                  // the base itself: refused when opened
    accepts("./", ".");
    accepts(".//./", ".");
    accepts(std::string(4095, 'a'), std::string(4095, 'a'));
}

TEST_CASE("location policy: empty, NUL and over-long locations", "[io][location][attack]") {
    refuses("", errc::external_empty_location);
    refuses(std::string_view("w.bin\0../x", 10), errc::external_nul_in_location);
    refuses(std::string_view("\0", 1), errc::external_nul_in_location);
    refuses(std::string(4096, 'a'), errc::external_location_too_long);
    // NUL is looked for first, then the length, then the path rules.
    std::string long_with_nul(5000, 'a');
    long_with_nul[4999] = '\0';
    refuses(long_with_nul, errc::external_nul_in_location);
    refuses("/" + std::string(5000, 'a'), errc::external_location_too_long);
}

TEST_CASE("location policy: absolute and UNC paths", "[io][location][attack]") {
    refuses("/etc/passwd", errc::external_absolute_path);
    refuses("/", errc::external_absolute_path);
    refuses("\\w.bin", errc::external_absolute_path);
    refuses("/..", errc::external_absolute_path);
    refuses("\\\\server\\share\\w.bin", errc::external_unc_path);
    refuses("//server/share/w.bin", errc::external_unc_path);
    refuses("/\\server", errc::external_unc_path);
    refuses("\\/server", errc::external_unc_path);
    refuses("//", errc::external_unc_path);
}

TEST_CASE("location policy: drive letters and ':'", "[io][location][attack]") {
    refuses("C:\\x", errc::external_drive_path);
    refuses("C:x", errc::external_drive_path);
    refuses("c:/windows/x", errc::external_drive_path);
    refuses("C:", errc::external_drive_path);
    refuses("name:stream/x", errc::external_drive_path);  // ':' anywhere in the first component
    refuses("C:\\..", errc::external_drive_path);         // before the backslash and '..' rules
    // Later components: an NTFS alternate data stream on Windows, a plain name elsewhere.
    CHECK(normalize("a/w.bin:stream", windows).code == errc::external_drive_path);
    CHECK(normalize("a/w.bin:stream", posix).path == "a/w.bin:stream");
}

TEST_CASE("location policy: backslashes", "[io][location][attack]") {
    refuses("sub\\w.bin", errc::external_backslash);
    refuses("w.bin\\", errc::external_backslash);
    refuses("a\\..", errc::external_backslash);  // before the '..' rule
    refuses("a/b\\c", errc::external_backslash);
}

TEST_CASE("location policy: '..' components", "[io][location][attack]") {
    for (const char* loc : {"..", "../w.bin", "a/../../w.bin", "sub/..", "./../x", "a/b/..", "a/../b"}) {
        refuses(loc, errc::external_parent_component);
    }
}

TEST_CASE("location policy: '#' in-memory names", "[io][location]") {
    using onnxview::detail::check_in_memory_location;
    CHECK(check_in_memory_location("#t0") == errc::ok);
    CHECK(check_in_memory_location("#../../x") == errc::ok);  // a name, not a path
    CHECK(check_in_memory_location(std::string_view("#a\0b", 4)) == errc::external_nul_in_location);
    CHECK(check_in_memory_location("#" + std::string(4094, 'a')) == errc::ok);
    CHECK(check_in_memory_location("#" + std::string(4095, 'a')) == errc::external_location_too_long);
}

TEST_CASE("location policy: the directory of a model path", "[io][location]") {
    using onnxview::detail::model_directory;
    CHECK(model_directory("net.onnx", posix) == ".");
    CHECK(model_directory("/net.onnx", posix) == "/");
    CHECK(model_directory("models/net.onnx", posix) == "models");
    CHECK(model_directory("/a/b/net.onnx", posix) == "/a/b");
    CHECK(model_directory("models\\net.onnx", posix) == ".");  // '\' is a name byte on POSIX
    CHECK(model_directory("models\\net.onnx", windows) == "models");
    CHECK(model_directory("C:\\m\\net.onnx", windows) == "C:\\m");
    CHECK(model_directory("a\\b/net.onnx", windows) == "a\\b");
    CHECK(model_directory("a/b\\net.onnx", windows) == "a/b");
}

TEST_CASE("location policy: beneath the base directory", "[io][location]") {
    using onnxview::detail::is_beneath;
    CHECK(is_beneath("/base", "/base/w.bin", posix));
    CHECK(is_beneath("/base", "/base/a/w.bin", posix));
    CHECK_FALSE(is_beneath("/base", "/base", posix));
    CHECK_FALSE(is_beneath("/base", "/base/", posix));
    CHECK_FALSE(is_beneath("/base", "/basement/w.bin", posix));
    CHECK_FALSE(is_beneath("/base", "/other/w.bin", posix));
    CHECK_FALSE(is_beneath("/base", "/bas", posix));
    CHECK(is_beneath("/", "/w.bin", posix));
    CHECK_FALSE(is_beneath("/", "/", posix));
    CHECK_FALSE(is_beneath("", "/w.bin", posix));
    CHECK_FALSE(is_beneath("/Base", "/base/w.bin", posix));  // case matters on POSIX
    CHECK(is_beneath("\\\\?\\C:\\Models", "\\\\?\\c:\\models\\w.bin", windows));  // not on Windows
    CHECK(is_beneath("C:\\", "C:\\w.bin", windows));
    CHECK_FALSE(is_beneath("C:\\m", "C:\\m/w.bin", windows));  // '/' is not the separator there
    CHECK_FALSE(is_beneath("C:\\m", "C:\\mx\\w.bin", windows));
}

TEST_CASE("location policy: joining base and location", "[io][location]") {
    using onnxview::detail::join_path;
    // Through a caller's allocator that checks each block comes back with the
    // size it was allocated with.
    struct ledger {
        std::size_t outstanding = 0;
        std::size_t last_size = 0;
        bool sizes_match = true;
    } book;
    onnxview::allocator hooks;
    hooks.user_data = &book;
    hooks.allocate = [](void* user, std::size_t size, std::size_t) -> void* {
        auto& b = *static_cast<ledger*>(user);
        ++b.outstanding;
        b.last_size = size;
        return std::malloc(size);
    };
    hooks.deallocate = [](void* user, void* p, std::size_t size, std::size_t) {
        auto& b = *static_cast<ledger*>(user);
        --b.outstanding;
        if (size != b.last_size) b.sizes_match = false;
        std::free(p);
    };
    const onnxview::detail::heap h(hooks);
    const auto joined = [&](const char* base, std::string_view relative) {
        char* p = join_path(h, base, relative);
        REQUIRE(p != nullptr);
        std::string s(p);
        h.free_string(p, s.size());
        return s;
    };
    CHECK(joined(nullptr, "#t0") == "#t0");
    CHECK(joined("/base", "a/w.bin") == "/base/a/w.bin");
    CHECK(joined("/", "w.bin") == "/w.bin");
    CHECK(joined("C:\\m\\", "w.bin") == "C:\\m\\w.bin");
    CHECK(joined("vfs://models", "a/w.bin") == "vfs://models/a/w.bin");
    CHECK(joined("", "w.bin") == "/w.bin");
    CHECK(book.outstanding == 0);
    CHECK(book.sizes_match);
}
