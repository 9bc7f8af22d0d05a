// onnxview_bench - onnxview against protozero and libprotobuf, per workload.
//
//   onnxview_bench [--models=DIR] [--testdata=DIR]... [--competitors=a,b] [MODEL.onnx ...]
//                  [Google Benchmark flags]
//       Workloads 1-3 (open, metadata walk, full walk) and the graph.name()
//       loop, in this process, with pages already in memory. What a walk
//       builds (libprotobuf's messages) is destroyed outside the timed region
//       and timed in rows of its own, destroy/MODEL/COMPETITOR. Before timing,
//       every competitor's results are compared with onnxview's; a competitor
//       that fails or disagrees on a model is not timed on it (printed as
//       "# check ..." lines).
//
//   onnxview_bench --check-only [--strict] [--models=DIR] [--testdata=DIR] [MODEL.onnx ...]
//       Only the comparison of the results, no timing: exit status 1 when a
//       competitor disagrees with onnxview or onnxview cannot read a model
//       (with --strict: when any competitor cannot), 77 (skipped) when there
//       is no model (meson tests, bench/meson.build).
//
//   onnxview_bench --child=cold|mem --competitor=NAME --payloads=0|1 PATH
//       Workloads 4 and 5, meant to run in a fresh process (bench/run.sh does):
//       cold: posix_fadvise(DONTNEED) on the file, then open + walk, timed
//       (the built messages' destruction not included), with
//       the bytes the process read from disk (/proc/self/io read_bytes) and the
//       file's pages resident afterwards (mincore). mem: the anonymous memory
//       (/proc/self/smaps_rollup "Anonymous:") the open + walk added, measured
//       at the end of the walk while every structure it built is alive.
//       Prints one "RESULT {json}" line.
//
//   onnxview_bench --child=count --competitor=NAME --payloads=0|1 [--testdata=DIR]... [PATH ...]
//       Workloads 2 and 3 in instructions: one uncounted walk of the files
//       (the testdata batch, or the models), then one walk inside
//       counted_walks(), the only function bench/run.sh has callgrind collect
//       in. Prints one "RESULT {json}" line.
#include <benchmark/benchmark.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common.hpp"
#include "onnxview/file.hpp"
#include "onnxview/model.hpp"

