// output_file (onnxview/output_file.hpp): what every platform shares; the
// system calls are in output_file_posix.cpp and output_file_win32.cpp.
#include <cstring>

#include "heap.hpp"
#include "output_file_internal.hpp"

namespace onnxview {

output_file::output_file(output_file&& other) noexcept
    : memory_(other.memory_), fd_(other.fd_), temp_(other.temp_), final_(other.final_),
      temp_size_(other.temp_size_), final_size_(other.final_size_) {
    other.fd_ = -1;
    other.temp_ = other.final_ = nullptr;
}

output_file& output_file::operator=(output_file&& other) noexcept {
    if (this != &other) {
        discard();
        memory_ = other.memory_;
        fd_ = other.fd_;
        temp_ = other.temp_;
        final_ = other.final_;
        temp_size_ = other.temp_size_;
        final_size_ = other.final_size_;
        other.fd_ = -1;
        other.temp_ = other.final_ = nullptr;
    }
    return *this;
}

result<output_file> output_file::create(const char* path, const options& opts) noexcept {
    if (path == nullptr || *path == '\0') return errc::invalid_argument;
    const detail::heap memory(opts.memory);
    const std::size_t n = std::strlen(path);
    // "<dir>/.<name>.tmp" and the random part the platform adds.
    const char* slash = path + n;
    while (slash != path && slash[-1] != '/' && slash[-1] != '\\') --slash;
    const std::size_t dir = static_cast<std::size_t>(slash - path);
    const char suffix[] = ".tmp";
    const std::size_t temp_size = n + 1 + sizeof suffix + detail::temp_random_chars;
    output_file out;
    out.memory_ = memory.hooks();
    out.final_ = memory.copy_string(path);
    out.final_size_ = n;
    out.temp_ = static_cast<char*>(memory.allocate(temp_size + 1));
    out.temp_size_ = temp_size;
    if (out.final_ == nullptr || out.temp_ == nullptr) return errc::out_of_memory;
    std::memcpy(out.temp_, path, dir);
    out.temp_[dir] = '.';
    std::memcpy(out.temp_ + dir + 1, slash, n - dir);
    std::memcpy(out.temp_ + n + 1, suffix, sizeof suffix);  // with its NUL
    if (error e = detail::create_temp(out.temp_, n + sizeof suffix, out.fd_)) return e;
    return out;
}

error output_file::commit() noexcept {
    if (fd_ < 0) return errc::invalid_argument;
    const error e = detail::commit_temp(fd_, temp_, final_);
    fd_ = -1;
    if (e) detail::remove_temp(temp_);
    release();
    return e;
}

void output_file::discard() noexcept {
    if (fd_ >= 0) {
        detail::close_temp(fd_);
        detail::remove_temp(temp_);
        fd_ = -1;
    }
    release();
}

void output_file::release() noexcept {
    const detail::heap memory(memory_);
    if (temp_ != nullptr) memory.deallocate(temp_, temp_size_ + 1);
    if (final_ != nullptr) memory.free_string(final_, final_size_);
    temp_ = final_ = nullptr;
}

}  // namespace onnxview
