// options::memory hooks over malloc that count what is outstanding without
// allocating themselves (so the global operator new can be counted
// meanwhile, new_counter.hpp), and can be told to fail from the n-th request
// on.
#ifndef ONNXVIEW_TESTS_TALLY_MEMORY_HPP
#define ONNXVIEW_TESTS_TALLY_MEMORY_HPP

#include <cstddef>
#include <cstdlib>

#include "onnxview/options.hpp"

namespace onnxview_test {

struct tally_memory {
    std::size_t requests = 0, live_blocks = 0, live_bytes = 0;
    std::size_t fail_from = ~std::size_t(0);

    onnxview::allocator hooks() {
        onnxview::allocator a;
        a.allocate = [](void* user, std::size_t size, std::size_t) -> void* {
            auto& t = *static_cast<tally_memory*>(user);
            if (t.requests++ >= t.fail_from) return nullptr;
            ++t.live_blocks;
            t.live_bytes += size;
            return std::malloc(size);
        };
        a.deallocate = [](void* user, void* p, std::size_t size, std::size_t) {
            auto& t = *static_cast<tally_memory*>(user);
            --t.live_blocks;
            t.live_bytes -= size;
            std::free(p);
        };
        a.user_data = this;
        return a;
    }
};

}  // namespace onnxview_test

#endif  // ONNXVIEW_TESTS_TALLY_MEMORY_HPP
