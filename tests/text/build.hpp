// Tiny wire-format builders for the text tests (test-only; allocates).
#ifndef ONNXVIEW_TESTS_TEXT_BUILD_HPP
#define ONNXVIEW_TESTS_TEXT_BUILD_HPP

#include <cstdint>
#include <cstring>
#include <string>

namespace tb {

inline std::string varint(std::uint64_t v) {
    std::string out;
    do {
        unsigned char b = v & 0x7f;
        v >>= 7;
        if (v) b |= 0x80;
        out.push_back(static_cast<char>(b));
    } while (v);
    return out;
}
inline std::string tag(std::uint32_t n, unsigned wt) { return varint((std::uint64_t(n) << 3) | wt); }
inline std::string V(std::uint32_t n, std::uint64_t v) { return tag(n, 0) + varint(v); }
inline std::string L(std::uint32_t n, const std::string& b) { return tag(n, 2) + varint(b.size()) + b; }
inline std::string F32bits(std::uint32_t n, std::uint32_t bits) {
    std::string s = tag(n, 5);
    for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
    return s;
}
inline std::string F32(std::uint32_t n, float x) {
    std::uint32_t b;
    std::memcpy(&b, &x, 4);
    return F32bits(n, b);
}
inline std::string F64bits(std::uint32_t n, std::uint64_t bits) {
    std::string s = tag(n, 1);
    for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
    return s;
}
inline std::string F64(std::uint32_t n, double x) {
    std::uint64_t b;
    std::memcpy(&b, &x, 8);
    return F64bits(n, b);
}
inline std::string G(std::uint32_t n, const std::string& body) { return tag(n, 3) + body + tag(n, 4); }
inline std::string S(const char* s) { return std::string(s); }
inline std::string S(const char* s, std::size_t n) { return std::string(s, n); }

}  // namespace tb

#endif
