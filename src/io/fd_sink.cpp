// fd_sink (onnxview/sink.hpp): whole writes into a file descriptor; the one
// system call is the platform's detail::write_some.
#include "file_internal.hpp"
#include "onnxview/sink.hpp"

namespace onnxview {

namespace {
error write_fd(void* user, const char* data, std::size_t size) noexcept {
    const int fd = *static_cast<const int*>(user);
    while (size != 0) {
        // Linux writes at most 0x7ffff000 bytes per call: ask for 1 GiB at most.
        const std::size_t chunk = size < (std::size_t(1) << 30) ? size : (std::size_t(1) << 30);
        int sys_error = 0;
        const long long n = detail::write_some(fd, data, chunk, sys_error);
        if (n < 0) return error(errc::io_write_failed, 0, sys_error);
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return error();
}
error copy_to_fd(void* user, int source_fd, std::uint64_t offset, std::uint64_t size) noexcept {
    const int fd = *static_cast<const int*>(user);
    bool copied_any = false;
    while (size != 0) {
        const std::size_t chunk = size < (std::uint64_t(1) << 30) ? static_cast<std::size_t>(size) : (std::size_t(1) << 30);
        int sys_error = 0;
        const long long n = detail::copy_some(source_fd, offset, fd, chunk, sys_error);
        if (n < 0) return error(errc::io_write_failed, 0, sys_error);
        // Nothing copied: the writer writes the rest itself. A copy that
        // stops part way (the source shrank) is an error, not a fallback.
        if (n == 0) return copied_any ? error(errc::io_write_failed, 0, 0) : error(errc::not_found);
        copied_any = true;
        offset += static_cast<std::uint64_t>(n);
        size -= static_cast<std::uint64_t>(n);
    }
    return error();
}
}  // namespace

write_sink fd_sink(const int* fd) noexcept {
    write_sink s;
    s.user = const_cast<int*>(fd);
    s.write = write_fd;
    s.copy = copy_to_fd;
    return s;
}

}  // namespace onnxview
