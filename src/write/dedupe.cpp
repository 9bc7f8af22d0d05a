// Shared external ranges for repeated payloads (dedupe.hpp).
#include "dedupe.hpp"

#include <cstring>

#include "tensor_walk.hpp"

namespace onnxview {
namespace detail {

namespace {

// A 64-bit hash eight bytes at a time (a multiply-xorshift mix): only to
// find candidates, which are then compared byte for byte.
std::uint64_t hash_bytes(std::string_view b) noexcept {
    std::uint64_t h = 0x9E3779B97F4A7C15ull ^ b.size();
    std::size_t i = 0;
    for (; i + 8 <= b.size(); i += 8) {
        std::uint64_t w;
        std::memcpy(&w, b.data() + i, 8);
        h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
        h ^= h >> 31;
    }
    for (; i < b.size(); ++i) h = (h ^ static_cast<std::uint8_t>(b[i])) * 0x94D049BB133111EBull;
    return h ^ (h >> 29);
}

}  // namespace

std::uint64_t dedupe_table::first_pass(const tensor_view& t, std::string_view bytes) noexcept {
    const std::uint64_t h = hash_bytes(bytes);
    std::uint64_t found = none;
    for (const entry& e : seen_) {
        if (e.hash == h && e.bytes.size() == bytes.size() && e.tensor.data_type() == t.data_type() &&
            tensor_walk::same_dims(e.tensor, t) && std::memcmp(e.bytes.data(), bytes.data(), bytes.size()) == 0) {
            found = e.number;
            break;
        }
    }
    const std::uint64_t number = shared_with_.size();
    shared_with_.push_back(found);
    offsets_.push_back(0);
    if (found == none) seen_.push_back({h, number, t, bytes});
    return found;
}

}  // namespace detail
}  // namespace onnxview
