/* The C program scripts/code_size.sh measures for the C API: read a file into
 * memory, open it as a model, walk the graph (nodes, attributes, inputs), sum
 * one float initializer. It opens the bytes self-contained (no external-data
 * code is linked); with -DEXTERNAL_DATA it opens them with
 * onnxview_open_memory, which resolves external data. With -DBASELINE the
 * onnxview calls are left out and only the file reading and printing
 * remain. */
#include <stdio.h>
#include <stdlib.h>

#ifndef BASELINE
#include "onnxview.h"
#endif

int main(int argc, char** argv) {
    FILE* f;
    long size;
    char* buf;
    unsigned long nodes = 0, attributes = 0, inputs = 0;
    double sum = 0;
    int rc = 0;
    if (argc != 2 || (f = fopen(argv[1], "rb")) == NULL) return 2;
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = (char*)malloc((size_t)size);
    if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) return 2;
    fclose(f);
#ifndef BASELINE
    {
        onnxview_model* m = NULL;
        onnxview_graph g;
        onnxview_node n;
        onnxview_tensor t;
#ifdef EXTERNAL_DATA
        onnxview_error e = onnxview_open_memory(buf, (size_t)size, NULL, &m);
#else
        onnxview_error e = onnxview_open_self_contained(buf, (size_t)size, NULL, &m);
#endif
        if (e.code == 0) e = onnxview_model_graph(m, &g);
        if (e.code != 0) rc = 1;
        for (e = onnxview_graph_node(&g, 0, &n); rc == 0 && e.code == 0; e = onnxview_node_next(&n, &n)) {
            size_t i;
            ++nodes;
            inputs += onnxview_node_input_count(&n);
            for (i = 0; i < onnxview_node_attribute_count(&n); ++i) {
                onnxview_attribute a;
                if (onnxview_node_attribute(&n, i, &a).code == 0) attributes += onnxview_attribute_name(&a).size != 0;
            }
        }
        for (e = onnxview_graph_initializer(&g, 0, &t); rc == 0 && e.code == 0; e = onnxview_tensor_next(&t, &t)) {
            onnxview_storage st;
            float* values;
            uint64_t count = 0, k;
            if (onnxview_tensor_data_type(&t) != 1 || onnxview_tensor_storage(&t, &st).code != 0) continue;
            values = (float*)malloc(st.element_count * sizeof(float) + 1);
            if (onnxview_tensor_copy_float(&t, values, st.element_count, &count).code == 0)
                for (k = 0; k < count; ++k) sum += values[k];
            free(values);
            break;
        }
        onnxview_close(m);
    }
#endif
    printf("%ld bytes: %lu nodes, %lu attributes, %lu inputs, sum %g\n", size, nodes, attributes, inputs, sum);
    free(buf);
    return rc;
}
