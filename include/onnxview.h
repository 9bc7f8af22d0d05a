/* onnxview.h - the stable C API of onnxview: a zero-copy reader of ONNX model
 * files, for C and for every language with a C FFI.
 *
 * One file on purpose (over 600 lines): it is the whole ABI, and FFI
 * generators (ctypes, cffi, bindgen) and C users take one header; its
 * sections follow the C++ layers (errors, options, open, views, tensors,
 * checker, printers) and docs/c.md maps them.
 *
 *   onnxview_model* m = NULL;
 *   onnxview_error e = onnxview_open_path("net.onnx", NULL, &m);
 *   if (e.code) { printf("%s at byte %llu\n", onnxview_errc_name(e.code),
 *                        (unsigned long long)e.offset); return 1; }
 *   onnxview_graph g;
 *   onnxview_model_graph(m, &g);
 *   for (size_t i = 0; i < onnxview_graph_node_count(&g); ++i) { ... }
 *   onnxview_close(m);
 *
 * C99, no C++ types; the same header serves C++ (extern "C"). Built over the
 * C++ API (include/onnxview/), with its rules: protobuf meaning is
 * libprotobuf's, nothing throws (no exception crosses this interface), and
 * the library allocates only the model handle and what the file layer and
 * the checker document, always through onnxview_options.memory when set.
 *
 * Errors are values: every fallible function returns an onnxview_error (a
 * code of onnxview_errc, the system's code for io errors, and the byte
 * offset of the offending byte in the model); code 0 is success. On error
 * the out-parameters are left as they were. onnxview_field_path() names the
 * field holding an offset.
 *
 * Handles. onnxview_model is opaque and allocated by onnxview_open_*().
 * Every other handle (onnxview_graph, onnxview_node, ...) is a small value
 * the caller owns (ONNXVIEW_HANDLE_WORDS words, copied freely, never freed):
 * a position in the model's bytes. Accessors re-read the message's own
 * fields (O(fields of that message), nested messages skipped); making a
 * handle checks its message's framing, so accessors of a handle never fail.
 *
 * Lifetime. Every handle, onnxview_string and data pointer obtained from a
 * model is valid until onnxview_close() of that model. Strings are
 * (pointer, size) into the model's bytes, not NUL-terminated.
 *
 * Repeated fields: X_count() is O(1); X(h, i, &out) is linear in i (it walks
 * the parent's fields); onnxview_node_next() and onnxview_tensor_next() step
 * to the next element in O(1) amortized, for long loops (linear in the index
 * in a graph merged from several occurrences of its field, which protobuf
 * allows and writers do not produce).
 *
 * Threads: a model may be read from several threads except through functions
 * that touch external data (tensor data of EXTERNAL tensors, the checker),
 * which share the model's resolver. */
#ifndef ONNXVIEW_H
#define ONNXVIEW_H

#include <stddef.h>
#include <stdint.h>

/* Programs linking the DLL on Windows define ONNXVIEW_C_SHARED (pkg-config
 * onnxview_c does). The shared library exports only the onnxview_*
 * functions (a linker version script). */
#if defined(_WIN32) && defined(ONNXVIEW_C_SHARED)
#define ONNXVIEW_C_API __declspec(dllimport)
#else
#define ONNXVIEW_C_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------
 * Versions */

/* The ABI this header describes. onnxview_options.abi_version must hold it;
 * a library of another ABI refuses the options (invalid_argument). Raised
 * whenever a struct or a signature of this header changes. */
#define ONNXVIEW_ABI_VERSION 3
#define ONNXVIEW_HANDLE_WORDS 16

/* The library's version, major << 16 | minor << 8 | patch. O(1). */
ONNXVIEW_C_API uint32_t onnxview_version(void);
/* "major.minor.patch", static storage. */
ONNXVIEW_C_API const char* onnxview_version_string(void);
/* The ABI the library was built with (ONNXVIEW_ABI_VERSION of its header). */
ONNXVIEW_C_API uint32_t onnxview_abi_version(void);

/* ------------------------------------------------------------------------
 * Errors: the codes of onnxview::errc (onnxview/error.hpp), same numbers. */

typedef enum onnxview_errc {
    ONNXVIEW_OK = 0,
    ONNXVIEW_TRUNCATED, ONNXVIEW_VARINT_TOO_LONG, ONNXVIEW_BAD_FIELD_NUMBER, ONNXVIEW_BAD_WIRE_TYPE,
    ONNXVIEW_LENGTH_OUT_OF_BOUNDS, ONNXVIEW_DEPTH_EXCEEDED, ONNXVIEW_UNMATCHED_END_GROUP,
    ONNXVIEW_BAD_PACKED_LENGTH, ONNXVIEW_MERGE_TOO_DEEP,
    ONNXVIEW_BAD_DATA_TYPE, ONNXVIEW_BAD_DIMS, ONNXVIEW_PAYLOAD_SIZE_MISMATCH, ONNXVIEW_NOT_FOUND,
    ONNXVIEW_BUFFER_TOO_SMALL, ONNXVIEW_UNALIGNED, ONNXVIEW_NOT_LITTLE_ENDIAN,
    ONNXVIEW_IO_ERROR, ONNXVIEW_FILE_EMPTY, ONNXVIEW_IS_DIRECTORY, ONNXVIEW_FILE_TOO_LARGE,
    ONNXVIEW_EXTERNAL_PATH_UNSAFE, ONNXVIEW_EXTERNAL_BAD_ENTRY, ONNXVIEW_EXTERNAL_OUT_OF_BOUNDS,
    ONNXVIEW_EXTERNAL_HARD_LINK, ONNXVIEW_EXTERNAL_LIMIT, ONNXVIEW_CHECKSUM_MISMATCH,
    ONNXVIEW_INVALID_ARGUMENT, ONNXVIEW_NOT_REGULAR_FILE, ONNXVIEW_OUT_OF_MEMORY,
    ONNXVIEW_NOT_DECIMAL, ONNXVIEW_NUMBER_TOO_LARGE
    /* Finer codes follow (io_open_failed, external_parent_component, ...):
     * onnxview_errc_group() maps each to one of the codes above and
     * onnxview_errc_name() names it. */
} onnxview_errc;

