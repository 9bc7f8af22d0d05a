// The C API: versions, errors, options, opening and closing, the model's own
// fields, verify, field paths (include/onnxview.h).
#include <cstdlib>
#include <new>
#include <utility>

#include "handle.hpp"
#include "onnxview/field_path.hpp"
#include "onnxview/verify.hpp"

using namespace onnxview;
using namespace onnxview::capi;

// The C codes are the C++ ones (one table, onnxview/error.hpp).
#define ONNXVIEW_SAME_CODE(c, cpp) static_assert(c == static_cast<int>(errc::cpp), #cpp);
ONNXVIEW_SAME_CODE(ONNXVIEW_TRUNCATED, truncated)
ONNXVIEW_SAME_CODE(ONNXVIEW_VARINT_TOO_LONG, varint_too_long)
ONNXVIEW_SAME_CODE(ONNXVIEW_BAD_FIELD_NUMBER, bad_field_number)
ONNXVIEW_SAME_CODE(ONNXVIEW_BAD_WIRE_TYPE, bad_wire_type)
ONNXVIEW_SAME_CODE(ONNXVIEW_LENGTH_OUT_OF_BOUNDS, length_out_of_bounds)
ONNXVIEW_SAME_CODE(ONNXVIEW_DEPTH_EXCEEDED, depth_exceeded)
ONNXVIEW_SAME_CODE(ONNXVIEW_UNMATCHED_END_GROUP, unmatched_end_group)
ONNXVIEW_SAME_CODE(ONNXVIEW_BAD_PACKED_LENGTH, bad_packed_length)
ONNXVIEW_SAME_CODE(ONNXVIEW_MERGE_TOO_DEEP, merge_too_deep)
ONNXVIEW_SAME_CODE(ONNXVIEW_BAD_DATA_TYPE, bad_data_type)
ONNXVIEW_SAME_CODE(ONNXVIEW_BAD_DIMS, bad_dims)
ONNXVIEW_SAME_CODE(ONNXVIEW_PAYLOAD_SIZE_MISMATCH, payload_size_mismatch)
ONNXVIEW_SAME_CODE(ONNXVIEW_NOT_FOUND, not_found)
ONNXVIEW_SAME_CODE(ONNXVIEW_BUFFER_TOO_SMALL, buffer_too_small)
ONNXVIEW_SAME_CODE(ONNXVIEW_UNALIGNED, unaligned)
ONNXVIEW_SAME_CODE(ONNXVIEW_NOT_LITTLE_ENDIAN, not_little_endian)
ONNXVIEW_SAME_CODE(ONNXVIEW_IO_ERROR, io_error)
ONNXVIEW_SAME_CODE(ONNXVIEW_FILE_EMPTY, file_empty)
ONNXVIEW_SAME_CODE(ONNXVIEW_IS_DIRECTORY, is_directory)
ONNXVIEW_SAME_CODE(ONNXVIEW_FILE_TOO_LARGE, file_too_large)
ONNXVIEW_SAME_CODE(ONNXVIEW_EXTERNAL_PATH_UNSAFE, external_path_unsafe)
ONNXVIEW_SAME_CODE(ONNXVIEW_EXTERNAL_BAD_ENTRY, external_bad_entry)
ONNXVIEW_SAME_CODE(ONNXVIEW_EXTERNAL_OUT_OF_BOUNDS, external_out_of_bounds)
ONNXVIEW_SAME_CODE(ONNXVIEW_EXTERNAL_HARD_LINK, external_hard_link)
ONNXVIEW_SAME_CODE(ONNXVIEW_EXTERNAL_LIMIT, external_limit)
ONNXVIEW_SAME_CODE(ONNXVIEW_CHECKSUM_MISMATCH, checksum_mismatch)
ONNXVIEW_SAME_CODE(ONNXVIEW_INVALID_ARGUMENT, invalid_argument)
ONNXVIEW_SAME_CODE(ONNXVIEW_NOT_REGULAR_FILE, not_regular_file)
ONNXVIEW_SAME_CODE(ONNXVIEW_OUT_OF_MEMORY, out_of_memory)
ONNXVIEW_SAME_CODE(ONNXVIEW_NOT_DECIMAL, not_decimal)
ONNXVIEW_SAME_CODE(ONNXVIEW_NUMBER_TOO_LARGE, number_too_large)
#undef ONNXVIEW_SAME_CODE
static_assert(ONNXVIEW_OPEN_READ == static_cast<int>(open_mode::read), "open modes");
static_assert(ONNXVIEW_READS_METADATA == static_cast<int>(model_reads::metadata), "model reads");

