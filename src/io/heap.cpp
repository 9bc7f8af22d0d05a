// The allocator of options::memory, with malloc and free as the default.
#include "heap.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

#include "onnxview/error.hpp"

namespace onnxview {
namespace detail {

void* heap::allocate(std::size_t size, std::size_t alignment) const noexcept {
    if (size == 0) size = 1;  // a distinct pointer, as malloc(0) may not give
    if (hooks_.allocate != nullptr) return hooks_.allocate(hooks_.user_data, size, alignment);
    ONNXVIEW_ASSERT(alignment <= default_alignment, "an over-aligned allocation needs options::memory");
    return std::malloc(size);
}

void heap::deallocate(void* p, std::size_t size, std::size_t alignment) const noexcept {
    if (p == nullptr) return;
    if (size == 0) size = 1;
    if (hooks_.deallocate != nullptr) {
        hooks_.deallocate(hooks_.user_data, p, size, alignment);
        return;
    }
    std::free(p);
}

char* heap::copy_string(std::string_view s) const noexcept {
    char* p = static_cast<char*>(allocate(s.size() + 1));
    if (p == nullptr) return nullptr;
    if (!s.empty()) std::memcpy(p, s.data(), s.size());
    p[s.size()] = '\0';
    return p;
}

void out_of_memory() {
#if ONNXVIEW_HAS_EXCEPTIONS
    throw std::bad_alloc();
#else
    std::abort();
#endif
}

owned_string::~owned_string() {
    if (s_ != nullptr) heap_.free_string(s_, std::strlen(s_));
}

}  // namespace detail
}  // namespace onnxview