typedef struct onnxview_error {
    int32_t code;      /* onnxview_errc or a finer code; 0: success */
    int32_t sys_errno; /* io errors: errno, GetLastError() or the callback's code; else 0 */
    uint64_t offset;   /* byte offset in the model (0 for errors of files and arguments) */
} onnxview_error;

/* Stable identifier ("truncated"), one sentence for people, the broad code a
 * finer one belongs to. Never null; O(1). */
ONNXVIEW_C_API const char* onnxview_errc_name(int32_t code);
ONNXVIEW_C_API const char* onnxview_errc_message(int32_t code);
ONNXVIEW_C_API int32_t onnxview_errc_group(int32_t code);

/* ------------------------------------------------------------------------
 * Options: onnxview::options (onnxview/options.hpp), member for member.
 * Fill with onnxview_options_default(); zero in a member means its default. */

typedef struct onnxview_file_callbacks {
    /* 0 on success (*data, *size: the whole file, readable until release),
     * else an errno-like code. map is tried first, then read_whole. */
    int (*map)(void* user_data, const char* path, const void** data, uint64_t* size);
    int (*read_whole)(void* user_data, const char* path, const void** data, uint64_t* size);
    void (*release)(void* user_data, const void* data, uint64_t size);
    void* user_data;
} onnxview_file_callbacks;

typedef struct onnxview_allocator {
    /* Null when out of memory (the call then fails with out_of_memory). */
    void* (*allocate)(void* user_data, size_t size, size_t alignment);
    void (*deallocate)(void* user_data, void* ptr, size_t size, size_t alignment);
    void* user_data;
} onnxview_allocator;

enum { ONNXVIEW_OPEN_AUTOMATIC = 0, ONNXVIEW_OPEN_MAP = 1, ONNXVIEW_OPEN_READ = 2 };
enum { ONNXVIEW_READS_EVERYTHING = 0, ONNXVIEW_READS_METADATA = 1 };

typedef struct onnxview_options {
    uint32_t abi_version;        /* ONNXVIEW_ABI_VERSION */
    uint32_t max_message_depth;  /* 0: 100 */
    uint32_t release;            /* checker/printers: schema of a release, e.g. 0x010C00 for 1.12; 0: newest */
    uint32_t max_graph_depth;    /* checker: 0: 32 */
    uint32_t max_findings;       /* checker: 0: 1000 */
    int32_t errors_only;         /* checker: no warnings */
    uint64_t max_printed_bytes;  /* printers: 0: everything */
    int32_t file_mode;           /* ONNXVIEW_OPEN_* */
    int32_t file_hint;           /* access hint applied to the file (onnxview::access_hint) */
    uint64_t file_copy_below;    /* read files smaller than this instead of mapping them */
    int32_t verify;              /* verify the whole model at open */
    int32_t keep_malformed;      /* open a malformed model anyway (onnxview_model_error) */
    int32_t reads;               /* ONNXVIEW_READS_* */
    int32_t allow_hard_links;
    int32_t verify_checksum;
    int32_t external_hint;
    const char* model_path;        /* external data relative to its directory */
    const char* external_base_dir; /* wins over model_path */
    const onnxview_file_callbacks* external_files; /* external files through these */
    uint32_t max_external_files;   /* 0: 4096 */
    uint64_t max_external_bytes;   /* 0: no limit */
    uint64_t external_copy_below;  /* 0: 64 KiB; 1: map all */
    onnxview_allocator memory;     /* all allocation; malloc/free when unset */
    /* verify: called with each run of at least 4 MiB of bytes verified, in
     * order (the moment to drop those pages of a mapping). May be null. */
    void (*verified)(void* user, const char* data, size_t size);
    void* verified_user;
    int32_t drop_verified_pages; /* verify of a mapped file: drop the pages verified (MADV_DONTNEED) */
    int32_t keep_descriptor;     /* mapped files keep their descriptor (payloads copied with pread) */
} onnxview_options;

/* All defaults, with abi_version set. */
ONNXVIEW_C_API onnxview_options onnxview_options_default(void);

/* ------------------------------------------------------------------------
 * Small values */

typedef struct onnxview_string {
    const char* data; /* into the model's bytes; not NUL-terminated; may be null when size is 0 */
    size_t size;
} onnxview_string;

