// A test helper: prints a message file as text (as protoc --decode) or JSON.
//   text_decode [--json] [--release 1.12] [--max-bytes N] TYPE FILE
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "onnxview/json_format.hpp"
#include "onnxview/text_format.hpp"

static void to_stdout(void*, const char* d, std::size_t n) { std::fwrite(d, 1, n, stdout); }

int main(int argc, char** argv) {
    bool json = false;
    onnxview::options opt;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; ++i) {
        if (!std::strcmp(argv[i], "--json")) json = true;
        else if (!std::strcmp(argv[i], "--release") && i + 1 < argc) {
            unsigned a = 0, b = 0, c = 0;
            std::sscanf(argv[++i], "%u.%u.%u", &a, &b, &c);
            opt.release = onnxview::schema::release(a, b, c);
        } else if (!std::strcmp(argv[i], "--max-bytes") && i + 1 < argc) {
            opt.max_printed_bytes = std::strtoull(argv[++i], nullptr, 10);
        }
    }
    if (argc - i != 2) {
        std::fprintf(stderr, "usage: text_decode [--json] [--release X.Y] TYPE FILE\n");
        return 2;
    }
    const auto* m = onnxview::schema::find_message(argv[i]);
    if (!m) {
        std::fprintf(stderr, "unknown type %s\n", argv[i]);
        return 2;
    }
    std::FILE* f = std::fopen(argv[i + 1], "rb");
    if (!f) return 2;
    std::vector<char> buf;
    char tmp[65536];
    std::size_t n;
    while ((n = std::fread(tmp, 1, sizeof tmp, f)) > 0) buf.insert(buf.end(), tmp, tmp + n);
    std::fclose(f);
    onnxview::output_sink sink{to_stdout, nullptr};
    const onnxview::error e = json ? onnxview::print_json(buf.data(), buf.size(), *m, sink, opt)
                                   : onnxview::print_text(buf.data(), buf.size(), *m, sink, opt);
    if (e) {
        std::fprintf(stderr, "error: %s at byte %llu\n", onnxview::errc_name(e.code),
                     static_cast<unsigned long long>(e.offset));
        return 1;
    }
    return 0;
}
