// tools/progress.cpp - the progress line (progress.hpp). Whether stderr is a
// terminal is the one question asked of the platform.
#include "progress.hpp"

#include <cstdio>
#include <string>

#ifdef _WIN32
#include <io.h>
#define ONNXVIEW_ISATTY _isatty
#else
#include <unistd.h>
#define ONNXVIEW_ISATTY isatty
#endif

namespace onnxview_cli {

namespace {
std::string mib(std::uint64_t bytes) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
    return b;
}
}  // namespace

progress_line::progress_line(const char* cmd) : cmd_(cmd), terminal_(ONNXVIEW_ISATTY(2) != 0) {}

bool progress_line::due(double& elapsed) {
    if (!terminal_) return false;
    const clock::time_point now = clock::now();
    elapsed = std::chrono::duration<double>(now - start_).count();
    if (elapsed < 1.0 || (drawn_ && now - last_ < std::chrono::milliseconds(200))) return false;
    last_ = now;
    drawn_ = true;
    return true;
}

void progress_line::update_files(std::uint64_t done, std::uint64_t with_errors) {
    double elapsed = 0;
    if (!due(elapsed)) return;
    std::fprintf(stderr, "\r%s: %llu files, %.0f/s, %llu with errors\033[K", cmd_, static_cast<unsigned long long>(done),
                 static_cast<double>(done) / elapsed, static_cast<unsigned long long>(with_errors));
    std::fflush(stderr);
}

void progress_line::update(std::uint64_t done, std::uint64_t total) {
    double elapsed = 0;
    if (!due(elapsed)) return;
    const double rate = static_cast<double>(done) / elapsed;
    const unsigned percent = total == 0 ? 100u : static_cast<unsigned>(100.0 * static_cast<double>(done) / static_cast<double>(total));
    std::fprintf(stderr, "\r%s: %s of %s (%u%%), %s/s\033[K", cmd_, mib(done).c_str(), mib(total).c_str(), percent,
                 mib(static_cast<std::uint64_t>(rate)).c_str());
    std::fflush(stderr);
}

void progress_line::finish() {
    if (drawn_) std::fputs("\r\033[K", stderr);
    drawn_ = false;
}

}  // namespace onnxview_cli
