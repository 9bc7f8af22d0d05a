// The C API: tensor facts and data, sparse tensors (include/onnxview.h),
// through tensor_data and sparse_data with the model's external data.
#include "handle.hpp"

using namespace onnxview;
using namespace onnxview::capi;

namespace {

// The model's tensor_data of handle t: external payloads through its
// resolver, whose state (files opened once) is the model's.
result<tensor_data> data_of(const onnxview_tensor* t) noexcept {
    const handle_body b = body_of(t);
    if (b.owner == nullptr) return tensor_data::make(view_of<tensor_view>(t));
    return const_cast<onnxview_model*>(b.owner)->file.tensor(view_of<tensor_view>(t));
}

result<sparse_data> sparse_of(const onnxview_sparse_tensor* s) noexcept {
    const handle_body b = body_of(s);
    if (b.owner == nullptr) return sparse_data::make(view_of<sparse_tensor_view>(s));
    return const_cast<onnxview_model*>(b.owner)->file.sparse_tensor(view_of<sparse_tensor_view>(s));
}

// Calls f with a null pointer of the natural C++ type of d's elements;
// STRING tensors have no array form (bad_data_type).
template <class F>
onnxview_error with_numeric_type(const tensor_data& d, F f) noexcept {
    switch (d.info().natural) {
        case natural_type::f32: return f(static_cast<float*>(nullptr));
        case natural_type::u8: return f(static_cast<std::uint8_t*>(nullptr));
        case natural_type::i8: return f(static_cast<std::int8_t*>(nullptr));
        case natural_type::u16: return f(static_cast<std::uint16_t*>(nullptr));
        case natural_type::i16: return f(static_cast<std::int16_t*>(nullptr));
        case natural_type::i32: return f(static_cast<std::int32_t*>(nullptr));
        case natural_type::i64: return f(static_cast<std::int64_t*>(nullptr));
        case natural_type::boolean: return f(static_cast<bool*>(nullptr));
        case natural_type::f64: return f(static_cast<double*>(nullptr));
        case natural_type::u32: return f(static_cast<std::uint32_t*>(nullptr));
        case natural_type::u64: return f(static_cast<std::uint64_t*>(nullptr));
        case natural_type::c64: return f(static_cast<std::complex<float>*>(nullptr));
        case natural_type::c128: return f(static_cast<std::complex<double>*>(nullptr));
        case natural_type::string_view: break;
    }
    return fail(errc::bad_data_type, d.describe().offset);
}

template <class D>
onnxview_error copy_converted(const onnxview_tensor* t, D* out, size_t capacity, uint64_t* count) noexcept {
    if (t == nullptr) return fail(errc::invalid_argument);
    const result<tensor_data> d = data_of(t);
    if (!d.ok()) return to_c(d.err());
    const result<std::uint64_t> n = d->copy_as<D>(out, capacity);
    if (!n.ok()) return to_c(n.err());
    if (count != nullptr) *count = n.value();
    return ok();
}

onnxview_error dims_of(const wire::repeated<wire::elem_int64>& dims, int64_t* out, size_t capacity,
                       size_t* rank) noexcept {
    return copy_scalars(dims, out, capacity, rank);
}

}  // namespace

