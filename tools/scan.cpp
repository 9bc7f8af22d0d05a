// tools/scan.cpp - `onnxview scan`: a record per model file, for thousands of
// files (onnxview/scan.hpp builds each record; docs/scan.md).
//
// Targets stream through: directories are walked one at a time, --from is
// read a line at a time, and each record is written as soon as the ones
// before it are, so memory stays the same for 10 or 10,000 models. With
// --jobs N, N threads scan; records still come out in target order.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "onnxview/scan.hpp"
#include "options.hpp"
#include "output.hpp"
#include "progress.hpp"
#include "scan_cyclonedx.hpp"
#include "subcommand.hpp"

namespace onnxview_cli {
namespace {

namespace fs = std::filesystem;
using onnxview::scan_record;
using onnxview::scan_severity;

struct arguments {
    std::vector<const char*> targets;
    const char* from = nullptr;
    std::uint64_t jobs = 1;
    const char* format = "jsonl";
    const char* output = nullptr;
    bool numeric = false;
    bool digests = false;
    const char* fail_on = "error";
};

command_line make_command_line(arguments& a) {
    command_line cl{"scan",
                    "an inventory and security record per model,\n"
                    "for thousands of files (JSON Lines, CycloneDX)",
                    "Scans model files and directories (walked recursively for files named\n"
                    "*.onnx, in path order) and writes one record per file: what it is, versions,\n"
                    "opsets, operators, inputs and outputs, parameters by data type, external\n"
                    "files, the checker's verdict, zero-copy readiness, its `onnxview hash` digest,\n"
                    "and security findings (external data that escapes its folder, is missing or\n"
                    "overlaps, duplicate external_data keys, PythonOp-like operators, custom\n"
                    "domains, shapes that ask for billions of elements, files that are not\n"
                    "models). A file that cannot be read is a record with its error. Records\n"
                    "come out in target order whatever --jobs; docs/scan.md describes them.\n",
                    "exit status: 0 no finding at or above --fail-on, 1 some, 2 usage error or an\n"
                    "unreadable --from list\n",
                    {text("from", 0, "LIST", a.from, "a file",
                          "also scan the targets listed in LIST, one a line (-: stdin)"),
                     number("jobs", 'j', "N", a.jobs, 1, 256, "scan N files at a time (default 1)"),
                     text("format", 0, "FORMAT", a.format, "a format",
                          "jsonl (default: one record a line), json (one object\n"
                          "with the records) or cyclonedx (a CycloneDX 1.6 BOM)"),
                     text("output", 'o', "FILE", a.output, "a file", "write to FILE instead of stdout"),
                     flag("numeric", 0, a.numeric, "add the findings of `check --numeric` (reads every weight)"),
                     flag("digests", 0, a.digests, "SHA-256 of every file and external file (reads them)"),
                     text("fail-on", 0, "SEVERITY", a.fail_on, "a severity",
                          "exit 1 when a finding of at least this severity is\n"
                          "seen: error (default), warning, info or none")},
                    {}};
    cl.more_operands = &a.targets;
    cl.more_operands_synopsis = "[TARGET...]";
    return cl;
}

// Targets in order: each operand (a directory walked), then the --from list.
class target_source {
public:
    target_source(std::vector<std::string> operands, const char* from) : operands_(std::move(operands)) {
        if (from != nullptr) {
            if (std::strcmp(from, "-") == 0) {
                list_ = &std::cin;
            } else {
                file_.open(from);
                list_ = &file_;
            }
        }
    }
    bool list_failed() const { return list_ == &file_ && !file_.is_open(); }

    // The next file to scan; false when there is none.
    bool next(std::string& out) {
        for (;;) {
            if (!walk_.empty()) {
                if (take_from_walk(out)) return true;
                continue;
            }
            if (next_operand_ < operands_.size()) {
                const std::string t = operands_[next_operand_++];
                if (start(t, out)) return true;
                continue;
            }
            if (list_ != nullptr) {
                std::string line;
                while (std::getline(*list_, line)) {
                    if (!line.empty() && line.back() == '\r') line.pop_back();
                    if (line.empty()) continue;
                    if (start(line, out)) return true;
                    if (!walk_.empty()) break;
                }
                if (!walk_.empty()) continue;
                list_ = nullptr;
            }
            return false;
        }
    }

private:
    static bool model_name(const fs::path& p) {
        std::string ext = p.extension().string();
        std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        return ext == ".onnx";
    }
    // A target: a directory to walk, or a file (also a missing one: its
    // record says so).
    bool start(const std::string& t, std::string& out) {
        std::error_code ec;
        if (fs::is_directory(fs::path(t), ec)) {
            push_directory(fs::path(t));
            return false;
        }
        out = t;
        return true;
    }
    // A directory's entries, sorted: subdirectories are walked where they
    // sort, depth first.
    void push_directory(const fs::path& dir) {
        std::vector<fs::path> entries;
        std::error_code ec;
        for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) entries.push_back(it->path());
        std::sort(entries.begin(), entries.end());
        walk_.push_back({std::move(entries), 0});
    }
    bool take_from_walk(std::string& out) {
        auto& [entries, at] = walk_.back();
        if (at == entries.size()) {
            walk_.pop_back();
            return false;
        }
        const fs::path p = entries[at++];
        std::error_code ec;
        const fs::file_status st = fs::symlink_status(p, ec);
        if (fs::is_directory(st)) {  // not through symlinks: a walk cannot loop
            push_directory(p);
            return false;
        }
        if (!model_name(p)) return false;
        out = p.string();
        return true;
    }