namespace bench {

// Called by the child's memory probe at the end of each walk (see walk()).
void (*peak_probe)() = nullptr;
std::vector<std::shared_ptr<void>>* kept_trees = nullptr;

namespace {

std::string competitor_filter;  // --competitors=a,b (empty: all)
bool strict_check = false;      // --strict: every competitor must read every model

std::vector<const competitor*> all_competitors() {
    std::vector<const competitor*> v = {&onnxview_competitor, &onnxview_views_competitor};
#if ONNXVIEW_BENCH_HAVE_PROTOZERO
    v.push_back(&protozero_competitor);
    v.push_back(&protozero_checked_competitor);
#endif
#if ONNXVIEW_BENCH_HAVE_PROTOBUF
    v.push_back(&protobuf_competitor);
    v.push_back(&protobuf_arena_competitor);
#endif
    if (!competitor_filter.empty()) {
        const std::string list = "," + competitor_filter + ",";
        v.erase(std::remove_if(v.begin(), v.end(), [&list](const competitor* c) {
                    return list.find(std::string(",") + c->name + ",") == std::string::npos;
                }), v.end());
    }
    return v;
}

const competitor* find_competitor(const std::string& name) {
    for (const competitor* c : all_competitors())
        if (name == c->name) return c;
    return nullptr;
}

// ---------------------------------------------------------------------------
// /proc readers for the child modes.

std::uint64_t proc_field(const char* file, const char* key) {
    FILE* f = std::fopen(file, "r");
    if (!f) return 0;
    char line[256];
    std::uint64_t v = 0;
    const std::size_t n = std::strlen(key);
    while (std::fgets(line, sizeof line, f)) {
        if (std::strncmp(line, key, n) == 0) {
            v = std::strtoull(line + n, nullptr, 10);
            break;
        }
    }
    std::fclose(f);
    return v;
}

std::uint64_t anonymous_kib() { return proc_field("/proc/self/smaps_rollup", "Anonymous:"); }
std::uint64_t read_bytes() { return proc_field("/proc/self/io", "read_bytes:"); }

std::uint64_t resident_bytes(const char* path) {
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    struct stat st;
    ::fstat(fd, &st);
    const std::size_t size = static_cast<std::size_t>(st.st_size);
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
    ::close(fd);
    if (p == MAP_FAILED) return 0;
    const long page = ::sysconf(_SC_PAGESIZE);
    std::vector<unsigned char> vec((size + page - 1) / page);
    std::uint64_t n = 0;
    if (::mincore(p, size, vec.data()) == 0)
        for (unsigned char c : vec) n += c & 1;
    ::munmap(p, size);
    return n * static_cast<std::uint64_t>(page);
}

std::uint64_t anon_at_peak = 0;
void probe() { anon_at_peak = std::max(anon_at_peak, anonymous_kib()); }

int child(const std::string& mode, const std::string& name, bool payloads, const char* path) {
    const competitor* c = find_competitor(name);
    if (!c) {
        std::fprintf(stderr, "unknown competitor %s\n", name.c_str());
        return 2;
    }
    struct stat st;
    if (::stat(path, &st) != 0) {
        std::fprintf(stderr, "%s: cannot stat\n", path);
        return 2;
    }
    if (mode == "cold") {
        const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
            ::close(fd);
        }
    }
    const std::uint64_t resident_before = mode == "cold" ? resident_bytes(path) : 0;
    const std::uint64_t anon_before = anonymous_kib();
    const std::uint64_t io_before = read_bytes();
    if (mode == "mem") peak_probe = probe;
    walk_result r;
    std::string err;
    std::vector<std::shared_ptr<void>> trees;  // destroyed after the clock stops
    kept_trees = &trees;
    const auto t0 = std::chrono::steady_clock::now();
    const bool ok = c->open_walk(path, payloads, r, err);
    const auto t1 = std::chrono::steady_clock::now();
    kept_trees = nullptr;
    trees.clear();
    const std::uint64_t io_after = read_bytes();
    const std::uint64_t resident_after = mode == "cold" ? resident_bytes(path) : 0;
    const double seconds = std::chrono::duration<double>(t1 - t0).count();
    std::printf("RESULT {\"mode\":\"%s\",\"competitor\":\"%s\",\"payloads\":%d,\"path\":\"%s\","
                "\"ok\":%s,\"error\":\"%s\",\"seconds\":%.9f,\"file_bytes\":%llu,"
                "\"read_bytes\":%llu,\"resident_before\":%llu,\"resident_after\":%llu,"
                "\"anon_before_kib\":%llu,\"anon_peak_kib\":%llu,\"result\":\"%s\"}\n",
                mode.c_str(), c->name, payloads ? 1 : 0, path, ok ? "true" : "false", err.c_str(),
                seconds, (unsigned long long)st.st_size,
                (unsigned long long)(io_after - io_before), (unsigned long long)resident_before,
                (unsigned long long)resident_after, (unsigned long long)anon_before,
                (unsigned long long)anon_at_peak, r.str().c_str());
    return ok ? 0 : 1;
}

// ---------------------------------------------------------------------------
// In-process workloads.

struct model {
    std::string name;                        // meta, weights, ..., testdata, or a file name
    std::vector<std::string> paths;          // one file, or the whole testdata batch
    std::vector<onnxview::mapped_file> files;
    std::uint64_t bytes = 0;
};

std::vector<std::string> list_onnx(const std::string& dir) {
    std::vector<std::string> out;
    std::vector<std::string> todo = {dir};
    while (!todo.empty()) {
        const std::string d = todo.back();
        todo.pop_back();
        DIR* h = ::opendir(d.c_str());
        if (!h) continue;
        while (dirent* e = ::readdir(h)) {
            const std::string n = e->d_name;
            if (n == "." || n == "..") continue;
            const std::string p = d + "/" + n;
            struct stat st;
            if (::stat(p.c_str(), &st) != 0) continue;
            if (S_ISDIR(st.st_mode)) todo.push_back(p);
            else if (n.size() > 5 && n.compare(n.size() - 5, 5, ".onnx") == 0) out.push_back(p);
        }
        ::closedir(h);
    }
    std::sort(out.begin(), out.end());
    return out;
}

bool load(model& m) {
    for (const std::string& p : m.paths) {
        auto f = onnxview::mapped_file::open(p.c_str());
        if (!f) {
            std::fprintf(stderr, "# skip %s: %s\n", p.c_str(), onnxview::errc_name(f.err().code));
            return false;
        }
        // Warm: every workload here runs with the file's pages in memory.
        volatile char sink = 0;
        for (std::size_t i = 0; i < f->size(); i += 4096) sink = sink + f->data()[i];
        m.bytes += f->size();
        m.files.push_back(std::move(f).value());
    }
    return true;
}

bool walk_all(const model& m, walk_bytes_fn fn, bool payloads, walk_result& total, std::string& err) {
    for (const auto& f : m.files) {
        walk_result r;
        if (!fn(f.data(), f.size(), payloads, r, err)) return false;
        total.add(r);
    }
    return true;
}

// Not inlined, so that callgrind can collect in it alone (run.sh:
// --toggle-collect='*counted_walks*').
__attribute__((noinline)) bool counted_walks(const model& m, walk_bytes_fn fn, bool payloads, walk_result& r,
                                             std::string& err) {
    return walk_all(m, fn, payloads, r, err);
}

// --child=count: a walk of every file in counted_walks(); what a libprotobuf
// walk builds is destroyed outside it.
int count_child(const std::string& name, bool payloads, const std::vector<std::string>& paths) {
    const competitor* c = find_competitor(name);
    if (!c || paths.empty()) {
        std::fprintf(stderr, "--child=count needs a known competitor and at least one model\n");
        return 2;
    }
    model m;
    m.paths = paths;
    if (!load(m)) return 2;
    walk_result warm, r;
    std::string err;
    std::vector<std::shared_ptr<void>> trees;
    kept_trees = &trees;
    // The first walk is not counted: first touches of statics and pages.
    bool ok = walk_all(m, c->walk, payloads, warm, err);
    trees.clear();
    ok = ok && counted_walks(m, c->walk, payloads, r, err);
    kept_trees = nullptr;
    std::printf("RESULT {\"mode\":\"count\",\"competitor\":\"%s\",\"payloads\":%d,\"files\":%zu,"
                "\"bytes\":%llu,\"ok\":%s,\"error\":\"%s\",\"result\":\"%s\"}\n",
                c->name, payloads ? 1 : 0, m.files.size(), (unsigned long long)m.bytes, ok ? "true" : "false",
                err.c_str(), r.str().c_str());
    return ok ? 0 : 1;
}

bool open_all(const model& m, const competitor& c, walk_result& total, std::string& err) {
    for (const std::string& p : m.paths) {
        walk_result r;
        if (!c.open(p.c_str(), r, err)) return false;
        total.add(r);
    }
    return true;
}

// destroy/MODEL/COMPETITOR: destroying the trees of a metadata walk (the same
// trees as a full walk's: the parse does not depend on the walk), the parse
// and walk themselves untimed.
void register_destroy(const model& m, const competitor& c) {
    const std::string name = "destroy/" + m.name + "/" + c.name;
    const model* mm = &m;
    const competitor* cc = &c;
    auto* b = benchmark::RegisterBenchmark(name.c_str(), [mm, cc](benchmark::State& st) {
        std::string e;
        std::vector<std::shared_ptr<void>> trees;
        kept_trees = &trees;
        for (auto _ : st) {
            st.PauseTiming();
            walk_result res;
            if (!walk_all(*mm, cc->walk, false, res, e)) st.SkipWithError(e.c_str());
            benchmark::DoNotOptimize(res);
            st.ResumeTiming();
            trees.clear();
        }
        kept_trees = nullptr;
    });
    // A fixed count: Google Benchmark repeats a row until its timed part
    // reaches the minimum time, and the untimed parse of `packed` takes 100x
    // as long as its destruction (1,000 parses per repetition).
    b->Unit(benchmark::kMillisecond)->Iterations(5);
}

// Returns the number of mismatches (a competitor that disagrees with
// onnxview on a model it could read).
int register_workloads(std::vector<std::unique_ptr<model>>& models,
                       const std::vector<const competitor*>& comps, bool check_only) {
    int mismatches = 0;
    for (auto& mp : models) {
        model& m = *mp;
        // Reference results: onnxview's. Each competitor must agree before it is timed.
        struct ref_t {
            const char* workload;
            std::function<bool(const competitor&, walk_result&, std::string&)> run;
            walk_result ref;
            bool have = false;
        };
        std::vector<ref_t> refs = {
            {"open", [&m](const competitor& c, walk_result& r, std::string& e) { return open_all(m, c, r, e); }, {}},
            {"meta", [&m](const competitor& c, walk_result& r, std::string& e) { return walk_all(m, c.walk, false, r, e); }, {}},
            {"full", [&m](const competitor& c, walk_result& r, std::string& e) { return walk_all(m, c.walk, true, r, e); }, {}},
        };
        for (ref_t& w : refs) {
            for (const competitor* c : comps) {
                walk_result r;
                std::string err;
                std::vector<std::shared_ptr<void>> trees;
                kept_trees = &trees;
                const bool ok = w.run(*c, r, err);
                kept_trees = nullptr;
                const bool builds_trees = !trees.empty();
                trees.clear();
                if (!ok) {
                    std::printf("# check %s/%s/%s: FAILS: %s\n", w.workload, m.name.c_str(), c->name, err.c_str());
                    // --check-only: onnxview must read every model (peers may refuse some, unless --strict).
                    if (check_only && (strict_check || std::strncmp(c->name, "onnxview", 8) == 0)) ++mismatches;
                    continue;
                }
                if (!w.have) {
                    w.ref = r;
                    w.have = true;
                    std::printf("# check %s/%s: %s\n", w.workload, m.name.c_str(), r.str().c_str());
                } else if (r != w.ref) {
                    ++mismatches;
                    std::printf("# check %s/%s/%s: MISMATCH: %s\n", w.workload, m.name.c_str(), c->name, r.str().c_str());
                    continue;
                }
                const std::string name = std::string(w.workload) + "/" + m.name + "/" + c->name;
                const model* mm = &m;
                const competitor* cc = c;
                const std::string workload = w.workload;
                // The trees a walk builds (libprotobuf's messages) are destroyed
                // outside the timed region: their destruction has its own row.
                auto* b = benchmark::RegisterBenchmark(name.c_str(), [mm, cc, workload](benchmark::State& st) {
                    std::string e;
                    std::vector<std::shared_ptr<void>> trees;
                    kept_trees = &trees;
                    for (auto _ : st) {
                        walk_result res;
                        bool ok2;
                        if (workload == "open") ok2 = open_all(*mm, *cc, res, e);
                        else ok2 = walk_all(*mm, cc->walk, workload == "full", res, e);
                        if (!ok2) st.SkipWithError(e.c_str());
                        benchmark::DoNotOptimize(res);
                        if (!trees.empty()) {
                            st.PauseTiming();
                            trees.clear();
                            st.ResumeTiming();
                        }
                    }
                    kept_trees = nullptr;
                    st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations() * mm->bytes));
                });
                b->Unit(benchmark::kMillisecond);
                if (workload == "meta" && builds_trees) register_destroy(m, *c);
            }
        }
        // graph.name() read inside the node loop: must stay linear.
        if (m.files.size() == 1) {
            const onnxview::mapped_file* f = &m.files[0];
            for (bool with_name : {false, true}) {
                const std::string name = std::string("graph_name_loop/") + m.name + (with_name ? "/with_name" : "/without_name");
                benchmark::RegisterBenchmark(name.c_str(), [f, with_name](benchmark::State& st) {
                    const onnxview::graph_view g = onnxview::parse_model(f->data(), f->size()).graph();
                    std::size_t nodes = 0;
                    for (auto _ : st) {
                        std::size_t acc = 0;
                        nodes = 0;
                        for (const onnxview::node_view& n : g.node()) {
                            acc += n.op_type().size();
                            if (with_name) acc += g.name().size();
                            ++nodes;
                        }
                        benchmark::DoNotOptimize(acc);
                    }
                    st.counters["nodes"] = static_cast<double>(nodes);
                    st.counters["ns_per_node"] = benchmark::Counter(
                        static_cast<double>(nodes), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
                })->Unit(benchmark::kMillisecond);
            }
        }
    }
    if (mismatches) std::printf("# check: %d MISMATCHES\n", mismatches);
    return mismatches;
}

