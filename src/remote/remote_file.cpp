// A remote file as a mapped_file supplied on demand (see
// onnxview/remote/remote_file.hpp): reserved memory the size of the file,
// a range_plan of what has arrived, and http_ranges to fetch the rest.
//
// Pages not yet fetched are inaccessible (PROT_NONE) where the system lets
// them be: a reader that forgets to ensure its bytes faults at once instead
// of reading zeros as if they were the model. Should the system refuse (too
// many distinct areas of a mapping), the memory becomes readable as a whole
// and the readers' ensures alone keep it right.
#include "onnxview/remote/remote_file.hpp"

#include <sys/mman.h>
#include <cerrno>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <new>

#include "http_ranges.hpp"
#include "range_plan.hpp"
#include "remote_url.hpp"

namespace onnxview {

namespace {

using detail::byte_range;

// The file's first bytes come with the request that learns its size.
constexpr std::uint64_t first_request_bytes = 64 << 10;
// A window of a run of metadata this large or larger is streamed (see
// remote_state::start_stream); once a run's window has grown to a quarter
// of the plan's largest (4 MiB, the third window of a run), the stream goes
// on up to stream_bytes; its pages are made writable stream_ahead at a
// time, as the bytes come.
constexpr std::uint64_t stream_window = 256 << 10;
constexpr std::uint64_t stream_bytes = std::uint64_t(64) << 20;
constexpr std::uint64_t stream_ahead = 1 << 20;

struct remote_state {
    file_supplier supplier;  // first: remote_stats_of finds the state from the file's supplier
    std::unique_ptr<detail::http_ranges> http;
    detail::range_plan plan;
    char* memory = nullptr;
    std::size_t reserved = 0;  // bytes of the mapping (whole pages)
    bool guarded = true;       // pages not fetched are PROT_NONE
    std::string last_error;
    remote_options opts;
    remote_report* errors_to = nullptr;  // an external file's: the model's report hears of its errors only
    byte_range stream;                   // the range of the stream in flight (empty: none)
    std::uint64_t stream_writable = 0;   // its pages are writable up to here
    std::uint64_t stream_arrived = 0;    // its bytes have arrived (and are marked) up to here
    std::uint64_t stream_reach = 0;      // the end of the furthest need it served

    remote_state(std::unique_ptr<detail::http_ranges> h, std::uint64_t size, std::uint64_t page)
        : http(std::move(h)), plan(size, limits(page)) {}

    static detail::range_plan_limits limits(std::uint64_t page) {
        detail::range_plan_limits l;
        l.page = page;
        return l;
    }

    // Makes the pages of `ranges` writable (fetched: readable too) or, when
    // `open` is false, inaccessible again.
    void protect(const std::vector<byte_range>& ranges, bool open) {
        if (!guarded) return;
        const std::uint64_t page = plan.limits().page;
        for (const byte_range& r : ranges) {
            const std::uint64_t begin = r.begin / page * page;
            const std::uint64_t end = std::min<std::uint64_t>(reserved, (r.end + page - 1) / page * page);
            if (!open) {
                // Only the pages that did not arrive.
                for (std::uint64_t at = begin; at < end; at += page)
                    if (!plan.has(at, std::min<std::uint64_t>(page, plan.size() - std::min(at, plan.size()))))
                        (void)mprotect(memory + at, static_cast<std::size_t>(page), PROT_NONE);
                continue;
            }
            if (mprotect(memory + begin, static_cast<std::size_t>(end - begin), PROT_READ | PROT_WRITE) != 0) {
                // The system keeps no more areas: the whole memory readable, no guard.
                (void)mprotect(memory, reserved, PROT_READ | PROT_WRITE);
                guarded = false;
                return;
            }
            populate(begin, end);
        }
    }

    // Backs [begin, end) with memory in one call: the answer's bytes then
    // land in it without a page fault per page (a fifth of the time of
    // reading a 30 MB graph went to those faults). Linux 5.14 and later;
    // elsewhere the faults happen as before.
    void populate(std::uint64_t begin, std::uint64_t end) {
#if defined(__linux__)
        constexpr int populate_write = 23;  // MADV_POPULATE_WRITE; older headers lack the name
        (void)madvise(memory + begin, static_cast<std::size_t>(end - begin), populate_write);
#else
        (void)begin, (void)end;
#endif
    }

