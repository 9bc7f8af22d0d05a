// A 152-byte model declaring petabytes (a float tensor of 10^18 elements, an
// external-data range of 2^50 bytes, a dimension of 2^62) is read without
// allocating anything sized from those numbers: verify() and every view
// allocate nothing at all, and the checker takes a few KiB from
// options::memory for its name sets while refusing the model. Its own
// executable, because it replaces the global operator new to count.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

#include "../new_counter.hpp"
#include "model_walk.hpp"
#include "onnx_builder.hpp"
#include "onnxview/check.hpp"
#include "onnxview/model.hpp"
#include "onnxview/verify.hpp"

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

    const unsigned long before = onnxview_test::new_calls();
    error v;
    fuzzing::model_walker w;
    {
        onnxview_test::counting_new counting;
        v = verify(s.data(), s.size());
        w.model(parse_model(s.data(), s.size()));
    }
    CHECK(v.ok());
    CHECK(w.stats.first_error.ok());
    CHECK(onnxview_test::new_calls() == before);

    // The checker's memory, all of it from options::memory (none from the
    // global operator new): bounded, whatever the file declares.
    struct tally {
        unsigned long long bytes = 0;
    } memory;
    options opts{};  // no model path: the external file is not opened
    opts.memory.allocate = [](void* user, std::size_t size, std::size_t) -> void* {
        static_cast<tally*>(user)->bytes += size;
        return std::malloc(size);
    };
    opts.memory.deallocate = [](void*, void* p, std::size_t, std::size_t) { std::free(p); };
    opts.memory.user_data = &memory;
    check_result r;
    {
        onnxview_test::counting_new counting;
        r = check_model(s.data(), s.size(), opts, nullptr, nullptr);
    }
    CHECK(onnxview_test::new_calls() == before);
    CHECK(memory.bytes > 0);
    CHECK(memory.bytes < 64 * 1024);
    INFO("check_model: " << r.errors << " errors, " << memory.bytes << " bytes allocated");
    CHECK(r.errors + r.warnings > 0);
}
