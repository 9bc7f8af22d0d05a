// Internal to src/io: which external-data `location` strings name a file
// beneath the model's directory, decided from the string alone.
//
// The rules follow ONNX ExternalData.md and the reference checker
// (onnx/checker.cc): a relative path, no ".." component, no drive, UNC or
// backslash path, no NUL. Nothing here calls the operating system, so every
// rule is tested on every host (tests/io/location_policy_test.cpp); what only
// the file system can tell (symlinks, hard links, file types) is
// open_beneath's (file_internal.hpp).
#ifndef ONNXVIEW_SRC_IO_LOCATION_POLICY_HPP
#define ONNXVIEW_SRC_IO_LOCATION_POLICY_HPP

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "heap.hpp"
#include "onnxview/error.hpp"

namespace onnxview {
namespace detail {

// Whose path rules apply: Windows also refuses any ':' ("name:stream" opens
// an NTFS alternate data stream), separates with '\' and compares paths
// without regard to ASCII case.
enum class path_flavor : std::uint8_t { posix, windows };

// Longest location accepted, in bytes.
constexpr std::size_t max_location = 4095;

// Checks a location that names a file and writes its normalized form into
// `out` (at least max_location + 2 bytes): components joined by '/', "." and
// empty components dropped, "." when nothing is left (the base directory
// itself, refused when opened), NUL-terminated; *out_size gets its length.
// Returns errc::ok or the first rule broken, tested in this order:
// external_empty_location, external_nul_in_location,
// external_location_too_long, external_unc_path ("\\x", "//x"),
// external_absolute_path ("/x", "\x"), external_drive_path (':' in the first
// component; anywhere on Windows), external_backslash,
// external_parent_component.
errc normalize_location(std::string_view location, path_flavor flavor, char* out,
                        std::size_t* out_size) noexcept;

// Checks a '#...' location (Python ModelContainer's in-memory tensors: a
// name, not a path). Errors: external_nul_in_location,
// external_location_too_long.
errc check_in_memory_location(std::string_view location) noexcept;

// The directory external files of the model at `model_path` resolve in:
// everything before the last separator, "/" for a file in the root, "." for a
// bare file name. Points into model_path or at a literal.
std::string_view model_directory(std::string_view model_path, path_flavor flavor) noexcept;

// Is `path` strictly beneath the directory `base` (both canonical, as the
// system resolved them)? A root base ("/", "C:\") ends with its separator.
bool is_beneath(std::string_view base, std::string_view path, path_flavor flavor) noexcept;

// "<base>/<relative>" in a NUL-terminated string from h (just `relative`
// when base is null), to give back with h.free_string; null when out of
// memory. No separator is doubled.
char* join_path(const heap& h, const char* base, std::string_view relative) noexcept;

}  // namespace detail
}  // namespace onnxview

#endif  // ONNXVIEW_SRC_IO_LOCATION_POLICY_HPP
