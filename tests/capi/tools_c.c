/* tests/capi/tools_c.c - the optional libraries' C functions
 * (onnxview_profile.h, onnxview_compare.h) as a command, which
 * tests/capi/tools_oracle.py compares with the CLI byte for byte:
 *   tools_c profile MODEL [BY]   the JSON of onnxview_profile_json
 *   tools_c hash MODEL           "DIGEST  MODEL", as `onnxview hash` prints
 *   tools_c diff A B             the JSON of onnxview_diff_json
 * An error: its name on stderr, exit 1. hash and diff only where the
 * comparison library is built (ONNXVIEW_TEST_COMPARE). */
#include <stdio.h>
#include <string.h>

#include "onnxview_profile.h"
#ifdef ONNXVIEW_TEST_COMPARE
#include "onnxview_compare.h"
#endif

static int failed(onnxview_error e) {
    fprintf(stderr, "%s\n", onnxview_errc_name(e.code));
    return 1;
}

static int print_text(onnxview_error e, char* text, size_t size) {
    if (e.code) return failed(e);
    if (strlen(text) != size) {
        fprintf(stderr, "the text's size is not its length\n");
        onnxview_text_free(text);
        return 1;
    }
    fwrite(text, 1, size, stdout);
    onnxview_text_free(text);
    return 0;
}

int main(int argc, char** argv) {
    onnxview_model* a = NULL;
    onnxview_model* b = NULL;
    onnxview_error e;
    char* text = NULL;
    size_t size = 0;
    int code;
    if (argc < 3) return 2;
    e = onnxview_open_path(argv[2], NULL, &a);
    if (e.code) return failed(e);
    if (strcmp(argv[1], "profile") == 0) {
        e = onnxview_profile_json(a, argc > 3 ? argv[3] : NULL, &text, &size);
        code = print_text(e, text, size);
#ifdef ONNXVIEW_TEST_COMPARE
    } else if (strcmp(argv[1], "hash") == 0) {
        char digest[33];
        e = onnxview_hash(a, digest);
        code = e.code ? failed(e) : (printf("%s  %s\n", digest, argv[2]), 0);
    } else if (strcmp(argv[1], "diff") == 0 && argc > 3) {
        e = onnxview_open_path(argv[3], NULL, &b);
        if (!e.code) e = onnxview_diff_json(a, b, argv[2], argv[3], &text, &size);
        code = print_text(e, text, size);
#endif
    } else {
        code = 2;
    }
    onnxview_close(a);
    onnxview_close(b);
    return code;
}
