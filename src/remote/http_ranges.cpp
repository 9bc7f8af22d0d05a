// Byte-range requests over libcurl (see http_ranges.hpp). The one file that
// speaks HTTP: answers are parsed as they arrive (status line, headers, a
// single range or a multipart/byteranges body) and checked before a byte is
// written. One file on purpose, past 600 lines: the answer's parser
// (`transfer`), curl's callbacks, the retry loop and the stream's pump share
// the rules of what an answer may be, and split apart each would have to
// repeat them.
#include "http_ranges.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <mutex>
#include <thread>

namespace onnxview {
namespace detail {

namespace {

constexpr std::uint64_t unknown = std::numeric_limits<std::uint64_t>::max();
// Ranges in one request: a Range header of about 5 KB, under the 8 KB a
// server's header buffer commonly holds.
constexpr std::size_t max_ranges_per_request = 200;
// Requests in flight at once.
constexpr std::size_t max_parallel = 4;
// What a multipart body may carry beside the bytes asked: per part its
// boundary and headers, and the preamble and epilogue.
constexpr std::uint64_t framing_per_part = 512;
constexpr std::uint64_t framing_fixed = 4096;
// The bytes a stream reads past a need before it waits for the next (see pump).
constexpr std::uint64_t stream_read_ahead = 1 << 20;
// A small file a server sends whole instead of a range is what the reader
// would fetch anyway (fetch_metadata fetches files under 4 MiB whole).
constexpr std::uint64_t small_whole_file = std::uint64_t(4) << 20;

bool iequals_prefix(const std::string& line, const char* name) {
    const std::size_t n = std::strlen(name);
    if (line.size() < n) return false;
    for (std::size_t i = 0; i < n; ++i)
        if (std::tolower(static_cast<unsigned char>(line[i])) != name[i]) return false;
    return true;
}

std::string trimmed(std::string s) {
    while (!s.empty() && (s.back() == '\r' || s.back() == '\n' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
    std::size_t i = 0;
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    return s.substr(i);
}

// "bytes A-B/TOTAL" (TOTAL may be "*"): false unless well formed.
bool parse_content_range(const std::string& v, std::uint64_t& first, std::uint64_t& last, std::uint64_t& total) {
    std::string s = trimmed(v);
    if (s.compare(0, 6, "bytes ") != 0) return false;
    std::size_t i = 6;
    auto number = [&](std::uint64_t& out) {
        if (i >= s.size() || s[i] < '0' || s[i] > '9') return false;
        out = 0;
        for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
            if (out > (unknown - 9) / 10) return false;
            out = out * 10 + static_cast<std::uint64_t>(s[i] - '0');
        }
        return true;
    };
    if (!number(first) || i >= s.size() || s[i++] != '-' || !number(last) || i >= s.size() || s[i++] != '/')
        return false;
    if (i < s.size() && s[i] == '*' && i + 1 == s.size()) {
        total = unknown;
        return last >= first;
    }
    return number(total) && i == s.size() && last >= first && last < total;
}

const char* reason(long status) {
    switch (status) {
        case 400: return "Bad Request";
        case 401: return "Unauthorized";
        case 403: return "Forbidden";
        case 404: return "Not Found";
        case 410: return "Gone";
        case 412: return "Precondition Failed";
        case 416: return "Range Not Satisfiable";
        case 429: return "Too Many Requests";
        case 500: return "Internal Server Error";
        case 502: return "Bad Gateway";
        case 503: return "Service Unavailable";
        case 504: return "Gateway Timeout";
        default: return "";
    }
}

std::string range_text(std::uint64_t begin, std::uint64_t end) {
    return std::to_string(begin) + "-" + std::to_string(end - 1);
}

void global_init() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

}  // namespace

// One request and what its answer has done so far.
struct transfer {
    enum class body { undecided, single, multipart, whole, discard };
    enum class part_state { boundary, headers, bytes, done };

