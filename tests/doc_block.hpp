// tests/doc_block.hpp - the code between two marker lines of a file, so that a
// test can check that a documentation page shows exactly the example it
// compiles (README.md, docs/*.md).
#ifndef ONNXVIEW_TESTS_DOC_BLOCK_HPP
#define ONNXVIEW_TESTS_DOC_BLOCK_HPP

#include <fstream>
#include <sstream>
#include <string>

namespace onnxview {
namespace testing {

// The text after the line `marker_begin` (e.g. "// BEGIN MODEL EXAMPLE") up to
// `marker_end` in the file at `path`; a message naming the file when either
// marker is missing (so that a comparison with it fails and says why).
inline std::string doc_block(const std::string& path, const std::string& marker_begin,
                             const std::string& marker_end) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    const std::string begin = marker_begin + "\n";
    const auto b = text.find(begin);
    const auto e = text.find(marker_end);
    if (b == std::string::npos || e == std::string::npos || e < b) return "(markers missing in " + path + ")";
    return text.substr(b + begin.size(), e - b - begin.size());
}

}  // namespace testing
}  // namespace onnxview

#endif  // ONNXVIEW_TESTS_DOC_BLOCK_HPP
