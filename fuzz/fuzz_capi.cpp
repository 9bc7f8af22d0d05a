// fuzz/fuzz_capi.cpp - arbitrary bytes opened through the C API
// (onnxview.h) and walked with every handle it offers.
//
// The contract, against the C++ verify(): bytes verify() accepts open (with
// options.verify) and every handle of the walk is made without error, the
// printers succeed, and what fails in tensor data is a tensor's meaning,
// never the wire format; bytes verify() rejects fail to open with the same
// code at the same offset.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "fuzz_check.hpp"
#include "onnxview/verify.hpp"
#ifndef ONNXVIEW_H  // the single header declares the C API itself
#include "onnxview.h"
#endif

namespace {

constexpr int max_walk_depth = 12;  // graphs in attributes, types in types
constexpr std::size_t max_elements = 4096;

bool is_wire_error(std::int32_t code) {
    return code >= ONNXVIEW_TRUNCATED && code <= ONNXVIEW_MERGE_TOO_DEEP;
}

#define MUST(call) FUZZ_CHECK((call).code == ONNXVIEW_OK)

void walk_graph(const onnxview_graph& g, int depth);

void walk_type(const onnxview_type& t, int depth) {
    if (depth > max_walk_depth) return;
    onnxview_string s = onnxview_type_denotation(&t);
    const int32_t kind = onnxview_type_kind(&t);
    (void)onnxview_type_elem_type(&t);
    const std::size_t rank = onnxview_type_rank(&t);
    FUZZ_CHECK(rank == 0 || onnxview_type_has_shape(&t));
    for (std::size_t i = 0; i < rank; ++i) {
        onnxview_dim d;
        MUST(onnxview_type_dim(&t, i, &d));
    }
    onnxview_type inner;
    const onnxview_error e = onnxview_type_element(&t, &inner);
    const bool has_element = kind == ONNXVIEW_TYPE_SEQUENCE || kind == ONNXVIEW_TYPE_OPTIONAL || kind == ONNXVIEW_TYPE_MAP;
    FUZZ_CHECK((e.code == ONNXVIEW_OK) == has_element);
    if (has_element) walk_type(inner, depth + 1);
    FUZZ_CHECK((onnxview_type_opaque(&t, &s, &s).code == ONNXVIEW_OK) == (kind == ONNXVIEW_TYPE_OPAQUE));
}

void walk_tensor(const onnxview_tensor& t) {
    (void)onnxview_tensor_name(&t), (void)onnxview_tensor_doc_string(&t), (void)onnxview_tensor_data_type(&t);
    std::size_t rank = 0;
    MUST(onnxview_tensor_dims(&t, nullptr, 0, &rank));
    for (std::size_t i = 0; i < onnxview_tensor_external_data_count(&t); ++i) {
        onnxview_string k, v;
        MUST(onnxview_tensor_external_data(&t, i, &k, &v));
    }
    onnxview_storage st;
    const onnxview_error se = onnxview_tensor_storage(&t, &st);
    FUZZ_CHECK(!is_wire_error(se.code));
    if (se.code != ONNXVIEW_OK) return;
    static double values[2 * max_elements];
    uint64_t n = 0;
    const onnxview_error ce = onnxview_tensor_copy_double(&t, values, 2 * max_elements, &n);
    FUZZ_CHECK(!is_wire_error(ce.code));
    if (ce.code == ONNXVIEW_OK) {
        FUZZ_CHECK(n == st.element_count || n == 2 * st.element_count);
        if (n != 0) {
            double re = 0, im = 0;
            MUST(onnxview_tensor_double_at(&t, 0, &re, &im));
            FUZZ_CHECK(std::memcmp(&re, &values[0], sizeof re) == 0);
        }
    }
    static unsigned char bytes[16 * max_elements];
    const onnxview_error ne = onnxview_tensor_copy(&t, bytes, sizeof bytes, &n);
    FUZZ_CHECK(!is_wire_error(ne.code));
    const void* data = nullptr;
    const onnxview_error de = onnxview_tensor_data(&t, &data, &n);
    FUZZ_CHECK(!is_wire_error(de.code));
    if (de.code == ONNXVIEW_OK && ne.code == ONNXVIEW_OK && n != 0 && onnxview_tensor_data_type(&t) != 9)
        FUZZ_CHECK(std::memcmp(data, bytes, n * onnxview_natural_size(onnxview_tensor_data_type(&t))) == 0);
    if (onnxview_tensor_data_type(&t) == 8 && st.element_count != 0) {
        onnxview_string s;
        FUZZ_CHECK(!is_wire_error(onnxview_tensor_string_at(&t, 0, &s).code));
    }
}

void walk_sparse(const onnxview_sparse_tensor& s) {
    onnxview_tensor part;
    MUST(onnxview_sparse_values(&s, &part));
    walk_tensor(part);
    MUST(onnxview_sparse_indices(&s, &part));
    walk_tensor(part);
    std::size_t rank = 0;
    MUST(onnxview_sparse_dims(&s, nullptr, 0, &rank));
    onnxview_sparse_info info;
    const onnxview_error e = onnxview_sparse_info_of(&s, &info);
    FUZZ_CHECK(!is_wire_error(e.code));
    if (e.code == ONNXVIEW_OK && info.nnz != 0) {
        uint64_t at = 0;
        FUZZ_CHECK(!is_wire_error(onnxview_sparse_linear_index(&s, 0, &at).code));
        FUZZ_CHECK(!is_wire_error(onnxview_sparse_validate(&s).code));
    }
}

void walk_attribute(const onnxview_attribute& a, int depth) {
    (void)onnxview_attribute_name(&a), (void)onnxview_attribute_type(&a), (void)onnxview_attribute_f(&a);
    (void)onnxview_attribute_i(&a), (void)onnxview_attribute_s(&a), (void)onnxview_attribute_ref_attr_name(&a);
    std::size_t n = 0;
    MUST(onnxview_attribute_floats(&a, nullptr, 0, &n));
    MUST(onnxview_attribute_ints(&a, nullptr, 0, &n));
    for (std::size_t i = 0; i < onnxview_attribute_strings_count(&a); ++i) {
        onnxview_string s;
        MUST(onnxview_attribute_string_at(&a, i, &s));
    }
    onnxview_tensor t;
    onnxview_graph g;
    onnxview_sparse_tensor s;
    onnxview_type tp;
    MUST(onnxview_attribute_t(&a, &t));
    walk_tensor(t);
    MUST(onnxview_attribute_sparse_tensor(&a, &s));
    walk_sparse(s);
    MUST(onnxview_attribute_tp(&a, &tp));
    walk_type(tp, depth + 1);
    MUST(onnxview_attribute_g(&a, &g));
    walk_graph(g, depth + 1);
    for (std::size_t i = 0; i < onnxview_attribute_tensors_count(&a); ++i) {
        MUST(onnxview_attribute_tensor_at(&a, i, &t));
        walk_tensor(t);
    }
    for (std::size_t i = 0; i < onnxview_attribute_graphs_count(&a); ++i) {
        MUST(onnxview_attribute_graph_at(&a, i, &g));
        walk_graph(g, depth + 1);
    }
    for (std::size_t i = 0; i < onnxview_attribute_sparse_tensors_count(&a); ++i) {
        MUST(onnxview_attribute_sparse_tensor_at(&a, i, &s));
        walk_sparse(s);
    }
    for (std::size_t i = 0; i < onnxview_attribute_type_protos_count(&a); ++i) {
        MUST(onnxview_attribute_type_proto_at(&a, i, &tp));
        walk_type(tp, depth + 1);
    }
}

void walk_node(const onnxview_node& n, int depth) {
    (void)onnxview_node_name(&n), (void)onnxview_node_op_type(&n), (void)onnxview_node_domain(&n);
    onnxview_string s;
    for (std::size_t i = 0; i < onnxview_node_input_count(&n); ++i) MUST(onnxview_node_input(&n, i, &s));
    for (std::size_t i = 0; i < onnxview_node_output_count(&n); ++i) MUST(onnxview_node_output(&n, i, &s));
    for (std::size_t i = 0; i < onnxview_node_attribute_count(&n); ++i) {
        onnxview_attribute a;
        MUST(onnxview_node_attribute(&n, i, &a));
        walk_attribute(a, depth);
    }
}

void walk_value_info(const onnxview_value_info& v, int depth) {
    onnxview_type t;
    MUST(onnxview_value_info_type(&v, &t));
    walk_type(t, depth + 1);
}

void walk_graph(const onnxview_graph& g, int depth) {
    if (depth > max_walk_depth) return;
    onnxview_value_info v;
    for (std::size_t i = 0; i < onnxview_graph_input_count(&g); ++i) {
        MUST(onnxview_graph_input(&g, i, &v));
        walk_value_info(v, depth);
    }
    for (std::size_t i = 0; i < onnxview_graph_output_count(&g); ++i) MUST(onnxview_graph_output(&g, i, &v));
    for (std::size_t i = 0; i < onnxview_graph_value_info_count(&g); ++i) MUST(onnxview_graph_value_info(&g, i, &v));
    // next() must visit what the counts promise
    std::size_t seen = 0;
    onnxview_tensor t;
    for (onnxview_error e = onnxview_graph_initializer(&g, 0, &t); e.code == ONNXVIEW_OK;
         e = onnxview_tensor_next(&t, &t), ++seen)
        walk_tensor(t);
    FUZZ_CHECK(seen == onnxview_graph_initializer_count(&g));
    for (std::size_t i = 0; i < onnxview_graph_sparse_initializer_count(&g); ++i) {
        onnxview_sparse_tensor s;
        MUST(onnxview_graph_sparse_initializer(&g, i, &s));
        walk_sparse(s);
    }
    seen = 0;
    onnxview_node n;
    for (onnxview_error e = onnxview_graph_node(&g, 0, &n); e.code == ONNXVIEW_OK; e = onnxview_node_next(&n, &n), ++seen)
        walk_node(n, depth);
    FUZZ_CHECK(seen == onnxview_graph_node_count(&g));
}

void ignore_output(void*, const char*, size_t) {}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const onnxview::error verified = onnxview::verify(data, size);
    onnxview_options opts = onnxview_options_default();
    opts.verify = 1;
    onnxview_model* m = nullptr;
    const onnxview_error e = onnxview_open_memory(data, size, &opts, &m);
    {
        // The self-contained open accepts and refuses exactly the same bytes.
        onnxview_model* self = nullptr;
        const onnxview_error es = onnxview_open_self_contained(data, size, &opts, &self);
        FUZZ_CHECK(es.code == e.code && es.offset == e.offset && (self != nullptr) == (m != nullptr));
        onnxview_close(self);
    }
    if (size == 0) {
        FUZZ_CHECK(e.code == ONNXVIEW_FILE_EMPTY);
        return 0;
    }
    if (verified) {
        FUZZ_CHECK(e.code == static_cast<int32_t>(verified.code) && e.offset == verified.offset && m == nullptr);
        return 0;
    }
    FUZZ_CHECK(e.code == ONNXVIEW_OK && m != nullptr);
    MUST(onnxview_model_verify(m));
    onnxview_string s;
    int64_t version = 0;
    for (std::size_t i = 0; i < onnxview_model_opset_count(m); ++i) MUST(onnxview_model_opset(m, i, &s, &version));
    for (std::size_t i = 0; i < onnxview_model_metadata_count(m); ++i) MUST(onnxview_model_metadata(m, i, &s, &s));
    onnxview_graph g;
    MUST(onnxview_model_graph(m, &g));
    walk_graph(g, 0);
    for (std::size_t i = 0; i < onnxview_model_function_count(m); ++i) {
        onnxview_function f;
        MUST(onnxview_model_function(m, i, &f));
        for (std::size_t k = 0; k < onnxview_function_node_count(&f); ++k) {
            onnxview_node n;
            MUST(onnxview_function_node(&f, k, &n));
            walk_node(n, 1);
        }
    }
    MUST(onnxview_print_text(m, nullptr, ignore_output, nullptr));
    MUST(onnxview_print_json(m, nullptr, ignore_output, nullptr));
    onnxview_close(m);
    return 0;
}