/* The handles: positions in a model's bytes (see the top of this file). */
#define ONNXVIEW_HANDLE(name) typedef struct name { uint64_t opaque_[ONNXVIEW_HANDLE_WORDS]; } name
ONNXVIEW_HANDLE(onnxview_graph);
ONNXVIEW_HANDLE(onnxview_node);
ONNXVIEW_HANDLE(onnxview_attribute);
ONNXVIEW_HANDLE(onnxview_value_info);
ONNXVIEW_HANDLE(onnxview_type);
ONNXVIEW_HANDLE(onnxview_tensor);
ONNXVIEW_HANDLE(onnxview_sparse_tensor);
ONNXVIEW_HANDLE(onnxview_function);
#undef ONNXVIEW_HANDLE

typedef struct onnxview_model onnxview_model;

/* BEGIN GENERATED (scripts/gen_schema.py): the schema's numbers, as C constants. */
/* AttributeProto.AttributeType */
enum {
    ONNXVIEW_ATTR_UNDEFINED = 0,
    ONNXVIEW_ATTR_FLOAT = 1,
    ONNXVIEW_ATTR_INT = 2,
    ONNXVIEW_ATTR_STRING = 3,
    ONNXVIEW_ATTR_TENSOR = 4,
    ONNXVIEW_ATTR_GRAPH = 5,
    ONNXVIEW_ATTR_FLOATS = 6,
    ONNXVIEW_ATTR_INTS = 7,
    ONNXVIEW_ATTR_STRINGS = 8,
    ONNXVIEW_ATTR_TENSORS = 9,
    ONNXVIEW_ATTR_GRAPHS = 10,
    ONNXVIEW_ATTR_SPARSE_TENSOR = 11,
    ONNXVIEW_ATTR_SPARSE_TENSORS = 12,
    ONNXVIEW_ATTR_TYPE_PROTO = 13,
    ONNXVIEW_ATTR_TYPE_PROTOS = 14
};
/* TensorProto.DataType */
enum {
    ONNXVIEW_DATA_TYPE_UNDEFINED = 0,
    ONNXVIEW_DATA_TYPE_FLOAT = 1,
    ONNXVIEW_DATA_TYPE_UINT8 = 2,
    ONNXVIEW_DATA_TYPE_INT8 = 3,
    ONNXVIEW_DATA_TYPE_UINT16 = 4,
    ONNXVIEW_DATA_TYPE_INT16 = 5,
    ONNXVIEW_DATA_TYPE_INT32 = 6,
    ONNXVIEW_DATA_TYPE_INT64 = 7,
    ONNXVIEW_DATA_TYPE_STRING = 8,
    ONNXVIEW_DATA_TYPE_BOOL = 9,
    ONNXVIEW_DATA_TYPE_FLOAT16 = 10,
    ONNXVIEW_DATA_TYPE_DOUBLE = 11,
    ONNXVIEW_DATA_TYPE_UINT32 = 12,
    ONNXVIEW_DATA_TYPE_UINT64 = 13,
    ONNXVIEW_DATA_TYPE_COMPLEX64 = 14,
    ONNXVIEW_DATA_TYPE_COMPLEX128 = 15,
    ONNXVIEW_DATA_TYPE_BFLOAT16 = 16,
    ONNXVIEW_DATA_TYPE_FLOAT8E4M3FN = 17,
    ONNXVIEW_DATA_TYPE_FLOAT8E4M3FNUZ = 18,
    ONNXVIEW_DATA_TYPE_FLOAT8E5M2 = 19,
    ONNXVIEW_DATA_TYPE_FLOAT8E5M2FNUZ = 20,
    ONNXVIEW_DATA_TYPE_UINT4 = 21,
    ONNXVIEW_DATA_TYPE_INT4 = 22,
    ONNXVIEW_DATA_TYPE_FLOAT4E2M1 = 23,
    ONNXVIEW_DATA_TYPE_FLOAT8E8M0 = 24,
    ONNXVIEW_DATA_TYPE_UINT2 = 25,
    ONNXVIEW_DATA_TYPE_INT2 = 26
};
/* END GENERATED */

/* ------------------------------------------------------------------------
 * Opening and closing. `options` may be null (defaults). Each allocates the
 * handle (a few hundred bytes) from options->memory. Cost: the C++
 * model_file::open: the ModelProto's own fields are indexed (with `verify`:
 * the whole tree is walked once); external files open on first use. Errors:
 * invalid_argument (null arguments, abi_version other than the library's),
 * out_of_memory, those of the file (io_*, file_empty, ...), a malformed
 * ModelProto (unless keep_malformed), those of the external-data base. */

/* Maps (or reads) the file at `path`; external data next to it. */
ONNXVIEW_C_API onnxview_error onnxview_open_path(const char* path, const onnxview_options* options,
                                                 onnxview_model** out);
/* Borrows [data, data + size): the caller keeps it unchanged until close.
 * External data relative to options->model_path or external_base_dir (with
 * neither: the current directory), or through options->external_files. */
ONNXVIEW_C_API onnxview_error onnxview_open_memory(const void* data, size_t size,
                                                   const onnxview_options* options, onnxview_model** out);
/* Borrows [data, data + size) as onnxview_open_memory does, for a model that
 * keeps all its tensor data inline: no external data is resolved (asking
 * for an EXTERNAL tensor's data is the finer code "external_not_opened" of
 * the ONNXVIEW_INVALID_ARGUMENT group), no read-ahead is advised, and the
 * options' external-data and `reads` members are not read. A program that opens models only this way links none of
 * the external-data code (about 6 KiB: path checks, file opening, SHA-1). */
