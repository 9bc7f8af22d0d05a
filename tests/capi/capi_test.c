/* tests/capi/capi_test.c - every function of the C API (onnxview.h), its
 * error paths, and the caller's allocator and file callbacks, from C99.
 *
 *   capi_test TESTDATA_DIR
 *
 * Expected values are those of python3-onnx (testdata/summaries/, the
 * oracle summaries) and protoc (the .txtpb files of testdata/golden/). Prints one line per
 * failed check and "capi_test: N checks, M failed"; exit 1 on failure.
 *
 * One file of over 600 lines: C has no test framework here to register
 * checks from several translation units, and the checks share the opened
 * models, the counting allocator and the check macro. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnxview.h"

static int checks, failures;
static const char* testdata;

#define CHECK(cond)                                                            \
    do {                                                                       \
        ++checks;                                                              \
        if (!(cond)) {                                                         \
            ++failures;                                                        \
            printf("%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);    \
        }                                                                      \
    } while (0)
#define CHECK_OK(call) CHECK((call).code == ONNXVIEW_OK)
#define CHECK_CODE(call, c) CHECK((call).code == (c))

static int host_is_little_endian(void) {
    const uint16_t one = 1;
    return *(const unsigned char*)&one == 1;
}

/* A float compared with a float literal: passing both as float parameters
 * drops the excess precision x87 hosts give the literal (FLT_EVAL_METHOD 2). */
static int same_float(float a, float b) { return a == b; }

static int same(onnxview_string s, const char* text) {
    return s.size == strlen(text) && (s.size == 0 || memcmp(s.data, text, s.size) == 0);
}

static char* path_of(const char* name) {
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s", testdata, name);
    return buf;
}

/* The whole file, malloc'd; *size its length. */
static char* slurp(const char* path, size_t* size) {
    FILE* f = fopen(path, "rb");
    char* data;
    long n;
    if (f == NULL) return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    data = (char*)malloc((size_t)n + 1);
    if (fread(data, 1, (size_t)n, f) != (size_t)n) n = 0;
    fclose(f);
    *size = (size_t)n;
    return data;
}

static onnxview_model* open_testdata(const char* name) {
    onnxview_model* m = NULL;
    const onnxview_error e = onnxview_open_path(path_of(name), NULL, &m);
    CHECK(e.code == ONNXVIEW_OK && m != NULL);
    return m;
}

/* ------------------------------------------------------------------------
 * a counting allocator, and one that fails */

typedef struct counts {
    long allocations, deallocations;
    size_t live_bytes;
    int fail;
} counts;

static void* counting_allocate(void* user, size_t size, size_t alignment) {
    counts* c = (counts*)user;
    (void)alignment;
    if (c->fail) return NULL;
    ++c->allocations;
    c->live_bytes += size;
    return malloc(size);
}
static void counting_deallocate(void* user, void* ptr, size_t size, size_t alignment) {
    counts* c = (counts*)user;
    (void)alignment;
    ++c->deallocations;
    c->live_bytes -= size;
    free(ptr);
}

/* ------------------------------------------------------------------------
 * file callbacks serving testdata/ from memory */

typedef struct vfs {
    int reads, releases, fail_code;
} vfs;

static int vfs_read(void* user, const char* path, const void** data, uint64_t* size) {
    vfs* v = (vfs*)user;
    const char* name = path;
    const char* p;
    size_t n = 0;
    for (p = path; *p; ++p)
        if (*p == '/' || *p == '\\') name = p + 1; /* the resolver joins paths as the host does */
    char* bytes;
    if (v->fail_code) return v->fail_code;
    bytes = slurp(path_of(name), &n);
    if (bytes == NULL) return 2;
    ++v->reads;
    *data = bytes;
    *size = n;
    return 0;
}
static void vfs_release(void* user, const void* data, uint64_t size) {
    (void)size;
    ++((vfs*)user)->releases;
    free((void*)data);
}

/* ------------------------------------------------------------------------
 * a sink collecting printer output */

typedef struct sink {
    char* data;
    size_t size;
} sink;

static void sink_write(void* user, const char* data, size_t size) {
    sink* s = (sink*)user;
    s->data = (char*)realloc(s->data, s->size + size + 1);
    memcpy(s->data + s->size, data, size);
    s->size += size;
}

/* ------------------------------------------------------------------------ */

static void test_versions_and_errors(void) {
    onnxview_options o = onnxview_options_default();
    CHECK(onnxview_version() == 0x000100);
    CHECK(strcmp(onnxview_version_string(), "0.1.0") == 0);
    CHECK(onnxview_abi_version() == ONNXVIEW_ABI_VERSION);
    CHECK(o.abi_version == ONNXVIEW_ABI_VERSION && o.max_message_depth == 0 && o.memory.allocate == NULL);
    CHECK(strcmp(onnxview_errc_name(ONNXVIEW_TRUNCATED), "truncated") == 0);
    CHECK(strcmp(onnxview_errc_name(ONNXVIEW_OK), "ok") == 0);
    CHECK(strlen(onnxview_errc_message(ONNXVIEW_BUFFER_TOO_SMALL)) > 10);
    CHECK(onnxview_errc_group(ONNXVIEW_IO_ERROR) == ONNXVIEW_IO_ERROR);
    CHECK(onnxview_errc_group(ONNXVIEW_NOT_FOUND) == ONNXVIEW_NOT_FOUND);
    CHECK(strcmp(onnxview_attribute_type_name(ONNXVIEW_ATTR_FLOATS), "FLOATS") == 0);
    CHECK(strcmp(onnxview_attribute_type_name(99), "UNKNOWN") == 0);
    CHECK(strcmp(onnxview_data_type_name(16), "BFLOAT16") == 0);
    /* The generated constants name what the library's names say. */
    CHECK(strcmp(onnxview_attribute_type_name(ONNXVIEW_ATTR_TYPE_PROTOS), "TYPE_PROTOS") == 0);
    CHECK(strcmp(onnxview_data_type_name(ONNXVIEW_DATA_TYPE_FLOAT), "FLOAT") == 0);
    CHECK(strcmp(onnxview_data_type_name(ONNXVIEW_DATA_TYPE_FLOAT8E5M2FNUZ), "FLOAT8E5M2FNUZ") == 0);
    CHECK(strcmp(onnxview_data_type_name(ONNXVIEW_DATA_TYPE_INT2), "INT2") == 0);
    CHECK(onnxview_natural_size(ONNXVIEW_DATA_TYPE_DOUBLE) == 8);
    CHECK(strcmp(onnxview_data_type_name(0), "UNDEFINED") == 0);
    CHECK(strcmp(onnxview_data_type_name(1000), "UNDEFINED") == 0);
    CHECK(onnxview_natural_size(1) == 4 && onnxview_natural_size(10) == 2 && onnxview_natural_size(15) == 16);
    CHECK(onnxview_natural_size(8) == 0 && onnxview_natural_size(22) == 1 && onnxview_natural_size(0) == 0);
}

