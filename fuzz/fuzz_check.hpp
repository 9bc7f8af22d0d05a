// fuzz/fuzz_check.hpp - contract checks for fuzz targets.
//
// FUZZ_CHECK stays on in release builds (unlike assert): a broken contract
// prints what was expected and aborts, which libFuzzer reports as a crash and
// saves the input, and which fails the corpus replay test.
#ifndef ONNXVIEW_FUZZ_CHECK_HPP
#define ONNXVIEW_FUZZ_CHECK_HPP

#include <cstdio>
#include <cstdlib>
#include <string>

#define FUZZ_CHECK(cond)                                                                    \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            std::fprintf(stderr, "%s:%d: contract broken: %s\n", __FILE__, __LINE__, #cond); \
            std::abort();                                                                   \
        }                                                                                   \
    } while (0)

// A JSON report written whole: brackets balanced, strings closed, no raw
// control byte but the newlines between tokens.
inline void fuzz_check_json_nesting(const std::string& json) {
    int depth = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < json.size(); ++i) {
        const char c = json[i];
        FUZZ_CHECK(static_cast<unsigned char>(c) >= 0x20 || (c == '\n' && !in_string));
        if (in_string) {
            if (c == '\\') ++i;
            else if (c == '"') in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            FUZZ_CHECK(depth > 0);
            --depth;
        }
    }
    FUZZ_CHECK(depth == 0 && !in_string);
}

#endif  // ONNXVIEW_FUZZ_CHECK_HPP