    http_ranges* owner = nullptr;
    CURL* easy = nullptr;
    curl_slist* headers = nullptr;
    std::vector<byte_range> asked;
    char* base = nullptr;            // the file's memory, or
    std::string* prefix = nullptr;   // open(): the first bytes
    std::uint64_t limit = 0;         // body bytes accepted at most
    bool opening = false;
    http_ranges::writable_fn writable = nullptr;  // a stream's: called before bytes land
    void* writable_user = nullptr;
    std::uint64_t pause_at = unknown;  // a stream's: the answer waits when its bytes reach here
    bool paused = false;

    long status = 0;
    std::string content_type, content_range, etag, last_modified;
    std::uint64_t content_length = unknown;
    body mode = body::undecided;
    std::uint64_t pos = 0, end = 0, part_begin = 0;
    std::string boundary, line, part_range;
    part_state parts = part_state::boundary;
    std::uint64_t received = 0;
    std::vector<byte_range> got;

    errc code = errc::ok;
    std::int32_t sys = 0;
    std::string why;
    bool retry = false;
    char curl_error[CURL_ERROR_SIZE] = {0};

    bool fail(errc c, std::string text, std::int32_t s = 0, bool again = false) {
        if (code == errc::ok) {
            code = c;
            why = std::move(text);
            sys = s;
            retry = again;
        }
        return false;
    }
    std::uint64_t file_size() const { return owner->size_; }
    // A stream's bytes have arrived from its range's start up to here (a
    // single range is written in order).
    std::uint64_t arrived() const { return mode == body::single ? pos : asked.front().begin; }

    // Where the byte at `at` goes (inside an asked range: checked before).
    void put(std::uint64_t at, const char* data, std::size_t n) {
        if (prefix != nullptr) {
            if (prefix->size() < at + n) prefix->resize(at + n);
            std::memcpy(&(*prefix)[at], data, n);
        } else {
            if (writable != nullptr) writable(writable_user, at, at + n);
            std::memcpy(base + at, data, n);
        }
    }

    // Whether [first, last] lies inside one asked range (a server may
    // answer with less than asked, never with other bytes).
    bool inside_asked(std::uint64_t first, std::uint64_t last) const {
        for (const byte_range& r : asked)
            if (first >= r.begin && last < r.end) return true;
        return false;
    }

    bool accept_range(const std::string& value) {
        std::uint64_t first = 0, last = 0, total = 0;
        if (!parse_content_range(value, first, last, total))
            return fail(errc::remote_failed, "the server's Content-Range '" + trimmed(value) + "' is malformed");
        if (opening && owner->size_ == 0) owner->size_ = total;
        if (total != unknown && total != file_size())
            return fail(errc::remote_changed, "the file changed while it was read (its size was " +
                                                  std::to_string(file_size()) + " bytes, the server now says " +
                                                  std::to_string(total) + ")");
        const bool starts_right = asked.size() > 1 || first == asked.front().begin;
        if (!starts_right || !inside_asked(first, last))
            return fail(errc::remote_failed, "the server sent bytes " + range_text(first, last + 1) +
                                                 " (Content-Range) where " +
                                                 range_text(asked.front().begin, asked.back().end) + " was asked");
        pos = part_begin = first;
        end = last + 1;
        return true;
    }

    bool same_version() {
        http_ranges& o = *owner;
        if (opening) {
            o.etag_ = etag;
            o.last_modified_ = last_modified;
            return true;
        }
        if (!o.etag_.empty() ? (!etag.empty() && etag != o.etag_) : (!last_modified.empty() && last_modified != o.last_modified_))
            return fail(errc::remote_changed, "the file changed while it was read (ETag " +
                                                  (o.etag_.empty() ? o.last_modified_ : o.etag_) + " became " +
                                                  (o.etag_.empty() ? last_modified : etag) + ")");
        return true;
    }

