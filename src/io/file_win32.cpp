// The io layer on Windows: mapped_file (CreateFileW, CreateFileMappingW /
// MapViewOfFile or ReadFile) and the external-data primitives
// (GetFinalPathNameByHandle). Paths are UTF-8 and converted to UTF-16.
#ifdef _WIN32

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <fcntl.h>
#include <io.h>
#include <windows.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "file_internal.hpp"
#include "onnxview/file.hpp"

namespace onnxview {
namespace detail {

namespace {

error sys_error(errc code, DWORD system_code) noexcept {
    return error(code, 0, static_cast<std::int32_t>(system_code));
}

struct handle_closer {
    HANDLE h;
    ~handle_closer() { ::CloseHandle(h); }
};

// A UTF-16 string from a heap, given back when it goes out of scope.
class wide_string {
public:
    wide_string(const heap& h, std::size_t chars) noexcept
        : heap_(h), w_(static_cast<wchar_t*>(h.allocate(chars * sizeof(wchar_t)))), chars_(chars) {}
    ~wide_string() { heap_.deallocate(w_, chars_ * sizeof(wchar_t)); }
    wide_string(const wide_string&) = delete;
    wide_string& operator=(const wide_string&) = delete;
    wchar_t* get() const noexcept { return w_; }

private:
    heap heap_;
    wchar_t* w_;
    std::size_t chars_;
};

// The UTF-16 form of a NUL-terminated UTF-8 path; get() is null when it is
// not UTF-8 or memory runs out.
class widened {
public:
    widened(const heap& h, const char* utf8) noexcept : wide_length_(wide_length(utf8)), w_(h, wide_length_) {
        const int n = static_cast<int>(wide_length_);
        if (w_.get() != nullptr && n > 0 &&
            ::MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8, -1, w_.get(), n) == n)
            ok_ = true;
    }
    const wchar_t* get() const noexcept { return ok_ ? w_.get() : nullptr; }
    // Why get() is null: the heap refused (out_of_memory), else `invalid`
    // (the path is not UTF-8).
    errc failure(errc invalid) const noexcept {
        return w_.get() == nullptr && wide_length_ != 0 ? errc::out_of_memory : invalid;
    }

private:
    static std::size_t wide_length(const char* utf8) noexcept {  // with the NUL; 0 when invalid
        const int n = ::MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8, -1, nullptr, 0);
        return n > 0 ? static_cast<std::size_t>(n) : 0;
    }
    std::size_t wide_length_;
    wide_string w_;
    bool ok_ = false;
};

// UTF-16 to UTF-8 in a string from h (free_string); null on failure.
char* narrow(const heap& h, const wchar_t* w) noexcept {
    const int n = ::WideCharToMultiByte(CP_UTF8, 0, w, -1, nullptr, 0, nullptr, nullptr);
    if (n <= 0) return nullptr;
    char* s = static_cast<char*>(h.allocate(static_cast<std::size_t>(n)));
    if (s == nullptr) return nullptr;
    if (::WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, nullptr, nullptr) != n) {
        h.deallocate(s, static_cast<std::size_t>(n));
        return nullptr;
    }
    return s;
}

// The final (symlink- and junction-resolved) path of an open handle, UTF-8,
// in a string from h (free_string).
char* final_path(const heap& h, HANDLE file) noexcept {
    const DWORD n = ::GetFinalPathNameByHandleW(file, nullptr, 0, FILE_NAME_NORMALIZED);
    if (n == 0) return nullptr;
    const wide_string w(h, std::size_t(n) + 1);
    if (w.get() == nullptr) return nullptr;
    const DWORD got = ::GetFinalPathNameByHandleW(file, w.get(), n + 1, FILE_NAME_NORMALIZED);
    return (got == 0 || got > n) ? nullptr : narrow(h, w.get());
}

