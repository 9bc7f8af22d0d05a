// An allocator for options::memory that records every block it hands out,
// checks that each comes back once with the size and alignment it was asked
// for, and can be told to fail from the n-th request on.
#ifndef ONNXVIEW_TESTS_IO_COUNTING_ALLOCATOR_HPP
#define ONNXVIEW_TESTS_IO_COUNTING_ALLOCATOR_HPP

#include <cstddef>
#include <cstdlib>
#include <map>
#include <utility>

#include "onnxview/options.hpp"

namespace onnxview_test {

class counting_allocator {
public:
    static constexpr std::size_t never = ~std::size_t(0);

    // The hooks to put in options::memory (valid while this object lives).
    onnxview::allocator hooks() noexcept {
        onnxview::allocator a;
        a.allocate = &allocate;
        a.deallocate = &deallocate;
        a.user_data = this;
        return a;
    }
    void fail_from(std::size_t request) noexcept { fail_from_ = request; }

    std::size_t requests() const noexcept { return requests_; }
    std::size_t outstanding() const noexcept { return live_.size(); }
    // No block given back twice, unknown, or with another size or alignment.
    bool consistent() const noexcept { return consistent_; }

private:
    static void* allocate(void* user, std::size_t size, std::size_t alignment) {
        auto& self = *static_cast<counting_allocator*>(user);
        if (self.requests_++ >= self.fail_from_) return nullptr;
        void* p = std::malloc(size);
        if (p != nullptr) self.live_[p] = {size, alignment};
        return p;
    }
    static void deallocate(void* user, void* p, std::size_t size, std::size_t alignment) {
        auto& self = *static_cast<counting_allocator*>(user);
        const auto it = self.live_.find(p);
        if (it == self.live_.end() || it->second != std::make_pair(size, alignment)) {
            self.consistent_ = false;
            return;
        }
        self.live_.erase(it);
        std::free(p);
    }

    std::map<void*, std::pair<std::size_t, std::size_t>> live_;
    std::size_t requests_ = 0;
    std::size_t fail_from_ = never;
    bool consistent_ = true;
};

}  // namespace onnxview_test

#endif  // ONNXVIEW_TESTS_IO_COUNTING_ALLOCATOR_HPP
