// src/stats/read_ahead.hpp - a payload copied out of its file by a helper
// thread while the caller counts the pieces already copied.
//
// Why: copying a payload out of the page cache (pread, what mapped_file::
// read_at does) costs as much as `cat`; counting its values costs about as
// much again. On two cores the two overlap, so `onnxview stats` takes about
// the longer of the two instead of their sum (docs/stats.md).
#ifndef ONNXVIEW_SRC_STATS_READ_AHEAD_HPP
#define ONNXVIEW_SRC_STATS_READ_AHEAD_HPP

#include <cstddef>
#include <cstdint>

#include "onnxview/error.hpp"
#include "onnxview/file.hpp"

namespace onnxview {
namespace detail {

using piece_consumer = void (*)(void* user, const char* data, std::size_t size);

// Calls consume(user, piece, n) for the pieces of `piece_bytes` bytes (the
// last one shorter) of [offset, offset + size) of `file`, in order, each
// copied by file.read_at. A helper thread copies up to three pieces ahead of
// the one being consumed when the range holds at least two pieces; where no
// thread can be started the pieces are copied in this one. Errors: those of
// read_at (the pieces before the failing one have been consumed), and
// out_of_memory for the buffers (four pieces, kept per calling thread).
error read_ahead_pieces(const mapped_file& file, std::uint64_t offset, std::size_t size, std::size_t piece_bytes,
                        piece_consumer consume, void* user) noexcept;

}  // namespace detail
}  // namespace onnxview

#endif  // ONNXVIEW_SRC_STATS_READ_AHEAD_HPP
