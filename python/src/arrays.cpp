// python/src/arrays.cpp - tensors as NumPy arrays: zero-copy over the
// mapping when the library hands out a span (aligned, little-endian), one
// copy through the library's decoders otherwise. Every array is read-only
// and its base object holds the source, so the bytes outlive the model.
#include <cstdlib>
#include <cstring>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "binding.hpp"

namespace onnxview_py {

using namespace onnxview;

namespace {

// The base object of a zero-copy array: a capsule owning one reference to
// the source.
py::object keeper(const source_ptr& src) {
    return py::capsule(new source_ptr(src), [](void* p) { delete static_cast<source_ptr*>(p); });
}

py::array read_only(py::array a) {
    a.attr("flags").attr("writeable") = false;
    return a;
}

std::vector<py::ssize_t> c_strides(const std::vector<py::ssize_t>& shape, py::ssize_t item) {
    std::vector<py::ssize_t> strides(shape.size());
    py::ssize_t step = item;
    for (std::size_t i = shape.size(); i-- > 0;) {
        strides[i] = step;
        step *= shape[i] > 0 ? shape[i] : 1;
    }
    return strides;
}

py::dtype numpy_dtype(const char* name) { return py::dtype(std::string(name)); }

// A new C-ordered array to copy a tensor into. On Linux, one of at least a
// huge page gets a buffer aligned to 2 MiB and advised MADV_HUGEPAGE, so the
// copy faults in a few huge pages instead of 512 small ones per 2 MiB (NumPy
// advises blocks of 4 MiB and more, which malloc does not align; on the
// benchmark machine a fresh 2 MiB copy took 9 ms, 1 ms so). Elsewhere, and
// for smaller arrays, NumPy's own allocation.
py::array new_array(const py::dtype& dt, const std::vector<py::ssize_t>& shape) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    constexpr std::size_t huge_page = std::size_t(2) << 20;
    std::size_t bytes = static_cast<std::size_t>(dt.itemsize());
    for (const py::ssize_t n : shape) bytes *= static_cast<std::size_t>(n);
    void* p = nullptr;
    if (bytes >= huge_page && posix_memalign(&p, huge_page, bytes) == 0) {
        (void)madvise(p, bytes, MADV_HUGEPAGE);  // a hint: refused, the pages are small
        const py::capsule owner(p, [](void* q) { std::free(q); });
        return py::array(dt, shape, c_strides(shape, dt.itemsize()), p, owner);
    }
#endif
    return py::array(dt, shape);
}

// The NumPy dtype of a natural element type (FLOAT16's uint16 pattern is a
// float16).
py::dtype natural_dtype(const data_type_info& info) {
    if (info.type == static_cast<std::int32_t>(data_type::float16)) return numpy_dtype("float16");
    switch (info.natural) {
        case natural_type::f32: return py::dtype::of<float>();
        case natural_type::u8: return py::dtype::of<std::uint8_t>();
        case natural_type::i8: return py::dtype::of<std::int8_t>();
        case natural_type::u16: return py::dtype::of<std::uint16_t>();
        case natural_type::i16: return py::dtype::of<std::int16_t>();
        case natural_type::i32: return py::dtype::of<std::int32_t>();
        case natural_type::i64: return py::dtype::of<std::int64_t>();
        case natural_type::boolean: return py::dtype::of<bool>();
        case natural_type::f64: return py::dtype::of<double>();
        case natural_type::u32: return py::dtype::of<std::uint32_t>();
        case natural_type::u64: return py::dtype::of<std::uint64_t>();
        case natural_type::c64: return py::dtype::of<std::complex<float>>();
        case natural_type::c128: return py::dtype::of<std::complex<double>>();
        case natural_type::string_view: break;
    }
    return numpy_dtype("O");
}

// Narrow floats other than FLOAT16 have no NumPy type: decoded to float32.
bool decodes_to_float32(const data_type_info& info) {
    return info.kind == element_kind::narrow_float && info.type != static_cast<std::int32_t>(data_type::float16);
}

template <class T>
py::array natural_array(const tensor_data& d, const std::vector<py::ssize_t>& shape, const source_ptr& src) {
    const py::dtype dt = natural_dtype(d.info());
    const auto view = d.as_span<T>();
    if (view.ok() && view->size() != 0)
        return read_only(py::array(dt, shape, c_strides(shape, dt.itemsize()), view->data(), keeper(src)));
    py::array out = new_array(dt, shape);
    T* const into = static_cast<T*>(out.mutable_data());
    const std::size_t n = static_cast<std::size_t>(out.size());
    error copied;
    {
        // The copy touches no Python object, nor the external-data resolver
        // (make() fetched the bytes): other threads may run meanwhile.
        py::gil_scoped_release unlocked;
        copied = d.copy_to(into, n).err();
    }
    check(copied, src);
    return read_only(out);
}

py::array float32_array(const tensor_data& d, const std::vector<py::ssize_t>& shape, const source_ptr& src) {
    py::array out = new_array(py::dtype::of<float>(), shape);
    float* const into = static_cast<float*>(out.mutable_data());
    const std::size_t n = static_cast<std::size_t>(out.size());
    error copied;
    {
        py::gil_scoped_release unlocked;  // as in natural_array
        copied = d.copy_as(into, n).err();
    }
    check(copied, src);
    return read_only(out);
}

py::array string_array(const tensor_data& d, const std::vector<py::ssize_t>& shape, const source_ptr& src) {
    py::list items;
    const auto strings = d.elements<std::string_view>();
    for (std::string_view s : strings) items.append(to_bytes(s));
    check(strings.err(), src);
    py::module_ np = py::module_::import("numpy");
    py::array flat = np.attr("array")(items, py::arg("dtype") = "O");
    if (static_cast<std::uint64_t>(flat.size()) != d.size())
        raise_error(error(errc::payload_size_mismatch, d.describe().offset), src.get());
    return read_only(flat.attr("reshape")(py::tuple(py::cast(shape))));
}

py::array values_array(const tensor_data& d, const std::vector<py::ssize_t>& shape, const source_ptr& src) {
    const data_type_info& info = d.info();
    if (decodes_to_float32(info)) return float32_array(d, shape, src);
    switch (info.natural) {
        case natural_type::f32: return natural_array<float>(d, shape, src);
        case natural_type::u8: return natural_array<std::uint8_t>(d, shape, src);
        case natural_type::i8: return natural_array<std::int8_t>(d, shape, src);
        case natural_type::u16: return natural_array<std::uint16_t>(d, shape, src);
        case natural_type::i16: return natural_array<std::int16_t>(d, shape, src);
        case natural_type::i32: return natural_array<std::int32_t>(d, shape, src);
        case natural_type::i64: return natural_array<std::int64_t>(d, shape, src);
        case natural_type::boolean: return natural_array<bool>(d, shape, src);
        case natural_type::f64: return natural_array<double>(d, shape, src);
        case natural_type::u32: return natural_array<std::uint32_t>(d, shape, src);
        case natural_type::u64: return natural_array<std::uint64_t>(d, shape, src);
        case natural_type::c64: return natural_array<std::complex<float>>(d, shape, src);
        case natural_type::c128: return natural_array<std::complex<double>>(d, shape, src);
        case natural_type::string_view: break;
    }
    return string_array(d, shape, src);
}

// Through model_file::tensor for models: it turns read-ahead back on for the
// tensor's bytes, which open()'s metadata advice left at random access (one
// 4 KiB read per cold page fault otherwise).
tensor_data open_data(const tensor_view& t, const source_ptr& src) {
    auto d = src->is_model ? src->model.tensor(t) : tensor_data::make(t);
    check(d.err(), src, t.name().empty() ? std::string_view("tensor") : t.name());
    return d.value();
}

// The payload in raw_data layout, for typed storage: each element's bit
// pattern stored little-endian, sub-byte elements packed low bits first.
py::array typed_as_raw(const tensor_data& d, const source_ptr& src) {
    const data_type_info& info = d.info();
    py::array_t<std::uint8_t> out(static_cast<py::ssize_t>(d.describe().byte_size));
    std::uint8_t* p = out.mutable_data();
    std::memset(p, 0, static_cast<std::size_t>(out.size()));
    element_cursor c(d);
    std::uint64_t lo, hi, k = 0;
    const unsigned part = info.part_bits() / 8u;
    while (c.next(lo, hi)) {
        if (info.sub_byte()) {
            const unsigned per = info.elements_per_entry;
            p[k / per] |= static_cast<std::uint8_t>(lo << ((k % per) * info.bits));
        } else {
            for (unsigned b = 0; b < part; ++b) p[k * part * info.entries_per_element + b] = static_cast<std::uint8_t>(lo >> (8 * b));
            for (unsigned b = 0; b < part && info.kind == element_kind::complex; ++b)
                p[k * 2 * part + part + b] = static_cast<std::uint8_t>(hi >> (8 * b));
        }
        ++k;
    }
    if (k != d.size()) raise_error(error(errc::payload_size_mismatch, d.describe().offset), src.get());
    return read_only(out);
}

std::uint64_t row_elements(const std::vector<py::ssize_t>& shape) {
    std::uint64_t n = 1;
    for (std::size_t i = 1; i < shape.size(); ++i) n *= static_cast<std::uint64_t>(shape[i]);
    return n;
}

}  // namespace

