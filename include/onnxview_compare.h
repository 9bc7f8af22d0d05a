/* onnxview_compare.h - model digests and comparisons for C (the optional
 * library onnxview_compare, built where libxxhash is found): what
 * `onnxview hash` and `onnxview diff --json` print, over models opened with
 * onnxview.h.
 *
 *   char digest[33];
 *   if (!onnxview_hash(m, digest).code) puts(digest);
 *   char* json = NULL;
 *   if (!onnxview_diff_json(a, b, "a.onnx", "b.onnx", &json, NULL).code) {
 *       puts(json);
 *       onnxview_text_free(json);
 *   }
 *
 * Digests and the JSON's fields: docs/diff.md. */
#ifndef ONNXVIEW_COMPARE_H
#define ONNXVIEW_COMPARE_H

#include "onnxview.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The digest of what model `m` computes, as `onnxview hash` prints it: 32
 * lowercase hex digits and a NUL in out[0..32]. Reads every payload
 * (external data through the model's resolver). Errors: invalid_argument
 * (null arguments), a tensor's payload errors, depth_exceeded. */
ONNXVIEW_C_API onnxview_error onnxview_hash(const onnxview_model* m, char out[33]);

/* The comparison of models `a` and `b` as `onnxview diff --json A B`
 * prints it with its default options (match by name, weights exact),
 * `name_a` and `name_b` (NULL: "a" and "b") standing for the paths, in
 * memory the caller frees with onnxview_text_free(), NUL-terminated, its
 * length in *size when size is not null. Errors: invalid_argument (null
 * arguments), out_of_memory, a payload's errors. */
ONNXVIEW_C_API onnxview_error onnxview_diff_json(onnxview_model* a, onnxview_model* b, const char* name_a,
                                                const char* name_b, char** json, size_t* size);

#ifdef __cplusplus
}
#endif

#endif /* ONNXVIEW_COMPARE_H */