    // The headers are complete: how the body is read, or why not at all.
    bool decide() {
        const std::string s = std::to_string(status);
        if (status == 206) {
            if (!same_version()) return false;
            if (content_type.compare(0, 20, "multipart/byteranges") == 0) {
                const std::size_t b = content_type.find("boundary=");
                if (b == std::string::npos) return fail(errc::remote_failed, "a multipart answer without a boundary");
                boundary = content_type.substr(b + 9);
                if (!boundary.empty() && boundary.front() == '"') boundary = boundary.substr(1, boundary.find('"', 1) - 1);
                const std::size_t semicolon = boundary.find(';');
                if (semicolon != std::string::npos) boundary.resize(semicolon);
                if (boundary.empty() || boundary.size() > 200) return fail(errc::remote_failed, "a multipart answer with a malformed boundary");
                mode = body::multipart;
                return true;
            }
            if (!accept_range(content_range)) return false;
            mode = body::single;
            return true;
        }
        if (status == 200) {
            if (writable != nullptr) return false;  // a stream: ends quietly, fetch() will say what the server does
            if (opening) {
                if (content_length == unknown)
                    return fail(errc::remote_range_ignored, "the server ignored the byte range and did not say the file's size");
                owner->size_ = content_length;
                if (!same_version()) return false;
                if (content_length > small_whole_file && !owner->opts_.allow_full_download)
                    return fail(errc::remote_range_ignored,
                                "the server ignored the byte range and sends the whole file (" + std::to_string(content_length) +
                                    " bytes); --allow-full-download reads it anyway");
                if (content_length > small_whole_file) {  // fetched whole into the file's memory, not here
                    mode = body::discard;
                    return false;
                }
                asked.assign(1, byte_range{0, content_length});
                limit = content_length;
                mode = body::whole;
                end = content_length;
                owner->stats_.full_download = content_length > small_whole_file;
                return true;
            }
            if (!same_version()) return false;
            if (asked.size() > 1) return fail(errc::remote_range_ignored, "the server cannot send several ranges at once");
            if (!owner->opts_.allow_full_download)
                return fail(errc::remote_range_ignored,
                            "the server ignored the byte range and sends the whole file (" + std::to_string(file_size()) +
                                " bytes); --allow-full-download reads it anyway");
            if (content_length != unknown && content_length != file_size())
                return fail(errc::remote_changed, "the file changed while it was read (its size was " +
                                                      std::to_string(file_size()) + " bytes, the server now sends " +
                                                      std::to_string(content_length) + ")");
            asked.assign(1, byte_range{0, file_size()});
            limit = file_size();
            mode = body::whole;
            end = file_size();
            owner->stats_.full_download = true;
            return true;
        }
        if (status == 412)
            return fail(errc::remote_changed, "the file changed while it was read (HTTP 412: its ETag " + owner->etag_ +
                                                  " is no longer current)", 412);
        if (status == 416 && opening && content_range.find("*/0") != std::string::npos)
            return fail(errc::file_empty, "the file is empty");
        std::string text = "HTTP " + s;
        if (*reason(status) != '\0') text += std::string(" ") + reason(status);
        if (status == 401 || status == 403) text += std::string(" (") + owner->target_.auth_hint + ")";
        const bool again = status >= 500 || status == 429;
        return fail(errc::remote_failed, text, static_cast<std::int32_t>(status), again);
    }

    bool take_line(char c) {
        if (c != '\n') {
            if (line.size() >= 4096) return fail(errc::remote_failed, "a malformed multipart answer (a line over 4 KiB)");
            line += c;
            return true;
        }
        const std::string l = trimmed(line);
        line.clear();
        if (parts == part_state::boundary) {
            if (l == "--" + boundary) {
                parts = part_state::headers;
                part_range.clear();
            } else if (l == "--" + boundary + "--") {
                parts = part_state::done;
            }
            return true;
        }
        if (l.empty()) {  // the end of a part's headers
            if (part_range.empty()) return fail(errc::remote_failed, "a multipart part without Content-Range");
            if (!accept_range(part_range)) return false;
            parts = part_state::bytes;
            return true;
        }
        if (iequals_prefix(l, "content-range:")) part_range = l.substr(14);
        return true;
    }