// Maps or reads the whole of an open file. The handle stays owned by the caller.
result<mapped_file> from_handle(HANDLE h, const options& opts) noexcept {
    LARGE_INTEGER li;
    if (!::GetFileSizeEx(h, &li)) return sys_error(errc::io_stat_failed, ::GetLastError());
    const std::uint64_t size = static_cast<std::uint64_t>(li.QuadPart);
    if (size == 0) return errc::file_empty;
    if (size > std::numeric_limits<std::size_t>::max()) return errc::file_too_large;
    const std::size_t n = static_cast<std::size_t>(size);
    const bool copy = opts.file_mode == open_mode::read ||
                      (opts.file_copy_below != 0 && size < opts.file_copy_below);
    if (!copy) {
        HANDLE m = ::CreateFileMappingW(h, nullptr, PAGE_READONLY, 0, 0, nullptr);
        if (m != nullptr) {
            void* p = ::MapViewOfFile(m, FILE_MAP_READ, 0, 0, 0);
            const DWORD e = ::GetLastError();
            ::CloseHandle(m);  // the view keeps the mapping object alive
            if (p != nullptr) {
                return file_access::make(static_cast<const char*>(p), n, mapped_file::storage::mapped);
            }
            if (opts.file_mode == open_mode::map) return sys_error(errc::io_map_failed, e);
        } else if (opts.file_mode == open_mode::map) {
            return sys_error(errc::io_map_failed, ::GetLastError());
        }
    }
    const heap mem(opts.memory);
    char* buf = static_cast<char*>(mem.allocate(n));
    if (buf == nullptr) return errc::out_of_memory;
    std::size_t done = 0;
    while (done < n) {
        const std::size_t rest = n - done;
        const DWORD want = rest < (std::size_t(1) << 30) ? DWORD(rest) : DWORD(1) << 30;
        DWORD got = 0;
        if (!::ReadFile(h, buf + done, want, &got, nullptr)) {
            const DWORD e = ::GetLastError();
            mem.deallocate(buf, n);
            return sys_error(errc::io_read_failed, e);
        }
        if (got == 0) {
            mem.deallocate(buf, n);
            return sys_error(errc::io_read_failed, ERROR_HANDLE_EOF);
        }
        done += got;
    }
    return file_access::from_buffer(buf, n, mem);
}

}  // namespace

void unmap(const char* data, std::size_t) noexcept { ::UnmapViewOfFile(data); }

error advise_mapping(const char*, std::size_t, access_hint, std::uint64_t, std::uint64_t) noexcept {
    // PrefetchVirtualMemory (Windows 8) could serve willneed; hints are optional.
    return {};
}

// No cheap page-cache query for a view that is not yet touched
// (QueryWorkingSetEx sees the working set only): unknown, so not resident.
bool mapping_resident(const char*, std::size_t, std::uint32_t) noexcept { return false; }

// A view's read fault maps no more than its page: nothing to copy for.
error make_mapping_writable(const char*, std::size_t, bool) noexcept { return {}; }
error copy_mapped_pages(const char*, std::size_t, std::uint64_t, std::uint64_t) noexcept {
    return {};  // nothing copied: a hint's worth of work, skipped
}

const path_flavor host_path_flavor = path_flavor::windows;

void system_error_text(std::int32_t code, char* out, std::size_t out_size) noexcept {
    if (out_size == 0) return;
    const DWORD max = out_size > 0xFFFF ? 0xFFFF : static_cast<DWORD>(out_size);
    DWORD n = ::FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, nullptr,
                               static_cast<DWORD>(code), 0, out, max, nullptr);
    while (n > 0 && (out[n - 1] == '\r' || out[n - 1] == '\n' || out[n - 1] == '.')) --n;
    if (n == 0) {
        std::snprintf(out, out_size, "system error %ld", static_cast<long>(code));
        return;
    }
    out[n] = '\0';
}

