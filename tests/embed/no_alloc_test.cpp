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
#ifndef ONNXVIEW_H  // the single header declares the C API itself
#include "onnxview.h"
#endif

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

// ---- the C API --------------------------------------------------------------
namespace {

// The caller's allocator of the C API test: a bump arena that counts, so
// that nothing it hands out passes through malloc.
struct arena {
    alignas(64) unsigned char bytes[1 << 20];
    std::size_t used = 0;
    long live = 0, calls = 0;
};
arena capi_arena;

void* arena_allocate(void* user, std::size_t size, std::size_t alignment) {
    arena& a = *static_cast<arena*>(user);
    const std::size_t at = (a.used + alignment - 1) / alignment * alignment;
    if (at + size > sizeof a.bytes) return nullptr;
    a.used = at + size;
    ++a.live, ++a.calls;
    return a.bytes + at;
}
void arena_deallocate(void* user, void*, std::size_t, std::size_t) { --static_cast<arena*>(user)->live; }

double capi_sum = 0;  // keeps the reads observable
double capi_values[1 << 16];

void capi_walk_graph(const onnxview_graph& g, int depth);

void capi_walk_tensor(const onnxview_tensor& t) {
    onnxview_storage st;
    std::uint64_t n = 0;
    if (onnxview_tensor_storage(&t, &st).code == ONNXVIEW_OK &&
        onnxview_tensor_copy_double(&t, capi_values, 1 << 16, &n).code == ONNXVIEW_OK)
        for (std::uint64_t i = 0; i < n; ++i) capi_sum += static_cast<double>(bits_of(capi_values[i]) & 0xFF);
    const void* data = nullptr;
    if (onnxview_tensor_data(&t, &data, &n).code == ONNXVIEW_OK && n != 0) capi_sum += 1;
}

void capi_walk_type(const onnxview_type& t, int depth) {
    for (std::size_t i = 0; i < onnxview_type_rank(&t); ++i) {
        onnxview_dim d;
        if (onnxview_type_dim(&t, i, &d).code == ONNXVIEW_OK) capi_sum += static_cast<double>(d.param.size);
    }
    onnxview_type inner;
    if (depth < 8 && onnxview_type_element(&t, &inner).code == ONNXVIEW_OK) capi_walk_type(inner, depth + 1);
}

void capi_walk_node(const onnxview_node& n, int depth) {
    capi_sum += static_cast<double>(onnxview_node_op_type(&n).size + onnxview_node_input_count(&n));
    for (std::size_t i = 0; i < onnxview_node_attribute_count(&n); ++i) {
        onnxview_attribute a;
        if (onnxview_node_attribute(&n, i, &a).code != ONNXVIEW_OK) continue;
        onnxview_tensor t;
        onnxview_graph g;
        onnxview_sparse_tensor s;
        onnxview_type tp;
        if (onnxview_attribute_t(&a, &t).code == ONNXVIEW_OK) capi_walk_tensor(t);
        if (onnxview_attribute_tp(&a, &tp).code == ONNXVIEW_OK) capi_walk_type(tp, 0);
        if (onnxview_attribute_sparse_tensor(&a, &s).code == ONNXVIEW_OK &&
            onnxview_sparse_values(&s, &t).code == ONNXVIEW_OK)
            capi_walk_tensor(t);
        if (depth < 8 && onnxview_attribute_g(&a, &g).code == ONNXVIEW_OK) capi_walk_graph(g, depth + 1);
        for (std::size_t k = 0; depth < 8 && k < onnxview_attribute_graphs_count(&a); ++k)
            if (onnxview_attribute_graph_at(&a, k, &g).code == ONNXVIEW_OK) capi_walk_graph(g, depth + 1);
    }
}

void capi_walk_graph(const onnxview_graph& g, int depth) {
    onnxview_value_info v;
    onnxview_type t;
    for (std::size_t i = 0; i < onnxview_graph_input_count(&g); ++i)
        if (onnxview_graph_input(&g, i, &v).code == ONNXVIEW_OK && onnxview_value_info_type(&v, &t).code == ONNXVIEW_OK)
            capi_walk_type(t, 0);
    onnxview_tensor init;
    for (onnxview_error e = onnxview_graph_initializer(&g, 0, &init); e.code == ONNXVIEW_OK;
         e = onnxview_tensor_next(&init, &init))
        capi_walk_tensor(init);
    for (std::size_t i = 0; i < onnxview_graph_sparse_initializer_count(&g); ++i) {
        onnxview_sparse_tensor s;
        onnxview_sparse_info info;
        if (onnxview_graph_sparse_initializer(&g, i, &s).code == ONNXVIEW_OK &&
            onnxview_sparse_info_of(&s, &info).code == ONNXVIEW_OK)
            capi_sum += static_cast<double>(info.nnz);
    }
    onnxview_node n;
    for (onnxview_error e = onnxview_graph_node(&g, 0, &n); e.code == ONNXVIEW_OK; e = onnxview_node_next(&n, &n))
        capi_walk_node(n, depth);
}

void ignore_output(void*, const char*, std::size_t) {}

}  // namespace

TEST_CASE("the C API walks every testdata model with the caller's allocator alone", "[embed][alloc][capi]") {
    const std::string dir = std::string(ONNXVIEW_SOURCE_ROOT) + "/testdata/";
    for (const char* name : {"small_cnn.onnx", "small_cnn_inline.onnx", "tensors_all_types.onnx", "sparse.onnx",
                             "nested_subgraphs.onnx", "attributes_and_types.onnx"}) {
        INFO(name);
        const std::string bytes = read_file(dir + name);
        const std::string path = dir + name;  // external data next to it
        REQUIRE(!bytes.empty());
        onnxview_options opts = onnxview_options_default();
        opts.memory.allocate = arena_allocate;
        opts.memory.deallocate = arena_deallocate;
        opts.memory.user_data = &capi_arena;
        opts.model_path = path.c_str();
        opts.verify = 1;
        capi_arena.used = 0;
        capi_arena.calls = 0;
        const double sum_before = capi_sum;
        allocations = 0;
        counting = true;  // ---- measured region ----
        onnxview_model* m = nullptr;
        const onnxview_error opened = onnxview_open_memory(bytes.data(), bytes.size(), &opts, &m);
        onnxview_graph g;
        if (opened.code == ONNXVIEW_OK && onnxview_model_graph(m, &g).code == ONNXVIEW_OK) capi_walk_graph(g, 0);
        for (std::size_t i = 0; m != nullptr && i < onnxview_model_function_count(m); ++i) {
            onnxview_function f;
            onnxview_node n;
            if (onnxview_model_function(m, i, &f).code == ONNXVIEW_OK &&
                onnxview_function_node(&f, 0, &n).code == ONNXVIEW_OK)
                capi_walk_node(n, 0);
        }
        const onnxview_error printed = onnxview_print_text(m, nullptr, ignore_output, nullptr);
        onnxview_close(m);
        counting = false;  // ---- end ----
        CHECK(opened.code == ONNXVIEW_OK);
        CHECK(printed.code == ONNXVIEW_OK);
        CHECK(capi_sum > sum_before);
        CHECK(allocations == 0);
        CHECK(capi_arena.calls >= 1);  // the model handle, the resolver's directory (and external files)
        CHECK(capi_arena.live == 0);
    }
}