ONNXVIEW_C_API onnxview_error onnxview_open_self_contained(const void* data, size_t size,
                                                           const onnxview_options* options, onnxview_model** out);
/* Asks `callbacks` for the file at `path`; external files go through the
 * same callbacks unless options->external_files names others. */
ONNXVIEW_C_API onnxview_error onnxview_open_callbacks(const char* path, const onnxview_file_callbacks* callbacks,
                                                      const onnxview_options* options, onnxview_model** out);
/* Frees the handle and everything it holds (maps, copies, external files).
 * Null is fine. Every handle and pointer from the model dies with it. */
ONNXVIEW_C_API void onnxview_close(onnxview_model* model);

/* Frees text the optional libraries returned to the caller
 * (onnxview_profile_json, onnxview_diff_json), which is allocated with
 * malloc, not options.memory: it may outlive the model. Null is fine. */
ONNXVIEW_C_API void onnxview_text_free(char* text);

/* Why the model is empty when keep_malformed kept a malformed one; else ok. */
ONNXVIEW_C_API onnxview_error onnxview_model_error(const onnxview_model* model);
/* The whole file's bytes. */
ONNXVIEW_C_API onnxview_string onnxview_model_bytes(const onnxview_model* model);
/* Checks the whole tree as libprotobuf parses it (onnxview::verify), linear
 * in its fields; no allocation. */
ONNXVIEW_C_API onnxview_error onnxview_model_verify(const onnxview_model* model);
/* Writes the path of the fields holding byte `offset` (e.g.
 * "graph.node[3].attribute[0].t"), NUL-terminated, and its length in
 * *length (may be null). Errors: invalid_argument (offset past the end),
 * buffer_too_small (a NUL-terminated prefix is written). No allocation. */
ONNXVIEW_C_API onnxview_error onnxview_field_path(const onnxview_model* model, uint64_t offset, char* out,
                                                  size_t out_size, size_t* length);
/* Writes `e` as one line for people, NUL-terminated, as the CLI and the
 * Python package do: "MESSAGE (NAME) at byte N[ in PATH][ (SYSTEM MESSAGE)]",
 * e.g. "truncated input (truncated) at byte 2756 in
 * graph.initializer[3].doc_string"; the field path when `model` (may be null)
 * holds the offset. Returns the length of the whole line: when it is
 * out_size or more, out holds a NUL-terminated prefix. No allocation. */
ONNXVIEW_C_API size_t onnxview_format_error(const onnxview_model* model, onnxview_error e, char* out,
                                            size_t out_size);

/* ------------------------------------------------------------------------
 * The model (ModelProto). O(1) each. */
ONNXVIEW_C_API int64_t onnxview_model_ir_version(const onnxview_model* m);
ONNXVIEW_C_API onnxview_string onnxview_model_producer_name(const onnxview_model* m);
ONNXVIEW_C_API onnxview_string onnxview_model_producer_version(const onnxview_model* m);
ONNXVIEW_C_API onnxview_string onnxview_model_domain(const onnxview_model* m);
ONNXVIEW_C_API int64_t onnxview_model_model_version(const onnxview_model* m);
ONNXVIEW_C_API onnxview_string onnxview_model_doc_string(const onnxview_model* m);
ONNXVIEW_C_API size_t onnxview_model_opset_count(const onnxview_model* m);
/* Opset i: its domain and version (either out may be null). */
ONNXVIEW_C_API onnxview_error onnxview_model_opset(const onnxview_model* m, size_t i, onnxview_string* domain,
                                                   int64_t* version);
ONNXVIEW_C_API size_t onnxview_model_metadata_count(const onnxview_model* m);
ONNXVIEW_C_API onnxview_error onnxview_model_metadata(const onnxview_model* m, size_t i, onnxview_string* key,
                                                      onnxview_string* value);
/* The main graph (an empty graph when absent: onnxview_model_has_graph). */
ONNXVIEW_C_API int onnxview_model_has_graph(const onnxview_model* m);
ONNXVIEW_C_API onnxview_error onnxview_model_graph(const onnxview_model* m, onnxview_graph* out);
ONNXVIEW_C_API size_t onnxview_model_function_count(const onnxview_model* m);
ONNXVIEW_C_API onnxview_error onnxview_model_function(const onnxview_model* m, size_t i, onnxview_function* out);

/* ------------------------------------------------------------------------
 * Graphs (GraphProto): the main graph and subgraphs alike. */
ONNXVIEW_C_API onnxview_string onnxview_graph_name(const onnxview_graph* g);
ONNXVIEW_C_API onnxview_string onnxview_graph_doc_string(const onnxview_graph* g);
ONNXVIEW_C_API size_t onnxview_graph_node_count(const onnxview_graph* g);
ONNXVIEW_C_API onnxview_error onnxview_graph_node(const onnxview_graph* g, size_t i, onnxview_node* out);
ONNXVIEW_C_API size_t onnxview_graph_input_count(const onnxview_graph* g);
ONNXVIEW_C_API onnxview_error onnxview_graph_input(const onnxview_graph* g, size_t i, onnxview_value_info* out);
ONNXVIEW_C_API size_t onnxview_graph_output_count(const onnxview_graph* g);
ONNXVIEW_C_API onnxview_error onnxview_graph_output(const onnxview_graph* g, size_t i, onnxview_value_info* out);
ONNXVIEW_C_API size_t onnxview_graph_value_info_count(const onnxview_graph* g);
ONNXVIEW_C_API onnxview_error onnxview_graph_value_info(const onnxview_graph* g, size_t i,
                                                        onnxview_value_info* out);