std::string base_name(const std::string& p) {
    std::string b = p.substr(p.find_last_of('/') + 1);
    if (b.size() > 5 && b.compare(b.size() - 5, 5, ".onnx") == 0) b.resize(b.size() - 5);
    return b;
}

}  // namespace
}  // namespace bench

int main(int argc, char** argv) {
    using namespace bench;
    std::string models_dir, testdata_dir, child_mode, child_comp, only;
    std::vector<std::string> testdata_dirs;  // --testdata may be repeated
    bool payloads = false, check_only = false;
    std::vector<std::string> extra;
    std::vector<char*> rest = {argv[0]};
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto opt = [&a](const char* key, std::string& out) {
            const std::size_t n = std::strlen(key);
            if (a.compare(0, n, key) != 0) return false;
            out = a.substr(n);
            return true;
        };
        std::string v;
        if (opt("--testdata=", testdata_dir)) {
            testdata_dirs.push_back(testdata_dir);
            continue;
        }
        if (opt("--models=", models_dir) || opt("--child=", child_mode) ||
            opt("--competitor=", child_comp) || opt("--models-only=", only) ||
            opt("--competitors=", competitor_filter))
            continue;
        if (a == "--check-only") {
            check_only = true;
            continue;
        }
        if (a == "--strict") {
            strict_check = true;
            continue;
        }
        if (opt("--payloads=", v)) {
            payloads = v == "1";
            continue;
        }
        if (a.compare(0, 2, "--") == 0) rest.push_back(argv[i]);
        else extra.push_back(a);
    }
    if (argc == 2 && std::strcmp(argv[1], "--list-competitors") == 0) {
        for (const competitor* c : all_competitors()) std::printf("%s\n", c->name);
        return 0;
    }
    if (child_mode == "count") {
        std::vector<std::string> paths = extra;
        for (const std::string& d : testdata_dirs) {
            const auto files = list_onnx(d);
            paths.insert(paths.end(), files.begin(), files.end());
        }
        return count_child(child_comp, payloads, paths);
    }
    if (!child_mode.empty()) {
        if (extra.size() != 1) {
            std::fprintf(stderr, "--child needs one model path\n");
            return 2;
        }
        return child(child_mode, child_comp, payloads, extra[0].c_str());
    }

    std::vector<std::unique_ptr<model>> models;
    auto add = [&models, &only](const std::string& name, std::vector<std::string> paths) {
        if (!only.empty() && ("," + only + ",").find("," + name + ",") == std::string::npos) return;
        auto m = std::make_unique<model>();
        m->name = name;
        m->paths = std::move(paths);
        if (load(*m)) models.push_back(std::move(m));
    };
    if (!models_dir.empty()) {
        for (const char* n : {"meta", "weights", "packed", "huge"}) {
            const std::string p = models_dir + "/" + n + ".onnx";
            struct stat st;
            if (::stat(p.c_str(), &st) == 0) add(n, {p});
        }
    }
    std::vector<std::string> testdata_files;
    for (const std::string& d : testdata_dirs) {
        const auto files = list_onnx(d);
        testdata_files.insert(testdata_files.end(), files.begin(), files.end());
    }
    if (check_only) {
        for (const std::string& p : testdata_files) add(p, {p});  // model by model
    } else if (!testdata_files.empty()) {
        add("testdata", testdata_files);
    }
    for (const std::string& p : extra) add(base_name(p), {p});

    int rc = static_cast<int>(rest.size());
    benchmark::Initialize(&rc, rest.data());
    if (benchmark::ReportUnrecognizedArguments(rc, rest.data())) return 1;
    const int mismatches = register_workloads(models, all_competitors(), check_only);
    std::fflush(stdout);
    if (check_only) {
        std::printf("%s\n", mismatches ? "DISAGREE" : "agree");
        return models.empty() ? 77 : mismatches ? 1 : 0;
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
