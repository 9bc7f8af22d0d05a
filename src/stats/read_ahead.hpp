// src/stats/read_ahead.hpp - a mapped payload read while a helper thread
// takes its page faults a few pieces ahead.
//
// Why: the first read of each page of a mapped file faults, and the kernel
// then maps it (with the pages around it): about as much time as `cat`
// takes for the same bytes. Counting the values costs about as much again.
// On two cores the two overlap, so `onnxview stats` takes about the longer
// of the two instead of their sum (docs/stats.md). Reading the mapping, not
// copying out of it with pread, moves each byte through memory once.
#ifndef ONNXVIEW_SRC_STATS_READ_AHEAD_HPP
#define ONNXVIEW_SRC_STATS_READ_AHEAD_HPP

#include <cstddef>

namespace onnxview {
namespace detail {

using piece_consumer = void (*)(void* user, const char* data, std::size_t size);

// Calls consume(user, piece, n) for the pieces of `piece_bytes` bytes (the
// last one shorter) of the mapped bytes [data, data + size), in order. A
// helper thread reads one byte of every page up to `ahead` pieces in front
// of the piece being consumed when the range holds at least two pieces;
// where no thread can be started the consumer takes its own faults. Nothing
// is copied and nothing fails: the bytes are the caller's.
void consume_mapped_ahead(const char* data, std::size_t size, std::size_t piece_bytes, piece_consumer consume,
                          void* user) noexcept;

}  // namespace detail
}  // namespace onnxview

#endif  // ONNXVIEW_SRC_STATS_READ_AHEAD_HPP