ONNXVIEW_C_API size_t onnxview_graph_initializer_count(const onnxview_graph* g);
ONNXVIEW_C_API onnxview_error onnxview_graph_initializer(const onnxview_graph* g, size_t i, onnxview_tensor* out);
ONNXVIEW_C_API size_t onnxview_graph_sparse_initializer_count(const onnxview_graph* g);
ONNXVIEW_C_API onnxview_error onnxview_graph_sparse_initializer(const onnxview_graph* g, size_t i,
                                                                onnxview_sparse_tensor* out);
/* The initializer named [name, name + size): the first dense one, else the
 * first sparse one whose values have that name (onnxview::find_initializer:
 * linear in the initializers). *is_sparse says which out was written;
 * `dense` or `sparse` may be null when the caller wants only the other. */
ONNXVIEW_C_API onnxview_error onnxview_graph_find_initializer(const onnxview_graph* g, const char* name, size_t size,
                                                              int* is_sparse, onnxview_tensor* dense,
                                                              onnxview_sparse_tensor* sparse);

/* ------------------------------------------------------------------------
 * Nodes (NodeProto) */
ONNXVIEW_C_API onnxview_string onnxview_node_name(const onnxview_node* n);
ONNXVIEW_C_API onnxview_string onnxview_node_op_type(const onnxview_node* n);
ONNXVIEW_C_API onnxview_string onnxview_node_domain(const onnxview_node* n);
ONNXVIEW_C_API onnxview_string onnxview_node_overload(const onnxview_node* n);
ONNXVIEW_C_API onnxview_string onnxview_node_doc_string(const onnxview_node* n);
ONNXVIEW_C_API size_t onnxview_node_input_count(const onnxview_node* n);
/* Input i (linear in i); empty names are omitted optional inputs. */
ONNXVIEW_C_API onnxview_error onnxview_node_input(const onnxview_node* n, size_t i, onnxview_string* out);
ONNXVIEW_C_API size_t onnxview_node_output_count(const onnxview_node* n);
ONNXVIEW_C_API onnxview_error onnxview_node_output(const onnxview_node* n, size_t i, onnxview_string* out);
ONNXVIEW_C_API size_t onnxview_node_attribute_count(const onnxview_node* n);
ONNXVIEW_C_API onnxview_error onnxview_node_attribute(const onnxview_node* n, size_t i, onnxview_attribute* out);
/* The first attribute named [name, name + size); not_found. Linear. */
ONNXVIEW_C_API onnxview_error onnxview_node_find_attribute(const onnxview_node* n, const char* name, size_t size,
                                                           onnxview_attribute* out);
/* The node after `n` in the same repeated field (graph or function nodes),
 * O(1) amortized; not_found after the last. `out` may be `n`. */
ONNXVIEW_C_API onnxview_error onnxview_node_next(const onnxview_node* n, onnxview_node* out);

/* ------------------------------------------------------------------------
 * Attributes (AttributeProto). Types are ONNX's AttributeType numbers
 * (ONNXVIEW_ATTR_*, above). */
ONNXVIEW_C_API onnxview_string onnxview_attribute_name(const onnxview_attribute* a);
/* The `type` field (a closed enum: the last valid number). */
ONNXVIEW_C_API int32_t onnxview_attribute_type(const onnxview_attribute* a);
/* The AttributeType's name ("FLOATS"), "UNKNOWN" outside the schema. */
ONNXVIEW_C_API const char* onnxview_attribute_type_name(int32_t type);
ONNXVIEW_C_API onnxview_string onnxview_attribute_ref_attr_name(const onnxview_attribute* a);
ONNXVIEW_C_API onnxview_string onnxview_attribute_doc_string(const onnxview_attribute* a);
ONNXVIEW_C_API float onnxview_attribute_f(const onnxview_attribute* a);
ONNXVIEW_C_API int64_t onnxview_attribute_i(const onnxview_attribute* a);
ONNXVIEW_C_API onnxview_string onnxview_attribute_s(const onnxview_attribute* a);
/* floats / ints: *count receives the number of elements (packed and unpacked
 * together, linear in them); they are copied to out when capacity allows,
 * else buffer_too_small and nothing is written (out null with capacity 0:
 * only the count). */
ONNXVIEW_C_API onnxview_error onnxview_attribute_floats(const onnxview_attribute* a, float* out, size_t capacity,
                                                        size_t* count);
ONNXVIEW_C_API onnxview_error onnxview_attribute_ints(const onnxview_attribute* a, int64_t* out, size_t capacity,
                                                      size_t* count);
ONNXVIEW_C_API size_t onnxview_attribute_strings_count(const onnxview_attribute* a);
ONNXVIEW_C_API onnxview_error onnxview_attribute_string_at(const onnxview_attribute* a, size_t i,
                                                           onnxview_string* out);