    // A dense run of metadata (a graph of 100k nodes) arrives as a stream
    // that the walk reads while it comes, rather than as windows it waits
    // for whole: fetch_remote starts one where the plan reads ahead of a
    // need by a window of stream_window or more (a tensor's own range is
    // fetched as ever), reads within it by pumping it, and stops it at the
    // first need outside it. A stream asks for the plan's window, so that a
    // run ending costs no more than it did; a run long enough to have grown
    // the window to a quarter of its largest is streamed on for up to
    // stream_bytes, in one request instead of one per window (stopping it
    // costs what the connection holds in flight). Whatever goes wrong with a
    // stream (a server that ignores the range, a broken connection) just
    // ends it: the need is then fetched as ever, with its checks and retries.
    static void stream_writable_to(void* user, std::uint64_t begin, std::uint64_t end) {
        auto& s = *static_cast<remote_state*>(user);
        if (end <= s.stream_writable) return;
        const std::uint64_t page = s.plan.limits().page;
        const std::uint64_t from = std::max(s.stream_writable, begin / page * page);
        const std::uint64_t to = std::min(s.stream.end, std::max(end, from + stream_ahead));
        s.protect({byte_range{from, to}}, true);
        s.stream_writable = std::min<std::uint64_t>(s.reserved, (to + page - 1) / page * page);
    }

    void start_stream(byte_range r) {
        if (r.size() >= plan.limits().max_window / 4) r.end = std::min(plan.size(), r.begin + stream_bytes);
        stream = r;
        stream_writable = stream_arrived = stream_reach = r.begin;
        http->begin_stream(memory, r, stream_writable_to, this);
    }

    // Pumps the stream until [.., until) has arrived in whole pages (what the plan holds), or it ended.
    void pump_stream(std::uint64_t until) {
        const std::uint64_t page = plan.limits().page;
        arrived(http->pump(std::min(stream.end, (until + page - 1) / page * page)));
    }

    // The stream's bytes have arrived up to `end`: marked from where the last
    // mark ended (a page cut by it is marked with the next).
    void arrived(std::uint64_t end) {
        if (end <= stream_arrived) return;
        const std::uint64_t page = plan.limits().page;
        plan.mark(stream_arrived / page * page, end);
        stream_arrived = end;
        tell();
    }

    // The needs it served bypassed the plan: its run reaches as far as they did.
    void stop_stream() {
        arrived(http->end_stream());
        plan.reached(stream_reach);
        // Pages made writable ahead that nothing filled become inaccessible again.
        if (stream_writable > stream.begin) protect({byte_range{stream.begin, stream_writable}}, false);
        stream = byte_range();
        tell();
    }

    error fetch(std::vector<byte_range> ranges) {
        if (ranges.empty()) return error();
        if (opts.allow_full_download && guarded) {
            // A server may answer any range with the whole file.
            (void)mprotect(memory, reserved, PROT_READ | PROT_WRITE);
            guarded = false;
        }
        protect(ranges, true);
        std::vector<byte_range> received;
        std::string why;
        const error e = http->fetch(memory, ranges, received, why);
        std::sort(received.begin(), received.end(), [](const byte_range& a, const byte_range& b) { return a.begin < b.begin; });
        // Ranges that touch are one: a page split between two parts arrived whole.
        for (std::size_t i = 0; i < received.size();) {
            std::uint64_t end = received[i].end;
            std::size_t j = i + 1;
            while (j < received.size() && received[j].begin <= end) end = std::max(end, received[j++].end);
            plan.mark(received[i].begin, end);
            i = j;
        }
        protect(ranges, false);
        if (!e.ok()) last_error = http->target().display + ": " + why;
        tell();
        return e;
    }

