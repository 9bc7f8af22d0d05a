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
}  // namespace

write_sink fd_sink(const int* fd) noexcept {
    write_sink s;
    s.user = const_cast<int*>(fd);
    s.write = write_fd;
    return s;
}

}  // namespace onnxview