/* t, g, sparse_tensor, tp: an empty message when absent. */
ONNXVIEW_C_API onnxview_error onnxview_attribute_t(const onnxview_attribute* a, onnxview_tensor* out);
ONNXVIEW_C_API onnxview_error onnxview_attribute_g(const onnxview_attribute* a, onnxview_graph* out);
ONNXVIEW_C_API onnxview_error onnxview_attribute_sparse_tensor(const onnxview_attribute* a,
                                                               onnxview_sparse_tensor* out);
ONNXVIEW_C_API onnxview_error onnxview_attribute_tp(const onnxview_attribute* a, onnxview_type* out);
ONNXVIEW_C_API size_t onnxview_attribute_tensors_count(const onnxview_attribute* a);
ONNXVIEW_C_API onnxview_error onnxview_attribute_tensor_at(const onnxview_attribute* a, size_t i,
                                                           onnxview_tensor* out);
ONNXVIEW_C_API size_t onnxview_attribute_graphs_count(const onnxview_attribute* a);
ONNXVIEW_C_API onnxview_error onnxview_attribute_graph_at(const onnxview_attribute* a, size_t i,
                                                          onnxview_graph* out);
ONNXVIEW_C_API size_t onnxview_attribute_sparse_tensors_count(const onnxview_attribute* a);
ONNXVIEW_C_API onnxview_error onnxview_attribute_sparse_tensor_at(const onnxview_attribute* a, size_t i,
                                                                  onnxview_sparse_tensor* out);
ONNXVIEW_C_API size_t onnxview_attribute_type_protos_count(const onnxview_attribute* a);
ONNXVIEW_C_API onnxview_error onnxview_attribute_type_proto_at(const onnxview_attribute* a, size_t i,
                                                               onnxview_type* out);

/* ------------------------------------------------------------------------
 * Value infos (ValueInfoProto) and types (TypeProto) */
ONNXVIEW_C_API onnxview_string onnxview_value_info_name(const onnxview_value_info* v);
ONNXVIEW_C_API onnxview_string onnxview_value_info_doc_string(const onnxview_value_info* v);
/* The type; an empty type (kind NONE) when absent. */
ONNXVIEW_C_API onnxview_error onnxview_value_info_type(const onnxview_value_info* v, onnxview_type* out);

/* Which member of TypeProto's `value` oneof is set (the last on the wire). */
enum {
    ONNXVIEW_TYPE_NONE = 0, ONNXVIEW_TYPE_TENSOR = 1, ONNXVIEW_TYPE_SEQUENCE = 2, ONNXVIEW_TYPE_MAP = 3,
    ONNXVIEW_TYPE_OPTIONAL = 4, ONNXVIEW_TYPE_SPARSE_TENSOR = 5, ONNXVIEW_TYPE_OPAQUE = 6
};
ONNXVIEW_C_API int32_t onnxview_type_kind(const onnxview_type* t);
/* TENSOR and SPARSE_TENSOR: elem_type; MAP: key_type (DataType numbers); else 0. */
ONNXVIEW_C_API int32_t onnxview_type_elem_type(const onnxview_type* t);
/* TENSOR and SPARSE_TENSOR: whether a shape is given, and its rank. */
ONNXVIEW_C_API int onnxview_type_has_shape(const onnxview_type* t);
ONNXVIEW_C_API size_t onnxview_type_rank(const onnxview_type* t);
enum { ONNXVIEW_DIM_UNKNOWN = 0, ONNXVIEW_DIM_VALUE = 1, ONNXVIEW_DIM_PARAM = 2 };
typedef struct onnxview_dim {
    int32_t kind;          /* ONNXVIEW_DIM_*: dim_value set, else dim_param set, else unknown */
    int64_t value;         /* DIM_VALUE */
    onnxview_string param; /* DIM_PARAM: the symbol ("N"), possibly empty */
    onnxview_string denotation;
} onnxview_dim;
/* Dimension i of the shape (linear in i). */
ONNXVIEW_C_API onnxview_error onnxview_type_dim(const onnxview_type* t, size_t i, onnxview_dim* out);
/* SEQUENCE and OPTIONAL: the element type; MAP: the value type. Else not_found. */
ONNXVIEW_C_API onnxview_error onnxview_type_element(const onnxview_type* t, onnxview_type* out);
/* OPAQUE: domain and name (either may be null). Else not_found. */
ONNXVIEW_C_API onnxview_error onnxview_type_opaque(const onnxview_type* t, onnxview_string* domain,
                                                   onnxview_string* name);
ONNXVIEW_C_API onnxview_string onnxview_type_denotation(const onnxview_type* t);

/* ------------------------------------------------------------------------
 * Tensors (TensorProto): facts, then data. Data types are ONNX's DataType
 * numbers (ONNXVIEW_DATA_TYPE_*, above). */
ONNXVIEW_C_API onnxview_string onnxview_tensor_name(const onnxview_tensor* t);
ONNXVIEW_C_API onnxview_string onnxview_tensor_doc_string(const onnxview_tensor* t);
ONNXVIEW_C_API int32_t onnxview_tensor_data_type(const onnxview_tensor* t);
/* "FLOAT", ...; "UNDEFINED" for 0 and numbers outside the schema. */
ONNXVIEW_C_API const char* onnxview_data_type_name(int32_t data_type);
/* dims: like onnxview_attribute_ints (linear in the dims). */
ONNXVIEW_C_API onnxview_error onnxview_tensor_dims(const onnxview_tensor* t, int64_t* out, size_t capacity,
                                                   size_t* rank);
