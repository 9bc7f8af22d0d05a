// Internal to src/io: building mapped_file values and the platform primitives
// (file_posix.cpp, file_win32.cpp) shared by mapped_file::open and the
// external-data resolver. Everything that differs between systems is behind
// these declarations.
#ifndef ONNXVIEW_SRC_IO_FILE_INTERNAL_HPP
#define ONNXVIEW_SRC_IO_FILE_INTERNAL_HPP

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "location_policy.hpp"
#include "onnxview/file.hpp"

namespace onnxview {
namespace detail {

struct file_access {
    static mapped_file make(const char* data, std::size_t size, mapped_file::storage kind) noexcept {
        mapped_file f;
        f.data_ = data;
        f.size_ = size;
        f.kind_ = kind;
        return f;
    }
    // `f` owns `descriptor` from here on (mapped_file::read_at).
    static void keep_descriptor(mapped_file& f, int descriptor) noexcept { f.descriptor_ = descriptor; }
    // A callback's bytes go back through its release.
    static void give_back_with(mapped_file& f, const file_callbacks& callbacks) noexcept {
        f.give_back_.release = callbacks.release;
        f.give_back_user_ = callbacks.user_data;
    }
    // A buffer from h (heap::allocate with the default alignment) goes back to it.
    static mapped_file from_buffer(char* data, std::size_t size, const heap& h) noexcept {
        mapped_file f = make(data, size, mapped_file::storage::buffer);
        if (!h.uses_malloc()) {
            f.give_back_.deallocate = h.hooks().deallocate;
            f.give_back_user_ = h.hooks().user_data;
        }
        return f;
    }
};

// The path rules of the host (platform file).
extern const path_flavor host_path_flavor;

// The system's text for a code in error::sys_errno (strerror /
// FormatMessage), NUL-terminated in out; "" when out_size is 0.
void system_error_text(std::int32_t code, char* out, std::size_t out_size) noexcept;

// The canonical path (symlinks and junctions resolved) of the existing
// directory `path`, a string from h (free_string). Errors: io_resolve_failed / io_stat_failed /
// io_open_failed (with sys_errno), invalid_argument (not a directory, or not
// UTF-8 on Windows), out_of_memory.
result<char*> canonical_directory(const char* path, const heap& h) noexcept;

// How open_beneath opens and checks a file.
struct beneath_options {
    bool allow_hard_links = false;
    std::uint64_t max_size = ~std::uint64_t(0);  // larger files: external_too_many_bytes
    options file;                                 // file_hint, file_copy_below and memory of the mapping
};

// Opens the regular file at `relative` (a location normalized by
// normalize_location) beneath the canonical directory `base`, as a
// mapped_file (empty for a file of size 0). The file is opened only if its
// resolved path stays beneath base, so no symlink or junction leads out of
// it, and it is inspected before it is opened, so a FIFO cannot block and a
// device is never opened. Errors: external_symlink_escape, is_directory
// (also for the base itself), not_regular_file, external_hard_link (more
// than one link, unless allowed), external_too_many_bytes, the io_error group
// with sys_errno, file_too_large, out_of_memory, external_nul_in_location
// (not UTF-8 on Windows). Remaining race on POSIX: a directory of the path
// swapped for a symlink between the check and the open; the final component
// cannot be (O_NOFOLLOW).
result<mapped_file> open_beneath(const char* base, std::string_view relative,
                                 const beneath_options& options) noexcept;

// One write(2) (_write on Windows) of at most `size` bytes, retried on
// EINTR: the bytes written (> 0), or -1 with errno in sys_error (ENOSPC when
// the system wrote nothing without saying why).
long long write_some(int fd, const char* data, std::size_t size, int& sys_error) noexcept;
// One copy_file_range of at most `size` bytes from `offset` of in_fd to the
// position of out_fd: the bytes copied (> 0), 0 when the call is not
// available for these files (nothing was copied), or -1 with errno in
// sys_error.
long long copy_some(int in_fd, std::uint64_t offset, int out_fd, std::size_t size, int& sys_error) noexcept;
// A descriptor open for reading, or -1 with errno in sys_error; close_fd closes it.
int open_for_reading(const char* path, int& sys_error) noexcept;
void close_fd(int fd) noexcept;

}  // namespace detail
}  // namespace onnxview

#endif  // ONNXVIEW_SRC_IO_FILE_INTERNAL_HPP
