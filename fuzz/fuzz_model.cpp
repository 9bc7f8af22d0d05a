// fuzz/fuzz_model.cpp - arbitrary bytes opened as an ONNX model and walked
// with every accessor (see model_walk.hpp), then verify().
//
// The library's contract, checked here: when verify() succeeds on some bytes
// with some options, no view made over the same bytes with the same options
// reports an error. The same bytes are also read as the roots of
// onnx-data.proto (TensorProto, SequenceProto) under the same contract, and
// the model once more with a small depth limit so that the limit's edges are
// explored too. Each time a walk with cursors must reach verify()'s verdict.
// diagnose() must call the bytes a valid model exactly when they are one.
#include <cstddef>
#include <cstdint>
#include <complex>
#include <cstdio>
#include <cstring>
#include <type_traits>

#include "fuzz_check.hpp"
#include "cursor_walk.hpp"
#include "model_walk.hpp"
#include "onnxview/verify.hpp"

#if __has_include("onnxview/diagnose.hpp")
#include "onnxview/diagnose.hpp"
#define ONNXVIEW_FUZZ_HAS_DIAGNOSE 1
#endif
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

#ifdef ONNXVIEW_FUZZ_HAS_TENSOR_DATA
// Every element access the tensor API offers, on every tensor the walk meets,
// and agreement between them: iteration, at(), double_at(), copy_as(),
// copy_to() and as_span() must give the same values.
template <class T>
void natural_access(const tensor_data& d) {
    const element_range<T> r = d.elements<T>();
    FUZZ_CHECK(r.ok());
    std::uint64_t n = 0;
    T first{}, last{};
    for (T v : r) {
        if (n == 0) first = v;
        last = v;
        if (++n > (1u << 16)) break;
    }
    if (n <= (1u << 16)) FUZZ_CHECK(n == d.size());
    if (d.size() == 0) return;
    const result<T> a0 = d.template at<T>(0);
    FUZZ_CHECK(a0.ok() && std::memcmp(&*a0, &first, sizeof(T)) == 0);
    if (n == d.size()) {
        const result<T> an = d.template at<T>(d.size() - 1);
        FUZZ_CHECK(an.ok() && std::memcmp(&*an, &last, sizeof(T)) == 0);
    }
    FUZZ_CHECK(!d.template at<T>(d.size()).ok());
    if (d.size() <= 4096) {
        static T copied[4096];
        const result<std::uint64_t> c = d.copy_to(copied, 4096);
        FUZZ_CHECK(c.ok() && *c == d.size());
        FUZZ_CHECK(std::memcmp(&copied[0], &first, sizeof(T)) == 0);
        const result<span<const T>> sp = d.template as_span<T>();
        if (sp.ok() && sp->size() != 0 && !std::is_same<T, bool>::value)
            FUZZ_CHECK(std::memcmp(sp->data(), copied, sizeof(T) * sp->size()) == 0);
    }
}

void tensor_access(fuzzing::model_walker& w, const tensor_view& t) {
    const result<std::uint64_t> count = element_count(t);
    const result<storage_info> st = describe_storage(t);
    const result<tensor_data> made = tensor_data::make(t);
    if (!made.ok()) {
        w.stats.num(static_cast<std::uint64_t>(made.err().code));
        return;
    }
    const tensor_data& d = *made;
    FUZZ_CHECK(st.ok() && count.ok() && *count == d.size());
    w.stats.num(d.size());
    if (d.holds<std::string_view>()) {
        std::uint64_t n = 0;
        for (std::string_view s : d.elements<std::string_view>()) {
            w.stats.str(s);
            ++n;
        }
        FUZZ_CHECK(n == d.size());
        FUZZ_CHECK(!d.scalars<double>().ok());
        return;
    }
    // Every value converted to double and float, as scalars() and copy_as().
    const scalar_range<double> sd = d.scalars<double>();
    FUZZ_CHECK(sd.ok());
    std::uint64_t n = 0;
    double first = 0;
    for (double v : sd) {
        if (n == 0) first = v;
        if (++n > (1u << 16)) break;
    }
    if (n <= (1u << 16)) FUZZ_CHECK(n == d.scalar_count());
    std::uint64_t nf = 0;
    for (float v : d.scalars<float>()) {
        (void)v;
        if (++nf > (1u << 16)) break;
    }
    if (d.size() != 0) {
        const result<double> a = d.double_at(0);
        FUZZ_CHECK(a.ok());
        FUZZ_CHECK(std::memcmp(&*a, &first, sizeof(double)) == 0);
    }
    if (d.scalar_count() <= 4096) {
        static double copied[4096];
        const result<std::uint64_t> c = d.copy_as(copied, 4096);
        FUZZ_CHECK(c.ok() && *c == d.scalar_count());
        if (*c != 0) FUZZ_CHECK(std::memcmp(&copied[0], &first, sizeof(double)) == 0);
    }
    switch (d.info().natural) {
        case natural_type::f32: natural_access<float>(d); break;
        case natural_type::f64: natural_access<double>(d); break;
        case natural_type::u8: natural_access<std::uint8_t>(d); break;
        case natural_type::i8: natural_access<std::int8_t>(d); break;
        case natural_type::u16: natural_access<std::uint16_t>(d); break;
        case natural_type::i16: natural_access<std::int16_t>(d); break;
        case natural_type::i32: natural_access<std::int32_t>(d); break;
        case natural_type::i64: natural_access<std::int64_t>(d); break;
        case natural_type::u32: natural_access<std::uint32_t>(d); break;
        case natural_type::u64: natural_access<std::uint64_t>(d); break;
        case natural_type::boolean: natural_access<bool>(d); break;
        case natural_type::c64: natural_access<std::complex<float>>(d); break;
        case natural_type::c128: natural_access<std::complex<double>>(d); break;
        default: break;
    }
}
#endif

