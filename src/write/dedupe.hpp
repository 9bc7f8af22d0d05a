// Internal: pack_options::dedupe. An external payload that repeats an
// earlier one (same data type, dims and bytes) shares the earlier one's
// range of the external file instead of being written again; onnx.load and
// onnxruntime read each tensor's range on its own, so shared ranges are
// fine to them (tests/oracle/pack_oracle.py runs such models).
#ifndef ONNXVIEW_SRC_WRITE_DEDUPE_HPP
#define ONNXVIEW_SRC_WRITE_DEDUPE_HPP

#include <cstdint>
#include <string_view>
#include <vector>

#include "../io/heap.hpp"
#include "onnxview/model.hpp"

namespace onnxview {
namespace detail {

class dedupe_table {
public:
    static constexpr std::uint64_t none = ~std::uint64_t(0);

    explicit dedupe_table(const heap& memory) noexcept
        : seen_(heap_allocator<entry>(memory)), shared_with_(heap_allocator<std::uint64_t>(memory)),
          offsets_(heap_allocator<std::uint64_t>(memory)) {}

    // The first pass: which earlier external payload (by its number, in
    // walk order) `bytes` of t repeats, or none; either way t becomes
    // payload number `count()` and is remembered. Linear in the bytes.
    std::uint64_t first_pass(const tensor_view& t, std::string_view bytes) noexcept;
    // Later passes: what the first pass found for payload `number`.
    std::uint64_t shared_with(std::uint64_t number) const noexcept { return shared_with_[number]; }
    std::uint64_t count() const noexcept { return shared_with_.size(); }
    // The offset payload `number` was given in this pass (set_offset).
    std::uint64_t offset(std::uint64_t number) const noexcept { return offsets_[number]; }
    void set_offset(std::uint64_t number, std::uint64_t offset) noexcept { offsets_[number] = offset; }

private:
    struct entry {
        std::uint64_t hash;
        std::uint64_t number;
        tensor_view tensor;
        std::string_view bytes;
    };
    std::vector<entry, heap_allocator<entry>> seen_;
    std::vector<std::uint64_t, heap_allocator<std::uint64_t>> shared_with_;
    std::vector<std::uint64_t, heap_allocator<std::uint64_t>> offsets_;
};

}  // namespace detail
}  // namespace onnxview

#endif  // ONNXVIEW_SRC_WRITE_DEDUPE_HPP