    // The counters and the last error, to the caller's report.
    void tell() {
        http->stats().bytes_fetched = std::min(plan.held_bytes(), plan.size());
        if (errors_to != nullptr && !last_error.empty()) errors_to->last_error = last_error;
        if (opts.report == nullptr) return;
        opts.report->stats = http->stats();
        opts.report->last_error = last_error;
    }
};

error fetch_remote(void* user, std::uint64_t offset, std::uint64_t length) noexcept {
    auto& s = *static_cast<remote_state*>(user);
    if (s.stream.size() != 0) {
        // The walk's needs come a few hundred thousand a second: those inside the stream are
        // answered here, without the plan (its history wants the run, not each need).
        // A need far past what has arrived (the next tensor's header after a
        // payload) ends the stream rather than read the payload through it.
        const bool from_stream = offset >= s.stream.begin ? offset <= s.stream_arrived + stream_window
                                                          : s.plan.has(offset, s.stream.begin - offset);
        // Only whole pages count (the plan's): a page cut at the arrival
        // point may become inaccessible again when the stream stops.
        if (from_stream && offset + length <= s.stream.end) {
            if (!s.plan.has(offset, length)) s.pump_stream(offset + length);
            if (s.plan.has(offset, length)) {
                s.stream_reach = std::max(s.stream_reach, offset + length);
                return error();
            }
        }
        s.stop_stream();
    }
    // Every need, held or not, goes through the plan: its history is the layout.
    std::vector<byte_range> ranges = s.plan.plan(offset, length);
    const std::uint64_t need_end = std::min(s.plan.size(), (offset + length + s.plan.limits().page - 1) /
                                                               s.plan.limits().page * s.plan.limits().page);
    if (ranges.size() == 1 && ranges.front().size() >= stream_window && ranges.front().end > need_end) {
        s.start_stream(ranges.front());
        s.pump_stream(offset + length);
        if (s.plan.has(offset, length)) {
            s.stream_reach = offset + length;
            return error();
        }
        s.stop_stream();
        ranges = s.plan.plan(offset, length);
    }
    const error e = s.fetch(std::move(ranges));
    if (!e.ok()) return e;
    if (!s.plan.has(offset, length)) {
        s.last_error = s.http->target().display + ": the server did not send the bytes asked";
        s.tell();
        return error(errc::remote_failed, offset);
    }
    return error();
}

void release_remote(void* user, const void*, std::uint64_t) {
    auto* s = static_cast<remote_state*>(user);
    if (s->memory != nullptr) munmap(s->memory, s->reserved);
    delete s;
}

const remote_state* state_of(const mapped_file& file) noexcept {
    const file_supplier* supplier = file.supplier();
    if (supplier == nullptr || supplier->fetch != fetch_remote) return nullptr;
    return static_cast<const remote_state*>(supplier->user_data);
}

}  // namespace

bool is_remote_url(const char* s) noexcept {
    if (s == nullptr) return false;
    for (const char* scheme : {"http://", "https://", "s3://", "hf://"})
        if (std::strncmp(s, scheme, std::strlen(scheme)) == 0) return true;
    return false;
}

std::string display_url(const char* url) { return url == nullptr ? std::string() : detail::display_url(url); }

namespace {

// The state of the remote file at `url`, after its first request; its
// errors told to opts.report.
result<remote_state*> open_state(const char* url, const remote_options& opts) {
    std::string text;
    remote_report* report = opts.report;
    auto fail = [&](error e) -> result<remote_state*> {
        if (report != nullptr) report->last_error = std::move(text);
        return e;
    };
    if (url == nullptr) {
        text = "no URL";
        return fail(errc::invalid_argument);
    }
    const std::string display = detail::display_url(url);
    auto target = detail::resolve_remote_url(url, opts, text);
    if (!target) {
        text = display + ": " + text;
        return fail(target.err());
    }
    auto http = std::make_unique<detail::http_ranges>(std::move(target.value()), opts);
    std::string prefix;
    std::uint64_t size = 0;
    const error opened = http->open(first_request_bytes, prefix, size, text);
    if (report != nullptr) report->stats = http->stats();
    if (!opened.ok()) {
        text = display + ": " + text;
        return fail(opened);
    }
    if (size == 0) {
        text = display + ": the file is empty";
        return fail(errc::file_empty);
    }
    if (size > std::numeric_limits<std::size_t>::max() / 2) {
        text = display + ": the file is larger than this system's address space";
        return fail(errc::file_too_large);
    }
    const long system_page = sysconf(_SC_PAGESIZE);
    const std::uint64_t page = std::max<std::uint64_t>(4096, system_page > 0 ? static_cast<std::uint64_t>(system_page) : 4096);
    auto* state = new (std::nothrow) remote_state(std::move(http), size, page);
    if (state == nullptr) return fail(errc::out_of_memory);
    state->opts = opts;
    state->reserved = static_cast<std::size_t>((size + page - 1) / page * page);
    void* memory = mmap(nullptr, state->reserved, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (memory == MAP_FAILED) {
        delete state;
        text = display + ": cannot reserve " + std::to_string(size) + " bytes of address space";
        return fail(errc::out_of_memory);
    }
    state->memory = static_cast<char*>(memory);
    state->supplier.fetch = fetch_remote;
    state->supplier.release = release_remote;
    state->supplier.user_data = state;
    if (!prefix.empty()) {
        const std::vector<byte_range> first{byte_range{0, prefix.size()}};
        state->protect(first, true);
        std::memcpy(state->memory, prefix.data(), prefix.size());
        state->plan.mark(0, prefix.size());
        // The first bytes are the start of the metadata's run: a need right after them continues it.
        (void)state->plan.plan(0, prefix.size());
        state->protect(first, false);
        state->tell();
    } else if (const error e = state->fetch({byte_range{0, size}})) {
        // The server sent the whole file where a range was asked (allow_full_download); reported.
        release_remote(state, nullptr, 0);
        return e;
    }
    return state;
}

// file_callbacks::supply for a remote model's external files: the
// location, joined to the model's URL, must not become another path once a
// server decodes it.
int supply_external(void* user, const char* url, const void** data, std::uint64_t* size,
                    const file_supplier** supplier) {
    const auto& opts = *static_cast<const remote_options*>(user);
    const char* scheme_end = std::strstr(url, "://");
    const char* relative = scheme_end ? std::strrchr(url, '/') : nullptr;
    if (relative == nullptr || std::strpbrk(url + (scheme_end - url) + 3, "%?#\\") != nullptr) {
        if (opts.report != nullptr)
            opts.report->last_error = detail::display_url(url) + ": an external location of a remote model may not hold %, ?, # or \\";
        return static_cast<int>(errc::external_path_unsafe);
    }
    remote_options each = opts;
    remote_report mine;
    each.report = &mine;
    auto state = open_state(url, each);
    if (!state) {
        if (opts.report != nullptr) opts.report->last_error = mine.last_error;
        // As errno: the resolver's message says "No such file or directory" for a 404.
        const std::int32_t status = state.err().sys_errno;
        return status == 404 || status == 410 ? ENOENT : status == 401 || status == 403 ? EACCES : EIO;
    }
    (*state)->opts.report = nullptr;  // `mine` goes out of scope
    (*state)->errors_to = opts.report;
    *data = (*state)->memory;
    *size = (*state)->plan.size();
    *supplier = &(*state)->supplier;
    return 0;
}

}  // namespace

result<mapped_file> open_remote(const char* url, const remote_options& opts) {
    if (opts.report != nullptr) {
        *opts.report = remote_report();
        if (url != nullptr) opts.report->url = detail::display_url(url);
    }
    auto state = open_state(url, opts);
    if (!state) return state.err();
    // From here on the file owns the state: its release frees it.
    return mapped_file::supplied((*state)->memory, (*state)->plan.size(), &(*state)->supplier);
}

file_callbacks remote_external_files(const remote_options* opts) noexcept {
    file_callbacks c;
    c.supply = supply_external;
    c.user_data = const_cast<remote_options*>(opts);
    return c;
}

const remote_stats* remote_stats_of(const mapped_file& file) noexcept {
    const remote_state* s = state_of(file);
    return s ? &s->http->stats() : nullptr;
}

const char* remote_error_text(const mapped_file& file) noexcept {
    const remote_state* s = state_of(file);
    return s ? s->last_error.c_str() : "";
}

}  // namespace onnxview