static void test_open_errors(void) {
    onnxview_model* m = NULL;
    onnxview_options o = onnxview_options_default();
    onnxview_error e;
    static const char truncated[] = {0x3a, 0x05, 0x0a};  /* graph of 5 bytes, 1 present */
    char path[64];
    size_t length = 0;

    CHECK_CODE(onnxview_open_path(NULL, NULL, &m), ONNXVIEW_INVALID_ARGUMENT);
    CHECK_CODE(onnxview_open_path(path_of("small_cnn.onnx"), NULL, NULL), ONNXVIEW_INVALID_ARGUMENT);
    o.abi_version = ONNXVIEW_ABI_VERSION + 1;
    CHECK_CODE(onnxview_open_path(path_of("small_cnn.onnx"), &o, &m), ONNXVIEW_INVALID_ARGUMENT);
    o = onnxview_options_default();
    o.file_mode = 7;
    CHECK_CODE(onnxview_open_path(path_of("small_cnn.onnx"), &o, &m), ONNXVIEW_INVALID_ARGUMENT);
    o = onnxview_options_default();
    e = onnxview_open_path(path_of("no_such_model.onnx"), NULL, &m);
    CHECK(onnxview_errc_group(e.code) == ONNXVIEW_IO_ERROR && e.sys_errno != 0);
    CHECK_CODE(onnxview_open_path(testdata, NULL, &m), ONNXVIEW_IS_DIRECTORY);
    CHECK(m == NULL);

    CHECK_CODE(onnxview_open_memory(NULL, 4, NULL, &m), ONNXVIEW_INVALID_ARGUMENT);
    CHECK_CODE(onnxview_open_memory(truncated, 0, NULL, &m), ONNXVIEW_FILE_EMPTY);
    /* a ModelProto's own fields are read at open; nested ones when reached */
    e = onnxview_open_memory(truncated, sizeof truncated, NULL, &m);
    CHECK(e.code == ONNXVIEW_LENGTH_OUT_OF_BOUNDS || e.code == ONNXVIEW_TRUNCATED);
    CHECK(e.offset <= 1);
    /* keep_malformed: the model opens empty and says why */
    o.keep_malformed = 1;
    CHECK_OK(onnxview_open_memory(truncated, sizeof truncated, &o, &m));
    CHECK(onnxview_model_error(m).code == e.code && onnxview_model_error(m).offset == e.offset);
    CHECK(onnxview_model_bytes(m).size == sizeof truncated);
    CHECK(onnxview_model_has_graph(m) == 0 && onnxview_model_ir_version(m) == 0);
    CHECK(onnxview_model_verify(m).code != ONNXVIEW_OK);
    CHECK_OK(onnxview_field_path(m, 2, path, sizeof path, &length));
    CHECK(strcmp(path, "graph") == 0 && length == 5);
    CHECK_CODE(onnxview_field_path(m, 2, path, 3, &length), ONNXVIEW_BUFFER_TOO_SMALL);
    CHECK(strcmp(path, "gr") == 0 && length == 5);
    CHECK_CODE(onnxview_field_path(m, 99, path, sizeof path, &length), ONNXVIEW_INVALID_ARGUMENT);
    CHECK_CODE(onnxview_field_path(NULL, 0, path, sizeof path, &length), ONNXVIEW_INVALID_ARGUMENT);
    {
        /* one line for people, with the field path when the model holds the offset */
        onnxview_error t = {ONNXVIEW_TRUNCATED, 0, 2};
        char line[256], expected[256];
        const size_t n = onnxview_format_error(m, t, line, sizeof line);
        snprintf(expected, sizeof expected, "%s (truncated) at byte 2 in graph", onnxview_errc_message(ONNXVIEW_TRUNCATED));
        CHECK(strcmp(line, expected) == 0 && n == strlen(expected));
        CHECK(onnxview_format_error(m, t, line, 5) == n && strlen(line) == 4 && strncmp(line, expected, 4) == 0);
        CHECK(onnxview_format_error(NULL, t, line, sizeof line) == n - strlen(" in graph"));
        t.offset = 99; /* past the model: no path */
        CHECK(strstr((onnxview_format_error(m, t, line, sizeof line), line), " in ") == NULL);
        t.code = ONNXVIEW_IO_ERROR;
        t.sys_errno = 2;
        onnxview_format_error(NULL, t, line, sizeof line);
        CHECK(strstr(line, strerror(2)) != NULL && strstr(line, "(io_error) at byte 99 (") != NULL);
    }
    onnxview_close(m);
    onnxview_close(NULL);
    CHECK_CODE(onnxview_model_error(NULL), ONNXVIEW_INVALID_ARGUMENT);
    CHECK_CODE(onnxview_model_verify(NULL), ONNXVIEW_INVALID_ARGUMENT);
}

static void test_allocator(void) {
    counts c = {0, 0, 0, 0};
    onnxview_options o = onnxview_options_default();
    onnxview_model* m = NULL;
    onnxview_tensor t;
    onnxview_graph g;
    float first[1152];
    uint64_t n = 0;
    onnxview_error e;
    o.memory.allocate = counting_allocate;
    o.memory.deallocate = counting_deallocate;
    o.memory.user_data = &c;
    o.file_mode = ONNXVIEW_OPEN_READ; /* the file's copy comes from the allocator too */
    CHECK_OK(onnxview_open_path(path_of("small_cnn.onnx"), &o, &m));
    CHECK(c.allocations >= 2);
    CHECK_OK(onnxview_model_graph(m, &g));
    CHECK_OK(onnxview_graph_initializer(&g, 2, &t)); /* conv2.weight, external */
    CHECK(same(onnxview_tensor_name(&t), "conv2.weight"));
    CHECK_OK(onnxview_tensor_copy_float(&t, first, 1152, &n));
    CHECK(n == 1152 && same_float(first[0], -0.155121326f));
    CHECK(c.allocations >= 3); /* the resolver's tables and the external file */
    onnxview_close(m);
    CHECK(c.allocations == c.deallocations && c.live_bytes == 0);

    c.fail = 1;
    m = NULL;
    e = onnxview_open_path(path_of("small_cnn.onnx"), &o, &m);
    if (e.code != ONNXVIEW_OUT_OF_MEMORY) printf("open_path with a failing allocator: %s\n", onnxview_errc_name(e.code));
    CHECK(e.code == ONNXVIEW_OUT_OF_MEMORY);
    o.file_mode = ONNXVIEW_OPEN_AUTOMATIC;
    e = onnxview_open_path(path_of("small_cnn.onnx"), &o, &m);
    if (e.code != ONNXVIEW_OUT_OF_MEMORY) printf("open_path with a failing allocator: %s\n", onnxview_errc_name(e.code));
    CHECK(e.code == ONNXVIEW_OUT_OF_MEMORY);
    CHECK(m == NULL && c.allocations == c.deallocations);
}

static void test_callbacks(void) {
    vfs v = {0, 0, 0};
    onnxview_file_callbacks cb;
    onnxview_model* m = NULL;
    onnxview_graph g;
    onnxview_tensor t;
    double x = 0;
    int is_sparse = -1;
    onnxview_error e;
    memset(&cb, 0, sizeof cb);
    CHECK_CODE(onnxview_open_callbacks("small_cnn.onnx", &cb, NULL, &m), ONNXVIEW_INVALID_ARGUMENT);
    cb.read_whole = vfs_read;
    cb.release = vfs_release;
    cb.user_data = &v;
    CHECK_CODE(onnxview_open_callbacks(NULL, &cb, NULL, &m), ONNXVIEW_INVALID_ARGUMENT);
    CHECK_CODE(onnxview_open_callbacks("small_cnn.onnx", NULL, NULL, &m), ONNXVIEW_INVALID_ARGUMENT);
    v.fail_code = 5;
    e = onnxview_open_callbacks("small_cnn.onnx", &cb, NULL, &m);
    CHECK(onnxview_errc_group(e.code) == ONNXVIEW_IO_ERROR && e.sys_errno == 5);
    v.fail_code = 0;
    CHECK_OK(onnxview_open_callbacks("small_cnn.onnx", &cb, NULL, &m));
    CHECK(v.reads == 1);
    CHECK_OK(onnxview_model_graph(m, &g));
    /* the external file comes through the same callbacks */
    CHECK_OK(onnxview_graph_find_initializer(&g, "fc.weight", 9, &is_sparse, &t, NULL));
    CHECK(is_sparse == 0 && same(onnxview_tensor_name(&t), "fc.weight"));
    CHECK_OK(onnxview_tensor_double_at(&t, 0, &x, NULL));
    CHECK(v.reads == 2);
    {
        /* the checker opens the external file through the model's callbacks too */
        onnxview_check_result r;
        CHECK_OK(onnxview_check(m, NULL, NULL, NULL, &r));
        CHECK(r.errors == 0 && v.reads >= 2);
    }
    onnxview_close(m);
    CHECK(v.releases == v.reads);
}

