// A mapped payload read while a helper thread takes its page faults ahead
// (read_ahead.hpp).
#include "read_ahead.hpp"

#include <atomic>
#include <thread>

namespace onnxview {
namespace detail {
namespace {

constexpr std::size_t ahead = 8;     // pieces the helper may run in front of the consumer
constexpr std::size_t page = 4096;   // touching one byte a page is enough (the kernel maps more around it)

struct toucher {
    const char* data;
    std::size_t size, piece_bytes, pieces;
    std::atomic<std::size_t> consumed{0};
    std::atomic<bool> done{false};

    void run() noexcept {
        unsigned char sink = 0;
        for (std::size_t k = 0; k < pieces; ++k) {
            std::size_t c = consumed.load(std::memory_order_acquire);
            while (k > c + ahead) {
                if (done.load(std::memory_order_acquire)) return;
                std::this_thread::yield();
                c = consumed.load(std::memory_order_acquire);
            }
            if (k < c) k = c;  // fallen behind: the consumer took those faults itself
            if (k >= pieces || done.load(std::memory_order_relaxed)) break;
            const std::size_t begin = k * piece_bytes, end = begin + piece_bytes < size ? begin + piece_bytes : size;
            for (std::size_t at = begin; at < end; at += page) sink ^= *static_cast<const volatile char*>(data + at);
        }
        (void)sink;
    }
};

bool start(std::thread& t, toucher& w) noexcept {
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
    try {
        t = std::thread([&w] { w.run(); });
        return true;
    } catch (...) {
        return false;
    }
#else
    t = std::thread([&w] { w.run(); });
    return true;
#endif
}

}  // namespace

void consume_mapped_ahead(const char* data, std::size_t size, std::size_t piece_bytes, piece_consumer consume,
                          void* user) noexcept {
    toucher w;
    w.data = data;
    w.size = size;
    w.piece_bytes = piece_bytes;
    w.pieces = (size + piece_bytes - 1) / piece_bytes;
    std::thread helper;
    const bool helped = w.pieces >= 2 && start(helper, w);
    for (std::size_t k = 0; k < w.pieces; ++k) {
        const std::size_t begin = k * piece_bytes;
        consume(user, data + begin, begin + piece_bytes < size ? piece_bytes : size - begin);
        w.consumed.store(k + 1, std::memory_order_release);
    }
    if (helped) {
        w.done.store(true, std::memory_order_release);
        helper.join();
    }
}

}  // namespace detail
}  // namespace onnxview
