// fuzz/fuzz_check.hpp - contract checks for fuzz targets.
//
// FUZZ_CHECK stays on in release builds (unlike assert): a broken contract
// prints what was expected and aborts, which libFuzzer reports as a crash and
// saves the input, and which fails the corpus replay test.
#ifndef ONNXVIEW_FUZZ_CHECK_HPP
#define ONNXVIEW_FUZZ_CHECK_HPP

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond)                                                                    \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            std::fprintf(stderr, "%s:%d: contract broken: %s\n", __FILE__, __LINE__, #cond); \
            std::abort();                                                                   \
        }                                                                                   \
    } while (0)

#endif  // ONNXVIEW_FUZZ_CHECK_HPP
