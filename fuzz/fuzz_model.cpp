// fuzz/fuzz_model.cpp - arbitrary bytes opened as an ONNX model and walked
// with every accessor (see model_walk.hpp), then verify().
//
// The library's contract, checked here: when verify() succeeds on some bytes
// with some options, no view made over the same bytes with the same options
// reports an error. The same bytes are also read as the roots of
// onnx-data.proto (TensorProto, SequenceProto) under the same contract, and
// the model once more with a small depth limit so that the limit's edges are
// explored too.
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "fuzz_check.hpp"
#include "model_walk.hpp"
#include "onnxview/verify.hpp"

#if __has_include("onnxview/tensor_data.hpp")
#include "onnxview/tensor_data.hpp"
#define ONNXVIEW_FUZZ_HAS_TENSOR_DATA 1
#endif
#if __has_include("onnxview/check.hpp")
#include "onnxview/check.hpp"
#define ONNXVIEW_FUZZ_HAS_CHECK 1
#endif

namespace {

using namespace onnxview;

void report(const char* what, error verified, error walked) {
    std::fprintf(stderr, "%s: verify() = %s@%llu but a view reported %s@%llu\n", what,
                 errc_name(verified.code), static_cast<unsigned long long>(verified.offset),
                 errc_name(walked.code), static_cast<unsigned long long>(walked.offset));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const parse_options defaults;
    {
        fuzzing::model_walker w;
        w.model(parse_model(data, size, defaults));
        const error v = verify(data, size, schema::msg_ModelProto, defaults);
        if (v.ok() && !w.stats.first_error.ok()) report("model", v, w.stats.first_error);
        FUZZ_CHECK(!v.ok() || w.stats.first_error.ok());
    }
#ifdef ONNXVIEW_FUZZ_HAS_CHECK
    {
        // The checker on the same bytes: no crash, no hang, and it reports the
        // wire-format error verify() finds as an error of its own. No model
        // path: external data is not opened.
        check_options co;
        co.max_findings = 64;
        const check_result r = check_model(data, size, co, nullptr, nullptr);
        if (!verify(data, size).ok()) FUZZ_CHECK(r.errors > 0);
    }
#endif
    {
        parse_options small;
        small.max_depth = 2 + static_cast<std::uint32_t>(size % 11);
        fuzzing::model_walker w;
        w.model(parse_model(data, size, small));
        const error v = verify(data, size, schema::msg_ModelProto, small);
        if (v.ok() && !w.stats.first_error.ok()) report("model (small depth)", v, w.stats.first_error);
        FUZZ_CHECK(!v.ok() || w.stats.first_error.ok());
    }
    {
        fuzzing::model_walker w;
        w.tensor(parse_tensor(data, size, defaults));
        const error v = verify(data, size, schema::msg_TensorProto, defaults);
        if (v.ok() && !w.stats.first_error.ok()) report("tensor", v, w.stats.first_error);
        FUZZ_CHECK(!v.ok() || w.stats.first_error.ok());
    }
    {
        fuzzing::model_walker w;
        w.sequence(parse_as<sequence_view>(data, size, defaults));
        const error v = verify(data, size, schema::msg_SequenceProto, defaults);
        if (v.ok() && !w.stats.first_error.ok()) report("sequence", v, w.stats.first_error);
        FUZZ_CHECK(!v.ok() || w.stats.first_error.ok());
    }
    return 0;
}