extern "C" {

onnxview_string onnxview_tensor_name(const onnxview_tensor* t) {
    return to_c(t ? view_of<tensor_view>(t).name() : std::string_view());
}
onnxview_string onnxview_tensor_doc_string(const onnxview_tensor* t) {
    return to_c(t ? view_of<tensor_view>(t).doc_string() : std::string_view());
}
int32_t onnxview_tensor_data_type(const onnxview_tensor* t) { return t ? view_of<tensor_view>(t).data_type() : 0; }
const char* onnxview_data_type_name(int32_t data_type) {
    return find_data_type_info(data_type) ? find_data_type_info(data_type)->name : "UNDEFINED";
}
onnxview_error onnxview_tensor_dims(const onnxview_tensor* t, int64_t* out, size_t capacity, size_t* rank) {
    if (t == nullptr) return fail(errc::invalid_argument);
    return dims_of(view_of<tensor_view>(t).dims(), out, capacity, rank);
}
int32_t onnxview_tensor_data_location(const onnxview_tensor* t) {
    return t ? static_cast<int32_t>(view_of<tensor_view>(t).data_location()) : 0;
}
int onnxview_tensor_has_raw_data(const onnxview_tensor* t) { return t && view_of<tensor_view>(t).has_raw_data(); }
int onnxview_tensor_has_segment(const onnxview_tensor* t) { return t && view_of<tensor_view>(t).has_segment(); }
size_t onnxview_tensor_external_data_count(const onnxview_tensor* t) {
    return t ? view_of<tensor_view>(t).external_data().size() : 0;
}
onnxview_error onnxview_tensor_external_data(const onnxview_tensor* t, size_t i, onnxview_string* key,
                                             onnxview_string* value) {
    if (t == nullptr) return fail(errc::invalid_argument);
    return entry_at(view_of<tensor_view>(t).external_data(), i, key, value);
}
onnxview_error onnxview_tensor_next(const onnxview_tensor* t, onnxview_tensor* out) {
    return store_next<tensor_view>(t, out);
}

onnxview_error onnxview_tensor_storage(const onnxview_tensor* t, onnxview_storage* out) {
    if (t == nullptr || out == nullptr) return fail(errc::invalid_argument);
    const result<storage_info> s = describe_storage(view_of<tensor_view>(t));
    if (!s.ok()) return to_c(s.err());
    static_assert(ONNXVIEW_STORAGE_EXTERNAL == static_cast<int>(storage_kind::external), "storage kinds");
    out->kind = static_cast<int32_t>(s->kind);
    out->alignment = s->alignment;
    out->element_count = s->element_count;
    out->byte_size = s->byte_size;
    out->entry_count = s->entry_count;
    out->offset = s->offset;
    out->location = to_c(s->location);
    return ok();
}

onnxview_error onnxview_tensor_data(const onnxview_tensor* t, const void** data, uint64_t* count) {
    if (t == nullptr || data == nullptr) return fail(errc::invalid_argument);
    const result<tensor_data> d = data_of(t);
    if (!d.ok()) return to_c(d.err());
    return with_numeric_type(d.value(), [&](auto* type) {
        using T = std::remove_pointer_t<decltype(type)>;
        const result<span<const T>> s = d->as_span<T>();
        if (!s.ok()) return to_c(s.err());
        *data = s->data();
        if (count != nullptr) *count = s->size();
        return ok();
    });
}

size_t onnxview_natural_size(int32_t data_type) {
    const data_type_info* info = find_data_type_info(data_type);
    if (info == nullptr || info->kind == element_kind::string) return 0;
    return info->sub_byte() ? 1 : info->element_bytes();
}

onnxview_error onnxview_tensor_copy(const onnxview_tensor* t, void* out, size_t out_bytes, uint64_t* count) {
    if (t == nullptr || (out == nullptr && out_bytes != 0)) return fail(errc::invalid_argument);
    const result<tensor_data> d = data_of(t);
    if (!d.ok()) return to_c(d.err());
    return with_numeric_type(d.value(), [&](auto* type) {
        using T = std::remove_pointer_t<decltype(type)>;
        // Caller memory has no alignment promise: then elements go through
        // a local, as the C type of the element would be read.
        const std::uint64_t n = d->size();
        if (out_bytes / sizeof(T) < n) return fail(errc::buffer_too_small, d->describe().offset);
        if (reinterpret_cast<std::uintptr_t>(out) % alignof(T) == 0) {
            const result<std::uint64_t> r = d->copy_to<T>(static_cast<T*>(out), out_bytes / sizeof(T));
            if (!r.ok()) return to_c(r.err());
        } else {
            std::uint64_t i = 0;
            for (T x : d->elements<T>()) std::memcpy(static_cast<char*>(out) + sizeof(T) * i++, &x, sizeof x);
            if (i != n) return fail(errc::payload_size_mismatch, d->describe().offset);
        }
        if (count != nullptr) *count = n;
        return ok();
    });
}

onnxview_error onnxview_tensor_copy_float(const onnxview_tensor* t, float* out, size_t capacity, uint64_t* count) {
    return copy_converted(t, out, capacity, count);
}
onnxview_error onnxview_tensor_copy_double(const onnxview_tensor* t, double* out, size_t capacity,
                                           uint64_t* count) {
    return copy_converted(t, out, capacity, count);
}

onnxview_error onnxview_tensor_double_at(const onnxview_tensor* t, uint64_t k, double* real, double* imag) {
    if (t == nullptr || real == nullptr) return fail(errc::invalid_argument);
    const result<tensor_data> d = data_of(t);
    if (!d.ok()) return to_c(d.err());
    const result<double> v = d->double_at(k, imag);
    if (!v.ok()) return to_c(v.err());
    *real = v.value();
    return ok();
}

onnxview_error onnxview_tensor_string_at(const onnxview_tensor* t, uint64_t k, onnxview_string* out) {
    if (t == nullptr || out == nullptr) return fail(errc::invalid_argument);
    const result<tensor_data> d = data_of(t);
    if (!d.ok()) return to_c(d.err());
    const result<std::string_view> s = d->at<std::string_view>(k);
    if (!s.ok()) return to_c(s.err());
    *out = to_c(s.value());
    return ok();
}

// --- sparse tensors
onnxview_error onnxview_sparse_values(const onnxview_sparse_tensor* s, onnxview_tensor* out) {
    if (s == nullptr) return fail(errc::invalid_argument);
    return store_view(view_of<sparse_tensor_view>(s).values(), body_of(s).owner, out);
}
onnxview_error onnxview_sparse_indices(const onnxview_sparse_tensor* s, onnxview_tensor* out) {
    if (s == nullptr) return fail(errc::invalid_argument);
    return store_view(view_of<sparse_tensor_view>(s).indices(), body_of(s).owner, out);
}
onnxview_error onnxview_sparse_dims(const onnxview_sparse_tensor* s, int64_t* out, size_t capacity, size_t* rank) {
    if (s == nullptr) return fail(errc::invalid_argument);
    return dims_of(view_of<sparse_tensor_view>(s).dims(), out, capacity, rank);
}
onnxview_error onnxview_sparse_info_of(const onnxview_sparse_tensor* s, onnxview_sparse_info* out) {
    if (s == nullptr || out == nullptr) return fail(errc::invalid_argument);
    const result<sparse_data> d = sparse_of(s);
    if (!d.ok()) return to_c(d.err());
    out->nnz = d->nnz();
    out->dense_size = d->dense_size();
    out->rank = d->rank();
    out->layout = d->layout() == sparse_layout::linear ? ONNXVIEW_SPARSE_LINEAR : ONNXVIEW_SPARSE_COORDINATES;
    return ok();
}
onnxview_error onnxview_sparse_linear_index(const onnxview_sparse_tensor* s, uint64_t k, uint64_t* out) {
    if (s == nullptr || out == nullptr) return fail(errc::invalid_argument);
    const result<sparse_data> d = sparse_of(s);
    if (!d.ok()) return to_c(d.err());
    const result<std::uint64_t> i = d->linear_index(k);
    if (!i.ok()) return to_c(i.err());
    *out = i.value();
    return ok();
}
onnxview_error onnxview_sparse_validate(const onnxview_sparse_tensor* s) {
    if (s == nullptr) return fail(errc::invalid_argument);
    const result<sparse_data> d = sparse_of(s);
    if (!d.ok()) return to_c(d.err());
    return to_c(d->validate_indices());
}

}  // extern "C"
