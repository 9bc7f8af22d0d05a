// Internal: the system calls behind output_file, one implementation per
// platform (output_file_posix.cpp, output_file_win32.cpp).
#ifndef ONNXVIEW_SRC_IO_OUTPUT_FILE_INTERNAL_HPP
#define ONNXVIEW_SRC_IO_OUTPUT_FILE_INTERNAL_HPP

#include <cstddef>

#include "onnxview/output_file.hpp"

namespace onnxview {
namespace detail {

// Characters create_temp appends to the temporary name.
constexpr std::size_t temp_random_chars = 6;
// Appends temp_random_chars characters at path[length] (the buffer holds
// them and a NUL) and creates that file exclusively, opened for writing.
error create_temp(char* path, std::size_t length, int& fd) noexcept;
// Flushes and closes fd, gives the file a new file's permissions and renames
// it to final_path.
error commit_temp(int fd, const char* temp_path, const char* final_path) noexcept;
void close_temp(int fd) noexcept;
void remove_temp(const char* path) noexcept;

}  // namespace detail
}  // namespace onnxview

#endif  // ONNXVIEW_SRC_IO_OUTPUT_FILE_INTERNAL_HPP