namespace onnxview {
namespace capi {

error from_c(const onnxview_options* in, options& out) noexcept {
    out = options{};
    if (in == nullptr) return error();
    if (in->abi_version != ONNXVIEW_ABI_VERSION) return errc::invalid_argument;
    out.max_message_depth = in->max_message_depth;
    out.release = in->release;
    out.max_printed_bytes = in->max_printed_bytes;
    out.max_graph_depth = in->max_graph_depth;
    out.max_findings = in->max_findings;
    out.errors_only = in->errors_only != 0;
    if (in->file_mode < 0 || in->file_mode > ONNXVIEW_OPEN_READ) return errc::invalid_argument;
    if (in->reads < 0 || in->reads > ONNXVIEW_READS_METADATA) return errc::invalid_argument;
    const int max_hint = static_cast<int>(access_hint::dontneed);
    if (in->file_hint < 0 || in->file_hint > max_hint || in->external_hint < 0 || in->external_hint > max_hint)
        return errc::invalid_argument;
    out.file_mode = static_cast<open_mode>(in->file_mode);
    out.file_hint = static_cast<access_hint>(in->file_hint);
    out.file_copy_below = in->file_copy_below;
    out.verify = in->verify != 0;
    out.keep_malformed = in->keep_malformed != 0;
    out.reads = static_cast<model_reads>(in->reads);
    out.model_path = in->model_path;
    out.external_base_dir = in->external_base_dir;
    out.max_external_files = in->max_external_files;
    out.max_external_bytes = in->max_external_bytes;
    out.external_copy_below = in->external_copy_below;
    out.allow_hard_links = in->allow_hard_links != 0;
    out.verify_checksum = in->verify_checksum != 0;
    out.external_hint = static_cast<access_hint>(in->external_hint);
    out.memory.allocate = in->memory.allocate;
    out.memory.deallocate = in->memory.deallocate;
    out.memory.user_data = in->memory.user_data;
    out.verified = in->verified;
    out.verified_user = in->verified_user;
    out.drop_verified_pages = in->drop_verified_pages != 0;
    out.keep_descriptor = in->keep_descriptor != 0;
    return error();
}

}  // namespace capi
}  // namespace onnxview

namespace {

file_callbacks callbacks_from_c(const onnxview_file_callbacks& c) noexcept {
    file_callbacks f;
    f.map = c.map;
    f.read_whole = c.read_whole;
    f.release = c.release;
    f.user_data = c.user_data;
    return f;
}

bool own_memory(const options& o) noexcept { return o.memory.allocate != nullptr && o.memory.deallocate != nullptr; }

std::size_t length_of(const char* s) noexcept { return s == nullptr ? 0 : std::strlen(s) + 1; }

// model_file::adopt or adopt_self_contained: passed in, so that only the
// open functions a program calls bring theirs in.
using adopter = result<model_file> (*)(mapped_file&&, const options&) noexcept;

// The model handle and copies of the option strings it keeps, in one block
// from the caller's allocator.
onnxview_error create(mapped_file&& file, const char* path, options opts, const onnxview_file_callbacks* ext,
                      adopter adopt, onnxview_model** out) noexcept {
    const std::size_t path_bytes = length_of(opts.model_path ? opts.model_path : path);
    const std::size_t base_bytes = length_of(opts.external_base_dir);
    const std::size_t size = sizeof(onnxview_model) + path_bytes + base_bytes;
    void* block = own_memory(opts) ? opts.memory.allocate(opts.memory.user_data, size, alignof(onnxview_model))
                                   : std::malloc(size);
    if (block == nullptr) return fail(errc::out_of_memory);
    char* strings = static_cast<char*>(block) + sizeof(onnxview_model);
    if (path_bytes != 0) {
        std::memcpy(strings, opts.model_path ? opts.model_path : path, path_bytes);
        opts.model_path = strings;
    }
    if (base_bytes != 0) {
        std::memcpy(strings + path_bytes, opts.external_base_dir, base_bytes);
        opts.external_base_dir = strings + path_bytes;
    }
    file_callbacks external;
    if (ext != nullptr) {
        external = callbacks_from_c(*ext);
        opts.external_files = &external;  // copied by the resolver
    }
    auto mf = adopt(std::move(file), opts);
    if (!mf.ok()) {
        if (own_memory(opts)) opts.memory.deallocate(opts.memory.user_data, block, size, alignof(onnxview_model));
        else std::free(block);
        return to_c(mf.err());
    }
    onnxview_model* m = ::new (block) onnxview_model{std::move(mf.value()), opts, external, size};
    m->opts.external_files = ext != nullptr ? &m->external : nullptr;
    *out = m;
    return ok();
}

// The caller's bytes, borrowed; external files through options->external_files
// when `adopt` resolves them.
onnxview_error open_borrowed(const void* data, size_t size, const onnxview_options* options, adopter adopt,
                             onnxview_model** out) noexcept {
    onnxview::options opts;
    if (const error e = from_c(options, opts)) return to_c(e);
    if ((data == nullptr && size != 0) || out == nullptr) return fail(errc::invalid_argument);
    if (size == 0) return fail(errc::file_empty);
    const onnxview_file_callbacks* ext = options ? options->external_files : nullptr;
    return create(mapped_file::from_memory(data, size), nullptr, opts, ext, adopt, out);
}

}  // namespace

