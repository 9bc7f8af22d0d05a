// Opening a model from memory allocates nothing: parse_model over the bytes,
// a walk through every node, attribute, tensor header, type, function and
// sparse tensor (fuzz/model_walk.hpp visits every accessor), every tensor's
// elements through tensor_data (ranges, spans, copy_to into a stack buffer,
// at()), sparse_data with its indices, and verify(). Every testdata/*.onnx.
//
// Counted: the replaceable global operator new/new[] (all forms) and, on
// glibc, malloc/calloc/realloc/aligned_alloc/posix_memalign/memalign, which
// this executable interposes and forwards to glibc's __libc_* entry points.
// Only calls made while `counting` is set are counted, so the test
// framework's own allocations do not show. Its own executable, because it
// replaces the global allocation functions.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "cursor_walk.hpp"
#include "model_walk.hpp"
#include "onnxview/diagnose.hpp"
#include "onnxview/external_data.hpp"
#include "onnxview/model.hpp"
#include "onnxview/sparse_data.hpp"
#include "onnxview/tensor_data.hpp"
#include "onnxview/verify.hpp"

namespace {

// A checksum term for any value, NaN and infinities included (casting them to
// an integer would be undefined behaviour).
std::uint64_t bits_of(double v) {
    std::uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    return b;
}

std::atomic<bool> counting{false};
std::atomic<unsigned long> allocations{0};

inline void count() noexcept {
    if (counting.load(std::memory_order_relaxed)) allocations.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

// ---- operator new, every replaceable form ---------------------------------
void* operator new(std::size_t n) {
    count();
    if (void* p = std::malloc(n ? n : 1)) return p;
    std::abort();  // this test never runs out of memory; works with -fno-exceptions
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    count();
    return std::malloc(n ? n : 1);
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

// ---- malloc and friends (glibc, dynamically linked) ------------------------
#if defined(__GLIBC__) && !defined(ONNXVIEW_NO_MALLOC_HOOKS)
#define ONNXVIEW_MALLOC_HOOKED 1
extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
void __libc_free(void*);

void* malloc(std::size_t n) {
    count();
    return __libc_malloc(n);
}
void* calloc(std::size_t n, std::size_t s) {
    count();
    return __libc_calloc(n, s);
}
void* realloc(void* p, std::size_t n) {
    count();
    return __libc_realloc(p, n);
}
void* memalign(std::size_t a, std::size_t n) {
    count();
    return __libc_memalign(a, n);
}
void* aligned_alloc(std::size_t a, std::size_t n) {
    count();
    return __libc_memalign(a, n);
}
int posix_memalign(void** out, std::size_t a, std::size_t n) {
    count();
    void* p = __libc_memalign(a, n);
    if (!p) return 12;  // ENOMEM
    *out = p;
    return 0;
}
void free(void* p) { __libc_free(p); }
}
#else
#define ONNXVIEW_MALLOC_HOOKED 0
#endif

using namespace onnxview;

namespace {

std::string read_file(const std::string& path) {
    std::string s;
    if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
        char buf[65536];
        for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) s.append(buf, n);
        std::fclose(f);
    }
    return s;
}

// EXTERNAL tensors read from a weights file loaded before the measured region
// (the io layer's file opening is not "from memory"; its own limits are tested
// in tests/io). offset/length are parsed here by hand.
struct preloaded_weights {
    std::string bytes;
};
result<std::string_view> fetch_preloaded(void* user, const tensor_view& t, std::uint64_t expected) {
    const std::string& w = static_cast<preloaded_weights*>(user)->bytes;
    std::uint64_t offset = 0;
    for (const string_entry_view& e : t.external_data()) {
        if (e.key() != "offset") continue;
        for (char c : e.value()) offset = offset * 10 + static_cast<std::uint64_t>(c - '0');
    }
    if (offset > w.size() || w.size() - offset < expected) return errc::external_out_of_bounds;
    return std::string_view(w).substr(static_cast<std::size_t>(offset), static_cast<std::size_t>(expected));
}

struct element_stats {
    std::uint64_t tensors = 0, elements = 0, strings = 0, sparse = 0, external = 0;
    std::uint64_t checksum = 0;
    error first_error;
    const external_payload_source* source = nullptr;
    void see(error e) {
        if (e && first_error.ok()) first_error = e;
    }
};
element_stats* current = nullptr;

void read_elements(const tensor_data& d, element_stats& s) {
    ++s.tensors;
    if (d.holds<std::string_view>()) {
        for (std::string_view v : d.elements<std::string_view>()) s.checksum = s.checksum * 131 + v.size(), ++s.strings;
        return;
    }
    auto values = d.scalars<double>();  // every numeric type, any storage
    for (double v : values) {
        s.checksum = s.checksum * 31 + bits_of(v);
        ++s.elements;
    }
    s.see(values.err());
    double buf[64];  // copy-out into the caller's (stack) buffer
    if (d.scalar_count() <= 64) {
        auto n = d.copy_as(buf, 64);
        s.see(n.err());
    }
    if (d.holds<float>()) {
        for (float v : d.elements<float>()) s.checksum += bits_of(v);
        auto sp = d.as_span<float>();  // zero-copy when the payload allows it; an error otherwise
        if (sp.ok()) s.checksum += sp->size();
    }
    if (!d.empty()) {
        auto first = d.double_at(0);
        s.see(first.err());
        auto last = d.double_at(d.size() - 1);
        s.see(last.err());
    }
}

void tensor_hook(fuzzing::model_walker&, const tensor_view& t) {
    element_stats& s = *current;
    if (t.data_location() == location_kind::external) ++s.external;
    auto d = tensor_data::make(t, s.source);
    if (!d) return s.see(d.err());
    read_elements(*d, s);
}

}  // namespace

