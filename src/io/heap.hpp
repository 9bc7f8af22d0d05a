// Internal: the caller's allocator (options::memory), or malloc and free when
// it sets none, for the layers that allocate (io, open, check). heap itself
// throws nothing: allocate() returns null when memory runs out.
// heap_allocator<T> puts standard containers on a heap (the checker's name
// sets, paths and messages).
#ifndef ONNXVIEW_SRC_IO_HEAP_HPP
#define ONNXVIEW_SRC_IO_HEAP_HPP

#include <cstddef>
#include <limits>
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

// A standard-library allocator over a heap. A container cannot take "no
// memory" for an answer: when the heap returns null, heap_allocator throws
// std::bad_alloc where exceptions are enabled and aborts where they are not,
// as std::allocator does. Not default-constructible, so that every container
// says which heap it uses.
[[noreturn]] void out_of_memory();

template <class T>
class heap_allocator {
public:
    using value_type = T;

    explicit heap_allocator(const heap& h) noexcept : heap_(h) {}
    template <class U>
    heap_allocator(const heap_allocator<U>& other) noexcept : heap_(other.source()) {}

    T* allocate(std::size_t n) {
        if (n > std::numeric_limits<std::size_t>::max() / sizeof(T)) out_of_memory();
        void* p = heap_.allocate(n * sizeof(T), alignof(T));
        if (p == nullptr) out_of_memory();
        return static_cast<T*>(p);
    }
    void deallocate(T* p, std::size_t n) noexcept { heap_.deallocate(p, n * sizeof(T), alignof(T)); }

    const heap& source() const noexcept { return heap_; }
    template <class U>
    bool operator==(const heap_allocator<U>& o) const noexcept {
        const allocator& a = heap_.hooks();
        const allocator& b = o.source().hooks();
        return a.allocate == b.allocate && a.deallocate == b.deallocate && a.user_data == b.user_data;
    }
    template <class U>
    bool operator!=(const heap_allocator<U>& o) const noexcept { return !(*this == o); }

private:
    heap heap_;
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