/* data_location: 0 DEFAULT, 1 EXTERNAL. */
ONNXVIEW_C_API int32_t onnxview_tensor_data_location(const onnxview_tensor* t);
ONNXVIEW_C_API int onnxview_tensor_has_raw_data(const onnxview_tensor* t);
ONNXVIEW_C_API int onnxview_tensor_has_segment(const onnxview_tensor* t);
ONNXVIEW_C_API size_t onnxview_tensor_external_data_count(const onnxview_tensor* t);
ONNXVIEW_C_API onnxview_error onnxview_tensor_external_data(const onnxview_tensor* t, size_t i,
                                                            onnxview_string* key, onnxview_string* value);
/* The tensor after `t` in the same repeated field (initializers, attribute
 * tensors), O(1) amortized; not_found after the last or for a singular one. */
ONNXVIEW_C_API onnxview_error onnxview_tensor_next(const onnxview_tensor* t, onnxview_tensor* out);

enum { ONNXVIEW_STORAGE_NONE = 0, ONNXVIEW_STORAGE_RAW = 1, ONNXVIEW_STORAGE_TYPED = 2,
       ONNXVIEW_STORAGE_EXTERNAL = 3 };
/* Where a validated tensor's payload lives (onnxview::storage_info). */
typedef struct onnxview_storage {
    int32_t kind;            /* ONNXVIEW_STORAGE_* */
    uint32_t alignment;      /* raw: of the address; external: of the file offset (largest power of 2 up to 4096) */
    uint64_t element_count;  /* product of dims */
    uint64_t byte_size;      /* the payload in raw_data form: ceil(N x bits / 8) (0 for STRING) */
    uint64_t entry_count;    /* typed: entries of the typed field; STRING: N */
    uint64_t offset;         /* raw: of raw_data in the model; typed: of the field; external: the `offset` entry */
    onnxview_string location; /* external: the `location` entry */
} onnxview_storage;
/* Validates type, dims and payload size (the rules of
 * onnxview/tensor_storage.hpp); reads no external file. Linear in the
 * tensor's own fields. */
ONNXVIEW_C_API onnxview_error onnxview_tensor_storage(const onnxview_tensor* t, onnxview_storage* out);

/* The data functions validate the tensor and locate its payload each call
 * (linear in its own fields; EXTERNAL tensors are resolved through the
 * model's external data with every security check of
 * onnxview/external_data.hpp, each file opened once per model). */

/* Zero-copy: the elements in their natural C type (FLOAT float, FLOAT16 and
 * BFLOAT16 uint16_t bits, INT64 int64_t, BOOL 1-byte 0/1, COMPLEX64 two
 * floats, ...) at *data, *count elements, valid until close. Only when the
 * payload is contiguous (raw_data, external, or one packed float/double
 * chunk), the host little-endian (for types over one byte) and the address
 * aligned. Errors: bad_data_type (STRING, 4-bit and 2-bit types, varint
 * typed fields, BOOL bytes other than 0/1), not_little_endian, unaligned:
 * then use onnxview_tensor_copy(). */
ONNXVIEW_C_API onnxview_error onnxview_tensor_data(const onnxview_tensor* t, const void** data, uint64_t* count);
/* The element size onnxview_tensor_copy() writes: bytes of the natural C type
 * (1 for INT4/UINT4/INT2/UINT2/FLOAT4E2M1, one unpacked value per byte);
 * 0 for STRING and unknown types. */
ONNXVIEW_C_API size_t onnxview_natural_size(int32_t data_type);
/* Copies the N elements in their natural C type into out (out_bytes
 * capacity); any storage, alignment and byte order. *count receives N.
 * Errors: bad_data_type (STRING), buffer_too_small (nothing written). */
ONNXVIEW_C_API onnxview_error onnxview_tensor_copy(const onnxview_tensor* t, void* out, size_t out_bytes,
                                                   uint64_t* count);
/* Every numeric type converted to float or double (narrow floats exactly;
 * complex: 2N values, real then imaginary). *count: values written. Errors:
 * bad_data_type (STRING), buffer_too_small (nothing written). */
ONNXVIEW_C_API onnxview_error onnxview_tensor_copy_float(const onnxview_tensor* t, float* out, size_t capacity,
                                                         uint64_t* count);
ONNXVIEW_C_API onnxview_error onnxview_tensor_copy_double(const onnxview_tensor* t, double* out, size_t capacity,
                                                          uint64_t* count);
/* Element k as double (imag: the imaginary part of complex elements, may be
 * null). O(1) for raw/external, O(k) for typed. Errors: not_found (k >= N). */
ONNXVIEW_C_API onnxview_error onnxview_tensor_double_at(const onnxview_tensor* t, uint64_t k, double* real,
                                                        double* imag);
/* STRING tensors: element k (linear in k). Errors: bad_data_type, not_found. */
ONNXVIEW_C_API onnxview_error onnxview_tensor_string_at(const onnxview_tensor* t, uint64_t k, onnxview_string* out);

/* ------------------------------------------------------------------------
 * Sparse tensors (SparseTensorProto) */
ONNXVIEW_C_API onnxview_error onnxview_sparse_values(const onnxview_sparse_tensor* s, onnxview_tensor* out);
ONNXVIEW_C_API onnxview_error onnxview_sparse_indices(const onnxview_sparse_tensor* s, onnxview_tensor* out);
ONNXVIEW_C_API onnxview_error onnxview_sparse_dims(const onnxview_sparse_tensor* s, int64_t* out, size_t capacity,
                                                   size_t* rank);
