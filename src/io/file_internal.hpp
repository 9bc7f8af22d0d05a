// Internal to src/io: building mapped_file values and the platform primitives
// shared by mapped_file::open and the external-data resolver.
#ifndef ONNXVIEW_SRC_IO_FILE_INTERNAL_HPP
#define ONNXVIEW_SRC_IO_FILE_INTERNAL_HPP

#include <cstddef>
#include <cstdint>

#include "onnxview/file.hpp"

namespace onnxview {
namespace detail {

struct file_access {
    static mapped_file make(const char* data, std::size_t size, mapped_file::storage kind,
                            const file_callbacks* callbacks = nullptr) noexcept {
        mapped_file f;
        f.data_ = data;
        f.size_ = size;
        f.kind_ = kind;
        if (callbacks != nullptr) f.callbacks_ = *callbacks;
        return f;
    }
};

// Records a failed system call: fills `detail` and returns io_error.
error sys_failure(io_detail* detail, const char* operation, int code) noexcept;

#ifdef _WIN32
// UTF-8 to a malloc'd, NUL-terminated UTF-16 string; null on failure.
wchar_t* widen(const char* path) noexcept;

// Maps or reads the whole of an open file handle (a HANDLE, passed as void*
// so that this header does not pull in <windows.h>). The handle stays owned
// by the caller.
result<mapped_file> from_handle(void* handle, const open_options& options,
                                io_detail* detail) noexcept;
#else
// Maps or reads the whole of an open regular file of `size` bytes. The
// descriptor stays owned by the caller (a mapping does not need it open).
result<mapped_file> from_fd(int fd, std::uint64_t size, const open_options& options,
                            io_detail* detail) noexcept;
#endif

}  // namespace detail
}  // namespace onnxview

#endif  // ONNXVIEW_SRC_IO_FILE_INTERNAL_HPP
