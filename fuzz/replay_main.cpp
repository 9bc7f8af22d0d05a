// fuzz/replay_main.cpp - runs a fuzz target over files, without libFuzzer.
//
// Linked instead of libFuzzer when the compiler is not clang (or fuzzing is
// not enabled), so every `meson test` replays the committed corpus through
// the same LLVMFuzzerTestOneInput the fuzzer drives. Arguments are files or
// directories (whose regular files are replayed in name order, so a failure
// is reproducible). A target signals a broken contract by aborting; this
// program then dies with it, which is what the test harness reports.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <dirent.h>
#include <sys/stat.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) __attribute__((weak));

namespace {

bool is_directory(const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::vector<std::string> list_files(const std::string& dir) {
    std::vector<std::string> out;
    if (DIR* d = ::opendir(dir.c_str())) {
        while (const dirent* e = ::readdir(d)) {
            const std::string name = e->d_name;
            if (name == "." || name == "..") continue;
            const std::string path = dir + "/" + name;
            if (!is_directory(path)) out.push_back(path);
        }
        ::closedir(d);
    }
    std::sort(out.begin(), out.end());
    return out;
}

bool run_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "replay: cannot read %s\n", path.c_str());
        return false;
    }
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // A copy in a buffer of exactly the input's size, so that ASan sees any
    // read past the end (as libFuzzer arranges it).
    std::vector<std::uint8_t> exact(bytes.begin(), bytes.end());
    LLVMFuzzerTestOneInput(exact.empty() ? nullptr : exact.data(), exact.size());
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
    std::size_t ran = 0;
    bool ok = true;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (!arg.empty() && arg[0] == '-') continue;  // libFuzzer flags: ignored here
        if (is_directory(arg)) {
            for (const std::string& f : list_files(arg)) {
                ok = run_file(f) && ok;
                ++ran;
            }
        } else {
            ok = run_file(arg) && ok;
            ++ran;
        }
    }
    std::printf("replay: %zu inputs\n", ran);
    return ok && ran > 0 ? 0 : 1;
}