enum { ONNXVIEW_SPARSE_COORDINATES = 0, ONNXVIEW_SPARSE_LINEAR = 1 };
typedef struct onnxview_sparse_info {
    uint64_t nnz;
    uint64_t dense_size; /* elements of the dense tensor */
    uint32_t rank;
    int32_t layout;      /* ONNXVIEW_SPARSE_*: indices [NNZ, rank] or [NNZ] */
} onnxview_sparse_info;
/* Validates the sparse tensor (onnxview::sparse_data::make; values and
 * indices wherever they live). */
ONNXVIEW_C_API onnxview_error onnxview_sparse_info_of(const onnxview_sparse_tensor* s, onnxview_sparse_info* out);
/* Row-major position of non-zero k in the dense tensor. Errors: not_found,
 * bad_dims (an index out of range). */
ONNXVIEW_C_API onnxview_error onnxview_sparse_linear_index(const onnxview_sparse_tensor* s, uint64_t k,
                                                           uint64_t* out);
/* Every index in range and strictly ascending; linear in NNZ x rank. */
ONNXVIEW_C_API onnxview_error onnxview_sparse_validate(const onnxview_sparse_tensor* s);

/* ------------------------------------------------------------------------
 * Model-local functions (FunctionProto) */
ONNXVIEW_C_API onnxview_string onnxview_function_name(const onnxview_function* f);
ONNXVIEW_C_API onnxview_string onnxview_function_domain(const onnxview_function* f);
ONNXVIEW_C_API onnxview_string onnxview_function_overload(const onnxview_function* f);
ONNXVIEW_C_API onnxview_string onnxview_function_doc_string(const onnxview_function* f);
ONNXVIEW_C_API size_t onnxview_function_input_count(const onnxview_function* f);
ONNXVIEW_C_API onnxview_error onnxview_function_input(const onnxview_function* f, size_t i, onnxview_string* out);
ONNXVIEW_C_API size_t onnxview_function_output_count(const onnxview_function* f);
ONNXVIEW_C_API onnxview_error onnxview_function_output(const onnxview_function* f, size_t i, onnxview_string* out);
/* The names of the function's attributes (FunctionProto.attribute). */
ONNXVIEW_C_API size_t onnxview_function_attribute_count(const onnxview_function* f);
ONNXVIEW_C_API onnxview_error onnxview_function_attribute(const onnxview_function* f, size_t i,
                                                          onnxview_string* out);
ONNXVIEW_C_API size_t onnxview_function_node_count(const onnxview_function* f);
ONNXVIEW_C_API onnxview_error onnxview_function_node(const onnxview_function* f, size_t i, onnxview_node* out);
ONNXVIEW_C_API size_t onnxview_function_opset_count(const onnxview_function* f);
ONNXVIEW_C_API onnxview_error onnxview_function_opset(const onnxview_function* f, size_t i, onnxview_string* domain,
                                                      int64_t* version);

/* ------------------------------------------------------------------------
 * The checker (onnxview/check.hpp) */
enum { ONNXVIEW_WARNING = 1, ONNXVIEW_ERROR = 2 };
typedef struct onnxview_finding {
    int32_t severity;        /* ONNXVIEW_WARNING or ONNXVIEW_ERROR */
    int32_t code;            /* onnxview::finding_code */
    const char* code_name;   /* "undefined_input", static storage */
    onnxview_string path;    /* "graph.node[12] 'conv1'.input[2]"; valid during the callback */
    onnxview_string message; /* for people; valid during the callback */
    uint64_t offset;         /* of the message concerned */
} onnxview_finding;
typedef struct onnxview_check_result {
    uint64_t errors;
    uint64_t warnings;
    int32_t truncated; /* max_findings reached */
} onnxview_check_result;
typedef void (*onnxview_finding_callback)(void* user, const onnxview_finding* finding);
/* Checks the model as `onnxview check` does, calling `callback` (may be
 * null) per finding in model order. `options` may be null: the model's own
 * options (its path for external data). Linear in the model's fields;
 * allocates from options->memory. Errors: invalid_argument;
 * out_of_memory when the allocator fails (where exceptions are enabled;
 * elsewhere the program aborts, as the C++ checker documents). */
ONNXVIEW_C_API onnxview_error onnxview_check(onnxview_model* model, const onnxview_options* options,
                                             onnxview_finding_callback callback, void* user,
                                             onnxview_check_result* out);

/* ------------------------------------------------------------------------
 * Printers: protoc's text format and the protobuf JSON mapping of the model,
 * written in chunks of a few KiB to `write`. Validation first: on error
 * nothing is written. No allocation. `options` may be null (release,
 * max_printed_bytes, max_message_depth). */
typedef void (*onnxview_write_fn)(void* user, const char* data, size_t size);
ONNXVIEW_C_API onnxview_error onnxview_print_text(const onnxview_model* model, const onnxview_options* options,
                                                  onnxview_write_fn write, void* user);
ONNXVIEW_C_API onnxview_error onnxview_print_json(const onnxview_model* model, const onnxview_options* options,
                                                  onnxview_write_fn write, void* user);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* ONNXVIEW_H */