py::object decoded_dtype(std::int32_t type) {
    const data_type_info* info = find_data_type_info(type);
    if (info == nullptr) return py::none();
    if (decodes_to_float32(*info)) return py::dtype::of<float>();
    return natural_dtype(*info);
}

std::vector<py::ssize_t> tensor_shape(const tensor_view& t, const source_ptr& src) {
    check(t.err(), src);
    std::vector<py::ssize_t> shape;
    const auto dims = t.dims();
    for (std::int64_t dim : dims) shape.push_back(static_cast<py::ssize_t>(dim));
    check(dims.err(), src);
    return shape;
}

py::array tensor_array(const tensor_view& t, const source_ptr& src) {
    const tensor_data d = open_data(t, src);  // checks the dims too
    return values_array(d, tensor_shape(t, src), src);
}

py::tuple tensor_raw(const tensor_view& t, const source_ptr& src) {
    const tensor_data d = open_data(t, src);
    const char* name = d.info().name;
    if (d.info().kind == element_kind::string)
        raise_error(error(errc::bad_data_type, d.describe().offset), src.get(), "STRING tensors have no raw bytes");
    if (d.storage() == storage_kind::typed) return py::make_tuple(typed_as_raw(d, src), name);
    const std::string_view bytes = d.bytes();
    if (bytes.empty()) return py::make_tuple(read_only(py::array_t<std::uint8_t>(0)), name);
    const std::vector<py::ssize_t> shape{static_cast<py::ssize_t>(bytes.size())};
    py::array a(py::dtype::of<std::uint8_t>(), shape, c_strides(shape, 1), bytes.data(), keeper(src));
    return py::make_tuple(read_only(a), name);
}