// The cursors' side of the contract: a walk with cursors over every field
// (cursor_walk.hpp) fails exactly when verify() does - except on merges
// deeper than the views follow, which a cursor, yielding each occurrence,
// does not meet.
template <class View>
void cursor_contract(const char* what, const std::uint8_t* data, std::size_t size, const options& o,
                     error verified) {
    fuzzing::cursor_walk_stats s;
    const error walked = fuzzing::walk_fields(cursor_as<View>(data, size, o), s);
    if (verified.code == errc::merge_too_deep) return;
    if (walked.ok() != verified.ok())
        std::fprintf(stderr, "%s: verify() = %s@%llu but the cursor walk gave %s@%llu\n", what,
                     errc_name(verified.code), static_cast<unsigned long long>(verified.offset),
                     errc_name(walked.code), static_cast<unsigned long long>(walked.offset));
    FUZZ_CHECK(walked.ok() == verified.ok());
}

void report(const char* what, error verified, error walked) {
    std::fprintf(stderr, "%s: verify() = %s@%llu but a view reported %s@%llu\n", what,
                 errc_name(verified.code), static_cast<unsigned long long>(verified.offset),
                 errc_name(walked.code), static_cast<unsigned long long>(walked.offset));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const options defaults;
    {
        fuzzing::model_walker w;
#ifdef ONNXVIEW_FUZZ_HAS_TENSOR_DATA
        w.tensor_hook = &tensor_access;
#endif
        w.model(parse_model(data, size, defaults));
        const error v = verify(data, size, schema::msg_ModelProto, defaults);
        if (v.ok() && !w.stats.first_error.ok()) report("model", v, w.stats.first_error);
        FUZZ_CHECK(!v.ok() || w.stats.first_error.ok());
        cursor_contract<model_view>("model", data, size, defaults, v);
    }
#ifdef ONNXVIEW_FUZZ_HAS_DIAGNOSE
    {
        // diagnose(): any bytes; a valid model exactly when they verify as a
        // ModelProto with a graph (no false positive, no false negative); a
        // NUL-terminated line; a detail inside the bytes.
        const diagnosis d = diagnose(data, size, defaults);
        const bool model = verify(data, size, schema::msg_ModelProto, defaults).ok() &&
                           parse_model(data, size, defaults).has_graph();
        FUZZ_CHECK(d.healthy() == model);
        FUZZ_CHECK(std::memchr(d.line, 0, sizeof d.line) != nullptr);
        const char* begin = reinterpret_cast<const char*>(data);
        FUZZ_CHECK(d.detail.empty() ||
                   (d.detail.data() >= begin && d.detail.size() <= size &&
                    static_cast<std::size_t>(d.detail.data() - begin) <= size - d.detail.size()));
    }
#endif
#ifdef ONNXVIEW_FUZZ_HAS_CHECK
    {
        // The checker on the same bytes: no crash, no hang, and it reports the
        // wire-format error verify() finds as an error of its own. No model
        // path: external data is not opened.
        options co;
        co.max_findings = 64;
        const check_result r = check_model(data, size, co, nullptr, nullptr);
        if (!verify(data, size).ok()) FUZZ_CHECK(r.errors > 0);
    }
#endif
    {
        options small;
        small.max_message_depth = 2 + static_cast<std::uint32_t>(size % 11);
        fuzzing::model_walker w;
        w.model(parse_model(data, size, small));
        const error v = verify(data, size, schema::msg_ModelProto, small);
        if (v.ok() && !w.stats.first_error.ok()) report("model (small depth)", v, w.stats.first_error);
        FUZZ_CHECK(!v.ok() || w.stats.first_error.ok());
        cursor_contract<model_view>("model (small depth)", data, size, small, v);
    }
    {
        fuzzing::model_walker w;
#ifdef ONNXVIEW_FUZZ_HAS_TENSOR_DATA
        w.tensor_hook = &tensor_access;
#endif
        w.tensor(parse_tensor(data, size, defaults));
        const error v = verify(data, size, schema::msg_TensorProto, defaults);
        if (v.ok() && !w.stats.first_error.ok()) report("tensor", v, w.stats.first_error);
        FUZZ_CHECK(!v.ok() || w.stats.first_error.ok());
        cursor_contract<tensor_view>("tensor", data, size, defaults, v);
    }
    {
        fuzzing::model_walker w;
        w.sequence(parse_as<sequence_view>(data, size, defaults));
        const error v = verify(data, size, schema::msg_SequenceProto, defaults);
        if (v.ok() && !w.stats.first_error.ok()) report("sequence", v, w.stats.first_error);
        FUZZ_CHECK(!v.ok() || w.stats.first_error.ok());
        cursor_contract<sequence_view>("sequence", data, size, defaults, v);
    }
    return 0;
}
