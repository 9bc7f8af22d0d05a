// Internal: the caller's allocator (options::memory), or malloc and free when
// it sets none, for the layers that allocate (io, open). No
// exceptions: allocate() returns null when memory runs out.
#ifndef ONNXVIEW_SRC_IO_HEAP_HPP
#define ONNXVIEW_SRC_IO_HEAP_HPP

#include <cstddef>
#include <string_view>

#include "onnxview/options.hpp"

namespace onnxview {
namespace detail {

class heap {
public:
    static constexpr std::size_t default_alignment = alignof(std::max_align_t);

    heap() noexcept = default;
    explicit heap(const allocator& hooks) noexcept
        : hooks_(hooks.allocate != nullptr && hooks.deallocate != nullptr ? hooks : allocator{}) {}

    // Alignments above default_alignment need the caller's allocator.
    void* allocate(std::size_t size, std::size_t alignment = default_alignment) const noexcept;
    void deallocate(void* p, std::size_t size, std::size_t alignment = default_alignment) const noexcept;

    // A NUL-terminated copy of s, or null; give it back with free_string.
    char* copy_string(std::string_view s) const noexcept;
    void free_string(char* s, std::size_t length) const noexcept { deallocate(s, length + 1); }

    const allocator& hooks() const noexcept { return hooks_; }
    bool uses_malloc() const noexcept { return hooks_.allocate == nullptr; }

private:
    allocator hooks_{};
};

// Owns a NUL-terminated string made by a heap (copy_string, join_path) and
// gives it back when it goes out of scope.
class owned_string {
public:
    owned_string(const heap& h, char* s) noexcept : heap_(h), s_(s) {}
    ~owned_string();
    owned_string(const owned_string&) = delete;
    owned_string& operator=(const owned_string&) = delete;
    char* get() const noexcept { return s_; }

private:
    heap heap_;
    char* s_;
};

}  // namespace detail
}  // namespace onnxview

#endif  // ONNXVIEW_SRC_IO_HEAP_HPP
