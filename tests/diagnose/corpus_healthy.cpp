// No false positives: every model shipped in testdata/ and every model of
// Debian's libonnx-testdata corpus is diagnosed as a valid ONNX model.
// Usage: corpus_healthy TESTDATA_DIR CORPUS_DIR. Exit 77 (skipped) when
// CORPUS_DIR does not exist; 1 naming each model diagnosed otherwise.
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "onnxview/diagnose.hpp"
#include "onnxview/file.hpp"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: corpus_healthy TESTDATA_DIR CORPUS_DIR\n");
        return 2;
    }
    std::error_code ec;
    if (!fs::is_directory(argv[2], ec)) {
        std::printf("skipped: %s absent (Debian package libonnx-testdata)\n", argv[2]);
        return 77;
    }
    std::vector<std::string> models;
    for (const char* dir : {argv[1], argv[2]})
        for (const auto& e : fs::recursive_directory_iterator(dir))
            if (e.is_regular_file() && e.path().extension() == ".onnx") models.push_back(e.path().string());
    std::size_t bad = 0;
    for (const std::string& path : models) {
        auto f = onnxview::mapped_file::open(path.c_str());
        if (!f) {
            std::printf("FAIL: %s: cannot open\n", path.c_str());
            ++bad;
            continue;
        }
        const onnxview::diagnosis d = onnxview::diagnose(f->data(), f->size());
        if (!d.healthy()) {
            std::printf("FAIL: %s: %s: %s\n", path.c_str(), onnxview::diagnosis_kind_name(d.kind), d.line);
            ++bad;
        }
    }
    std::printf("%zu models, %zu not diagnosed as valid ONNX models\n", models.size(), bad);
    return bad == 0 && models.size() > 1000 ? 0 : 1;
}
