// output_file on POSIX: mkstemp in the destination's directory, fsync,
// fchmod to 0666 less the umask, rename.
#ifndef _WIN32

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "output_file_internal.hpp"

namespace onnxview {
namespace detail {

error create_temp(char* path, std::size_t length, int& fd) noexcept {
    std::memcpy(path + length, "XXXXXX", temp_random_chars + 1);
    fd = ::mkstemp(path);
    if (fd < 0) return error(errc::io_open_failed, 0, errno);
    return error();
}

error commit_temp(int fd, const char* temp_path, const char* final_path) noexcept {
    // mkstemp made the file 0600; the umask is read by setting it back.
    const mode_t mask = ::umask(0);
    ::umask(mask);
    int failed = 0;
    if (::fchmod(fd, 0666 & ~mask) != 0 || ::fsync(fd) != 0) failed = errno;
    if (::close(fd) != 0 && failed == 0) failed = errno;
    if (failed == 0 && ::rename(temp_path, final_path) != 0) failed = errno;
    return failed == 0 ? error() : error(errc::io_write_failed, 0, failed);
}

void close_temp(int fd) noexcept { (void)::close(fd); }

void remove_temp(const char* path) noexcept { (void)::unlink(path); }

}  // namespace detail
}  // namespace onnxview

#endif  // !_WIN32