result<char*> canonical_directory(const char* path, const heap& mem) noexcept {
    HANDLE h = INVALID_HANDLE_VALUE;
    DWORD e = 0;
    {
        const widened w(mem, path);
        if (w.get() == nullptr) return w.failure(errc::invalid_argument);
        h = ::CreateFileW(w.get(), 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                          OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, nullptr);
        e = ::GetLastError();
    }
    // The same code as realpath's failure on POSIX: a missing base directory
    // reads the same on every system.
    if (h == INVALID_HANDLE_VALUE) return sys_error(errc::io_resolve_failed, e);
    handle_closer closer{h};
    BY_HANDLE_FILE_INFORMATION info;
    const bool is_dir = ::GetFileInformationByHandle(h, &info) &&
                        (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0;
    if (!is_dir) return errc::invalid_argument;
    char* canonical = final_path(mem, h);
    if (canonical == nullptr) return errc::out_of_memory;
    return canonical;
}

result<mapped_file> open_beneath(const char* base, std::string_view relative,
                                 const beneath_options& options) noexcept {
    const heap mem(options.file.memory);
    const owned_string path(mem, join_path(mem, base, relative));
    if (path.get() == nullptr) return errc::out_of_memory;
    // The base comes from GetFinalPathNameByHandle with a \\?\ prefix, under
    // which Windows takes '/' literally, not as a separator.
    for (char* c = path.get(); *c != '\0'; ++c) {
        if (*c == '/') *c = '\\';
    }
    const widened w(mem, path.get());
    if (w.get() == nullptr) return w.failure(errc::external_nul_in_location);  // not valid UTF-8
    // A location that names no file is io_resolve_failed, as realpath's
    // failure is on POSIX.
    const DWORD attrs = ::GetFileAttributesW(w.get());
    if (attrs == INVALID_FILE_ATTRIBUTES) return sys_error(errc::io_resolve_failed, ::GetLastError());
    if (attrs & FILE_ATTRIBUTE_DIRECTORY) return errc::is_directory;
    HANDLE h = ::CreateFileW(w.get(), GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_DELETE, nullptr,
                             OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
    if (h == INVALID_HANDLE_VALUE) return sys_error(errc::io_open_failed, ::GetLastError());
    handle_closer closer{h};
    if (::GetFileType(h) != FILE_TYPE_DISK) return errc::not_regular_file;
    const owned_string resolved(mem, final_path(mem, h));
    if (resolved.get() == nullptr) return errc::out_of_memory;
    if (!is_beneath(base, resolved.get(), path_flavor::windows)) return errc::external_symlink_escape;
    BY_HANDLE_FILE_INFORMATION info;
    if (!::GetFileInformationByHandle(h, &info)) return sys_error(errc::io_stat_failed, ::GetLastError());
    if (info.nNumberOfLinks > 1 && !options.allow_hard_links) return errc::external_hard_link;
    const std::uint64_t size = (std::uint64_t(info.nFileSizeHigh) << 32) | info.nFileSizeLow;
    if (size > options.max_size) return errc::external_too_many_bytes;
    if (size == 0) return mapped_file();
    return from_handle(h, options.file);
}

}  // namespace detail

result<mapped_file> mapped_file::open(const char* path, const options& opts) noexcept {
    if (path == nullptr || *path == '\0') return errc::invalid_argument;
    HANDLE h = INVALID_HANDLE_VALUE;
    DWORD e = 0;
    {
        const detail::widened w(detail::heap(opts.memory), path);
        if (w.get() == nullptr) return w.failure(errc::invalid_argument);
        const DWORD attrs = ::GetFileAttributesW(w.get());
        if (attrs == INVALID_FILE_ATTRIBUTES) return detail::sys_error(errc::io_stat_failed, ::GetLastError());
        if (attrs & FILE_ATTRIBUTE_DIRECTORY) return errc::is_directory;
        h = ::CreateFileW(w.get(), GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_DELETE, nullptr,
                          OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
        e = ::GetLastError();
    }
    if (h == INVALID_HANDLE_VALUE) return detail::sys_error(errc::io_open_failed, e);
    if (::GetFileType(h) != FILE_TYPE_DISK) {
        ::CloseHandle(h);
        return errc::not_regular_file;
    }
    result<mapped_file> r = detail::from_handle(h, opts);
    ::CloseHandle(h);
    return r;
}

result<file_stamp> stamp_file(const char* path) noexcept {
    if (path == nullptr || *path == '\0') return errc::invalid_argument;
    WIN32_FILE_ATTRIBUTE_DATA data;
    {
        const detail::widened w(detail::heap(options{}.memory), path);
        if (w.get() == nullptr) return w.failure(errc::invalid_argument);
        if (!::GetFileAttributesExW(w.get(), GetFileExInfoStandard, &data))
            return detail::sys_error(errc::io_stat_failed, ::GetLastError());
    }
    if (data.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) return errc::is_directory;
    // FILETIME counts 100 ns intervals since 1601-01-01.
    constexpr std::int64_t intervals_1601_to_1970 = 116444736000000000;
    const std::int64_t intervals =
        static_cast<std::int64_t>((std::uint64_t(data.ftLastWriteTime.dwHighDateTime) << 32) |
                                  data.ftLastWriteTime.dwLowDateTime);
    return file_stamp{(std::uint64_t(data.nFileSizeHigh) << 32) | data.nFileSizeLow,
                      (intervals - intervals_1601_to_1970) * 100};
}

namespace detail {
long long write_some(int fd, const char* data, std::size_t size, int& sys_error) noexcept {
    const int n = ::_write(fd, data, static_cast<unsigned>(size));
    sys_error = n < 0 ? errno : n == 0 ? ENOSPC : 0;
    return n > 0 ? n : -1;
}
long long copy_some(int, std::uint64_t, int, std::size_t, int&) noexcept { return 0; }

int open_for_reading(const char* path, int& sys_error) noexcept {
    const int fd = ::_open(path, _O_RDONLY | _O_BINARY);
    sys_error = fd < 0 ? errno : 0;
    return fd;
}

void close_fd(int fd) noexcept { (void)::_close(fd); }

std::size_t page_size() noexcept {
    SYSTEM_INFO info;
    ::GetSystemInfo(&info);
    return info.dwPageSize != 0 ? info.dwPageSize : 4096;
}

// Mapped files keep no descriptor here (options::keep_descriptor is POSIX
// only), so mapped_file::read_at never calls this.
error read_descriptor_at(int, std::uint64_t, void*, std::size_t) noexcept { return errc::io_read_failed; }

}  // namespace detail

void release_pages(const void* data, std::size_t size) noexcept { (void)data, (void)size; }

}  // namespace onnxview

#endif  // _WIN32
