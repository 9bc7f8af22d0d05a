// SHA-1 as specified in FIPS 180-4, section 6.1. Portable and byte-oriented:
// it hashes external data files at memory speed and needs no alignment.
#include "sha1.hpp"

#include <cstring>

namespace onnxview {
namespace detail {

namespace {
inline std::uint32_t rol(std::uint32_t x, int n) noexcept { return (x << n) | (x >> (32 - n)); }
}  // namespace

void sha1::reset() noexcept {
    h_[0] = 0x67452301u;
    h_[1] = 0xEFCDAB89u;
    h_[2] = 0x98BADCFEu;
    h_[3] = 0x10325476u;
    h_[4] = 0xC3D2E1F0u;
    length_ = 0;
    used_ = 0;
}

void sha1::block(const std::uint8_t* p) noexcept {
    std::uint32_t w[80];
    for (int i = 0; i < 16; ++i) {
        w[i] = (std::uint32_t(p[4 * i]) << 24) | (std::uint32_t(p[4 * i + 1]) << 16) |
               (std::uint32_t(p[4 * i + 2]) << 8) | std::uint32_t(p[4 * i + 3]);
    }
    for (int i = 16; i < 80; ++i) w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    std::uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3], e = h_[4];
    for (int i = 0; i < 80; ++i) {
        std::uint32_t f, k;
        if (i < 20) {
            f = (b & c) | (~b & d);
            k = 0x5A827999u;
        } else if (i < 40) {
            f = b ^ c ^ d;
            k = 0x6ED9EBA1u;
        } else if (i < 60) {
            f = (b & c) | (b & d) | (c & d);
            k = 0x8F1BBCDCu;
        } else {
            f = b ^ c ^ d;
            k = 0xCA62C1D6u;
        }
        const std::uint32_t t = rol(a, 5) + f + e + k + w[i];
        e = d;
        d = c;
        c = rol(b, 30);
        b = a;
        a = t;
    }
    h_[0] += a;
    h_[1] += b;
    h_[2] += c;
    h_[3] += d;
    h_[4] += e;
}

void sha1::update(const void* data, std::size_t size) noexcept {
    const auto* p = static_cast<const std::uint8_t*>(data);
    length_ += size;
    if (used_ != 0) {
        const std::size_t take = size < 64 - used_ ? size : 64 - used_;
        std::memcpy(buf_ + used_, p, take);
        used_ += take;
        p += take;
        size -= take;
        if (used_ < 64) return;
        block(buf_);
        used_ = 0;
    }
    for (; size >= 64; p += 64, size -= 64) block(p);
    if (size != 0) {
        std::memcpy(buf_, p, size);
        used_ = size;
    }
}

void sha1::finish(std::uint8_t out[digest_size]) noexcept {
    const std::uint64_t bits = length_ * 8;
    buf_[used_++] = 0x80;
    if (used_ > 56) {
        std::memset(buf_ + used_, 0, 64 - used_);
        block(buf_);
        used_ = 0;
    }
    std::memset(buf_ + used_, 0, 56 - used_);
    for (int i = 0; i < 8; ++i) buf_[56 + i] = std::uint8_t(bits >> (56 - 8 * i));
    block(buf_);
    used_ = 0;
    for (int i = 0; i < 5; ++i) {
        out[4 * i] = std::uint8_t(h_[i] >> 24);
        out[4 * i + 1] = std::uint8_t(h_[i] >> 16);
        out[4 * i + 2] = std::uint8_t(h_[i] >> 8);
        out[4 * i + 3] = std::uint8_t(h_[i]);
    }
}

void sha1::digest(const void* data, std::size_t size, std::uint8_t out[digest_size]) noexcept {
    sha1 s;
    s.update(data, size);
    s.finish(out);
}

void sha1_hex(const std::uint8_t digest[sha1::digest_size], char out[2 * sha1::digest_size + 1]) noexcept {
    static const char hex[] = "0123456789abcdef";
    for (std::size_t i = 0; i < sha1::digest_size; ++i) {
        out[2 * i] = hex[digest[i] >> 4];
        out[2 * i + 1] = hex[digest[i] & 15];
    }
    out[2 * sha1::digest_size] = '\0';
}

}  // namespace detail
}  // namespace onnxview
