/* onnxview_profile.h - the profiler for C (the optional library
 * onnxview_profile): a model's profile as the JSON `onnxview profile --json`
 * prints, over a model opened with onnxview.h.
 *
 *   char* json = NULL;
 *   size_t size = 0;
 *   onnxview_error e = onnxview_profile_json(m, NULL, &json, &size);
 *   if (!e.code) { fwrite(json, 1, size, stdout); onnxview_text_free(json); }
 *
 * The JSON's fields: docs/profile.md. Dims are those the model declares (no
 * bindings: the C++ API, onnxview/profile.hpp, takes them). */
#ifndef ONNXVIEW_PROFILE_H
#define ONNXVIEW_PROFILE_H

#include "onnxview.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The profile of model `m` as one JSON object, NUL-terminated, in memory
 * the caller frees with onnxview_text_free(); its length (without the NUL)
 * in *size when size is not null. `by`: NULL or "node" (every node), "op",
 * "scope" or "scope:DEPTH", as `onnxview profile --by`. Errors: invalid_argument
 * (a `by` it does not take, null arguments), out_of_memory, and the
 * profiler's (not_found: the model has no graph; depth_exceeded). On error
 * *json is left as it was. */
ONNXVIEW_C_API onnxview_error onnxview_profile_json(const onnxview_model* m, const char* by, char** json,
                                                   size_t* size);

#ifdef __cplusplus
}
#endif

#endif /* ONNXVIEW_PROFILE_H */