/* A ModelProto whose graph holds one UINT8 initializer of `n` bytes. */
static size_t put_varint(unsigned char* p, uint64_t v) {
    size_t i = 0;
    while (v >= 0x80) {
        p[i++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    p[i++] = (unsigned char)v;
    return i;
}
static unsigned char* big_model(size_t n, size_t* size) {
    unsigned char head[64];
    size_t tensor_len, graph_len, h = 0;
    unsigned char* out = (unsigned char*)malloc(n + 64);
    unsigned char tensor_head[32];
    size_t th = 0;
    tensor_head[th++] = 0x08; /* dims */
    th += put_varint(tensor_head + th, n);
    tensor_head[th++] = 0x10; /* data_type */
    tensor_head[th++] = 2;    /* UINT8 */
    tensor_head[th++] = 0x42; /* raw_data (9, bytes) */
    th += put_varint(tensor_head + th, n);
    tensor_len = th + n;
    /* name "g" (tag, length, 'g'), then the initializer's tag, length and bytes */
    graph_len = 3 + 1 + put_varint(head, tensor_len) + tensor_len; /* head: scratch until below */
    head[h++] = 0x08; /* ir_version */
    head[h++] = 8;
    head[h++] = 0x3a; /* graph (7) */
    h += put_varint(head + h, graph_len);
    head[h++] = 0x12; /* GraphProto.name (2) */
    head[h++] = 1;
    head[h++] = 'g';
    head[h++] = 0x2a; /* initializer (5) */
    h += put_varint(head + h, tensor_len);
    memcpy(out, head, h);
    memcpy(out + h, tensor_head, th);
    memset(out + h + th, 7, n);
    *size = h + th + n;
    return out;
}

typedef struct passed {
    size_t calls, bytes;
} passed;
static void count_verified(void* user, const char* data, size_t size) {
    passed* p = (passed*)user;
    (void)data;
    p->calls += 1;
    p->bytes += size;
}

static void test_verified_callback(void) {
    size_t size = 0;
    unsigned char* bytes = big_model((size_t)9 << 20, &size);
    onnxview_options o = onnxview_options_default();
    onnxview_model* m = NULL;
    onnxview_graph g;
    onnxview_tensor t;
    passed p = {0, 0};
    CHECK(o.verified == NULL && o.verified_user == NULL && o.drop_verified_pages == 0 && o.keep_descriptor == 0);
    o.verify = 1;
    o.verified = count_verified;
    o.verified_user = &p;
    o.drop_verified_pages = 1; /* memory, not a mapping: nothing to drop, still opens */
    CHECK_OK(onnxview_open_memory(bytes, size, &o, &m));
    /* runs of at least 4 MiB, within the bytes: the 9 MiB payload makes 1 or 2 */
    CHECK(p.calls >= 1 && p.calls <= 2 && p.bytes >= ((size_t)4 << 20) && p.bytes <= size);
    CHECK_OK(onnxview_model_graph(m, &g));
    CHECK_OK(onnxview_graph_initializer(&g, 0, &t));
    CHECK(onnxview_tensor_data_type(&t) == ONNXVIEW_DATA_TYPE_UINT8);
    onnxview_close(m);
    o.verify = 0; /* no verify, no calls */
    p.calls = 0;
    CHECK_OK(onnxview_open_memory(bytes, size, &o, &m));
    CHECK(p.calls == 0);
    onnxview_close(m);
    free(bytes);
}

static void test_model(void) {
    onnxview_model* m = open_testdata("small_cnn.onnx");
    onnxview_string a, b;
    int64_t version = 0;
    onnxview_function f;
    onnxview_node n;
    if (m == NULL) return;
    CHECK_OK(onnxview_model_error(m));
    CHECK_OK(onnxview_model_verify(m));
    CHECK(onnxview_model_ir_version(m) == 8 && onnxview_model_model_version(m) == 1);
    CHECK(same(onnxview_model_producer_name(m), "onnxview-make_testdata"));
    CHECK(same(onnxview_model_producer_version(m), "1.0"));
    CHECK(same(onnxview_model_domain(m), "org.onnxview.testdata"));
    CHECK(same(onnxview_model_doc_string(m), "A small CNN used as onnxview test data."));
    CHECK(onnxview_model_opset_count(m) == 2);
    CHECK_OK(onnxview_model_opset(m, 1, &a, &version));
    CHECK(same(a, "onnxview.local") && version == 1);
    CHECK_OK(onnxview_model_opset(m, 0, NULL, NULL));
    CHECK_CODE(onnxview_model_opset(m, 2, &a, &version), ONNXVIEW_NOT_FOUND);
    CHECK(onnxview_model_metadata_count(m) == 3);
    CHECK_OK(onnxview_model_metadata(m, 1, &a, &b));
    CHECK(same(a, "license") && same(b, "MIT"));
    CHECK_CODE(onnxview_model_metadata(m, 3, &a, &b), ONNXVIEW_NOT_FOUND);
    CHECK(onnxview_model_has_graph(m) == 1);
    CHECK(onnxview_model_bytes(m).size > 1000);
    CHECK(onnxview_model_function_count(m) == 1);
    CHECK_OK(onnxview_model_function(m, 0, &f));
    CHECK_CODE(onnxview_model_function(m, 1, &f), ONNXVIEW_NOT_FOUND);
    CHECK(same(onnxview_function_name(&f), "Swish") && same(onnxview_function_domain(&f), "onnxview.local"));
    CHECK(same(onnxview_function_overload(&f), ""));
    CHECK(same(onnxview_function_doc_string(&f), "Swish(x) = x * sigmoid(x)"));
    CHECK(onnxview_function_input_count(&f) == 1 && onnxview_function_output_count(&f) == 1);
    CHECK_OK(onnxview_function_input(&f, 0, &a));
    CHECK(same(a, "X"));
    CHECK_OK(onnxview_function_output(&f, 0, &a));
    CHECK(same(a, "Y"));
    CHECK_CODE(onnxview_function_output(&f, 1, &a), ONNXVIEW_NOT_FOUND);
    CHECK(onnxview_function_attribute_count(&f) == 0);
    CHECK_CODE(onnxview_function_attribute(&f, 0, &a), ONNXVIEW_NOT_FOUND);
    CHECK(onnxview_function_opset_count(&f) == 1);
    CHECK_OK(onnxview_function_opset(&f, 0, &a, &version));
    CHECK(same(a, "") && version == 13);
    CHECK_CODE(onnxview_function_opset(&f, 1, &a, &version), ONNXVIEW_NOT_FOUND);
    CHECK(onnxview_function_node_count(&f) == 2);
    CHECK_OK(onnxview_function_node(&f, 1, &n));
    CHECK(same(onnxview_node_name(&n), "mul") && same(onnxview_node_op_type(&n), "Mul"));
    CHECK_CODE(onnxview_node_next(&n, &n), ONNXVIEW_NOT_FOUND);
    CHECK_CODE(onnxview_function_node(&f, 2, &n), ONNXVIEW_NOT_FOUND);
    /* null handles are refused or read as empty, never dereferenced */
    CHECK(onnxview_model_ir_version(NULL) == 0 && onnxview_model_opset_count(NULL) == 0);
    CHECK(onnxview_model_producer_name(NULL).size == 0 && onnxview_model_function_count(NULL) == 0);
    CHECK_CODE(onnxview_model_graph(NULL, NULL), ONNXVIEW_INVALID_ARGUMENT);
    CHECK_CODE(onnxview_model_graph(m, NULL), ONNXVIEW_INVALID_ARGUMENT);
    CHECK(onnxview_graph_node_count(NULL) == 0 && onnxview_node_name(NULL).size == 0);
    CHECK_CODE(onnxview_graph_node(NULL, 0, &n), ONNXVIEW_INVALID_ARGUMENT);
    onnxview_close(m);
}

static void test_graph_and_nodes(void) {
    onnxview_model* m = open_testdata("small_cnn.onnx");
    onnxview_graph g, sub;
    onnxview_node n, last;
    onnxview_attribute a;
    onnxview_value_info v;
    onnxview_type t;
    onnxview_dim d;
    onnxview_tensor init;
    onnxview_string s;
    int64_t ints[8];
    size_t count = 0, steps = 0;
    int is_sparse = -1;
    if (m == NULL) return;
    CHECK_OK(onnxview_model_graph(m, &g));
    CHECK(same(onnxview_graph_name(&g), "small_cnn"));
    CHECK(same(onnxview_graph_doc_string(&g), "Conv-Relu-MaxPool, Conv-Swish-MaxPool, If(Flatten|Reshape), Loop, Gemm, Softmax"));
    CHECK(onnxview_graph_input_count(&g) == 1 && onnxview_graph_output_count(&g) == 1);
    CHECK(onnxview_graph_value_info_count(&g) == 7 && onnxview_graph_initializer_count(&g) == 11);
    CHECK(onnxview_graph_sparse_initializer_count(&g) == 0 && onnxview_graph_node_count(&g) == 12);

    CHECK_OK(onnxview_graph_input(&g, 0, &v));
    CHECK(same(onnxview_value_info_name(&v), "image") && same(onnxview_value_info_doc_string(&v), "RGB image, NCHW"));
    CHECK_OK(onnxview_value_info_type(&v, &t));
    CHECK(onnxview_type_kind(&t) == ONNXVIEW_TYPE_TENSOR && onnxview_type_elem_type(&t) == 1);
    CHECK(onnxview_type_has_shape(&t) && onnxview_type_rank(&t) == 4);
    CHECK_OK(onnxview_type_dim(&t, 0, &d));
    CHECK(d.kind == ONNXVIEW_DIM_PARAM && same(d.param, "N") && same(d.denotation, ""));
    CHECK_OK(onnxview_type_dim(&t, 3, &d));
    CHECK(d.kind == ONNXVIEW_DIM_VALUE && d.value == 32);
    CHECK_CODE(onnxview_type_dim(&t, 4, &d), ONNXVIEW_NOT_FOUND);
    CHECK(same(onnxview_type_denotation(&t), ""));
    CHECK_CODE(onnxview_type_element(&t, &t), ONNXVIEW_NOT_FOUND);
    CHECK_CODE(onnxview_type_opaque(&t, &s, &s), ONNXVIEW_NOT_FOUND);
    CHECK_OK(onnxview_graph_output(&g, 0, &v));
    CHECK(same(onnxview_value_info_name(&v), "probs"));
    CHECK_OK(onnxview_graph_value_info(&g, 4, &v));
    CHECK(same(onnxview_value_info_name(&v), "is_positive"));
    CHECK_CODE(onnxview_graph_value_info(&g, 7, &v), ONNXVIEW_NOT_FOUND);
    CHECK_CODE(onnxview_graph_input(&g, 1, &v), ONNXVIEW_NOT_FOUND);
    CHECK_CODE(onnxview_graph_output(&g, 1, &v), ONNXVIEW_NOT_FOUND);

    CHECK_OK(onnxview_graph_node(&g, 0, &n));
    CHECK(same(onnxview_node_name(&n), "conv1") && same(onnxview_node_op_type(&n), "Conv"));
    CHECK(same(onnxview_node_domain(&n), "") && same(onnxview_node_overload(&n), ""));
    CHECK(same(onnxview_node_doc_string(&n), "3x3 conv, 8 channels"));
    CHECK(onnxview_node_input_count(&n) == 3 && onnxview_node_output_count(&n) == 1);
    CHECK_OK(onnxview_node_input(&n, 2, &s));
    CHECK(same(s, "conv1.bias"));
    CHECK_CODE(onnxview_node_input(&n, 3, &s), ONNXVIEW_NOT_FOUND);
    CHECK_CODE(onnxview_node_input(&n, 0, NULL), ONNXVIEW_INVALID_ARGUMENT);
    CHECK_OK(onnxview_node_output(&n, 0, &s));
    CHECK(same(s, "conv1"));
    CHECK(onnxview_node_attribute_count(&n) == 3);
    CHECK_OK(onnxview_node_attribute(&n, 1, &a));
    CHECK(same(onnxview_attribute_name(&a), "pads") && onnxview_attribute_type(&a) == ONNXVIEW_ATTR_INTS);
    CHECK_OK(onnxview_node_find_attribute(&n, "strides", 7, &a));
    CHECK_OK(onnxview_attribute_ints(&a, ints, 8, &count));
    CHECK(count == 2 && ints[0] == 1 && ints[1] == 1);
    CHECK_CODE(onnxview_attribute_ints(&a, ints, 1, &count), ONNXVIEW_BUFFER_TOO_SMALL);
    CHECK_OK(onnxview_attribute_ints(&a, NULL, 0, &count));
    CHECK(count == 2);
    CHECK_CODE(onnxview_node_find_attribute(&n, "dilations", 9, &a), ONNXVIEW_NOT_FOUND);
    CHECK_CODE(onnxview_node_attribute(&n, 3, &a), ONNXVIEW_NOT_FOUND);

    /* next() walks the same nodes index access gives */
    do {
        last = n;
        ++steps;
    } while (onnxview_node_next(&n, &n).code == ONNXVIEW_OK);
    CHECK(steps == 12 && same(onnxview_node_name(&last), "softmax"));
    CHECK_OK(onnxview_graph_node(&g, 8, &n));
    CHECK(same(onnxview_node_name(&n), "choose_flatten"));
    CHECK_OK(onnxview_node_find_attribute(&n, "else_branch", 11, &a));
    CHECK(onnxview_attribute_type(&a) == ONNXVIEW_ATTR_GRAPH);
    CHECK_OK(onnxview_attribute_g(&a, &sub));
    CHECK(same(onnxview_graph_name(&sub), "else_branch") && onnxview_graph_output_count(&sub) == 1);
    CHECK_OK(onnxview_graph_node(&g, 12 - 1, &n));
    CHECK(same(onnxview_node_name(&n), "softmax"));
    CHECK_CODE(onnxview_graph_node(&g, 12, &n), ONNXVIEW_NOT_FOUND);

    /* initializers by index, by next() and by name */
    CHECK_OK(onnxview_graph_initializer(&g, 0, &init));
    CHECK(same(onnxview_tensor_name(&init), "conv1.weight"));
    CHECK_OK(onnxview_tensor_next(&init, &init));
    CHECK(same(onnxview_tensor_name(&init), "conv1.bias"));
    CHECK_OK(onnxview_graph_find_initializer(&g, "loop_scale", 10, &is_sparse, &init, NULL));
    CHECK(is_sparse == 0 && same(onnxview_tensor_name(&init), "loop_scale"));
    CHECK_OK(onnxview_tensor_next(&init, &init));
    CHECK(same(onnxview_tensor_name(&init), "zero"));
    CHECK_CODE(onnxview_tensor_next(&init, &init), ONNXVIEW_NOT_FOUND);
    CHECK_CODE(onnxview_graph_find_initializer(&g, "nope", 4, &is_sparse, &init, NULL), ONNXVIEW_NOT_FOUND);
    CHECK_CODE(onnxview_graph_find_initializer(&g, "zero", 4, NULL, &init, NULL), ONNXVIEW_INVALID_ARGUMENT);
    CHECK_CODE(onnxview_graph_initializer(&g, 11, &init), ONNXVIEW_NOT_FOUND);
    onnxview_close(m);
}

static void test_attributes_and_types(void) {
    onnxview_model* m = open_testdata("attributes_and_types.onnx");
    onnxview_graph g, sub;
    onnxview_node n;
    onnxview_attribute a;
    onnxview_value_info v;
    onnxview_type t, inner;
    onnxview_tensor tensor;
    onnxview_sparse_tensor sp;
    onnxview_string s;
    float floats[4];
    size_t count = 0;
    if (m == NULL) return;
    CHECK_OK(onnxview_model_graph(m, &g));
    CHECK_OK(onnxview_graph_input(&g, 3, &v)); /* map(STRING, tensor(FLOAT, [2])) */
    CHECK_OK(onnxview_value_info_type(&v, &t));
    CHECK(onnxview_type_kind(&t) == ONNXVIEW_TYPE_MAP && onnxview_type_elem_type(&t) == 8);
    CHECK_OK(onnxview_type_element(&t, &inner));
    CHECK(onnxview_type_kind(&inner) == ONNXVIEW_TYPE_TENSOR && onnxview_type_rank(&inner) == 1);
    CHECK_OK(onnxview_graph_input(&g, 4, &v)); /* optional(seq(tensor(INT64))) */
    CHECK_OK(onnxview_value_info_type(&v, &t));
    CHECK(onnxview_type_kind(&t) == ONNXVIEW_TYPE_OPTIONAL);
    CHECK_OK(onnxview_type_element(&t, &inner));
    CHECK(onnxview_type_kind(&inner) == ONNXVIEW_TYPE_SEQUENCE && onnxview_type_elem_type(&inner) == 0);
    CHECK_OK(onnxview_graph_input(&g, 5, &v)); /* sparse_tensor(FLOAT, [10, "M"]) */
    CHECK_OK(onnxview_value_info_type(&v, &t));
    CHECK(onnxview_type_kind(&t) == ONNXVIEW_TYPE_SPARSE_TENSOR && onnxview_type_rank(&t) == 2);
    CHECK_OK(onnxview_graph_input(&g, 0, &v)); /* tensor(FLOAT, ["B", ?, 3]) */
    CHECK_OK(onnxview_value_info_type(&v, &t));
    {
        onnxview_dim d;
        CHECK_OK(onnxview_type_dim(&t, 1, &d));
        CHECK(d.kind == ONNXVIEW_DIM_UNKNOWN);
    }
    CHECK_OK(onnxview_graph_value_info(&g, 0, &v)); /* unknown rank */
    CHECK_OK(onnxview_value_info_type(&v, &t));
    CHECK(onnxview_type_kind(&t) == ONNXVIEW_TYPE_TENSOR && !onnxview_type_has_shape(&t));
    CHECK_OK(onnxview_graph_value_info(&g, 1, &v)); /* no type */
    CHECK_OK(onnxview_value_info_type(&v, &t));
    CHECK(onnxview_type_kind(&t) == ONNXVIEW_TYPE_NONE && onnxview_type_elem_type(&t) == 0);

    CHECK_OK(onnxview_graph_node(&g, 0, &n));
    CHECK_OK(onnxview_node_find_attribute(&n, "f_float", 7, &a));
    CHECK(same_float(onnxview_attribute_f(&a), 0.1f) && same(onnxview_attribute_doc_string(&a), "a float attribute"));
    CHECK(same(onnxview_attribute_ref_attr_name(&a), ""));
    CHECK_OK(onnxview_node_find_attribute(&n, "floats", 6, &a));
    CHECK_OK(onnxview_attribute_floats(&a, floats, 4, &count));
    CHECK(count == 3 && same_float(floats[0], 1.0f) && same_float(floats[2], 1e-30f));
    CHECK_CODE(onnxview_attribute_floats(&a, floats, 2, &count), ONNXVIEW_BUFFER_TOO_SMALL);
    CHECK_OK(onnxview_node_find_attribute(&n, "i_int", 5, &a));
    CHECK(onnxview_attribute_i(&a) == -7);
    CHECK_OK(onnxview_node_find_attribute(&n, "s_string", 8, &a));
    CHECK(same(onnxview_attribute_s(&a), "caf\xc3\xa9 \"x\""));
    CHECK_OK(onnxview_node_find_attribute(&n, "strings", 7, &a));
    CHECK(onnxview_attribute_strings_count(&a) == 3);
    CHECK_OK(onnxview_attribute_string_at(&a, 2, &s));
    CHECK(same(s, "b\\c"));
    CHECK_CODE(onnxview_attribute_string_at(&a, 3, &s), ONNXVIEW_NOT_FOUND);
    CHECK_OK(onnxview_node_find_attribute(&n, "t_tensor", 8, &a));
    CHECK_OK(onnxview_attribute_t(&a, &tensor));
    CHECK(onnxview_tensor_data_type(&tensor) != 0);
    CHECK_CODE(onnxview_tensor_next(&tensor, &tensor), ONNXVIEW_NOT_FOUND); /* a singular field */
    CHECK_OK(onnxview_node_find_attribute(&n, "tensors", 7, &a));
    CHECK(onnxview_attribute_tensors_count(&a) == 2);
    CHECK_OK(onnxview_attribute_tensor_at(&a, 0, &tensor));
    CHECK_OK(onnxview_tensor_next(&tensor, &tensor));
    CHECK_CODE(onnxview_tensor_next(&tensor, &tensor), ONNXVIEW_NOT_FOUND);
    CHECK_CODE(onnxview_attribute_tensor_at(&a, 2, &tensor), ONNXVIEW_NOT_FOUND);
    CHECK_OK(onnxview_node_find_attribute(&n, "graphs", 6, &a));
    CHECK(onnxview_attribute_graphs_count(&a) == 2);
    CHECK_OK(onnxview_attribute_graph_at(&a, 1, &sub));
    CHECK(onnxview_graph_input_count(&sub) == 1);
    CHECK_CODE(onnxview_attribute_graph_at(&a, 2, &sub), ONNXVIEW_NOT_FOUND);
    CHECK_OK(onnxview_node_find_attribute(&n, "sp_sparse", 9, &a));
    CHECK_OK(onnxview_attribute_sparse_tensor(&a, &sp));
    CHECK_OK(onnxview_sparse_values(&sp, &tensor));
    CHECK_OK(onnxview_node_find_attribute(&n, "sparse_tensors", 14, &a));
    CHECK(onnxview_attribute_sparse_tensors_count(&a) == 1);
    CHECK_OK(onnxview_attribute_sparse_tensor_at(&a, 0, &sp));
    CHECK_CODE(onnxview_attribute_sparse_tensor_at(&a, 1, &sp), ONNXVIEW_NOT_FOUND);
    CHECK_OK(onnxview_node_find_attribute(&n, "tp_type", 7, &a));
    CHECK_OK(onnxview_attribute_tp(&a, &t));
    CHECK(onnxview_type_kind(&t) == ONNXVIEW_TYPE_TENSOR && onnxview_type_rank(&t) == 3);
    CHECK_OK(onnxview_node_find_attribute(&n, "type_protos", 11, &a));
    CHECK(onnxview_attribute_type_protos_count(&a) == 2);
    CHECK_OK(onnxview_attribute_type_proto_at(&a, 1, &t));
    CHECK(onnxview_type_kind(&t) == ONNXVIEW_TYPE_SEQUENCE);
    CHECK_CODE(onnxview_attribute_type_proto_at(&a, 2, &t), ONNXVIEW_NOT_FOUND);
    /* absent message fields read as empty messages */
    CHECK_OK(onnxview_node_find_attribute(&n, "i_int", 5, &a));
    CHECK_OK(onnxview_attribute_g(&a, &sub));
    CHECK(onnxview_graph_node_count(&sub) == 0 && same(onnxview_graph_name(&sub), ""));
    onnxview_close(m);
}

static void test_tensor_data(void) {
    onnxview_model* m = open_testdata("tensors_all_types.onnx");
    onnxview_graph g;
    onnxview_tensor t;
    onnxview_storage st;
    onnxview_string s;
    const void* data = NULL;
    int64_t dims[4];
    size_t rank = 0;
    uint64_t n = 0;
    double re = 0, im = 0, doubles[32];
    float floats[32];
    uint16_t halves[32];
    unsigned char bytes[64];
    int is_sparse = -1;
    if (m == NULL) return;
    CHECK_OK(onnxview_model_graph(m, &g));
    CHECK_OK(onnxview_graph_find_initializer(&g, "float_raw", 9, &is_sparse, &t, NULL));
    CHECK(onnxview_tensor_data_type(&t) == 1 && onnxview_tensor_data_location(&t) == 0);
    CHECK(onnxview_tensor_has_raw_data(&t) && !onnxview_tensor_has_segment(&t));
    CHECK(same(onnxview_tensor_doc_string(&t), "float32 edge values: -0, inf, nan, max, min normal, min subnormal"));
    CHECK(onnxview_tensor_external_data_count(&t) == 0);
    CHECK_CODE(onnxview_tensor_external_data(&t, 0, &s, &s), ONNXVIEW_NOT_FOUND);
    CHECK_OK(onnxview_tensor_dims(&t, dims, 4, &rank));
    CHECK(rank == 2 && dims[0] == 3 && dims[1] == 4);
    CHECK_CODE(onnxview_tensor_dims(&t, dims, 1, &rank), ONNXVIEW_BUFFER_TOO_SMALL);
    CHECK_OK(onnxview_tensor_storage(&t, &st));
    CHECK(st.kind == ONNXVIEW_STORAGE_RAW && st.element_count == 12 && st.byte_size == 48 && st.alignment >= 1);
    CHECK_OK(onnxview_tensor_copy_float(&t, floats, 32, &n));
    CHECK(n == 12 && same_float(floats[0], 1.5f) && same_float(floats[6], 3.40282347e+38f));
    CHECK_CODE(onnxview_tensor_copy_float(&t, floats, 11, &n), ONNXVIEW_BUFFER_TOO_SMALL);
    CHECK_OK(onnxview_tensor_copy(&t, bytes, sizeof bytes, &n));
    CHECK(n == 12 && memcmp(bytes, floats, 48) == 0);
    CHECK_OK(onnxview_tensor_copy(&t, bytes + 1, sizeof bytes - 1, &n)); /* unaligned caller memory */
    CHECK(n == 12 && memcmp(bytes + 1, floats, 48) == 0);
    CHECK_CODE(onnxview_tensor_copy(&t, bytes, 47, &n), ONNXVIEW_BUFFER_TOO_SMALL);
    CHECK_OK(onnxview_tensor_double_at(&t, 6, &re, NULL));
    CHECK(same_float((float)re, 3.40282347e+38f) && re == (double)floats[6]);
    CHECK_CODE(onnxview_tensor_double_at(&t, 12, &re, NULL), ONNXVIEW_NOT_FOUND);
    CHECK_CODE(onnxview_tensor_string_at(&t, 0, &s), ONNXVIEW_BAD_DATA_TYPE);
    {
        /* zero-copy where the payload is aligned, a copy otherwise */
        const onnxview_error e = onnxview_tensor_data(&t, &data, &n);
        if (!host_is_little_endian()) CHECK(e.code == ONNXVIEW_NOT_LITTLE_ENDIAN);
        else if (st.alignment % 4 == 0) CHECK(e.code == ONNXVIEW_OK && n == 12 && memcmp(data, floats, 48) == 0);
        else CHECK(e.code == ONNXVIEW_UNALIGNED);
    }
    /* typed storage, and the narrow types through their bits and as doubles */
    CHECK_OK(onnxview_graph_find_initializer(&g, "float16_typed", 13, &is_sparse, &t, NULL));
    CHECK_OK(onnxview_tensor_storage(&t, &st));
    CHECK(st.kind == ONNXVIEW_STORAGE_TYPED && st.element_count == st.entry_count);
    CHECK_CODE(onnxview_tensor_data(&t, &data, &n), ONNXVIEW_BAD_DATA_TYPE); /* varints in int32_data */
    CHECK_OK(onnxview_tensor_copy(&t, halves, sizeof halves, &n));
    CHECK_OK(onnxview_tensor_copy_double(&t, doubles, 32, &n));
    CHECK(halves[0] == 0x3C00 && doubles[0] == 1.0 && doubles[5] == 65504.0); /* float16 1, ..., max */
    CHECK_OK(onnxview_graph_find_initializer(&g, "complex128_raw", 14, &is_sparse, &t, NULL));
    CHECK_OK(onnxview_tensor_double_at(&t, 0, &re, &im));
    CHECK_OK(onnxview_tensor_copy_double(&t, doubles, 32, &n));
    CHECK(n % 2 == 0 && doubles[0] == re && doubles[1] == im);
    CHECK_OK(onnxview_graph_find_initializer(&g, "string_typed", 12, &is_sparse, &t, NULL));
    CHECK_OK(onnxview_tensor_string_at(&t, 0, &s));
    CHECK(same(s, ""));
    CHECK_CODE(onnxview_tensor_copy(&t, bytes, sizeof bytes, &n), ONNXVIEW_BAD_DATA_TYPE);
    CHECK_CODE(onnxview_tensor_copy_float(&t, floats, 32, &n), ONNXVIEW_BAD_DATA_TYPE);
    CHECK_CODE(onnxview_tensor_data(&t, &data, &n), ONNXVIEW_BAD_DATA_TYPE);
    CHECK_CODE(onnxview_tensor_double_at(&t, 0, &re, NULL), ONNXVIEW_BAD_DATA_TYPE);
    CHECK_OK(onnxview_graph_find_initializer(&g, "empty_float_typed", 17, &is_sparse, &t, NULL));
    CHECK_OK(onnxview_tensor_copy_float(&t, NULL, 0, &n));
    CHECK(n == 0);
    CHECK_CODE(onnxview_tensor_data(NULL, &data, &n), ONNXVIEW_INVALID_ARGUMENT);
    CHECK_CODE(onnxview_tensor_storage(&t, NULL), ONNXVIEW_INVALID_ARGUMENT);
    onnxview_close(m);

    /* external data: the storage facts and the values in small_cnn.weights */
    m = open_testdata("small_cnn.onnx");
    if (m == NULL) return;
    CHECK_OK(onnxview_model_graph(m, &g));
    CHECK_OK(onnxview_graph_find_initializer(&g, "fc.weight", 9, &is_sparse, &t, NULL));
    CHECK(onnxview_tensor_data_location(&t) == 1 && onnxview_tensor_external_data_count(&t) == 3);
    {
        onnxview_string key, value;
        CHECK_OK(onnxview_tensor_external_data(&t, 1, &key, &value));
        CHECK(same(key, "offset") && same(value, "4608"));
    }
    CHECK_OK(onnxview_tensor_storage(&t, &st));
    CHECK(st.kind == ONNXVIEW_STORAGE_EXTERNAL && st.offset == 4608 && same(st.location, "small_cnn.weights"));
    CHECK(st.byte_size == 10240 && st.alignment == 512);
    if (host_is_little_endian()) {
        CHECK_OK(onnxview_tensor_data(&t, &data, &n)); /* a heap copy of the small file, or a mapping */
        CHECK(n == 2560);
    } else {
        CHECK_CODE(onnxview_tensor_data(&t, &data, &n), ONNXVIEW_NOT_LITTLE_ENDIAN);
    }
    onnxview_close(m);
}

static void test_sparse(void) {
    onnxview_model* m = open_testdata("sparse.onnx");
    onnxview_graph g;
    onnxview_sparse_tensor sp;
    onnxview_tensor t;
    onnxview_sparse_info info;
    int64_t dims[4];
    size_t rank = 0;
    uint64_t at = 0;
    int is_sparse = -1;
    if (m == NULL) return;
    CHECK_OK(onnxview_model_graph(m, &g));
    CHECK(onnxview_graph_sparse_initializer_count(&g) == 2);
    CHECK_OK(onnxview_graph_sparse_initializer(&g, 0, &sp));
    CHECK_CODE(onnxview_graph_sparse_initializer(&g, 2, &sp), ONNXVIEW_NOT_FOUND);
    CHECK_OK(onnxview_sparse_dims(&sp, dims, 4, &rank));
    CHECK(rank == 2 && dims[0] == 4 && dims[1] == 5);
    CHECK_OK(onnxview_sparse_values(&sp, &t));
    CHECK(same(onnxview_tensor_name(&t), "sparse_2d"));
    CHECK_OK(onnxview_sparse_indices(&sp, &t));
    CHECK(same(onnxview_tensor_name(&t), "sparse_2d_indices"));
    CHECK_OK(onnxview_sparse_info_of(&sp, &info));
    CHECK(info.nnz == 3 && info.dense_size == 20 && info.rank == 2 && info.layout == ONNXVIEW_SPARSE_COORDINATES);
    CHECK_OK(onnxview_sparse_linear_index(&sp, 2, &at));
    CHECK(at == 19); /* (3, 4) in [4, 5] */
    CHECK_CODE(onnxview_sparse_linear_index(&sp, 3, &at), ONNXVIEW_NOT_FOUND);
    CHECK_OK(onnxview_sparse_validate(&sp));
    CHECK_OK(onnxview_graph_find_initializer(&g, "sparse_linear", 13, &is_sparse, NULL, &sp));
    CHECK(is_sparse == 1);
    CHECK_OK(onnxview_sparse_info_of(&sp, &info));
    CHECK(info.nnz == 4 && info.layout == ONNXVIEW_SPARSE_LINEAR);
    CHECK_CODE(onnxview_sparse_info_of(NULL, &info), ONNXVIEW_INVALID_ARGUMENT);
    onnxview_close(m);
}

/* Types newer than onnx 1.12 (no python3-onnx oracle for them): an INT4 and
 * a FLOAT8E4M3FN initializer, with values from the ONNX spec's definitions. */
static void test_new_types(void) {
    static const unsigned char model[] = {
        0x08, 0x08, 0x3a, 0x14,                                 /* ir_version 8, graph (20) */
        0x2a, 0x08, 0x08, 0x03, 0x10, 0x16, 0x4a, 0x02, 0x21, 0x0f, /* INT4 [3]: 1, 2, -1 */
        0x2a, 0x08, 0x08, 0x02, 0x10, 0x11, 0x4a, 0x02, 0x38, 0x40}; /* FLOAT8E4M3FN [2]: 1, 2 */
    onnxview_model* m = NULL;
    onnxview_graph g;
    onnxview_tensor t;
    double d[4];
    float f[4];
    signed char i4[4];
    unsigned char f8[4];
    const void* data = NULL;
    uint64_t n = 0;
    CHECK_OK(onnxview_open_memory(model, sizeof model, NULL, &m));
    if (m == NULL) return;
    CHECK_OK(onnxview_model_graph(m, &g));
    CHECK_OK(onnxview_graph_initializer(&g, 0, &t));
    CHECK(onnxview_tensor_data_type(&t) == 22 && strcmp(onnxview_data_type_name(22), "INT4") == 0);
    CHECK_OK(onnxview_tensor_copy_double(&t, d, 4, &n));
    CHECK(n == 3 && d[0] == 1 && d[1] == 2 && d[2] == -1);
    CHECK_OK(onnxview_tensor_copy(&t, i4, sizeof i4, &n));
    CHECK(n == 3 && i4[0] == 1 && i4[1] == 2 && i4[2] == -1);
    CHECK_CODE(onnxview_tensor_data(&t, &data, &n), ONNXVIEW_BAD_DATA_TYPE); /* two per byte */
    CHECK_OK(onnxview_tensor_next(&t, &t));
    CHECK(onnxview_tensor_data_type(&t) == 17);
    CHECK_OK(onnxview_tensor_copy_float(&t, f, 4, &n));
    CHECK(n == 2 && f[0] == 1 && f[1] == 2);
    CHECK_OK(onnxview_tensor_copy(&t, f8, sizeof f8, &n));
    CHECK(n == 2 && f8[0] == 0x38 && f8[1] == 0x40);
    CHECK_OK(onnxview_tensor_data(&t, &data, &n)); /* bytes: any alignment, any host */
    CHECK(n == 2 && memcmp(data, f8, 2) == 0);
    onnxview_close(m);
}

/* A model whose one initializer names "../w.bin": refused before any file is opened. */
static void test_external_security(void) {
    static const unsigned char model[] = {
        0x08, 0x08, 0x3a, 0x21,                                         /* ir_version 8, graph (33) */
        0x2a, 0x1f,                                                     /* initializer (31) */
        0x08, 0x01, 0x10, 0x01, 0x42, 0x01, 'w',                        /* dims [1], FLOAT, name "w" */
        0x6a, 0x14, 0x0a, 0x08, 'l', 'o', 'c', 'a', 't', 'i', 'o', 'n', /* external_data location */
        0x12, 0x08, '.', '.', '/', 'w', '.', 'b', 'i', 'n',             /*   = "../w.bin" */
        0x70, 0x01};                                                    /* data_location EXTERNAL */
    onnxview_options o = onnxview_options_default();
    onnxview_model* m = NULL;
    onnxview_graph g;
    onnxview_tensor t;
    float x[1];
    uint64_t n = 0;
    onnxview_error e;
    o.model_path = path_of("small_cnn.onnx");
    CHECK_OK(onnxview_open_memory(model, sizeof model, &o, &m));
    CHECK_OK(onnxview_model_verify(m));
    CHECK_OK(onnxview_model_graph(m, &g));
    CHECK_OK(onnxview_graph_initializer(&g, 0, &t));
    e = onnxview_tensor_copy_float(&t, x, 1, &n);
    CHECK(onnxview_errc_group(e.code) == ONNXVIEW_EXTERNAL_PATH_UNSAFE && e.offset == 6);
    {
        onnxview_check_result r;
        CHECK_OK(onnxview_check(m, NULL, NULL, NULL, &r));
        CHECK(r.errors >= 1);
    }
    onnxview_close(m);
}

/* fuzz_pack finding 7: an EXTERNAL tensor without elements (dims [0]) still
 * names a place in a file, and the C API resolves it like the CLI and the
 * Python package: no file is io_resolve_failed, an offset 8 bytes short of
 * 2^64 in an existing file is external_offset_past_end, and the checker
 * reports it. */
static void test_empty_external_tensor(void) {
    char path[4200];
    size_t size = 0, i;
    char* bytes;
    int round;
    snprintf(path, sizeof path, "%s/../fuzz/corpus/fuzz_pack/finding-empty-external-offset-near-2-64", testdata);
    bytes = slurp(path, &size);
    CHECK(bytes != NULL && size == 155);
    if (bytes == NULL) return;
    for (round = 0; round < 2; ++round) {
        onnxview_options o = onnxview_options_default();
        onnxview_model* m = NULL;
        onnxview_graph g;
        onnxview_tensor t;
        onnxview_check_result r;
        const void* data = NULL;
        uint64_t n = 0;
        if (round == 1) /* "weights.bin" -> "sparse.onnx", a file of testdata/ (same length) */
            for (i = 0; i + 11 <= size; ++i)
                if (memcmp(bytes + i, "weights.bin", 11) == 0) memcpy(bytes + i, "sparse.onnx", 11);
        o.model_path = path_of("small_cnn.onnx");
        CHECK_OK(onnxview_open_memory(bytes, size, &o, &m));
        CHECK_OK(onnxview_model_graph(m, &g));
        CHECK_OK(onnxview_graph_initializer(&g, 0, &t));
        CHECK(strcmp(onnxview_errc_name(onnxview_tensor_data(&t, &data, &n).code),
                     round == 0 ? "io_resolve_failed" : "external_offset_past_end") == 0);
        CHECK_OK(onnxview_check(m, NULL, NULL, NULL, &r));
        CHECK(r.errors >= 1);
        onnxview_close(m);
    }
    free(bytes);
}

typedef struct findings {
    int count, errors;
    char last_code[64];
} findings;

static void on_finding(void* user, const onnxview_finding* f) {
    findings* fs = (findings*)user;
    ++fs->count;
    if (f->severity == ONNXVIEW_ERROR) ++fs->errors;
    snprintf(fs->last_code, sizeof fs->last_code, "%s", f->code_name);
    CHECK(f->path.size == 0 || f->path.data != NULL);
}

static void test_check(void) {
    onnxview_model* m = open_testdata("small_cnn.onnx");
    onnxview_check_result r;
    findings fs;
    onnxview_options o = onnxview_options_default();
    /* the Relu of a two-node model reads a value nothing defines */
    static const unsigned char undefined_input[] = {
        0x08, 0x08, 0x42, 0x02, 0x10, 0x0d,          /* ir_version 8, opset_import { version 13 } */
        0x3a, 0x0e, 0x12, 0x01, 'g',                 /* graph "g" */
        0x0a, 0x09, 0x0a, 0x01, 'x', 0x12, 0x01, 'y', /*   node { input "x" output "y" */
        0x22, 0x01, 'N'};                            /*   op_type "N" } */
    memset(&fs, 0, sizeof fs);
    if (m == NULL) return;
    CHECK_OK(onnxview_check(m, NULL, on_finding, &fs, &r));
    CHECK(r.errors == 0 && r.warnings == 0 && !r.truncated && fs.count == 0);
    o.abi_version = 0;
    CHECK_CODE(onnxview_check(m, &o, on_finding, &fs, &r), ONNXVIEW_INVALID_ARGUMENT);
    CHECK_CODE(onnxview_check(m, NULL, on_finding, &fs, NULL), ONNXVIEW_INVALID_ARGUMENT);
    onnxview_close(m);
    m = NULL;
    CHECK_OK(onnxview_open_memory(undefined_input, sizeof undefined_input, NULL, &m));
    if (m == NULL) return;
    CHECK_OK(onnxview_check(m, NULL, on_finding, &fs, &r));
    CHECK(r.errors == 1 && fs.count == 1 && fs.errors == 1 && strcmp(fs.last_code, "undefined_input") == 0);
    onnxview_close(m);
}

static void test_printers(void) {
    static const char* const names[] = {"small_cnn", "attributes_and_types", "sparse", "tensors_all_types"};
    size_t i;
    for (i = 0; i < sizeof names / sizeof names[0]; ++i) {
        char file[256];
        onnxview_model* m;
        sink text = {NULL, 0}, json = {NULL, 0};
        size_t golden_size = 0;
        char* golden;
        snprintf(file, sizeof file, "%s.onnx", names[i]);
        m = open_testdata(file);
        if (m == NULL) return;
        CHECK_OK(onnxview_print_text(m, NULL, sink_write, &text));
        snprintf(file, sizeof file, "golden/%s.txtpb", names[i]);
        golden = slurp(path_of(file), &golden_size);
        CHECK(golden != NULL && text.size == golden_size && memcmp(text.data, golden, golden_size) == 0);
        free(golden);
        CHECK_OK(onnxview_print_json(m, NULL, sink_write, &json));
        snprintf(file, sizeof file, "golden/%s.json", names[i]);
        golden = slurp(path_of(file), &golden_size);
        CHECK(golden != NULL && json.size == golden_size && memcmp(json.data, golden, golden_size) == 0);
        free(golden);
        CHECK_CODE(onnxview_print_text(m, NULL, NULL, NULL), ONNXVIEW_INVALID_ARGUMENT);
        CHECK_CODE(onnxview_print_json(NULL, NULL, sink_write, &json), ONNXVIEW_INVALID_ARGUMENT);
        free(text.data);
        free(json.data);
        onnxview_close(m);
    }
    {
        /* a malformed model prints nothing and says where */
        static const char cut[] = {0x08, 0x08, 0x3a, 0x04, 0x0a, 0x09};
        onnxview_options o = onnxview_options_default();
        onnxview_model* m = NULL;
        sink text = {NULL, 0};
        o.keep_malformed = 1;
        CHECK_OK(onnxview_open_memory(cut, sizeof cut, &o, &m));
        CHECK(onnxview_print_text(m, NULL, sink_write, &text).code != ONNXVIEW_OK && text.size == 0);
        onnxview_close(m);
    }
}

/* keep_descriptor: the model still opens and reads the same (the descriptor
 * only changes how payloads can be copied) */
static void test_keep_descriptor(void) {
    onnxview_options o = onnxview_options_default();
    onnxview_model* m = NULL;
    onnxview_graph g;
    onnxview_tensor t;
    float floats[32];
    uint64_t n = 0;
    int is_sparse = -1;
    o.keep_descriptor = 1;
    CHECK_OK(onnxview_open_path(path_of("tensors_all_types.onnx"), &o, &m));
    if (m == NULL) return;
    CHECK_OK(onnxview_model_graph(m, &g));
    CHECK_OK(onnxview_graph_find_initializer(&g, "float_raw", 9, &is_sparse, &t, NULL));
    CHECK_OK(onnxview_tensor_copy_float(&t, floats, 32, &n));
    CHECK(n == 12);
    onnxview_close(m);
}

/* onnxview_open_self_contained: inline tensors read as onnxview_open_memory
 * reads them; an external tensor's data is refused at the tensor */
static void test_self_contained(void) {
    static const char truncated[] = {0x3a, 0x05, 0x0a};
    onnxview_options o = onnxview_options_default();
    onnxview_model *full = NULL, *self = NULL;
    onnxview_graph g, h;
    onnxview_tensor t, u;
    onnxview_error e, f;
    float a[4096], b[4096];
    uint64_t na = 0, nb = 0;
    size_t size = 0, compared = 0, refused = 0;
    char* bytes = slurp(path_of("small_cnn_inline.onnx"), &size);
    CHECK(bytes != NULL && size > 0);
    CHECK_OK(onnxview_open_memory(bytes, size, NULL, &full));
    CHECK_OK(onnxview_open_self_contained(bytes, size, NULL, &self));
    if (full == NULL || self == NULL) return;
    CHECK_OK(onnxview_model_graph(full, &g));
    CHECK_OK(onnxview_model_graph(self, &h));
    for (e = onnxview_graph_initializer(&g, 0, &t), f = onnxview_graph_initializer(&h, 0, &u); e.code == 0 && f.code == 0;
         e = onnxview_tensor_next(&t, &t), f = onnxview_tensor_next(&u, &u)) {
        CHECK_OK(onnxview_tensor_copy_float(&t, a, 4096, &na));
        CHECK_OK(onnxview_tensor_copy_float(&u, b, 4096, &nb));
        CHECK(na == nb && na > 0 && memcmp(a, b, (size_t)na * sizeof(float)) == 0);
        ++compared;
    }
    CHECK(e.code == ONNXVIEW_NOT_FOUND && f.code == ONNXVIEW_NOT_FOUND && compared == 11);
    onnxview_close(full);
    onnxview_close(self);
    free(bytes);

    bytes = slurp(path_of("small_cnn.onnx"), &size);
    CHECK_OK(onnxview_open_self_contained(bytes, size, NULL, &self));
    if (self == NULL) return;
    CHECK_OK(onnxview_model_graph(self, &h));
    for (f = onnxview_graph_initializer(&h, 0, &u); f.code == 0; f = onnxview_tensor_next(&u, &u)) {
        const void* data = NULL;
        onnxview_storage st;
        e = onnxview_tensor_data(&u, &data, &nb);
        if (onnxview_tensor_data_location(&u) != 1) continue;
        CHECK(onnxview_errc_group(e.code) == ONNXVIEW_INVALID_ARGUMENT);
        CHECK(strcmp(onnxview_errc_name(e.code), "external_not_opened") == 0 && e.offset > 0);
        CHECK(onnxview_tensor_copy_float(&u, b, 4096, &nb).code == e.code);
        CHECK_OK(onnxview_tensor_storage(&u, &st)); /* where it lives, without its bytes */
        CHECK(st.kind == ONNXVIEW_STORAGE_EXTERNAL && same(st.location, "small_cnn.weights"));
        ++refused;
    }
    CHECK(refused == 2);
    onnxview_close(self);
    free(bytes);

    /* its argument checks and errors are onnxview_open_memory's */
    CHECK_CODE(onnxview_open_self_contained(NULL, 4, NULL, &self), ONNXVIEW_INVALID_ARGUMENT);
    CHECK_CODE(onnxview_open_self_contained(truncated, 0, NULL, &self), ONNXVIEW_FILE_EMPTY);
    CHECK_CODE(onnxview_open_self_contained(truncated, sizeof truncated, NULL, NULL), ONNXVIEW_INVALID_ARGUMENT);
    e = onnxview_open_self_contained(truncated, sizeof truncated, NULL, &self);
    CHECK(e.code == ONNXVIEW_LENGTH_OUT_OF_BOUNDS || e.code == ONNXVIEW_TRUNCATED);
    o.keep_malformed = 1;
    CHECK_OK(onnxview_open_self_contained(truncated, sizeof truncated, &o, &self));
    CHECK(onnxview_model_error(self).code == e.code);
    onnxview_close(self);
    o.abi_version = 0;
    CHECK_CODE(onnxview_open_self_contained(truncated, sizeof truncated, &o, &self), ONNXVIEW_INVALID_ARGUMENT);
}

int main(int argc, char** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: capi_test TESTDATA_DIR\n");
        return 2;
    }
    testdata = argv[1];
    test_versions_and_errors();
    test_open_errors();
    test_allocator();
    test_callbacks();
    test_verified_callback();
    test_model();
    test_graph_and_nodes();
    test_attributes_and_types();
    test_tensor_data();
    test_keep_descriptor();
    test_self_contained();
    test_sparse();
    test_new_types();
    test_external_security();
    test_empty_external_tensor();
    test_check();
    test_printers();
    printf("capi_test: %d checks, %d failed\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
