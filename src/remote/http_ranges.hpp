// Internal: byte-range requests over libcurl, each answer checked against
// what was asked. Knows HTTP, not ONNX.
//
// One request asks for one range (206 with Content-Range) or several
// (206 multipart/byteranges; a server may also answer with one part). Every
// byte written lands inside a range that was asked for, and a body is read
// no further than the bytes asked plus a bounded framing allowance, so a
// hostile server cannot make the process read more. Each answer's ETag (or
// else Last-Modified) must be the first answer's, and later requests carry
// If-Match: a file replaced while it is read fails with remote_changed.
// 5xx, 429 and broken connections are retried with a doubling delay.
#ifndef ONNXVIEW_SRC_REMOTE_HTTP_RANGES_HPP
#define ONNXVIEW_SRC_REMOTE_HTTP_RANGES_HPP

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "range_plan.hpp"
#include "remote_url.hpp"

namespace onnxview {
namespace detail {

struct transfer;

class http_ranges {
public:
    http_ranges(remote_target target, const remote_options& opts);
    ~http_ranges();
    http_ranges(const http_ranges&) = delete;
    http_ranges& operator=(const http_ranges&) = delete;

    // The first request: bytes [0, n) into `prefix`, and the file's size and
    // version. A server that sends the whole file (200) with
    // allow_full_download: size set, prefix empty (fetch the rest with
    // fetch_whole). Errors as open_remote's, why set.
    error open(std::uint64_t n, std::string& prefix, std::uint64_t& size, std::string& why);

    // Fetches `ranges` (ascending, disjoint, inside the file) into the
    // file's memory [base, base + size), which make_writable must have made
    // writable for them; the ranges received whole are appended to
    // `received` (also on error). Errors: remote_failed, remote_changed,
    // remote_range_ignored, why set.
    error fetch(char* base, const std::vector<byte_range>& ranges, std::vector<byte_range>& received,
                std::string& why);

    // One range read as it arrives, for a run of metadata too long to wait
    // for whole: a reader walks its first bytes while the rest comes, in one
    // request instead of one per window. begin_stream sends the request;
    // pump drives the answer until its bytes reach `until` or it ends, and
    // returns where the bytes received from range.begin end (no further
    // than a read of curl's buffer past `until`: a stream left behind costs
    // what the socket holds, not its range); end_stream stops it and says
    // the same. Bytes are written in order, and `writable(user, begin, end)`
    // is called before any lands in [begin, end). Anything but a 206 for
    // that one range, or any failure, ends the stream quietly where it is:
    // the caller then fetches what it still needs with fetch(), which
    // reports errors and retries. fetch() must not run while a stream does.
    using writable_fn = void (*)(void* user, std::uint64_t begin, std::uint64_t end);
    void begin_stream(char* base, byte_range range, writable_fn writable, void* user);
    std::uint64_t pump(std::uint64_t until);
    std::uint64_t end_stream();
    bool streaming() const noexcept { return stream_ != nullptr; }

    const remote_stats& stats() const noexcept { return stats_; }
    remote_stats& stats() noexcept { return stats_; }
    const remote_target& target() const noexcept { return target_; }

private:
    friend struct transfer;
    // Runs the transfers side by side until each ends.
    void run(std::vector<transfer*>& batch);
    void prepare(transfer& t);

    remote_target target_;
    remote_options opts_;
    void* multi_ = nullptr;  // CURLM*: its connections are kept alive between requests
    std::vector<void*> easy_;  // CURL* handles, reused
    std::unique_ptr<transfer> stream_;
    void* stream_easy_ = nullptr;
    bool stream_done_ = false;
    std::string etag_;           // the file's version: ETag, or else Last-Modified
    std::string last_modified_;
    std::uint64_t size_ = 0;
    bool multi_range_ = true;
    remote_stats stats_;
};

}  // namespace detail
}  // namespace onnxview

#endif  // ONNXVIEW_SRC_REMOTE_HTTP_RANGES_HPP