    std::vector<std::string> operands_;
    std::size_t next_operand_ = 0;
    std::ifstream file_;
    std::istream* list_ = nullptr;
    std::vector<std::pair<std::vector<fs::path>, std::size_t>> walk_;
};

// Where records go, in target order.
class record_sink {
public:
    record_sink(std::FILE* out, const std::string& format) : out_(out), format_(format) {
        if (format_ == "json") std::fputs("{\"records\": [", out_);
    }
    void put(const scan_record& r) {
        if (format_ == "cyclonedx") {
            bom_.add(r);
        } else if (format_ == "json") {
            std::fputs(count_ == 0 ? "\n" : ",\n", out_);
            std::fputs(r.json.c_str(), out_);
        } else {
            std::fputs(r.json.c_str(), out_);
            std::fputc('\n', out_);
        }
        ++count_;
    }
    void finish() {
        if (format_ == "json") std::fputs(count_ == 0 ? "]}\n" : "\n]}\n", out_);
        else if (format_ == "cyclonedx") std::fputs(bom_.document().c_str(), out_);
        std::fflush(out_);
    }

private:
    std::FILE* out_;
    std::string format_;
    std::uint64_t count_ = 0;
    cyclonedx_bom bom_;
};

scan_severity severity_of(const std::string& s, bool& ok) {
    ok = true;
    if (s == "error") return scan_severity::error;
    if (s == "warning") return scan_severity::warning;
    if (s == "info") return scan_severity::info;
    if (s == "none") return scan_severity::none;
    ok = false;
    return scan_severity::none;
}

// The pool: workers take numbered targets and leave numbered records; the
// main thread hands out targets (at most 4 per worker ahead of the writer)
// and writes records in number order.
struct pool {
    std::mutex lock;
    std::condition_variable changed;
    std::deque<std::pair<std::uint64_t, std::string>> todo;
    std::map<std::uint64_t, scan_record> done;
    bool closed = false;
};

void work(pool& p, const onnxview::scan_options& opts) {
    for (;;) {
        std::pair<std::uint64_t, std::string> job;
        {
            std::unique_lock<std::mutex> l(p.lock);
            p.changed.wait(l, [&] { return p.closed || !p.todo.empty(); });
            if (p.todo.empty()) return;
            job = std::move(p.todo.front());
            p.todo.pop_front();
        }
        scan_record r = onnxview::scan_file(job.second.c_str(), opts);
        {
            std::lock_guard<std::mutex> l(p.lock);
            p.done.emplace(job.first, std::move(r));
        }
        p.changed.notify_all();
    }
}

int run(arguments& a) {
    const std::string format = a.format;
    if (format != "jsonl" && format != "json" && format != "cyclonedx") {
        print_error("scan", "--format must be jsonl, json or cyclonedx, not '" + format + "'");
        return exit_usage;
    }
    bool ok = true;
    const scan_severity fail_on = severity_of(a.fail_on, ok);
    if (!ok) {
        print_error("scan", "--fail-on must be error, warning, info or none, not '" + std::string(a.fail_on) + "'");
        return exit_usage;
    }
    if (a.targets.empty() && a.from == nullptr) {
        print_error("scan", "nothing to scan: give a model, a directory or --from LIST");
        return exit_usage;
    }
    std::vector<std::string> operands(a.targets.begin(), a.targets.end());
    target_source targets(std::move(operands), a.from);
    if (targets.list_failed()) {
        print_error("scan", "cannot read the target list '" + std::string(a.from) + "'");
        return exit_usage;
    }
    std::FILE* out = stdout;
    if (a.output != nullptr) {
        out = std::fopen(a.output, "wb");
        if (out == nullptr) {
            print_error("scan", "cannot write '" + std::string(a.output) + "': " + std::strerror(errno));
            return exit_usage;
        }
    }
    onnxview::scan_options opts;
    opts.numeric = a.numeric;
    opts.digests = a.digests;
    record_sink sink(out, format);
    progress_line progress("scan");
    std::uint64_t scanned = 0, failing = 0, with_errors = 0;
    const auto take = [&](const scan_record& r) {
        sink.put(r);
        ++scanned;
        if (r.highest >= scan_severity::error) ++with_errors;
        if (fail_on != scan_severity::none && r.highest >= fail_on) ++failing;
        progress.update_files(scanned, with_errors);
    };
    const auto jobs = static_cast<std::size_t>(a.jobs);
    std::string target;
    if (jobs == 1) {
        while (targets.next(target)) take(onnxview::scan_file(target.c_str(), opts));
    } else {
        pool p;
        std::vector<std::thread> workers;
        for (std::size_t i = 0; i < jobs; ++i) workers.emplace_back([&p, &opts] { work(p, opts); });
        std::uint64_t handed = 0, written = 0;
        bool more = true;
        while (more || written < handed) {
            std::unique_lock<std::mutex> l(p.lock);
            while (more && handed - written < 4 * jobs) {
                l.unlock();
                more = targets.next(target);
                l.lock();
                if (more) p.todo.emplace_back(handed++, target);
            }
            p.changed.notify_all();
            p.changed.wait(l, [&] { return p.done.count(written) != 0 || (!more && written == handed); });
            while (p.done.count(written) != 0) {
                scan_record r = std::move(p.done[written]);
                p.done.erase(written++);
                l.unlock();
                take(r);
                l.lock();
            }
        }
        {
            std::lock_guard<std::mutex> l(p.lock);
            p.closed = true;
        }
        p.changed.notify_all();
        for (std::thread& t : workers) t.join();
    }
    sink.finish();
    progress.finish();
    if (out != stdout && std::fclose(out) != 0) {
        print_error("scan", "cannot write '" + std::string(a.output) + "'");
        return exit_usage;
    }
    return failing != 0 ? exit_findings : exit_ok;
}

}  // namespace

const subcommand scan_subcommand = make_subcommand<arguments, make_command_line, run>();

}  // namespace onnxview_cli