    bool body_bytes(const char* data, std::size_t n) {
        received += n;
        owner->stats_.bytes_received += n;
        if (received > limit)
            return fail(errc::remote_failed, "the server sent more than the " + std::to_string(limit) + " bytes asked");
        if (mode == body::single || mode == body::whole) {
            if (pos + n > end) return fail(errc::remote_failed, "the server sent more than the range it announced");
            put(pos, data, n);
            pos += n;
            if (pos == end) got.push_back(byte_range{part_begin, end});
            return true;
        }
        while (n > 0) {
            if (parts == part_state::bytes) {
                const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(n, end - pos));
                put(pos, data, take);
                pos += take;
                data += take;
                n -= take;
                if (pos == end) {
                    got.push_back(byte_range{part_begin, end});
                    parts = part_state::boundary;
                }
            } else if (parts == part_state::done) {
                return true;  // the epilogue, bounded by limit
            } else {
                if (!take_line(*data)) return false;
                ++data;
                --n;
            }
        }
        return true;
    }

    // After the answer ended without a transport error.
    bool complete() {
        if (mode == body::undecided && !decide()) return false;
        if (mode == body::discard) return true;
        if ((mode == body::single || mode == body::whole) && pos != end)
            return fail(errc::remote_failed, "the answer was truncated: it ended after " + std::to_string(pos - part_begin) +
                                                 " of " + std::to_string(end - part_begin) + " bytes", 0, true);
        if (mode == body::multipart && parts == part_state::bytes)
            return fail(errc::remote_failed, "the answer was truncated inside bytes " + range_text(part_begin, end), 0, true);
        return true;
    }
};

namespace {

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
    auto& t = *static_cast<transfer*>(user);
    const std::size_t n = size * count;
    const std::string line = trimmed(std::string(data, n));
    if (line.compare(0, 5, "HTTP/") == 0) {  // a new answer (after a redirect or a 100)
        const std::size_t space = line.find(' ');
        t.status = space == std::string::npos ? 0 : std::strtol(line.c_str() + space + 1, nullptr, 10);
        t.content_type.clear();
        t.content_range.clear();
        t.etag.clear();
        t.last_modified.clear();
        t.content_length = unknown;
        return n;
    }
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) return n;
    const std::string value = trimmed(line.substr(colon + 1));
    if (iequals_prefix(line, "content-type:"))
        t.content_type = value;
    else if (iequals_prefix(line, "content-range:"))
        t.content_range = value;
    else if (iequals_prefix(line, "etag:"))
        t.etag = value;
    else if (iequals_prefix(line, "last-modified:"))
        t.last_modified = value;
    else if (iequals_prefix(line, "content-length:")) {
        char* stop = nullptr;
        const unsigned long long v = std::strtoull(value.c_str(), &stop, 10);
        if (stop != value.c_str() && *stop == '\0') t.content_length = v;
    }
    return n;
}

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
    auto& t = *static_cast<transfer*>(user);
    const std::size_t n = size * count;
    if (t.mode == transfer::body::undecided && !t.decide()) return 0;  // 0: curl stops the transfer
    if (t.mode == transfer::body::discard) return 0;
    if (t.writable != nullptr && t.mode != transfer::body::single) return 0;  // a stream takes one range only
    if (t.writable != nullptr && t.pos >= t.pause_at) {
        // curl hands these bytes again once pump resumes the answer; meanwhile
        // the server waits on the connection's flow control.
        t.paused = true;
        return CURL_WRITEFUNC_PAUSE;
    }
    return t.body_bytes(data, n) ? n : 0;
}

// The transport's failure, in words.
void transport_failure(transfer& t, CURLcode rc, const remote_options& opts) {
    const std::string detail = t.curl_error[0] != '\0' ? std::string(t.curl_error) : curl_easy_strerror(rc);
    switch (rc) {
        case CURLE_OPERATION_TIMEDOUT:
            t.fail(errc::remote_failed, "timed out: no answer, or less than 1 KiB/s, for " +
                                            std::to_string(opts.timeout_ms / 1000.0).substr(0, 4) + " s (" + detail + ")");
            break;
        case CURLE_PARTIAL_FILE:
            t.fail(errc::remote_failed, "the answer was truncated (" + detail + ")", 0, true);
            break;
        case CURLE_COULDNT_CONNECT:
        case CURLE_RECV_ERROR:
        case CURLE_SEND_ERROR:
        case CURLE_GOT_NOTHING:
            t.fail(errc::remote_failed, "the connection failed (" + detail + ")", 0, true);
            break;
        case CURLE_PEER_FAILED_VERIFICATION:
        case CURLE_SSL_CONNECT_ERROR:
        case CURLE_SSL_CERTPROBLEM:
        case CURLE_SSL_CACERT_BADFILE:
            t.fail(errc::remote_failed, "TLS failed (" + detail + ")");
            break;
        default: t.fail(errc::remote_failed, detail);
    }
}