extern "C" {

uint32_t onnxview_version(void) { return 0x000100; }
const char* onnxview_version_string(void) { return "0.1.0"; }
uint32_t onnxview_abi_version(void) { return ONNXVIEW_ABI_VERSION; }

const char* onnxview_errc_name(int32_t code) { return errc_name(static_cast<errc>(code)); }
const char* onnxview_errc_message(int32_t code) { return errc_message(static_cast<errc>(code)); }
int32_t onnxview_errc_group(int32_t code) { return static_cast<int32_t>(errc_group(static_cast<errc>(code))); }

onnxview_options onnxview_options_default(void) {
    onnxview_options o;
    std::memset(&o, 0, sizeof o);
    o.abi_version = ONNXVIEW_ABI_VERSION;
    return o;
}

onnxview_error onnxview_open_path(const char* path, const onnxview_options* options, onnxview_model** out) {
    onnxview::options opts;
    if (const error e = from_c(options, opts)) return to_c(e);
    if (path == nullptr || out == nullptr) return fail(errc::invalid_argument);
    auto file = mapped_file::open(path, opts);
    if (!file.ok()) return to_c(file.err());
    const onnxview_file_callbacks* ext = options ? options->external_files : nullptr;
    return create(std::move(file.value()), opts.external_base_dir ? nullptr : path, opts, ext, model_file::adopt, out);
}

onnxview_error onnxview_open_memory(const void* data, size_t size, const onnxview_options* options,
                                    onnxview_model** out) {
    return open_borrowed(data, size, options, model_file::adopt, out);
}

onnxview_error onnxview_open_self_contained(const void* data, size_t size, const onnxview_options* options,
                                            onnxview_model** out) {
    return open_borrowed(data, size, options, model_file::adopt_self_contained, out);
}

onnxview_error onnxview_open_callbacks(const char* path, const onnxview_file_callbacks* callbacks,
                                       const onnxview_options* options, onnxview_model** out) {
    onnxview::options opts;
    if (const error e = from_c(options, opts)) return to_c(e);
    if (path == nullptr || callbacks == nullptr || out == nullptr) return fail(errc::invalid_argument);
    auto file = mapped_file::from_callbacks(path, callbacks_from_c(*callbacks));
    if (!file.ok()) return to_c(file.err());
    const onnxview_file_callbacks* ext = options && options->external_files ? options->external_files : callbacks;
    return create(std::move(file.value()), opts.external_base_dir ? nullptr : path, opts, ext, model_file::adopt, out);
}

void onnxview_close(onnxview_model* model) {
    if (model == nullptr) return;
    const onnxview::options opts = model->opts;
    const std::size_t size = model->block_size;
    model->~onnxview_model();
    if (own_memory(opts)) opts.memory.deallocate(opts.memory.user_data, model, size, alignof(onnxview_model));
    else std::free(model);
}

void onnxview_text_free(char* text) { std::free(text); }

onnxview_error onnxview_model_error(const onnxview_model* m) {
    return m ? to_c(m->file.model_error()) : fail(errc::invalid_argument);
}
onnxview_string onnxview_model_bytes(const onnxview_model* m) {
    return to_c(m ? m->file.bytes() : std::string_view());
}
onnxview_error onnxview_model_verify(const onnxview_model* m) {
    if (m == nullptr) return fail(errc::invalid_argument);
    const std::string_view b = m->file.bytes();
    return to_c(verify(b.data(), b.size(), schema::msg_ModelProto, m->opts));
}
onnxview_error onnxview_field_path(const onnxview_model* m, uint64_t offset, char* out, size_t out_size,
                                   size_t* length) {
    if (m == nullptr) return fail(errc::invalid_argument);
    const std::string_view b = m->file.bytes();
    auto r = field_path_at(b.data(), b.size(), offset, schema::msg_ModelProto, out, out_size, m->opts.release);
    if (length != nullptr) *length = r.ok() ? r.value() : static_cast<std::size_t>(r.err().offset);
    return to_c(r.err());
}

size_t onnxview_format_error(const onnxview_model* m, onnxview_error e, char* out, size_t out_size) {
    const std::string_view b = m ? m->file.bytes() : std::string_view();
    return format_error(error(static_cast<errc>(e.code), e.offset, e.sys_errno), m ? b.data() : nullptr, b.size(),
                        schema::msg_ModelProto, out, out_size, m ? m->opts.release : 0);
}

int64_t onnxview_model_ir_version(const onnxview_model* m) { return m ? m->file.model().ir_version() : 0; }
onnxview_string onnxview_model_producer_name(const onnxview_model* m) {
    return to_c(m ? m->file.model().producer_name() : std::string_view());
}
onnxview_string onnxview_model_producer_version(const onnxview_model* m) {
    return to_c(m ? m->file.model().producer_version() : std::string_view());
}
onnxview_string onnxview_model_domain(const onnxview_model* m) {
    return to_c(m ? m->file.model().domain() : std::string_view());
}
int64_t onnxview_model_model_version(const onnxview_model* m) { return m ? m->file.model().model_version() : 0; }
onnxview_string onnxview_model_doc_string(const onnxview_model* m) {
    return to_c(m ? m->file.model().doc_string() : std::string_view());
}
size_t onnxview_model_opset_count(const onnxview_model* m) { return m ? m->file.model().opset_import().size() : 0; }
onnxview_error onnxview_model_opset(const onnxview_model* m, size_t i, onnxview_string* domain, int64_t* version) {
    if (m == nullptr) return fail(errc::invalid_argument);
    return opset_at(m->file.model().opset_import(), i, domain, version);
}
size_t onnxview_model_metadata_count(const onnxview_model* m) {
    return m ? m->file.model().metadata_props().size() : 0;
}
onnxview_error onnxview_model_metadata(const onnxview_model* m, size_t i, onnxview_string* key,
                                       onnxview_string* value) {
    if (m == nullptr) return fail(errc::invalid_argument);
    return entry_at(m->file.model().metadata_props(), i, key, value);
}
int onnxview_model_has_graph(const onnxview_model* m) { return m && m->file.model().has_graph() ? 1 : 0; }
onnxview_error onnxview_model_graph(const onnxview_model* m, onnxview_graph* out) {
    if (m == nullptr) return fail(errc::invalid_argument);
    return store_view(m->file.model().graph(), m, out);
}
size_t onnxview_model_function_count(const onnxview_model* m) { return m ? m->file.model().functions().size() : 0; }
onnxview_error onnxview_model_function(const onnxview_model* m, size_t i, onnxview_function* out) {
    if (m == nullptr || out == nullptr) return fail(errc::invalid_argument);
    const result<handle_body> b =
        element<function_view>(m->file.model().wire_message(), m, model_view::field::functions, i);
    if (!b.ok()) return to_c(b.err());
    store(b.value(), out);
    return ok();
}

}  // extern "C"
