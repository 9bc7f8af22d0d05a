/* tests/capi/summary.c - the oracle summary (tests/oracle/README.md) of ONNX
 * models, made through the C API alone (onnxview.h), in C99.
 *
 *   capi_summary FILE...      one FILE: its summary; several: each after "== FILE"
 *
 * tests/capi/summary_oracle.py compares the output with
 * tests/oracle/export_summary.py (python3-onnx) file by file. Section for
 * section this follows tests/model/summary.cpp, the C++ API's half; like
 * it, one file of over 600 lines, so that the summary's sections read in
 * the order the oracle prints them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnxview.h"

/* ------------------------------------------------------------------------
 * output: one line at a time, indented two spaces per level */

static void indent(int level) {
    int i;
    for (i = 0; i < level; ++i) fputs("  ", stdout);
}

static void put_string(onnxview_string s) {
    static const char hex[] = "0123456789abcdef";
    size_t i;
    putchar('"');
    for (i = 0; i < s.size; ++i) {
        const unsigned char c = (unsigned char)s.data[i];
        if (c == '"') fputs("\\\"", stdout);
        else if (c == '\\') fputs("\\\\", stdout);
        else if (c >= 0x20 && c <= 0x7E) putchar(c);
        else printf("\\x%c%c", hex[c >> 4], hex[c & 15]);
    }
    putchar('"');
}

static void put_g(double x, int digits) {
    if (isnan(x)) fputs("nan", stdout);
    else printf("%.*g", digits, x);
}

/* The numbers onnx 1.12 knows. */
enum { onnx112_max_data_type = 16, onnx112_max_attribute_type = 14 };

static void put_data_type_enum(int32_t v) {
    printf("%ld %s", (long)v, v >= 0 && v <= onnx112_max_data_type ? onnxview_data_type_name(v) : "UNKNOWN");
}
static void put_elem_name(int32_t v) {
    if (v >= 0 && v <= onnx112_max_data_type) fputs(onnxview_data_type_name(v), stdout);
    else printf("%ld", (long)v);
}

/* ------------------------------------------------------------------------
 * crc32 (zlib's) */

static uint32_t crc_table[256];

