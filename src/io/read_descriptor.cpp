// read_descriptor (onnxview/file.hpp): a descriptor for copies between files.
#include "file_internal.hpp"
#include "onnxview/file.hpp"

namespace onnxview {

read_descriptor& read_descriptor::operator=(read_descriptor&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) detail::close_fd(fd_);
        fd_ = other.fd_;
        other.fd_ = -1;
    }
    return *this;
}

read_descriptor::~read_descriptor() {
    if (fd_ >= 0) detail::close_fd(fd_);
}

result<read_descriptor> read_descriptor::open(const char* path) noexcept {
    if (path == nullptr || *path == '\0') return errc::invalid_argument;
    int sys_error = 0;
    read_descriptor r;
    r.fd_ = detail::open_for_reading(path, sys_error);
    if (r.fd_ < 0) return error(errc::io_open_failed, 0, sys_error);
    return r;
}

}  // namespace onnxview