// The parts of `asked` not in `got`.
std::vector<byte_range> missing(const std::vector<byte_range>& asked, std::vector<byte_range> got) {
    std::sort(got.begin(), got.end(), [](const byte_range& a, const byte_range& b) { return a.begin < b.begin; });
    std::vector<byte_range> out;
    for (const byte_range& r : asked) {
        std::uint64_t at = r.begin;
        for (const byte_range& g : got) {
            if (g.end <= at || g.begin >= r.end) continue;
            if (g.begin > at) out.push_back(byte_range{at, g.begin});
            at = std::max(at, g.end);
        }
        if (at < r.end) out.push_back(byte_range{at, r.end});
    }
    return out;
}

}  // namespace

http_ranges::http_ranges(remote_target target, const remote_options& opts)
    : target_(std::move(target)), opts_(opts), multi_range_(target_.multi_range) {
    global_init();
    multi_ = curl_multi_init();
}

http_ranges::~http_ranges() {
    (void)end_stream();
    if (stream_easy_ != nullptr) curl_easy_cleanup(static_cast<CURL*>(stream_easy_));
    for (void* e : easy_) curl_easy_cleanup(static_cast<CURL*>(e));
    if (multi_ != nullptr) curl_multi_cleanup(static_cast<CURLM*>(multi_));
}

void http_ranges::prepare(transfer& t) {
    CURL* e = t.easy;
    curl_easy_reset(e);
    curl_easy_setopt(e, CURLOPT_URL, target_.url.c_str());
    std::string range;
    for (const byte_range& r : t.asked) {
        if (!range.empty()) range += ',';
        range += range_text(r.begin, r.end);
    }
    curl_easy_setopt(e, CURLOPT_RANGE, range.c_str());  // curl copies it
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(e, CURLOPT_MAXREDIRS, 8L);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    const long seconds = std::max<long>(1, static_cast<long>(opts_.timeout_ms / 1000));
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(opts_.timeout_ms));
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1024L);
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, seconds);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 10L * static_cast<long>(opts_.timeout_ms));
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, opts_.verify_tls ? 1L : 0L);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, opts_.verify_tls ? 2L : 0L);
    if (!target_.ca_file.empty()) curl_easy_setopt(e, CURLOPT_CAINFO, target_.ca_file.c_str());
    curl_easy_setopt(e, CURLOPT_USERAGENT, "onnxview/0.1");
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, &t);
    curl_easy_setopt(e, CURLOPT_BUFFERSIZE, 512L << 10);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t.curl_error);
    curl_easy_setopt(e, CURLOPT_PRIVATE, &t);
    if (!target_.bearer.empty()) {
        // Sent to the URL's host only: curl drops it when a redirect leads elsewhere.
        curl_easy_setopt(e, CURLOPT_HTTPAUTH, CURLAUTH_BEARER);
        curl_easy_setopt(e, CURLOPT_XOAUTH2_BEARER, target_.bearer.c_str());
    }
    if (!target_.aws_sigv4.empty()) {
        curl_easy_setopt(e, CURLOPT_AWS_SIGV4, target_.aws_sigv4.c_str());
        curl_easy_setopt(e, CURLOPT_USERPWD, target_.aws_keys.c_str());
        // S3 refuses a SigV4 request without x-amz-content-sha256 (400 InvalidRequest), which
        // libcurl 7.88 does not add: the hash of the empty payload (these are GETs). libcurl
        // signs the headers it is given, and one that adds this header itself keeps ours.
        t.headers = curl_slist_append(
            t.headers, "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        if (!target_.aws_session_token.empty())
            t.headers = curl_slist_append(t.headers, ("x-amz-security-token: " + target_.aws_session_token).c_str());
    }
    // A strong ETag pins the version: a replaced file answers 412.
    if (!etag_.empty() && etag_.compare(0, 2, "W/") != 0)
        t.headers = curl_slist_append(t.headers, ("If-Match: " + etag_).c_str());
    if (t.headers != nullptr) curl_easy_setopt(e, CURLOPT_HTTPHEADER, t.headers);
}

