// The global operator new and delete of a test program that counts
// allocations (new_counter.hpp): malloc and free, counted while counting is on.
#include "new_counter.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<bool> counting{false};
std::atomic<unsigned long> calls{0};
std::atomic<unsigned long long> bytes{0};

void* counted_malloc(std::size_t n) noexcept {
    if (counting.load()) {
        ++calls;
        bytes += n;
    }
    return std::malloc(n ? n : 1);
}
}  // namespace

namespace onnxview_test {
void count_new(bool on) noexcept { counting.store(on); }
unsigned long new_calls() noexcept { return calls.load(); }
unsigned long long new_bytes() noexcept { return bytes.load(); }
}  // namespace onnxview_test

// g++ 12 sees free() on memory from `new` once these are inlined into a
// new/delete pair and warns; here both sides are malloc/free by construction.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void* operator new(std::size_t n) {
    if (void* p = counted_malloc(n)) return p;
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS) || defined(_CPPUNWIND)
    throw std::bad_alloc();
#else
    std::abort();
#endif
}
void* operator new[](std::size_t n) { return operator new(n); }
// The nothrow forms too: every form that allocates must free with std::free.
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return counted_malloc(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return counted_malloc(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
