// The comparison library's C functions (include/onnxview_compare.h).
#include <new>
#include <string>

#include "../capi/handle.hpp"
#include "onnxview/compare/diff_report.hpp"
#include "onnxview/compare/model_hash.hpp"
#include "onnxview_compare.h"

using namespace onnxview;
using namespace onnxview::capi;

extern "C" onnxview_error onnxview_hash(const onnxview_model* m, char out[33]) {
    if (m == nullptr || out == nullptr) return fail(errc::invalid_argument);
    // The resolver's state (files opened once) is the model's, as for tensor data.
    model_file& file = const_cast<onnxview_model*>(m)->file;
    const external_payload_source ext = file.external();
    const result<digest128> d = model_digest(file.model(), &ext, reading_payloads_once(file));
    if (!d) return to_c(d.err());
    d->to_hex(out);
    return ok();
}

extern "C" onnxview_error onnxview_diff_json(onnxview_model* a, onnxview_model* b, const char* name_a,
                                             const char* name_b, char** json, size_t* size) {
    if (a == nullptr || b == nullptr || json == nullptr) return fail(errc::invalid_argument);
#if ONNXVIEW_HAS_EXCEPTIONS
    try {
#endif
        const diff_options options;
        model_diff d;
        if (error e = diff_models(a->file, b->file, options, d)) return to_c(e);
        diff_report_names names;
        names.a = name_a != nullptr ? name_a : "a";
        names.b = name_b != nullptr ? name_b : "b";
        const std::string report = diff_report_json(d, options, names);
        text_buffer text;
        if (error e = text_buffer::append(&text, report.data(), report.size())) return to_c(e);
        return text.give(json, size);
#if ONNXVIEW_HAS_EXCEPTIONS
    } catch (const std::bad_alloc&) {  // no exception crosses into C
        return fail(errc::out_of_memory);
    }
#endif
}
