// output_file on Windows: _O_EXCL creation of a randomly named file in the
// destination's directory, _commit, MoveFileEx with REPLACE_EXISTING.
#ifdef _WIN32

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <fcntl.h>
#include <io.h>
#include <sys/stat.h>
#include <windows.h>

#include <cerrno>
#include <cstdio>

#include "output_file_internal.hpp"

namespace onnxview {
namespace detail {

error create_temp(char* path, std::size_t length, int& fd) noexcept {
    static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    unsigned long long seed = static_cast<unsigned long long>(::GetTickCount64()) ^
                              (static_cast<unsigned long long>(::GetCurrentProcessId()) << 32);
    for (int attempt = 0; attempt < 100; ++attempt) {
        unsigned long long v = seed + static_cast<unsigned long long>(attempt) * 0x9E3779B97F4A7C15ull;
        for (std::size_t i = 0; i < temp_random_chars; ++i, v /= 36) path[length + i] = digits[v % 36];
        path[length + temp_random_chars] = '\0';
        fd = ::_open(path, _O_WRONLY | _O_CREAT | _O_EXCL | _O_BINARY, _S_IREAD | _S_IWRITE);
        if (fd >= 0) return error();
        if (errno != EEXIST) break;
    }
    return error(errc::io_open_failed, 0, errno);
}

error commit_temp(int fd, const char* temp_path, const char* final_path) noexcept {
    int failed = 0;
    if (::_commit(fd) != 0) failed = errno;
    if (::_close(fd) != 0 && failed == 0) failed = errno;
    if (failed == 0 && !::MoveFileExA(temp_path, final_path, MOVEFILE_REPLACE_EXISTING))
        failed = static_cast<int>(::GetLastError());
    return failed == 0 ? error() : error(errc::io_write_failed, 0, failed);
}

void close_temp(int fd) noexcept { (void)::_close(fd); }

void remove_temp(const char* path) noexcept { (void)std::remove(path); }

}  // namespace detail
}  // namespace onnxview

#endif  // _WIN32
