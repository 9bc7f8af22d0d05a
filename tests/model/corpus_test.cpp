// The whole ONNX test corpus (Debian's libonnx-testdata): every model.onnx
// and every *.pb test data file is summarized by onnxview (summary.hpp) and
// compared with the python3-onnx oracle's summary, which
// tests/oracle/export_corpus.sh writes at test time.
//
//   model_corpus_tests [CORPUS_ROOT]
//
// Exit status 0 when every file matches, 1 on mismatches, 77 (meson's
// "skipped") when the corpus or /usr/bin/python3 with onnx is missing.
// Environment: ONNXVIEW_CORPUS overrides the corpus root;
// ONNXVIEW_CORPUS_KEEP=1 keeps the oracle's output directory.
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "summary.hpp"

#ifndef ONNXVIEW_SOURCE_DIR
#error "ONNXVIEW_SOURCE_DIR must name the source tree (set in tests/model/meson.build)"
#endif

using namespace onnxview_test;

namespace {

constexpr int exit_skip = 77;
constexpr std::size_t max_reported = 20;

std::vector<std::string>* g_files = nullptr;

bool ends_with(const std::string& s, const char* suffix) {
    const std::size_t n = std::char_traits<char>::length(suffix);
    return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

int collect(const char* path, const struct stat* st, int type, struct FTW*) {
    if (type != FTW_F || !S_ISREG(st->st_mode)) return 0;
    const std::string p = path;
    if (ends_with(p, "/model.onnx") || ends_with(p, ".pb")) g_files->push_back(p);
    return 0;
}

int remove_one(const char* p, const struct stat*, int, struct FTW*) { return ::remove(p); }

std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) {
        if (c == '\'') q += "'\\''";
        else q += c;
    }
    return q + "'";
}

bool is_dir(const std::string& p) {
    struct stat st;
    return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

int main(int argc, char** argv) {
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    std::string root = "/usr/share/libonnx-testdata";
    if (const char* env = std::getenv("ONNXVIEW_CORPUS")) root = env;
    if (argc > 1) root = argv[1];
    while (root.size() > 1 && root.back() == '/') root.pop_back();

    if (!is_dir(root)) {
        std::printf("SKIP: no ONNX test corpus at %s (Debian package libonnx-testdata)\n", root.c_str());
        return exit_skip;
    }
    if (::access("/usr/bin/python3", X_OK) != 0 ||
        std::system("/usr/bin/python3 -c 'import onnx, numpy' >/dev/null 2>&1") != 0) {
        std::printf("SKIP: /usr/bin/python3 with onnx and numpy is needed for the oracle "
                    "(Debian packages python3-onnx, python3-numpy)\n");
        return exit_skip;
    }

    std::vector<std::string> files;
    g_files = &files;
    if (::nftw(root.c_str(), collect, 32, FTW_PHYS) != 0 || files.empty()) {
        std::printf("SKIP: no model.onnx or *.pb files under %s\n", root.c_str());
        return exit_skip;
    }
    std::sort(files.begin(), files.end());

    char tmpl[] = "/tmp/onnxview-corpus-XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) {
        std::printf("FAIL: cannot create a temporary directory\n");
        return 1;
    }
    const std::string out_dir = tmpl;
    const bool keep = std::getenv("ONNXVIEW_CORPUS_KEEP") != nullptr;
    struct cleanup {
        std::string dir;
        bool keep;
        ~cleanup() {
            if (!keep) ::nftw(dir.c_str(), remove_one, 32, FTW_DEPTH | FTW_PHYS);
        }
    } cleaner{out_dir, keep};

    const std::string script = std::string(ONNXVIEW_SOURCE_DIR) + "/tests/oracle/export_corpus.sh";
    const std::string cmd = "/bin/sh " + shell_quote(script) + " " + shell_quote(out_dir) + " " +
                            shell_quote(root) + " >/dev/null";
    if (std::system(cmd.c_str()) != 0) {
        std::printf("FAIL: the oracle failed: %s\n", cmd.c_str());
        return 1;
    }
    const auto t1 = clock::now();

    std::size_t compared = 0, matched = 0, missing = 0, models = 0, pbs = 0;
    std::vector<std::string> reports;
    for (const std::string& path : files) {
        const std::string rel = path.substr(root.size() + 1);
        std::string expected;
        if (!read_file(out_dir + "/" + rel + ".summary", expected)) {
            ++missing;
            if (reports.size() < max_reported) reports.push_back(rel + ": no oracle summary");
            continue;
        }
        ++compared;
        (ends_with(path, ".pb") ? pbs : models)++;
        const std::string actual = summarize_file(path);
        const summary_diff d = compare_summaries(expected, actual);
        if (d.equal) {
            ++matched;
        } else if (reports.size() < max_reported) {
            reports.push_back(rel + ": " + d.describe());
        }
    }
    const auto t2 = clock::now();
    auto secs = [](clock::duration d) { return std::chrono::duration<double>(d).count(); };

    std::printf("corpus %s: %zu files (%zu model.onnx, %zu .pb) compared, %zu match, %zu differ, "
                "%zu without oracle summary (oracle %.1f s, onnxview %.1f s)\n",
                root.c_str(), compared, models, pbs, matched, compared - matched, missing,
                secs(t1 - t0), secs(t2 - t1));
    for (const std::string& r : reports) std::printf("MISMATCH %s\n", r.c_str());
    if (compared - matched + missing > reports.size())
        std::printf("... %zu more not shown\n", compared - matched + missing - reports.size());
    if (keep) std::printf("oracle summaries kept in %s\n", out_dir.c_str());
    return matched == compared && missing == 0 ? 0 : 1;
}
