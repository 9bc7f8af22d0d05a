/* The C API example of README.md, compiled as C99 and run by the capi suite;
 * tests/capi/readme_check.py checks that the README shows it verbatim. */
/* BEGIN C EXAMPLE */
#include <stdio.h>
#include <onnxview.h>

/* Prints a model's producer, its opsets and the element type of each graph input. */
int main(int argc, char** argv) {
    onnxview_model* model = NULL;
    onnxview_graph graph;
    onnxview_string s;
    int64_t version;
    size_t i;
    onnxview_error e = onnxview_open_path(argc == 2 ? argv[1] : "", NULL, &model);
    if (e.code) return fprintf(stderr, "%s\n", onnxview_errc_message(e.code)), 1;
    s = onnxview_model_producer_name(model);
    printf("IR %lld from %.*s\n", (long long)onnxview_model_ir_version(model), (int)s.size, s.data);
    for (i = 0; !onnxview_model_opset(model, i, &s, &version).code; ++i)
        printf("opset '%.*s' %lld\n", (int)s.size, s.data, (long long)version);
    onnxview_model_graph(model, &graph);
    for (i = 0; i < onnxview_graph_input_count(&graph); ++i) {
        onnxview_value_info input;
        onnxview_type type;
        onnxview_graph_input(&graph, i, &input);
        onnxview_value_info_type(&input, &type);
        s = onnxview_value_info_name(&input);
        printf("input %.*s: %s\n", (int)s.size, s.data, onnxview_data_type_name(onnxview_type_elem_type(&type)));
    }
    onnxview_close(model); /* every handle and string of the model ends here */
    return 0;
}
/* END C EXAMPLE */