void http_ranges::run(std::vector<transfer*>& batch) {
    auto* multi = static_cast<CURLM*>(multi_);
    while (easy_.size() < batch.size()) easy_.push_back(curl_easy_init());
    for (std::size_t i = 0; i < batch.size(); ++i) {
        transfer& t = *batch[i];
        t.owner = this;
        t.easy = static_cast<CURL*>(easy_[i]);
        prepare(t);
        ++stats_.requests;
        curl_multi_add_handle(multi, t.easy);
    }
    int running = static_cast<int>(batch.size());
    while (running > 0) {
        if (curl_multi_perform(multi, &running) != CURLM_OK) break;
        if (running > 0) curl_multi_poll(multi, nullptr, 0, 500, nullptr);
    }
    int left = 0;
    while (CURLMsg* m = curl_multi_info_read(multi, &left)) {
        if (m->msg != CURLMSG_DONE) continue;
        transfer* t = nullptr;
        curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, reinterpret_cast<char**>(&t));
        if (t == nullptr) continue;
        const CURLcode rc = m->data.result;
        if (rc == CURLE_OK)
            (void)t->complete();
        else if (t->code == errc::ok && t->mode != transfer::body::discard)
            transport_failure(*t, rc, opts_);
    }
    for (transfer* t : batch) {
        curl_multi_remove_handle(multi, t->easy);
        curl_slist_free_all(t->headers);
        t->headers = nullptr;
    }
}

error http_ranges::open(std::uint64_t n, std::string& prefix, std::uint64_t& size, std::string& why) {
    for (std::uint32_t attempt = 0;; ++attempt) {
        transfer t;
        t.asked.assign(1, byte_range{0, n});
        t.prefix = &prefix;
        t.opening = true;
        t.limit = n;
        prefix.clear();
        size_ = 0;
        std::vector<transfer*> batch{&t};
        run(batch);
        if (t.code == errc::ok) {
            size = size_;
            if (t.mode == transfer::body::discard) prefix.clear();  // a whole file, fetched by the caller
            else prefix.resize(static_cast<std::size_t>(std::min<std::uint64_t>(prefix.size(), t.pos)));
            stats_.size = size_;
            return error();
        }
        if (!t.retry || attempt >= opts_.retries) {
            why = t.why;
            return error(t.code, 0, t.sys);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(250) * (1 << std::min<std::uint32_t>(attempt, 6)));
    }
}

