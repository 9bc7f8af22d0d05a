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
        }
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
    // Every need, held or not, goes through the plan: its history is the layout.
    const error e = s.fetch(s.plan.plan(offset, length));
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
