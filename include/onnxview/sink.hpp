// onnxview/sink.hpp - where a writer's bytes go: a callback, caller
// memory, or a file descriptor. The writer (onnxview/write.hpp) takes any;
// fd_sink is part of the io layer, memory_sink of the writer.
#ifndef ONNXVIEW_SINK_HPP
#define ONNXVIEW_SINK_HPP

#include <cstddef>
#include <cstdint>

#include "onnxview/error.hpp"

namespace onnxview {

// Where written bytes go: `write` takes every byte in order (at most 32 KiB
// per call, except payload ranges handed over whole from the source) and
// returns an error to stop the writer. `copy`, when set, appends `size`
// bytes of the file open for reading as `source_fd`, from `offset`, without
// them passing through memory (copy_file_range); it returns not_found when
// it cannot (another file system, no such call), and the writer then
// writes those bytes itself.
struct write_sink {
    void* user = nullptr;
    error (*write)(void* user, const char* data, std::size_t size) = nullptr;
    error (*copy)(void* user, int source_fd, std::uint64_t offset, std::uint64_t size) = nullptr;
};

// Into caller memory [buffer, buffer + capacity); `used` counts the bytes
// written (start it at 0). Errors: buffer_too_small when full. The state
// lives in `state`, which must outlive the sink.
struct memory_sink_state {
    char* buffer = nullptr;
    std::size_t capacity = 0;
    std::size_t used = 0;
};
write_sink memory_sink(memory_sink_state& state) noexcept;

// Into an open file descriptor (write(2); _write on Windows), retrying
// partial writes and EINTR; copies with copy_file_range where Linux has it. Errors: io_write_failed with errno in sys_errno
// (ENOSPC: disk full; EFBIG: file size limit). `*fd` must outlive the sink.
// Part of the io layer (src/io).
write_sink fd_sink(const int* fd) noexcept;

}  // namespace onnxview

#endif  // ONNXVIEW_SINK_HPP
