/* The C API example of docs/c.md, compiled as C99 and run by the examples
 * suite; tests/capi/readme_check.py checks that docs/c.md shows it verbatim. */
/* BEGIN C EXAMPLE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <onnxview.h>

/* Lists a model's nodes and sums one initializer, wherever its data lives. */
int main(int argc, char** argv) {
    onnxview_model* model = NULL;
    onnxview_graph graph;
    onnxview_node node;
    onnxview_tensor weight;
    onnxview_storage storage;
    onnxview_error e;
    float* values;
    uint64_t count = 0, i;
    double sum = 0;
    int is_sparse = 0;
    if (argc != 3) return fprintf(stderr, "usage: %s MODEL INITIALIZER\n", argv[0]), 2;
    e = onnxview_open_path(argv[1], NULL, &model); /* mmap + one index pass, no copy */
    if (e.code) return fprintf(stderr, "%s: %s\n", argv[1], onnxview_errc_message(e.code)), 1;
    onnxview_model_graph(model, &graph);
    for (e = onnxview_graph_node(&graph, 0, &node); !e.code; e = onnxview_node_next(&node, &node)) {
        onnxview_string op = onnxview_node_op_type(&node);
        printf("%.*s\n", (int)op.size, op.data);
    }
    e = onnxview_graph_find_initializer(&graph, argv[2], strlen(argv[2]), &is_sparse, &weight, NULL);
    if (!e.code && is_sparse) e.code = ONNXVIEW_BAD_DATA_TYPE; /* this example reads dense ones */
    if (!e.code) e = onnxview_tensor_storage(&weight, &storage);
    values = e.code ? NULL : malloc(storage.element_count * sizeof(float) + 1);
    if (!e.code) e = onnxview_tensor_copy_float(&weight, values, storage.element_count, &count);
    if (e.code) {
        char path[256];
        onnxview_field_path(model, e.offset, path, sizeof path, NULL);
        fprintf(stderr, "%s: %s at byte %llu (%s)\n", argv[2], onnxview_errc_name(e.code),
                (unsigned long long)e.offset, path);
        return free(values), onnxview_close(model), 1;
    }
    for (i = 0; i < count; ++i) sum += values[i];
    printf("%s: %llu values, sum %g\n", argv[2], (unsigned long long)count, sum);
    free(values);
    onnxview_close(model); /* every handle and string of the model ends here */
    return 0;
}
/* END C EXAMPLE */
