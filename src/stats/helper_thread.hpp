// src/stats/helper_thread.hpp - a second thread that model_stats lends to
// the counting of each large FLOAT payload (value_stats.cpp): the two
// threads count the two halves of each chunk, each taking its own page
// faults, so that counting 1.5 GB takes about what reading it takes
// (docs/stats.md).
#ifndef ONNXVIEW_SRC_STATS_HELPER_THREAD_HPP
#define ONNXVIEW_SRC_STATS_HELPER_THREAD_HPP

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace onnxview {
namespace detail {

// One job at a time: run() hands it over, wait() returns when it is done.
// The thread starts with the first job and ends with the object.
class helper_thread {
public:
    using job_fn = void (*)(void* arg);

    helper_thread() noexcept = default;
    helper_thread(const helper_thread&) = delete;
    helper_thread& operator=(const helper_thread&) = delete;
    ~helper_thread();

    // Starts job(arg) on the helper; false when no thread could be started
    // (the caller then runs it itself). At most one job at a time.
    bool run(job_fn job, void* arg) noexcept;
    // Returns once the job given to run() is done.
    void wait() noexcept;

private:
    void loop() noexcept;

    std::thread thread_;
    std::mutex lock_;
    std::condition_variable changed_;
    job_fn job_ = nullptr;
    void* arg_ = nullptr;
    bool quit_ = false, started_ = false, failed_ = false;
    // Set by run(), cleared when the job is done. Both sides look at it a
    // while before they sleep: a job is a fraction of a millisecond (half of
    // a 2 MiB weight), and waking a sleeping thread costs tens of
    // microseconds.
    std::atomic<bool> busy_{false};
};

}  // namespace detail
}  // namespace onnxview

#endif  // ONNXVIEW_SRC_STATS_HELPER_THREAD_HPP
