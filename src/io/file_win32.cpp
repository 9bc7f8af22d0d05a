// mapped_file on Windows: CreateFileW, CreateFileMappingW / MapViewOfFile
// (or ReadFile). Paths are UTF-8 and converted to UTF-16.
#ifdef _WIN32

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>

#include <cstdlib>
#include <limits>

#include "file_internal.hpp"
#include "onnxview/file.hpp"

namespace onnxview {
namespace detail {

// UTF-8 to a malloc'd UTF-16 string; null on failure.
wchar_t* widen(const char* path) noexcept {
    const int n = ::MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, nullptr, 0);
    if (n <= 0) return nullptr;
    wchar_t* w = static_cast<wchar_t*>(std::malloc(sizeof(wchar_t) * static_cast<std::size_t>(n)));
    if (w == nullptr) return nullptr;
    if (::MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, w, n) != n) {
        std::free(w);
        return nullptr;
    }
    return w;
}

void unmap(const char* data, std::size_t) noexcept { ::UnmapViewOfFile(data); }

error advise_mapping(const char*, std::size_t, access_hint, std::uint64_t, std::uint64_t) noexcept {
    // PrefetchVirtualMemory (Windows 8) could serve willneed; hints are optional.
    return {};
}

result<mapped_file> from_handle(void* handle, const open_options& options,
                                io_detail* detail) noexcept {
    HANDLE h = static_cast<HANDLE>(handle);
    LARGE_INTEGER li;
    if (!::GetFileSizeEx(h, &li)) return sys_failure(detail, "GetFileSizeEx", int(::GetLastError()));
    const std::uint64_t size = static_cast<std::uint64_t>(li.QuadPart);
    if (size == 0) return errc::file_empty;
    if (size > std::numeric_limits<std::size_t>::max()) return errc::file_too_large;
    const std::size_t n = static_cast<std::size_t>(size);
    const bool copy = options.mode == open_mode::read ||
                      (options.copy_below != 0 && size < options.copy_below);
    if (!copy) {
        HANDLE m = ::CreateFileMappingW(h, nullptr, PAGE_READONLY, 0, 0, nullptr);
        if (m != nullptr) {
            void* p = ::MapViewOfFile(m, FILE_MAP_READ, 0, 0, 0);
            const DWORD e = ::GetLastError();
            ::CloseHandle(m);  // the view keeps the mapping object alive
            if (p != nullptr) {
                return file_access::make(static_cast<const char*>(p), n, mapped_file::storage::mapped);
            }
            if (options.mode == open_mode::map) return sys_failure(detail, "MapViewOfFile", int(e));
        } else if (options.mode == open_mode::map) {
            return sys_failure(detail, "CreateFileMapping", int(::GetLastError()));
        }
    }
    char* buf = static_cast<char*>(std::malloc(n));
    if (buf == nullptr) return errc::out_of_memory;
    std::size_t done = 0;
    while (done < n) {
        const std::size_t rest = n - done;
        const DWORD want = rest < (std::size_t(1) << 30) ? DWORD(rest) : DWORD(1) << 30;
        DWORD got = 0;
        if (!::ReadFile(h, buf + done, want, &got, nullptr)) {
            const DWORD e = ::GetLastError();
            std::free(buf);
            return sys_failure(detail, "ReadFile", int(e));
        }
        if (got == 0) {
            std::free(buf);
            return sys_failure(detail, "ReadFile", int(ERROR_HANDLE_EOF));
        }
        done += got;
    }
    return file_access::make(buf, n, mapped_file::storage::buffer);
}

}  // namespace detail

result<mapped_file> mapped_file::open(const char* path, const open_options& options,
                                      io_detail* detail) noexcept {
    if (path == nullptr || *path == '\0') return errc::invalid_argument;
    wchar_t* w = detail::widen(path);
    if (w == nullptr) return errc::invalid_argument;
    const DWORD attrs = ::GetFileAttributesW(w);
    if (attrs == INVALID_FILE_ATTRIBUTES) {
        const DWORD e = ::GetLastError();
        std::free(w);
        return detail::sys_failure(detail, "GetFileAttributes", int(e));
    }
    if (attrs & FILE_ATTRIBUTE_DIRECTORY) {
        std::free(w);
        return errc::is_directory;
    }
    HANDLE h = ::CreateFileW(w, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_DELETE, nullptr,
                             OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
    const DWORD e = ::GetLastError();
    std::free(w);
    if (h == INVALID_HANDLE_VALUE) return detail::sys_failure(detail, "CreateFile", int(e));
    if (::GetFileType(h) != FILE_TYPE_DISK) {
        ::CloseHandle(h);
        return errc::not_regular_file;
    }
    result<mapped_file> r = detail::from_handle(h, options, detail);
    ::CloseHandle(h);
    return r;
}

}  // namespace onnxview

#endif  // _WIN32
