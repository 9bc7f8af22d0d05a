// tools/progress.hpp - one updating progress line on stderr for jobs that
// take longer than a second, and only when stderr is a terminal.
#ifndef ONNXVIEW_TOOLS_PROGRESS_HPP
#define ONNXVIEW_TOOLS_PROGRESS_HPP

#include <chrono>
#include <cstdint>

namespace onnxview_cli {

class progress_line {
public:
    explicit progress_line(const char* cmd);
    // Bytes done of total; redraws at most five times a second.
    void update(std::uint64_t done, std::uint64_t total);
    // Files done, and how many of them had errors, with the rate: for jobs
    // whose total is not known ahead (onnxview scan).
    void update_files(std::uint64_t done, std::uint64_t with_errors);
    // Erases the line when one was drawn.
    void finish();

private:
    // Whether to draw now (a terminal, past the first second, 200 ms since
    // the last line), and the seconds since the start.
    bool due(double& elapsed);
    using clock = std::chrono::steady_clock;
    const char* cmd_;
    bool terminal_;
    bool drawn_ = false;
    clock::time_point start_ = clock::now();
    clock::time_point last_ = start_;
};

}  // namespace onnxview_cli

#endif  // ONNXVIEW_TOOLS_PROGRESS_HPP
