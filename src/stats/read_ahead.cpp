// A payload copied by a helper thread ahead of the counting (read_ahead.hpp).
#include "read_ahead.hpp"

#include <algorithm>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <new>
#include <thread>

namespace onnxview {
namespace detail {
namespace {

constexpr std::size_t depth = 4;  // pieces in flight: the one consumed and three read ahead

// What the copying thread and the consuming one share.
struct pipeline {
    const mapped_file& file;
    std::uint64_t offset;
    std::size_t size, piece_bytes, pieces;
    char* buffer;  // depth pieces
    std::mutex lock;
    std::condition_variable changed;
    std::size_t copied = 0, consumed = 0;
    bool stop = false;  // the consumer gave up (never, today) or the copier failed
    error failure;

    std::size_t length(std::size_t k) const noexcept { return std::min(piece_bytes, size - k * piece_bytes); }
    char* slot(std::size_t k) const noexcept { return buffer + (k % depth) * piece_bytes; }

    void copy_all() noexcept {
        for (std::size_t k = 0; k < pieces; ++k) {
            {
                std::unique_lock<std::mutex> l(lock);
                changed.wait(l, [&] { return k - consumed < depth || stop; });
                if (stop) return;
            }
            const error e = file.read_at(offset + static_cast<std::uint64_t>(k) * piece_bytes, slot(k), length(k));
            {
                std::lock_guard<std::mutex> l(lock);
                if (e) {
                    failure = e;
                    stop = true;
                } else {
                    copied = k + 1;
                }
            }
            changed.notify_all();
            if (e) return;
        }
    }

    error consume_all(piece_consumer consume, void* user) noexcept {
        for (std::size_t k = 0; k < pieces; ++k) {
            {
                std::unique_lock<std::mutex> l(lock);
                changed.wait(l, [&] { return copied > k || stop; });
                if (copied <= k) return failure;
            }
            consume(user, slot(k), length(k));
            {
                std::lock_guard<std::mutex> l(lock);
                consumed = k + 1;
            }
            changed.notify_all();
        }
        return error();
    }
};

// The buffers, one set per consuming thread: fresh ones for every tensor
// would be mapped and faulted in again each time (they are above malloc's
// mmap threshold).
char* buffers(std::size_t bytes) noexcept {
    thread_local std::unique_ptr<char[]> buffer;
    thread_local std::size_t held = 0;
    if (held < bytes) {
        buffer.reset(new (std::nothrow) char[bytes]);
        held = buffer ? bytes : 0;
    }
    return buffer.get();
}

// Starts the copying thread; false where none can be started.
bool start(std::thread& t, pipeline& p) noexcept {
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
    try {
        t = std::thread([&p] { p.copy_all(); });
        return true;
    } catch (...) {
        return false;
    }
#else
    t = std::thread([&p] { p.copy_all(); });
    return true;
#endif
}

}  // namespace

error read_ahead_pieces(const mapped_file& file, std::uint64_t offset, std::size_t size, std::size_t piece_bytes,
                        piece_consumer consume, void* user) noexcept {
    char* buffer = buffers(depth * piece_bytes);
    if (buffer == nullptr) return errc::out_of_memory;
    pipeline p{file, offset, size, piece_bytes, (size + piece_bytes - 1) / piece_bytes, buffer, {}, {}, 0, 0, false, {}};
    std::thread copier;
    if (p.pieces < 2 || !start(copier, p)) {
        for (std::size_t k = 0; k < p.pieces; ++k) {
            if (error e = file.read_at(offset + static_cast<std::uint64_t>(k) * piece_bytes, buffer, p.length(k)))
                return e;
            consume(user, buffer, p.length(k));
        }
        return error();
    }
    const error e = p.consume_all(consume, user);
    copier.join();
    return e ? e : p.failure;
}

}  // namespace detail
}  // namespace onnxview
