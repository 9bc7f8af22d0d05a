// The thread model_stats lends to the counting (helper_thread.hpp).
#include "helper_thread.hpp"

namespace onnxview {
namespace detail {

helper_thread::~helper_thread() {
    if (!started_) return;
    {
        std::lock_guard<std::mutex> l(lock_);
        quit_ = true;
    }
    changed_.notify_all();
    thread_.join();
}

namespace {

// Looks at `flag` for about 50 microseconds; true as soon as it equals `want`.
bool spin_until(const std::atomic<bool>& flag, bool want) noexcept {
    for (int i = 0; i < 20000; ++i)
        if (flag.load(std::memory_order_acquire) == want) return true;
    return false;
}

}  // namespace

void helper_thread::loop() noexcept {
    for (;;) {
        spin_until(busy_, true);
        std::unique_lock<std::mutex> l(lock_);
        changed_.wait(l, [&] { return quit_ || job_ != nullptr; });
        if (job_ == nullptr) return;  // quit, nothing pending
        const job_fn job = job_;
        void* arg = arg_;
        job_ = nullptr;
        l.unlock();
        job(arg);
        l.lock();
        busy_.store(false, std::memory_order_release);
        changed_.notify_all();
    }
}

bool helper_thread::run(job_fn job, void* arg) noexcept {
    if (failed_) return false;
    if (!started_) {
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
        try {
            thread_ = std::thread([this] { loop(); });
        } catch (...) {
            failed_ = true;
            return false;
        }
#else
        thread_ = std::thread([this] { loop(); });
#endif
        started_ = true;
    }
    {
        std::lock_guard<std::mutex> l(lock_);
        job_ = job;
        arg_ = arg;
        busy_.store(true, std::memory_order_release);
    }
    changed_.notify_all();
    return true;
}

void helper_thread::wait() noexcept {
    if (spin_until(busy_, false)) return;
    std::unique_lock<std::mutex> l(lock_);
    changed_.wait(l, [&] { return !busy_.load(std::memory_order_acquire); });
}

}  // namespace detail
}  // namespace onnxview
