// Internal to src/io: SHA-1 (FIPS 180-4), used only to check the `checksum`
// of external data files. Not a security primitive here: SHA-1 is broken
// for collision resistance; it detects corruption, not tampering.
#ifndef ONNXVIEW_SRC_IO_SHA1_HPP
#define ONNXVIEW_SRC_IO_SHA1_HPP

#include <cstddef>
#include <cstdint>

namespace onnxview {
namespace detail {

class sha1 {
public:
    static constexpr std::size_t digest_size = 20;

    sha1() noexcept { reset(); }
    void reset() noexcept;
    void update(const void* data, std::size_t size) noexcept;
    // Writes the 20-byte digest; the object must be reset() before reuse.
    void finish(std::uint8_t out[digest_size]) noexcept;

    // One-shot helper.
    static void digest(const void* data, std::size_t size, std::uint8_t out[digest_size]) noexcept;

private:
    void block(const std::uint8_t* p) noexcept;

    std::uint32_t h_[5];
    std::uint64_t length_;  // bytes hashed so far
    std::uint8_t buf_[64];
    std::size_t used_;
};

// Lower-case hex of a digest into out[0..40] (NUL-terminated).
void sha1_hex(const std::uint8_t digest[sha1::digest_size], char out[2 * sha1::digest_size + 1]) noexcept;

}  // namespace detail
}  // namespace onnxview

#endif  // ONNXVIEW_SRC_IO_SHA1_HPP