static void crc_init(void) {
    uint32_t i, c;
    int k;
    for (i = 0; i < 256; ++i) {
        c = i;
        for (k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

static uint32_t crc_bytes(uint32_t c, const void* data, size_t n) {
    const unsigned char* p = (const unsigned char*)data;
    size_t i;
    for (i = 0; i < n; ++i) c = crc_table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return c;
}

static uint32_t crc_le(uint32_t c, uint64_t v, unsigned width) {
    unsigned char b[8];
    unsigned i;
    for (i = 0; i < width; ++i) b[i] = (unsigned char)(v >> (8 * i));
    return crc_bytes(c, b, width);
}

/* ------------------------------------------------------------------------
 * the count line: the product of the dims in exact decimal (Python ints) */

static void put_product(const int64_t* dims, size_t rank) {
    enum { limbs_max = 64 };
    const uint64_t base = 1000000000u;
    uint64_t mag[limbs_max] = {1};
    size_t n = 1, i, j;
    int negative = 0;
    for (i = 0; i < rank; ++i) {
        uint64_t m = dims[i] < 0 ? 0 - (uint64_t)dims[i] : (uint64_t)dims[i];
        uint64_t ml[3] = {m % base, (m / base) % base, m / base / base};
        uint64_t prod[limbs_max + 4];
        memset(prod, 0, sizeof prod);
        if (dims[i] < 0) negative = !negative;
        for (j = 0; j < n; ++j) {
            uint64_t carry = 0;
            size_t k;
            for (k = 0; k < 3; ++k) {
                const uint64_t v = prod[j + k] + mag[j] * ml[k] + carry;
                prod[j + k] = v % base;
                carry = v / base;
            }
            for (k = j + 3; carry != 0; ++k) {
                const uint64_t v = prod[k] + carry;
                prod[k] = v % base;
                carry = v / base;
            }
        }
        n = n + 3 < limbs_max ? n + 3 : limbs_max;
        while (n > 1 && prod[n - 1] == 0) --n;
        memcpy(mag, prod, n * sizeof mag[0]);
    }
    if (n == 1 && mag[0] == 0) negative = 0;
    printf("%s%llu", negative ? "-" : "", (unsigned long long)mag[n - 1]);
    for (i = n - 1; i-- > 0;) printf("%09u", (unsigned)mag[i]);
}

/* ------------------------------------------------------------------------
 * tensors */

enum category { other, floating, complex_parts, integer };

typedef struct type_facts {
    unsigned width; /* bytes of one element (complex: of one part) */
    enum category cat;
    int is_signed;
} type_facts;

static type_facts facts_of(int32_t dt) {
    type_facts f = {0, other, 0};
    switch (dt) {
    case 1: f.width = 4, f.cat = floating; break;
    case 2: f.width = 1, f.cat = integer; break;
    case 3: f.width = 1, f.cat = integer, f.is_signed = 1; break;
    case 4: f.width = 2, f.cat = integer; break;
    case 5: f.width = 2, f.cat = integer, f.is_signed = 1; break;
    case 6: f.width = 4, f.cat = integer, f.is_signed = 1; break;
    case 7: f.width = 8, f.cat = integer, f.is_signed = 1; break;
    case 9: f.width = 1, f.cat = integer; break;
    case 10: f.width = 2, f.cat = floating; break;
    case 11: f.width = 8, f.cat = floating; break;
    case 12: f.width = 4, f.cat = integer; break;
    case 13: f.width = 8, f.cat = integer; break;
    case 14: f.width = 4, f.cat = complex_parts; break;
    case 15: f.width = 8, f.cat = complex_parts; break;
    case 16: f.width = 2, f.cat = floating; break;
    default: break;
    }
    return f;
}

static uint64_t canonical_nan(unsigned width, int32_t dt) {
    if (dt == 16) return 0x7FC0;
    if (width == 2) return 0x7E00;
    if (width == 4) return 0x7FC00000u;
    return 0x7FF8000000000000ull;
}

static void put_error(int level, onnxview_error e) {
    indent(level);
    printf("error: %s at byte %llu\n", onnxview_errc_name(e.code), (unsigned long long)e.offset);
}

/* Part i of the natural elements in `bits` (width bytes each) as an
 * unsigned number, sign-extended for signed integers, 0/1 for BOOL. */
static uint64_t part_at(const unsigned char* bits, size_t i, const type_facts* f, int32_t dt) {
    uint64_t v = 0;
    unsigned k;
    /* The natural elements are in host order: read them as the host would. */
    switch (f->width) {
    case 1: v = bits[i]; break;
    case 2: { uint16_t x; memcpy(&x, bits + 2 * i, 2); v = x; break; }
    case 4: { uint32_t x; memcpy(&x, bits + 4 * i, 4); v = x; break; }
    default: memcpy(&v, bits + 8 * i, 8); break;
    }
    if (dt == 9) return v != 0;
    if (f->cat == integer && f->is_signed && f->width < 8) {
        const uint64_t sign = (uint64_t)1 << (8 * f->width - 1);
        if (v & sign) for (k = f->width; k < 8; ++k) v |= (uint64_t)0xFF << (8 * k);
    }
    return v;
}

static void put_numeric_values(int level, const onnxview_tensor* t, int32_t dt, uint64_t count) {
    const type_facts f = facts_of(dt);
    const size_t parts = (size_t)count * (f.cat == complex_parts ? 2 : 1);
    unsigned char* bits = (unsigned char*)malloc(parts * f.width + 1);
    double* values = (double*)malloc(parts * sizeof(double) + 1);
    uint64_t n = 0;
    uint32_t crc = 0xFFFFFFFFu;
    size_t i;
    onnxview_error e = onnxview_tensor_copy(t, bits, parts * f.width, &n);
    if (e.code == 0 && f.cat != integer) e = onnxview_tensor_copy_double(t, values, parts, &n);
    if (e.code != 0) {
        put_error(level, e);
    } else if (f.cat == integer) {
        uint64_t sum = 0;
        for (i = 0; i < parts; ++i) {
            const uint64_t x = part_at(bits, i, &f, dt);
            sum += x;
            crc = crc_le(crc, x, f.width);
        }
        indent(level), printf("sum: %llu\n", (unsigned long long)sum);
        indent(level), printf("crc32: %08x\n", (unsigned)(crc ^ 0xFFFFFFFFu));
        indent(level), fputs("first: [", stdout);
        for (i = 0; i < parts && i < 8; ++i) {
            const uint64_t x = part_at(bits, i, &f, dt);
            if (i) fputs(", ", stdout);
            if (f.is_signed) printf("%lld", (long long)x);
            else printf("%llu", (unsigned long long)x);
        }
        fputs("]\n", stdout);
    } else {
        /* numpy's add.accumulate: sequential additions from the first finite value */
        const size_t stride = f.cat == complex_parts ? 2 : 1;
        const int digits = f.width == 8 ? 17 : 9;
        uint64_t nan_count = 0, pinf = 0, ninf = 0;
        double sums[2] = {0.0, 0.0};
        int started[2] = {0, 0};
        for (i = 0; i < parts; ++i) {
            const double x = values[i];
            if (isnan(x)) {
                ++nan_count;
                crc = crc_le(crc, canonical_nan(f.width, dt), f.width);
                continue;
            }
            crc = crc_le(crc, part_at(bits, i, &f, dt), f.width);
            if (isinf(x)) {
                if (x > 0) ++pinf;
                else ++ninf;
                continue;
            }
            if (started[i % stride]) sums[i % stride] = sums[i % stride] + x;
            else sums[i % stride] = x, started[i % stride] = 1;
        }
        indent(level), printf("nan: %llu\n", (unsigned long long)nan_count);
        indent(level), printf("pos_inf: %llu\n", (unsigned long long)pinf);
        indent(level), printf("neg_inf: %llu\n", (unsigned long long)ninf);
        if (stride == 2) {
            indent(level), fputs("sum_re: ", stdout), put_g(sums[0], 17), putchar('\n');
            indent(level), fputs("sum_im: ", stdout), put_g(sums[1], 17), putchar('\n');
        } else {
            indent(level), fputs("sum: ", stdout), put_g(sums[0], 17), putchar('\n');
        }
        indent(level), printf("crc32: %08x\n", (unsigned)(crc ^ 0xFFFFFFFFu));
        indent(level), fputs("first: [", stdout);
        for (i = 0; i * stride < parts && i < 8; ++i) {
            if (i) fputs(", ", stdout);
            if (stride == 2) {
                putchar('('), put_g(values[2 * i], digits), fputs(", ", stdout);
                put_g(values[2 * i + 1], digits), putchar(')');
            } else {
                put_g(values[i], digits);
            }
        }
        fputs("]\n", stdout);
    }
    free(bits);
    free(values);
}

static void put_string_values(int level, const onnxview_tensor* t, uint64_t count) {
    uint64_t total = 0, k;
    uint32_t crc = 0xFFFFFFFFu;
    for (k = 0; k < count; ++k) {
        onnxview_string s;
        const onnxview_error e = onnxview_tensor_string_at(t, k, &s);
        if (e.code != 0) {
            put_error(level, e);
            return;
        }
        total += s.size;
        crc = crc_le(crc, s.size, 8);
        crc = crc_bytes(crc, s.data, s.size);
    }
    indent(level), printf("bytes: %llu\n", (unsigned long long)total);
    indent(level), printf("crc32: %08x\n", (unsigned)(crc ^ 0xFFFFFFFFu));
    indent(level), fputs("first: [", stdout);
    for (k = 0; k < count && k < 8; ++k) {
        onnxview_string s;
        onnxview_tensor_string_at(t, k, &s);
        if (k) fputs(", ", stdout);
        put_string(s);
    }
    fputs("]\n", stdout);
}

static void put_values(int level, const onnxview_tensor* t) {
    const int32_t dt = onnxview_tensor_data_type(t);
    onnxview_storage st;
    onnxview_error e;
    if (dt != 8 && facts_of(dt).cat == other) {
        indent(level), printf("error: unsupported data_type %ld\n", (long)dt);
        return;
    }
    if (dt != 8 && onnxview_tensor_has_segment(t)) {
        indent(level), fputs("error: segment not supported\n", stdout);
        return;
    }
    e = onnxview_tensor_storage(t, &st);
    if (e.code != 0) {
        put_error(level, e);
        return;
    }
    if (dt == 8) put_string_values(level, t, st.element_count);
    else put_numeric_values(level, t, dt, st.element_count);
}

static int64_t* dims_of(const onnxview_tensor* t, size_t* rank) {
    int64_t* dims;
    onnxview_tensor_dims(t, NULL, 0, rank);
    dims = (int64_t*)malloc(*rank * sizeof(int64_t) + 1);
    onnxview_tensor_dims(t, dims, *rank, rank);
    return dims;
}

static void put_int_list(const int64_t* v, size_t n) {
    size_t i;
    putchar('[');
    for (i = 0; i < n; ++i) printf(i ? ", %lld" : "%lld", (long long)v[i]);
    putchar(']');
}

static void put_tensor(int level, const onnxview_tensor* t) {
    size_t rank = 0, i;
    int64_t* dims = dims_of(t, &rank);
    const int32_t location = onnxview_tensor_data_location(t);
    const onnxview_string doc = onnxview_tensor_doc_string(t);
    indent(level), fputs("tensor ", stdout), put_string(onnxview_tensor_name(t)), putchar('\n');
    ++level;
    indent(level), fputs("data_type: ", stdout), put_data_type_enum(onnxview_tensor_data_type(t)), putchar('\n');
    indent(level), fputs("dims: ", stdout), put_int_list(dims, rank), putchar('\n');
    indent(level), printf("data_location: %ld%s\n", (long)location,
                          location == 0 ? " DEFAULT" : location == 1 ? " EXTERNAL" : " UNKNOWN");
    for (i = 0; i < onnxview_tensor_external_data_count(t); ++i) {
        onnxview_string key, value;
        onnxview_tensor_external_data(t, i, &key, &value);
        indent(level), fputs("external_data: ", stdout), put_string(key), putchar(' '), put_string(value);
        putchar('\n');
    }
    if (doc.size) indent(level), fputs("doc_string: ", stdout), put_string(doc), putchar('\n');
    indent(level), printf("storage: %s\n", location == 1 ? "external" : onnxview_tensor_has_raw_data(t) ? "raw" : "typed");
    indent(level), fputs("count: ", stdout), put_product(dims, rank), putchar('\n');
    free(dims);
    put_values(level, t);
}

static void put_sparse(int level, const onnxview_sparse_tensor* s) {
    onnxview_tensor part;
    int64_t dims[64];
    size_t rank = 0;
    onnxview_error e = onnxview_sparse_dims(s, dims, 64, &rank);
    indent(level), fputs("sparse_tensor\n", stdout);
    indent(level + 1), fputs("dims: ", stdout);
    if (e.code == 0) put_int_list(dims, rank);
    putchar('\n');
    indent(level + 1), fputs("values\n", stdout);
    if (onnxview_sparse_values(s, &part).code == 0) put_tensor(level + 2, &part);
    indent(level + 1), fputs("indices\n", stdout);
    if (onnxview_sparse_indices(s, &part).code == 0) put_tensor(level + 2, &part);
}

/* ------------------------------------------------------------------------
 * types */

static void put_type(const onnxview_type* t) {
    onnxview_type inner;
    const int32_t kind = onnxview_type_kind(t);
    switch (kind) {
    case ONNXVIEW_TYPE_TENSOR:
    case ONNXVIEW_TYPE_SPARSE_TENSOR:
        fputs(kind == ONNXVIEW_TYPE_TENSOR ? "tensor(" : "sparse_tensor(", stdout);
        put_elem_name(onnxview_type_elem_type(t));
        if (onnxview_type_has_shape(t)) {
            size_t i;
            fputs(", [", stdout);
            for (i = 0; i < onnxview_type_rank(t); ++i) {
                onnxview_dim d;
                onnxview_type_dim(t, i, &d);
                if (i) fputs(", ", stdout);
                if (d.kind == ONNXVIEW_DIM_VALUE) printf("%lld", (long long)d.value);
                else if (d.kind == ONNXVIEW_DIM_PARAM) put_string(d.param);
                else putchar('?');
            }
            putchar(']');
        }
        putchar(')');
        return;
    case ONNXVIEW_TYPE_SEQUENCE:
    case ONNXVIEW_TYPE_OPTIONAL:
        fputs(kind == ONNXVIEW_TYPE_SEQUENCE ? "seq(" : "optional(", stdout);
        if (onnxview_type_element(t, &inner).code == 0) put_type(&inner);
        putchar(')');
        return;
    case ONNXVIEW_TYPE_MAP:
        fputs("map(", stdout), put_elem_name(onnxview_type_elem_type(t)), fputs(", ", stdout);
        if (onnxview_type_element(t, &inner).code == 0) put_type(&inner);
        putchar(')');
        return;
    case ONNXVIEW_TYPE_OPAQUE: {
        onnxview_string domain, name;
        onnxview_type_opaque(t, &domain, &name);
        fputs("opaque(", stdout), put_string(domain), fputs(", ", stdout), put_string(name), putchar(')');
        return;
    }
    default: fputs("none", stdout);
    }
}

static void put_value_info(int level, const char* kind, const onnxview_value_info* v) {
    onnxview_type t;
    const onnxview_string doc = onnxview_value_info_doc_string(v);
    indent(level), printf("%s ", kind), put_string(onnxview_value_info_name(v)), putchar(' ');
    if (onnxview_value_info_type(v, &t).code == 0) put_type(&t);
    putchar('\n');
    if (doc.size) indent(level + 1), fputs("doc_string: ", stdout), put_string(doc), putchar('\n');
}

/* ------------------------------------------------------------------------
 * graphs, nodes, attributes, functions, models */

static void put_graph(int level, const onnxview_graph* g);

static void put_strings(size_t n, const void* h, onnxview_error (*at)(const void*, size_t, onnxview_string*)) {
    size_t i;
    putchar('[');
    for (i = 0; i < n; ++i) {
        onnxview_string s;
        at(h, i, &s);
        if (i) fputs(", ", stdout);
        put_string(s);
    }
    putchar(']');
}
static onnxview_error node_input(const void* h, size_t i, onnxview_string* s) {
    return onnxview_node_input((const onnxview_node*)h, i, s);
}
static onnxview_error node_output(const void* h, size_t i, onnxview_string* s) {
    return onnxview_node_output((const onnxview_node*)h, i, s);
}
static onnxview_error attribute_string(const void* h, size_t i, onnxview_string* s) {
    return onnxview_attribute_string_at((const onnxview_attribute*)h, i, s);
}
static onnxview_error function_input(const void* h, size_t i, onnxview_string* s) {
    return onnxview_function_input((const onnxview_function*)h, i, s);
}
static onnxview_error function_output(const void* h, size_t i, onnxview_string* s) {
    return onnxview_function_output((const onnxview_function*)h, i, s);
}
static onnxview_error function_attribute(const void* h, size_t i, onnxview_string* s) {
    return onnxview_function_attribute((const onnxview_function*)h, i, s);
}

static void put_attribute(int level, const onnxview_attribute* a) {
    const int32_t type = onnxview_attribute_type(a);
    const onnxview_string ref = onnxview_attribute_ref_attr_name(a);
    const onnxview_string doc = onnxview_attribute_doc_string(a);
    onnxview_tensor t;
    onnxview_graph g;
    onnxview_sparse_tensor s;
    onnxview_type tp;
    size_t i, n = 0;
    indent(level), fputs("attribute ", stdout), put_string(onnxview_attribute_name(a)), putchar(' ');
    if (type >= 0 && type <= onnx112_max_attribute_type) fputs(onnxview_attribute_type_name(type), stdout);
    else printf("%ld", (long)type);
    switch (type) {
    case ONNXVIEW_ATTR_FLOAT: putchar(' '), put_g(onnxview_attribute_f(a), 9); break;
    case ONNXVIEW_ATTR_INT: printf(" %lld", (long long)onnxview_attribute_i(a)); break;
    case ONNXVIEW_ATTR_STRING: putchar(' '), put_string(onnxview_attribute_s(a)); break;
    case ONNXVIEW_ATTR_FLOATS: {
        float* v;
        onnxview_attribute_floats(a, NULL, 0, &n);
        v = (float*)malloc(n * sizeof(float) + 1);
        onnxview_attribute_floats(a, v, n, &n);
        fputs(" [", stdout);
        for (i = 0; i < n; ++i) {
            if (i) fputs(", ", stdout);
            put_g(v[i], 9);
        }
        putchar(']');
        free(v);
        break;
    }
    case ONNXVIEW_ATTR_INTS: {
        int64_t* v;
        onnxview_attribute_ints(a, NULL, 0, &n);
        v = (int64_t*)malloc(n * sizeof(int64_t) + 1);
        onnxview_attribute_ints(a, v, n, &n);
        putchar(' '), put_int_list(v, n);
        free(v);
        break;
    }
    case ONNXVIEW_ATTR_STRINGS: putchar(' '), put_strings(onnxview_attribute_strings_count(a), a, attribute_string); break;
    case ONNXVIEW_ATTR_TYPE_PROTO:
        putchar(' ');
        if (onnxview_attribute_tp(a, &tp).code == 0) put_type(&tp);
        break;
    case ONNXVIEW_ATTR_TYPE_PROTOS:
        fputs(" [", stdout);
        for (i = 0; i < onnxview_attribute_type_protos_count(a); ++i) {
            if (i) fputs(", ", stdout);
            if (onnxview_attribute_type_proto_at(a, i, &tp).code == 0) put_type(&tp);
        }
        putchar(']');
        break;
    case ONNXVIEW_ATTR_TENSORS: printf(" %lu", (unsigned long)onnxview_attribute_tensors_count(a)); break;
    case ONNXVIEW_ATTR_GRAPHS: printf(" %lu", (unsigned long)onnxview_attribute_graphs_count(a)); break;
    case ONNXVIEW_ATTR_SPARSE_TENSORS: printf(" %lu", (unsigned long)onnxview_attribute_sparse_tensors_count(a)); break;
    default: break;
    }
    putchar('\n');
    ++level;
    if (ref.size) indent(level), fputs("ref_attr_name: ", stdout), put_string(ref), putchar('\n');
    if (doc.size) indent(level), fputs("doc_string: ", stdout), put_string(doc), putchar('\n');
    switch (type) {
    case ONNXVIEW_ATTR_TENSOR:
        if (onnxview_attribute_t(a, &t).code == 0) put_tensor(level, &t);
        break;
    case ONNXVIEW_ATTR_GRAPH:
        if (onnxview_attribute_g(a, &g).code == 0) put_graph(level, &g);
        break;
    case ONNXVIEW_ATTR_SPARSE_TENSOR:
        if (onnxview_attribute_sparse_tensor(a, &s).code == 0) put_sparse(level, &s);
        break;
    case ONNXVIEW_ATTR_TENSORS:
        for (i = 0; i < onnxview_attribute_tensors_count(a); ++i)
            if (onnxview_attribute_tensor_at(a, i, &t).code == 0) put_tensor(level, &t);
        break;
    case ONNXVIEW_ATTR_GRAPHS:
        for (i = 0; i < onnxview_attribute_graphs_count(a); ++i)
            if (onnxview_attribute_graph_at(a, i, &g).code == 0) put_graph(level, &g);
        break;
    case ONNXVIEW_ATTR_SPARSE_TENSORS:
        for (i = 0; i < onnxview_attribute_sparse_tensors_count(a); ++i)
            if (onnxview_attribute_sparse_tensor_at(a, i, &s).code == 0) put_sparse(level, &s);
        break;
    default: break;
    }
}

static void put_node(int level, const onnxview_node* n) {
    const onnxview_string doc = onnxview_node_doc_string(n);
    size_t i;
    indent(level), fputs("node ", stdout), put_string(onnxview_node_name(n)), putchar('\n');
    ++level;
    indent(level), fputs("op_type: ", stdout), put_string(onnxview_node_op_type(n)), putchar('\n');
    indent(level), fputs("domain: ", stdout), put_string(onnxview_node_domain(n)), putchar('\n');
    indent(level), fputs("input: ", stdout), put_strings(onnxview_node_input_count(n), n, node_input), putchar('\n');
    indent(level), fputs("output: ", stdout), put_strings(onnxview_node_output_count(n), n, node_output);
    putchar('\n');
    if (doc.size) indent(level), fputs("doc_string: ", stdout), put_string(doc), putchar('\n');
    for (i = 0; i < onnxview_node_attribute_count(n); ++i) {
        onnxview_attribute a;
        if (onnxview_node_attribute(n, i, &a).code == 0) put_attribute(level, &a);
    }
}

static void put_graph(int level, const onnxview_graph* g) {
    const onnxview_string doc = onnxview_graph_doc_string(g);
    onnxview_value_info v;
    onnxview_tensor t;
    onnxview_sparse_tensor s;
    onnxview_node n;
    size_t i;
    indent(level), fputs("graph ", stdout), put_string(onnxview_graph_name(g)), putchar('\n');
    ++level;
    if (doc.size) indent(level), fputs("doc_string: ", stdout), put_string(doc), putchar('\n');
    for (i = 0; i < onnxview_graph_input_count(g); ++i)
        if (onnxview_graph_input(g, i, &v).code == 0) put_value_info(level, "input", &v);
    for (i = 0; i < onnxview_graph_output_count(g); ++i)
        if (onnxview_graph_output(g, i, &v).code == 0) put_value_info(level, "output", &v);
    for (i = 0; i < onnxview_graph_value_info_count(g); ++i)
        if (onnxview_graph_value_info(g, i, &v).code == 0) put_value_info(level, "value_info", &v);
    /* initializers and nodes step with next(), the way long loops should */
    if (onnxview_graph_initializer(g, 0, &t).code == 0)
        do put_tensor(level, &t);
        while (onnxview_tensor_next(&t, &t).code == 0);
    for (i = 0; i < onnxview_graph_sparse_initializer_count(g); ++i)
        if (onnxview_graph_sparse_initializer(g, i, &s).code == 0) put_sparse(level, &s);
    if (onnxview_graph_node(g, 0, &n).code == 0)
        do put_node(level, &n);
        while (onnxview_node_next(&n, &n).code == 0);
}

static void put_function(int level, const onnxview_function* f) {
    const onnxview_string doc = onnxview_function_doc_string(f);
    size_t i;
    indent(level), fputs("function ", stdout), put_string(onnxview_function_domain(f)), putchar(' ');
    put_string(onnxview_function_name(f)), putchar('\n');
    ++level;
    if (doc.size) indent(level), fputs("doc_string: ", stdout), put_string(doc), putchar('\n');
    indent(level), fputs("input: ", stdout);
    put_strings(onnxview_function_input_count(f), f, function_input), putchar('\n');
    indent(level), fputs("output: ", stdout);
    put_strings(onnxview_function_output_count(f), f, function_output), putchar('\n');
    indent(level), fputs("attribute: ", stdout);
    put_strings(onnxview_function_attribute_count(f), f, function_attribute), putchar('\n');
    for (i = 0; i < onnxview_function_opset_count(f); ++i) {
        onnxview_string domain;
        int64_t version;
        onnxview_function_opset(f, i, &domain, &version);
        indent(level), fputs("opset_import: ", stdout), put_string(domain), printf(" %lld\n", (long long)version);
    }
    for (i = 0; i < onnxview_function_node_count(f); ++i) {
        onnxview_node n;
        if (onnxview_function_node(f, i, &n).code == 0) put_node(level, &n);
    }
}

static void put_model(const onnxview_model* m) {
    const onnxview_string doc = onnxview_model_doc_string(m);
    onnxview_graph g;
    size_t i;
    puts("model");
    printf("  ir_version: %lld\n", (long long)onnxview_model_ir_version(m));
    fputs("  producer_name: ", stdout), put_string(onnxview_model_producer_name(m)), putchar('\n');
    fputs("  producer_version: ", stdout), put_string(onnxview_model_producer_version(m)), putchar('\n');
    fputs("  domain: ", stdout), put_string(onnxview_model_domain(m)), putchar('\n');
    printf("  model_version: %lld\n", (long long)onnxview_model_model_version(m));
    if (doc.size) fputs("  doc_string: ", stdout), put_string(doc), putchar('\n');
    for (i = 0; i < onnxview_model_opset_count(m); ++i) {
        onnxview_string domain;
        int64_t version;
        onnxview_model_opset(m, i, &domain, &version);
        fputs("  opset_import: ", stdout), put_string(domain), printf(" %lld\n", (long long)version);
    }
    for (i = 0; i < onnxview_model_metadata_count(m); ++i) {
        onnxview_string key, value;
        onnxview_model_metadata(m, i, &key, &value);
        fputs("  metadata_prop: ", stdout), put_string(key), putchar(' '), put_string(value), putchar('\n');
    }
    if (onnxview_model_graph(m, &g).code == 0) put_graph(1, &g);
    for (i = 0; i < onnxview_model_function_count(m); ++i) {
        onnxview_function f;
        if (onnxview_model_function(m, i, &f).code == 0) put_function(1, &f);
    }
}

int main(int argc, char** argv) {
    int i;
    crc_init();
    for (i = 1; i < argc; ++i) {
        onnxview_options opts = onnxview_options_default();
        onnxview_model* m = NULL;
        onnxview_error e;
        opts.verify = 1; /* libprotobuf rejects a malformed message anywhere in the tree */
        if (argc > 2) printf("== %s\n", argv[i]);
        e = onnxview_open_path(argv[i], &opts, &m);
        if (e.code != 0) {
            printf("error: cannot open as ModelProto: %s at byte %llu\n", onnxview_errc_name(e.code),
                   (unsigned long long)e.offset);
            continue;
        }
        put_model(m);
        onnxview_close(m);
    }
    return fflush(stdout) == 0 ? 0 : 1;
}
