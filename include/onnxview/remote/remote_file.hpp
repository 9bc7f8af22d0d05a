// onnxview/remote/remote_file.hpp - a model file on a web server, in an S3
// bucket or on the Hugging Face Hub, read by byte ranges (the optional
// library onnxview_remote, over libcurl; docs/remote.md).
//
//   onnxview::remote_report report;             // outlives the file
//   onnxview::remote_options ro;  ro.report = &report;
//   auto f = onnxview::open_remote("https://host/net.onnx", ro);
//   if (!f) { puts(report.last_error.c_str()); return; }
//   onnxview::options o;  o.reads = onnxview::model_reads::metadata;
//   auto mf = onnxview::model_file::adopt(std::move(*f), o);   // fetches the graph, not the weights
//   if (!mf) puts(report.last_error.c_str());   // (a remote_* error; else errc_message)
//
// open_remote makes one request (the file's first bytes, its size and
// version) and returns a mapped_file supplied on demand (file.hpp): its
// bytes() span the whole file in reserved memory, and what a reader
// ensures is fetched by range requests, a page bitmap remembering what has
// arrived. model_file::adopt with model_reads::metadata ensures the
// metadata (fetch_metadata: a 1.5 GB model's graph in about a dozen
// requests, predicting the layout of repeated layers), and tensor() fetches
// a tensor's bytes when asked.
//
// URLs: http://, https://, s3://bucket/key (AWS Signature V4 with
// AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, region from
// AWS_REGION or AWS_DEFAULT_REGION, AWS_ENDPOINT_URL for S3-compatible
// stores; anonymous without keys), hf://owner/repo[@revision]/path (the
// Hub's resolve URL, HF_TOKEN as bearer token, HF_ENDPOINT).
//
// Safety: every answer is checked against what was asked (206 and its
// Content-Range; a whole file only with allow_full_download), bodies are
// read no further than asked, the file's ETag (or Last-Modified) must not
// change between requests (If-Match, and compared), redirects are followed
// for http(s) only and carry no credentials to another host, TLS is
// verified. Each failure is an error value with a sentence naming the URL
// without credentials. Not thread-safe: one thread reads a remote file at
// a time. POSIX only (the memory is reserved with mmap).
#ifndef ONNXVIEW_REMOTE_REMOTE_FILE_HPP
#define ONNXVIEW_REMOTE_REMOTE_FILE_HPP

#include <cstdint>
#include <string>

#include "onnxview/error.hpp"
#include "onnxview/file.hpp"

namespace onnxview {

// What reading a remote file has cost so far.
struct remote_stats {
    std::uint64_t size = 0;            // the file's
    std::uint64_t bytes_fetched = 0;   // file bytes received and kept
    std::uint64_t bytes_received = 0;  // bodies received (multipart framing, wasted answers included)
    std::uint64_t requests = 0;        // HTTP requests made (retries included; a redirect counts once)
    bool full_download = false;        // a server sent the whole file (allow_full_download)
};

struct remote_options {
    // A request that receives less than 1 KiB/s for this long fails
    // (timeouts: a slow drip is no answer), as does a connection not made in
    // it; a request lasting ten times this long fails whatever its speed.
    std::uint32_t timeout_ms = 30000;
    // Answers 5xx and 429, and failed connections, are asked again this
    // many times, after 0.25 s, 0.5 s, 1 s, ...
    std::uint32_t retries = 3;
    // A server that ignores Range (200 instead of 206) sends the whole file:
    // refused with remote_range_ignored, unless this is set.
    bool allow_full_download = false;
    bool verify_tls = true;
    // Sent as "Authorization: Bearer ..." to the URL's host (never to a host
    // a redirect leads to). Null: HF_TOKEN for hf:// URLs.
    const char* bearer_token = nullptr;
    // Whether HF_*, AWS_*, ONNXVIEW_HTTP_BEARER and CURL_CA_BUNDLE (the
    // certificates TLS is verified with, instead of the system's) are read.
    bool read_environment = true;
    // Kept up to date, when set, with what reading the file costs and why
    // its last request failed: the caller's, so it outlives the file (the
    // CLI's --stats and error messages).
    struct remote_report* report = nullptr;
};

// What open_remote and every later fetch of a file tell its report.
struct remote_report {
    std::string url;         // without credentials or query
    remote_stats stats;
    std::string last_error;  // a sentence: the URL, the status or cause, a hint ("" when none)
};


// Opens the remote file at `url` (one request). Errors: invalid_argument (not
// a URL of a known scheme, or a malformed one), remote_failed (sys_errno: the
// HTTP status, 0 without one), remote_changed, remote_range_ignored,
// file_empty, file_too_large, out_of_memory; the sentence saying why is the
// report's last_error (opts.report).
result<mapped_file> open_remote(const char* url, const remote_options& opts = {});

// The external data of a remote model, fetched the same way: callbacks for
// options::external_files, with options::model_path the model's URL (its
// locations resolve against the URL's folder, after the resolver's checks:
// no absolute path, no '..'). Each external file is a remote file of its
// own, opened on the first tensor that needs it; a location holding %, ?,
// # or a backslash (which a server would decode into another path) is
// refused. `opts` must outlive every model opened with the callbacks; its
// report gets the last error (not the external files' costs).
file_callbacks remote_external_files(const remote_options* opts) noexcept;

// Whether `s` names a remote file (a scheme open_remote takes).
bool is_remote_url(const char* s) noexcept;

// `url` as it may be shown (in a message, a report, a command's output):
// without user:password@, query or fragment, where credentials and a
// presigned URL's signature live. remote_report::url is this form.
std::string display_url(const char* url);

// For a file open_remote returned (null for any other): its counters.
const remote_stats* remote_stats_of(const mapped_file& file) noexcept;
// ... and the sentence saying why its last ensure failed ("" when none).
const char* remote_error_text(const mapped_file& file) noexcept;

}  // namespace onnxview

#endif  // ONNXVIEW_REMOTE_REMOTE_FILE_HPP
