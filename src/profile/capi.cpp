// The profiler's C function (include/onnxview_profile.h).
#include <new>

#include "../capi/handle.hpp"
#include "onnxview/profile.hpp"
#include "onnxview_profile.h"

using namespace onnxview;
using namespace onnxview::capi;

extern "C" onnxview_error onnxview_profile_json(const onnxview_model* m, const char* by, char** json,
                                                size_t* size) {
    if (m == nullptr || json == nullptr) return fail(errc::invalid_argument);
    profile_view v;
    if (!parse_profile_view(by == nullptr ? "node" : by, v)) return fail(errc::invalid_argument);
#if ONNXVIEW_HAS_EXCEPTIONS
    try {
#endif
        const result<model_profile> p = profile_model(m->file.model());
        if (!p) return to_c(p.err());
        text_buffer text;
        if (error e = write_profile_json(*p, v, text.sink())) return to_c(e);
        return text.give(json, size);
#if ONNXVIEW_HAS_EXCEPTIONS
    } catch (const std::bad_alloc&) {  // no exception crosses into C
        return fail(errc::out_of_memory);
    }
#endif
}
