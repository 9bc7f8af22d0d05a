// Internal: a streaming XXH3-128 state with the framing the digests of
// model_hash.hpp use. Every value is written with its kind (a one-byte tag)
// and its length, so two different sequences of values never give the same
// byte stream: a string "ab" then "c" is not "a" then "bc".
//
// Small writes gather in a buffer before they reach XXH3: a model's metadata
// is millions of tags, numbers and short names, and each XXH3 update call
// costs more than hashing its few bytes. XXH3's streaming digest does not
// depend on how the stream is cut, so the digests are the same.
#ifndef ONNXVIEW_SRC_COMPARE_HASHER_HPP
#define ONNXVIEW_SRC_COMPARE_HASHER_HPP

#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>

#include <xxhash.h>
#ifdef ONNXVIEW_XXH3_DISPATCH
// The XXH3 calls below become the library's dispatching ones (meson.build).
#include <xxh_x86dispatch.h>
#endif

#include "onnxview/compare/model_hash.hpp"

namespace onnxview {
namespace detail {

class hasher {
public:
    hasher() : state_(XXH3_createState()) { reset(); }
    void reset() noexcept {
        XXH3_128bits_reset(state_.get());
        used_ = 0;
    }

    void bytes(const void* data, std::size_t n) noexcept {
        if (n == 0) return;
        if (n > sizeof buffer_ - used_) {
            flush();
            if (n >= sizeof buffer_) {
                XXH3_128bits_update(state_.get(), data, n);
                return;
            }
        }
        std::memcpy(buffer_ + used_, data, n);
        used_ += n;
    }
    void tag(char t) noexcept { bytes(&t, 1); }
    void u64(std::uint64_t v) noexcept {
        unsigned char le[8];
        for (int i = 0; i < 8; ++i) le[i] = static_cast<unsigned char>(v >> (8 * i));
        bytes(le, 8);
    }
    void i64(std::int64_t v) noexcept { u64(static_cast<std::uint64_t>(v)); }
    // A float by its bits: -0 and 0, and NaN payloads, are different values.
    void f32(float f) noexcept {
        std::uint32_t bits;
        std::memcpy(&bits, &f, 4);
        u64(bits);
    }
    void str(std::string_view s) noexcept {
        u64(s.size());
        bytes(s.data(), s.size());
    }
    void digest(const digest128& d) noexcept {
        u64(d.high);
        u64(d.low);
    }
    digest128 result() noexcept {
        flush();
        const XXH128_hash_t h = XXH3_128bits_digest(state_.get());
        return {h.high64, h.low64};
    }

private:
    void flush() noexcept {
        if (used_ != 0) XXH3_128bits_update(state_.get(), buffer_, used_);
        used_ = 0;
    }
    struct state_free {
        void operator()(XXH3_state_t* s) const noexcept { XXH3_freeState(s); }
    };
    std::unique_ptr<XXH3_state_t, state_free> state_;
    unsigned char buffer_[1024];
    std::size_t used_ = 0;
};

}  // namespace detail
}  // namespace onnxview

#endif  // ONNXVIEW_SRC_COMPARE_HASHER_HPP