error http_ranges::fetch(char* base, const std::vector<byte_range>& ranges, std::vector<byte_range>& received,
                         std::string& why) {
    std::vector<byte_range> pending = ranges;
    for (std::uint32_t round = 0; !pending.empty(); ++round) {
        // One request per range where the server takes no lists of ranges.
        std::vector<std::vector<byte_range>> groups;
        const std::size_t per = multi_range_ ? max_ranges_per_request : 1;
        for (std::size_t i = 0; i < pending.size(); i += per)
            groups.emplace_back(pending.begin() + static_cast<std::ptrdiff_t>(i),
                                pending.begin() + static_cast<std::ptrdiff_t>(std::min(pending.size(), i + per)));
        pending.clear();
        bool backoff = false;
        std::vector<transfer> wave;
        for (std::size_t g = 0; g < groups.size(); g += max_parallel) {
            wave.clear();
            wave.resize(std::min(max_parallel, groups.size() - g));
            std::vector<transfer*> batch;
            for (std::size_t i = 0; i < wave.size(); ++i) {
                transfer& t = wave[i];
                t.asked = groups[g + i];
                t.base = base;
                std::uint64_t bytes = 0;
                for (const byte_range& r : t.asked) bytes += r.size();
                t.limit = bytes + framing_fixed + framing_per_part * t.asked.size();
                batch.push_back(&t);
            }
            run(batch);
            for (transfer& t : wave) {
                received.insert(received.end(), t.got.begin(), t.got.end());
                if (t.mode == transfer::body::whole && t.code == errc::ok) continue;
                std::vector<byte_range> rest = missing(t.asked, t.got);
                if (t.code == errc::remote_range_ignored && t.asked.size() > 1) {
                    multi_range_ = false;  // asked again one range at a time
                } else if (t.code != errc::ok) {
                    if (!t.retry || round >= opts_.retries) {
                        why = t.why;
                        return error(t.code, 0, t.sys);
                    }
                    backoff = true;
                } else if (!rest.empty() && t.asked.size() > 1) {
                    multi_range_ = false;  // parts left out: ask for each alone
                } else if (!rest.empty() && round >= opts_.retries + 1) {
                    why = "the server did not send bytes " + range_text(rest.front().begin, rest.front().end);
                    return error(errc::remote_failed);
                }
                pending.insert(pending.end(), rest.begin(), rest.end());
            }
        }
        std::sort(pending.begin(), pending.end(), [](const byte_range& a, const byte_range& b) { return a.begin < b.begin; });
        if (backoff)
            std::this_thread::sleep_for(std::chrono::milliseconds(250) * (1 << std::min<std::uint32_t>(round, 6)));
        if (round > opts_.retries + 4) {
            why = "the server did not send the bytes asked after " + std::to_string(round) + " rounds";
            return error(errc::remote_failed);
        }
    }
    return error();
}

void http_ranges::begin_stream(char* base, byte_range range, writable_fn writable, void* user) {
    (void)end_stream();
    stream_ = std::make_unique<transfer>();
    transfer& t = *stream_;
    t.owner = this;
    t.asked.assign(1, range);
    t.base = base;
    t.limit = range.size() + framing_fixed;
    t.writable = writable;
    t.writable_user = user;
    t.pos = range.begin;
    if (stream_easy_ == nullptr) stream_easy_ = curl_easy_init();
    t.easy = static_cast<CURL*>(stream_easy_);
    prepare(t);
    ++stats_.requests;
    stream_done_ = curl_multi_add_handle(static_cast<CURLM*>(multi_), t.easy) != CURLM_OK;
}

std::uint64_t http_ranges::pump(std::uint64_t until) {
    if (stream_ == nullptr) return 0;
    transfer& t = *stream_;
    auto* multi = static_cast<CURLM*>(multi_);
    // pos is where the next byte goes: the bytes before it have arrived (a
    // single range is written in order, from the range's start). curl reads
    // all a socket holds in one go: a stream reads stream_read_ahead past the
    // need, then waits, so that a reader that leaves the run (to skip a
    // payload) has not read the payload meanwhile.
    t.pause_at = until + stream_read_ahead;
    if (t.paused) {
        t.paused = false;
        curl_easy_pause(t.easy, CURLPAUSE_CONT);
    }
    while (!stream_done_ && t.pos < until) {
        int running = 0;
        if (curl_multi_perform(multi, &running) != CURLM_OK) {
            stream_done_ = true;
            break;
        }
        int left = 0;
        while (CURLMsg* m = curl_multi_info_read(multi, &left))
            if (m->msg == CURLMSG_DONE && m->easy_handle == t.easy) stream_done_ = true;
        if (!stream_done_ && t.pos < until) curl_multi_poll(multi, nullptr, 0, 500, nullptr);
    }
    return t.arrived();
}

std::uint64_t http_ranges::end_stream() {
    if (stream_ == nullptr) return 0;
    const std::uint64_t arrived = stream_->arrived();
    curl_multi_remove_handle(static_cast<CURLM*>(multi_), stream_->easy);
    curl_slist_free_all(stream_->headers);
    stream_.reset();
    stream_done_ = false;
    return arrived;
}

}  // namespace detail
}  // namespace onnxview