py::array tensor_rows(const tensor_view& t, const source_ptr& src, std::uint64_t start, std::uint64_t stop) {
    const tensor_data d = open_data(t, src);
    std::vector<py::ssize_t> shape = tensor_shape(t, src);
    const data_type_info& info = d.info();
    const bool in_bytes = d.storage() == storage_kind::raw || d.storage() == storage_kind::external;
    if (shape.empty() || !in_bytes || info.element_bytes() == 0) {
        // Typed fields, sub-byte types and strings have no per-row byte range.
        py::array whole = values_array(d, shape, src);
        return whole[py::slice(static_cast<py::ssize_t>(start), static_cast<py::ssize_t>(stop), 1)];
    }
    const std::uint64_t per_row = row_elements(shape);
    const std::size_t elem = info.element_bytes();
    const char* first = d.bytes().data() + start * per_row * elem;
    const std::uint64_t count = (stop - start) * per_row;
    shape[0] = static_cast<py::ssize_t>(stop - start);

    if (decodes_to_float32(info)) {
        py::array_t<float> out(shape);
        float* o = out.mutable_data();
        for (std::uint64_t i = 0; i < count; ++i) {
            std::uint32_t bits = 0;
            for (std::size_t b = 0; b < elem; ++b)
                bits |= static_cast<std::uint32_t>(static_cast<unsigned char>(first[i * elem + b])) << (8 * b);
            narrow_float_to_float(info.type, bits, o[i]);
        }
        return read_only(out);
    }
    const py::dtype dt = natural_dtype(info);
    if (info.kind == element_kind::boolean) {
        py::array_t<bool> out(shape);
        for (std::uint64_t i = 0; i < count; ++i) out.mutable_data()[i] = first[i] != 0;
        return read_only(out);
    }
    const bool aligned = reinterpret_cast<std::uintptr_t>(first) % static_cast<std::size_t>(dt.itemsize() > 8 ? 8 : dt.itemsize()) == 0;
    if (host_is_little_endian && aligned && count != 0)
        return read_only(py::array(dt, shape, c_strides(shape, dt.itemsize()), first, keeper(src)));
    py::array out = new_array(dt, shape);
    if (count != 0) std::memcpy(out.mutable_data(), first, static_cast<std::size_t>(count * elem));
    if (!host_is_little_endian && elem > 1) out = out.attr("byteswap")(true);  // raw_data is little-endian
    return read_only(out);
}

py::array sparse_dense_array(const sparse_tensor_view& s, const source_ptr& src) {
    auto sd = src->is_model ? src->model.sparse_tensor(s) : sparse_data::make(s);
    check(sd.err(), src, "sparse tensor");
    check(sd->validate_indices(), src, "sparse tensor");
    std::vector<py::ssize_t> shape;
    for (std::int64_t dim : sd->dims()) shape.push_back(static_cast<py::ssize_t>(dim));
    const py::array values = values_array(sd->values(), {static_cast<py::ssize_t>(sd->nnz())}, src);
    py::array_t<std::int64_t> where(static_cast<py::ssize_t>(sd->nnz()));
    for (std::uint64_t k = 0; k < sd->nnz(); ++k) {
        auto at = sd->linear_index(k);
        check(at.err(), src, "sparse tensor");
        where.mutable_data()[k] = static_cast<std::int64_t>(at.value());
    }
    py::module_ np = py::module_::import("numpy");
    py::array dense = np.attr("zeros")(sd->dense_size(), values.dtype());
    dense[where] = values;
    return read_only(dense.attr("reshape")(py::tuple(py::cast(shape))));
}

void register_arrays(py::module_& m) {
    m.def("dtype_of", &decoded_dtype, py::arg("data_type"),
          "The NumPy dtype get_tensor returns for an ONNX DataType number (None for unknown numbers):\n"
          "BFLOAT16, the FLOAT8 types, FLOAT8E8M0 and FLOAT4E2M1 decode to float32; INT4/INT2 to\n"
          "int8 and UINT4/UINT2 to uint8 (one value per element); STRING to object (bytes).");
}

}  // namespace onnxview_py