TEST_CASE("opening and walking every testdata model from memory allocates nothing", "[embed][alloc]") {
    const std::string dir = std::string(ONNXVIEW_SOURCE_ROOT) + "/testdata/";
    preloaded_weights weights{read_file(dir + "small_cnn.weights")};
    REQUIRE(!weights.bytes.empty());
    const external_payload_source source{&weights, fetch_preloaded};

    const char* models[] = {"small_cnn.onnx", "small_cnn_inline.onnx", "tensors_all_types.onnx",
                            "sparse.onnx", "nested_subgraphs.onnx", "attributes_and_types.onnx"};
    std::uint64_t total_tensors = 0, total_elements = 0;
    for (const char* name : models) {
        const std::string bytes = read_file(dir + name);
        REQUIRE(!bytes.empty());
        element_stats s;
        s.source = &source;
        current = &s;
        fuzzing::model_walker w;
        w.tensor_hook = tensor_hook;
        std::uint64_t sparse_nnz = 0;

        allocations = 0;
        counting = true;  // ---- measured region ----
        const error v = verify(bytes.data(), bytes.size());
        const model_view m = parse_model(bytes.data(), bytes.size());
        w.model(m);
        fuzzing::cursor_walk_stats cursor_stats;  // every field again, with cursors
        const error walked = fuzzing::walk_fields(model_cursor(bytes.data(), bytes.size()), cursor_stats);
        for (const sparse_tensor_view& st : m.graph().sparse_initializer()) {
            auto sd = sparse_data::make(st, &source);
            if (!sd) {
                s.see(sd.err());
                continue;
            }
            s.see(sd->validate_indices());
            for (std::uint64_t k = 0; k < sd->nnz(); ++k) {
                auto li = sd->linear_index(k);
                s.see(li.err());
                std::int64_t coords[8];
                if (sd->rank() <= 8) s.see(sd->coordinates(k, coords, 8));
            }
            sparse_nnz += sd->nnz();
        }
        counting = false;  // ---- end ----
        current = nullptr;

        INFO(name << ": " << w.stats.views << " views, " << s.tensors << " tensors, " << s.elements
                  << " elements, " << s.strings << " strings, " << s.external << " external, "
                  << sparse_nnz << " sparse non-zeros");
        CHECK(v.ok());
        CHECK(w.stats.first_error.ok());
        CHECK(s.first_error.ok());
        CHECK(w.stats.views > 0);
        CHECK(walked.ok());
        CHECK(cursor_stats.fields > 0);
        CHECK(allocations == 0);
        total_tensors += s.tensors;
        total_elements += s.elements;
    }
    CHECK(total_tensors > 30);
    CHECK(total_elements > 1000);
}

TEST_CASE("diagnose() allocates nothing, model or not", "[embed][alloc]") {
    const std::string dir = std::string(ONNXVIEW_SOURCE_ROOT) + "/testdata/";
    const std::string model = read_file(dir + "small_cnn_inline.onnx");
    REQUIRE(model.size() > 1000);
    std::vector<std::string> inputs = {
        model,
        model.substr(0, 1000),                                   // truncated
        model.substr(0, 1000) + std::string(model.size(), '\0'),  // zero-filled tail
        "version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 1\n",
        "<html><title>x</title></html>",
        std::string("PK\x05\x06", 4) + std::string(18, '\0'),  // an empty zip
        std::string("\x0a\x01\x03\x10\x01\x4a\x0c", 7) + std::string(12, '\1'),  // a TensorProto
        std::string(11, '\xff'),
    };
    unsigned healthy = 0;
    allocations = 0;
    counting = true;  // ---- measured region ----
    for (const std::string& in : inputs) healthy += diagnose(in.data(), in.size()).healthy() ? 1 : 0;
    counting = false;  // ---- end ----
    CHECK(healthy == 1);
    CHECK(allocations == 0);
}

TEST_CASE("the counting hooks see allocations (the test can fail)", "[embed][alloc]") {
    allocations = 0;
    counting = true;
    {
        std::vector<int>* v = new std::vector<int>(100);
        delete v;
    }
    const unsigned long with_new = allocations.load();
#if ONNXVIEW_MALLOC_HOOKED
    void* volatile p = std::malloc(10);
    std::free(p);
#endif
    counting = false;
    CHECK(with_new >= 2);
#if ONNXVIEW_MALLOC_HOOKED
    CHECK(allocations.load() == with_new + 1);
#endif
}
