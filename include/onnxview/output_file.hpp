// onnxview/output_file.hpp - a file written in full or not at all: bytes
// go to a temporary file in the destination's directory, which commit()
// renames over the destination; discard() (or the destructor, before
// commit) removes it. Readers of the destination never see a partial file.
//
//   auto out = onnxview::output_file::create("net.packed.onnx");
//   if (!out) { /* out.err(): io_open_failed, errno in sys_errno */ }
//   onnxview::write_sink sink = out->sink();
//   ... write ...
//   onnxview::error e = out->commit();       // fsync, permissions, rename
//
// The temporary file is "<dir>/.<name>.tmp<random>"; its permissions become
// those a new file gets (0666 less the umask) at commit. temp_path() is
// there for a signal handler, which may remove it. Part of the io layer;
// the path is allocated from options::memory. Move-only.
#ifndef ONNXVIEW_OUTPUT_FILE_HPP
#define ONNXVIEW_OUTPUT_FILE_HPP

#include "onnxview/error.hpp"
#include "onnxview/options.hpp"
#include "onnxview/sink.hpp"

namespace onnxview {

class output_file {
public:
    output_file() noexcept = default;
    output_file(const output_file&) = delete;
    output_file& operator=(const output_file&) = delete;
    output_file(output_file&& other) noexcept;
    output_file& operator=(output_file&& other) noexcept;
    ~output_file() { discard(); }

    // Creates the temporary file next to `path`. Errors: invalid_argument
    // (null or empty path), out_of_memory, io_open_failed (the directory is
    // missing or not writable; errno in sys_errno).
    static result<output_file> create(const char* path, const options& opts = {}) noexcept;

    // Writes into the temporary file (fd_sink). Valid while this object
    // lives and is not moved.
    write_sink sink() noexcept { return fd_sink(&fd_); }
    const char* temp_path() const noexcept { return temp_; }
    const char* path() const noexcept { return final_; }

    // Flushes the file to disk and renames it over path(). Errors:
    // io_write_failed (fsync or rename refused; errno in sys_errno); the
    // temporary file is removed then.
    error commit() noexcept;
    // Removes the temporary file (nothing happens after commit()).
    void discard() noexcept;

private:
    void release() noexcept;

    allocator memory_{};
    int fd_ = -1;
    char* temp_ = nullptr;
    char* final_ = nullptr;
    std::size_t temp_size_ = 0;
    std::size_t final_size_ = 0;
};

}  // namespace onnxview

#endif  // ONNXVIEW_OUTPUT_FILE_HPP
