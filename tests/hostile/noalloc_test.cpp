// A 152-byte model declaring petabytes (a float tensor of 10^18 elements, an
// external-data range of 2^50 bytes, a dimension of 2^62) is read without
// allocating anything sized from those numbers: verify() and every view
// allocate nothing at all, and the checker allocates a few KiB for its name
// sets while refusing the model. Its own executable, because it replaces the
// global operator new to count.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>

#include "model_walk.hpp"
#include "onnx_builder.hpp"
#include "onnxview/check.hpp"
#include "onnxview/model.hpp"
#include "onnxview/verify.hpp"

namespace {
std::atomic<bool> counting{false};
std::atomic<unsigned long> allocations{0};
std::atomic<unsigned long long> allocated_bytes{0};
}  // namespace

void* operator new(std::size_t n) {
    if (counting.load()) {
        ++allocations;
        allocated_bytes += n;
    }
    if (void* p = std::malloc(n ? n : 1)) return p;
    std::abort();  // never reached in these tests; builds with -fno-exceptions too
}
void* operator new[](std::size_t n) { return operator new(n); }
// The nothrow forms too: every form that allocates must free with std::free.
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    if (counting.load()) {
        ++allocations;
        allocated_bytes += n;
    }
    return std::malloc(n ? n : 1);
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

using namespace onnxview;
using namespace onnxview::hostile;

namespace {

std::string petabyte_model() {
    wire_builder t;  // TensorProto: dims 10^6 x 10^6 x 10^6, FLOAT, external 2^50 bytes
    t.field_varint(1, 1000000).field_varint(1, 1000000).field_varint(1, 1000000).field_varint(2, 1)
        .field_bytes(8, "w");
    wire_builder loc, off, len;
    loc.field_bytes(1, "location").field_bytes(2, "w.bin");
    len.field_bytes(1, "length").field_bytes(2, "1125899906842624");
    t.field_message(13, loc).field_message(13, len).field_varint(14, 1);
    wire_builder dim, shape, tensor_type, type, vi;
    dim.field_varint(1, 1ull << 62);
    shape.field_message(1, dim);
    tensor_type.field_varint(1, 1).field_message(2, shape);
    type.field_message(1, tensor_type);
    vi.field_bytes(1, "w").field_message(2, type);
    wire_builder g;
    g.field_message(5, t).field_message(11, vi).field_bytes(2, "pb");
    std::string m = model_with_graph(g.str());
    // Pad with a doc_string (field 6) to exactly 152 bytes.
    wire_builder pad;
    const std::size_t pad_len = 152 - m.size() - 2;
    pad.field_bytes(6, std::string(pad_len, 'P'));
    return m + pad.str();
}

}  // namespace

TEST_CASE("a 152-byte file declaring petabytes allocates nothing", "[hostile][alloc]") {
    const std::string s = petabyte_model();
    REQUIRE(s.size() == 152);

    allocations = 0;
    counting = true;
    const error v = verify(s.data(), s.size());
    fuzzing::model_walker w;
    w.model(parse_model(s.data(), s.size()));
    counting = false;
    CHECK(v.ok());
    CHECK(w.stats.first_error.ok());
    CHECK(allocations == 0);

    allocations = 0;
    allocated_bytes = 0;
    counting = true;
    options opts;  // no model path: the external file is not opened
    const check_result r = check_model(s.data(), s.size(), opts, nullptr, nullptr);
    counting = false;
    CHECK(allocated_bytes < 64 * 1024);
    INFO("check_model: " << r.errors << " errors, " << allocated_bytes << " bytes allocated");
    CHECK(r.errors + r.warnings > 0);
}
