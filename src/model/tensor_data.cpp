// Tensor payloads: validation, location and the non-template accessors.
// The rules (and why they are stricter than onnx.checker) are listed at the
// top of include/onnxview/tensor_storage.hpp.
#include "onnxview/decimal.hpp"
#include "onnxview/sparse_data.hpp"
#include "onnxview/tensor_data.hpp"

namespace onnxview {

const char* storage_kind_name(storage_kind k) noexcept {
    switch (k) {
        case storage_kind::raw: return "raw";
        case storage_kind::typed: return "typed";
        case storage_kind::external: return "external";
        case storage_kind::none: break;
    }
    return "none";
}

result<std::uint64_t> element_count(const wire::repeated<wire::elem_int64>& dims) noexcept {
    const std::uint64_t at = dims.msg().offset_of(dims.msg().begin());
    std::uint64_t n = 1;
    bool zero = false, overflow = false;
    for (std::int64_t d : dims) {
        if (d < 0) return error(errc::bad_dims, at);
        const auto u = static_cast<std::uint64_t>(d);
        if (u == 0) {
            zero = true;
        } else if (n > ~std::uint64_t(0) / u) {
            overflow = true;  // unless a later (or earlier) dim is 0
        } else {
            n *= u;
        }
    }
    if (dims.err()) return dims.err();
    if (zero) return std::uint64_t(0);
    if (overflow) return error(errc::bad_dims, at);
    return n;
}

result<std::uint64_t> payload_bytes(const data_type_info& info, std::uint64_t count) noexcept {
    if (info.kind == element_kind::string || info.bits == 0) return error(errc::bad_data_type);
    if (info.sub_byte()) {
        const std::uint64_t per = info.elements_per_entry;
        return count / per + (count % per != 0 ? 1 : 0);
    }
    const std::uint64_t eb = info.element_bytes();
    if (count > ~std::uint64_t(0) / eb) return error(errc::bad_dims);
    return count * eb;
}

result<std::uint64_t> required_typed_entries(const data_type_info& info, std::uint64_t count) noexcept {
    if (info.sub_byte()) return payload_bytes(info, count);  // one packed byte per int32 entry
    const std::uint64_t per = info.entries_per_element;
    if (per != 0 && count > ~std::uint64_t(0) / per) return error(errc::bad_dims);
    return count * per;
}

namespace detail {

double scalar_to_double(const data_type_info& info, std::uint64_t bits) noexcept {
    switch (info.kind) {
        case element_kind::ieee_float:
        case element_kind::complex:
            if (info.part_bits() == 32) return wire::bits_to_float(static_cast<std::uint32_t>(bits));
            return wire::bits_to_double(bits);
        case element_kind::unsigned_int: return static_cast<double>(bits);
        case element_kind::signed_int: return static_cast<double>(sign_extend(bits, info.bits));
        case element_kind::boolean: return bits != 0 ? 1.0 : 0.0;
        case element_kind::narrow_float: {
            float f = 0;
            narrow_float_to_float(info.type, static_cast<std::uint32_t>(bits), f);
            return f;
        }
        case element_kind::string: break;
    }
    return 0.0;
}

}  // namespace detail

namespace {

std::uint64_t tensor_offset(const tensor_view& t) noexcept {
    const wire::message& m = t.wire_message();
    return m.offset_of(m.begin());
}

template <class Repeated>
result<std::uint64_t> count_entries(const Repeated& r, wire::message* scope) noexcept {
    if (r.number() == 0) return std::uint64_t(0);  // field absent
    if (scope) *scope = r.msg();
    return r.count();
}

// Entries of typed field f in t; `scope` receives the region holding it.
result<std::uint64_t> count_typed_entries(const tensor_view& t, typed_field f, wire::message* scope) noexcept {
    switch (f) {
        case typed_field::float_data: return count_entries(t.float_data(), scope);
        case typed_field::int32_data: return count_entries(t.int32_data(), scope);
        case typed_field::int64_data: return count_entries(t.int64_data(), scope);
        case typed_field::double_data: return count_entries(t.double_data(), scope);
        case typed_field::uint64_data: return count_entries(t.uint64_data(), scope);
        case typed_field::string_data: return static_cast<std::uint64_t>(t.string_data().size());
        case typed_field::none: break;
    }
    return std::uint64_t(0);
}

}  // namespace

result<std::uint64_t> typed_entry_count(const tensor_view& t, typed_field f) noexcept {
    return count_typed_entries(t, f, nullptr);
}

external_location find_external_location(const tensor_view& t) noexcept {
    external_location where;
    for (const string_entry_view& kv : t.external_data()) {
        if (kv.key() == "location") {
            where.has_location = true;
            where.location = kv.value();
        } else if (kv.key() == "offset") {
            const result<std::uint64_t> off = parse_decimal(kv.value());
            if (off) where.offset = *off;
        }
    }
    return where;
}

// The one place where every payload rule is checked. `fetch` false: do not
// call the external source (describe_storage).
struct tensor_data_builder {
    static result<tensor_data> build(const tensor_view& t, const external_payload_source* ext,
                                     bool fetch) noexcept {
        if (!t.ok()) return t.err();
        const std::uint64_t toff = tensor_offset(t);
        const data_type_info* info = find_data_type_info(t.data_type());
        if (info == nullptr) return error(errc::bad_data_type, toff);
        auto count = element_count(t.dims());
        if (!count) return count.err();
        const std::uint64_t n = *count;
        const bool is_string = info->kind == element_kind::string;

        tensor_data d;
        d.info_ = info;
        d.storage_.data_type = info->type;
        d.storage_.field = info->field;
        d.storage_.element_count = n;
        d.storage_.offset = toff;
        if (!is_string) {
            auto bytes = payload_bytes(*info, n);
            if (!bytes) return error(bytes.err().code, toff);
            d.storage_.byte_size = *bytes;
        } else if (n > 0xFFFFFFFFu) {
            return error(errc::payload_size_mismatch, toff);  // more strings than a field can hold
        }

        // Entries in every typed field: the own one and the foreign ones.
        std::uint64_t own = 0;
        bool foreign = false;
        wire::message own_scope;
        for (typed_field f : all_typed_fields) {
            auto e = count_typed_entries(t, f, f == info->field ? &own_scope : nullptr);
            if (!e) return e.err();
            if (f == info->field)
                own = *e;
            else if (*e != 0)
                foreign = true;
        }

        if (t.data_location() == location_kind::external) {
            // Only tensors that would use raw_data can be external; nothing inline.
            if (is_string) return error(errc::bad_data_type, toff);
            if (t.has_raw_data() || foreign || own != 0) return error(errc::payload_size_mismatch, toff);
            d.storage_.kind = storage_kind::external;
            const external_location where = find_external_location(t);
            d.storage_.location = where.location;
            d.storage_.offset = where.offset;
            d.storage_.alignment = detail::alignment_of(d.storage_.offset);
            if (!fetch) return d;
            if (ext == nullptr || ext->fetch == nullptr) return error(errc::invalid_argument, toff);
            auto bytes = ext->fetch(ext->user, t, d.storage_.byte_size);
            if (!bytes) return bytes.err();
            if (bytes->size() != d.storage_.byte_size) return error(errc::payload_size_mismatch, toff);
            d.bytes_ = *bytes;
            return d;
        }

        if (t.has_raw_data()) {
            if (is_string) return error(errc::bad_data_type, toff);
            const std::string_view raw = t.raw_data();
            const std::uint64_t roff = t.wire_message().offset_of(raw.data());
            if (foreign || own != 0) return error(errc::payload_size_mismatch, roff);
            if (raw.size() != d.storage_.byte_size) return error(errc::payload_size_mismatch, roff);
            d.storage_.kind = storage_kind::raw;
            d.storage_.offset = roff;
            d.storage_.alignment = detail::alignment_of(reinterpret_cast<std::uintptr_t>(raw.data()));
            d.bytes_ = raw;
            return d;
        }

        if (foreign) return error(errc::bad_data_type, toff);
        auto required = required_typed_entries(*info, n);  // cannot overflow: byte_size did not
        if (!required) return error(required.err().code, toff);
        const std::uint64_t expected = *required;
        if (is_string) d.strings_ = t.string_data();
        if (own == 0 && n == 0) return d;  // storage none
        const std::uint64_t foff = own_scope.offset_of(own_scope.begin());
        if (own != expected) return error(errc::payload_size_mismatch, own == 0 ? toff : foff);
        d.storage_.kind = storage_kind::typed;
        d.storage_.entry_count = own;
        d.storage_.offset = is_string ? toff : foff;
        d.typed_scope_ = own_scope;
        d.typed_number_ = static_cast<std::uint32_t>(info->field);
        return d;
    }
};

result<tensor_data> tensor_data::make(const tensor_view& t, const external_payload_source* ext) noexcept {
    return tensor_data_builder::build(t, ext, true);
}

result<storage_info> describe_storage(const tensor_view& t) noexcept {
    auto d = tensor_data_builder::build(t, nullptr, false);
    if (!d) return d.err();
    return d->describe();
}

bool tensor_data::bit_pattern_at(std::uint64_t k, std::uint64_t& lo, std::uint64_t& hi) const noexcept {
    if (info_ == nullptr || k >= size()) return false;
    if (storage_.kind == storage_kind::raw || storage_.kind == storage_kind::external) {
        hi = 0;
        if (info_->sub_byte()) {
            const unsigned per = info_->elements_per_entry;
            const auto byte = static_cast<unsigned char>(bytes_[static_cast<std::size_t>(k / per)]);
            lo = (byte >> ((k % per) * info_->bits)) & ((1u << info_->bits) - 1u);
            return true;
        }
        const unsigned pb = info_->part_bits() / 8;
        const char* p = bytes_.data() + static_cast<std::size_t>(k) * info_->element_bytes();
        lo = detail::load_le(p, pb);
        if (info_->kind == element_kind::complex) hi = detail::load_le(p + pb, pb);
        return true;
    }
    element_cursor c(*this);
    for (;;) {
        if (!c.next(lo, hi)) return false;
        if (k-- == 0) return true;
    }
}

const char* tensor_data::contiguous_payload() const noexcept {
    if (storage_.kind == storage_kind::raw || storage_.kind == storage_kind::external) return bytes_.data();
    if (storage_.kind != storage_kind::typed) return nullptr;
    const unsigned width = detail::entry_width(info_->field);
    if (width == 0) return nullptr;  // varints: no array to view
    // float_data / double_data written as one packed chunk is a little-endian array.
    const char* found = nullptr;
    wire::field f;
    auto c = typed_scope_.fields();
    while (c.next(f)) {
        if (f.number != typed_number_) continue;
        if (found != nullptr || f.type != wire::wire_type::length_delimited) return nullptr;
        if (f.raw != storage_.entry_count * width) return nullptr;
        found = f.payload;
    }
    return c.err() ? nullptr : found;
}

result<double> tensor_data::double_at(std::uint64_t k, double* imag) const noexcept {
    if (info_ == nullptr || info_->kind == element_kind::string) return error(errc::bad_data_type, storage_.offset);
    if (k >= size()) return error(errc::not_found, storage_.offset);
    std::uint64_t lo = 0, hi = 0;
    if (!bit_pattern_at(k, lo, hi)) return error(errc::payload_size_mismatch, storage_.offset);
    if (imag) *imag = info_->kind == element_kind::complex ? detail::scalar_to_double(*info_, hi) : 0.0;
    return detail::scalar_to_double(*info_, lo);
}

// ---------------------------------------------------------------------------
// Sparse tensors.

namespace {

// Reads `count` INT64 index values starting at element `start`.
class index_reader {
public:
    index_reader(const tensor_data& idx, std::uint64_t start) noexcept : idx_(idx), pos_(start) {
        if (idx.storage() == storage_kind::typed) {
            cursor_ = element_cursor(idx);
            std::uint64_t lo, hi;
            for (std::uint64_t i = 0; i < start; ++i)
                if (!cursor_.next(lo, hi)) break;
        }
    }
    bool next(std::int64_t& v) noexcept {
        std::uint64_t lo = 0, hi = 0;
        if (idx_.storage() == storage_kind::typed) {
            if (!cursor_.next(lo, hi)) return false;
        } else {
            auto r = idx_.at<std::int64_t>(pos_++);
            if (!r) return false;
            v = *r;
            return true;
        }
        v = static_cast<std::int64_t>(lo);
        return true;
    }

private:
    const tensor_data& idx_;
    element_cursor cursor_;
    std::uint64_t pos_;
};

}  // namespace

result<sparse_data> sparse_data::make(const sparse_tensor_view& s, const external_payload_source* ext) noexcept {
    if (!s.ok()) return s.err();
    sparse_data d;
    auto values = tensor_data::make(s.values(), ext);
    if (!values) return values.err();
    d.values_ = *values;
    const tensor_view vt = s.values();
    std::uint32_t vrank = 0;
    for (std::int64_t x : vt.dims()) {
        (void)x;
        ++vrank;
    }
    if (vrank != 1) return error(errc::bad_dims, vt.wire_message().offset_of(vt.wire_message().begin()));

    d.dims_ = s.dims();
    std::uint32_t rank = 0;
    for (std::int64_t x : d.dims_) {
        (void)x;
        ++rank;
    }
    const std::uint64_t soff = s.wire_message().offset_of(s.wire_message().begin());
    auto dense = element_count(d.dims_);
    if (!dense) return dense.err();
    if (rank == 0) return error(errc::bad_dims, soff);
    d.dense_size_ = *dense;
    d.rank_ = rank;

    const std::uint64_t nnz = d.values_.size();
    if (!s.has_indices()) {
        if (nnz != 0) return error(errc::bad_data_type, soff);
        d.layout_ = sparse_layout::linear;
        return d;
    }
    const tensor_view it = s.indices();
    const std::uint64_t ioff = it.wire_message().offset_of(it.wire_message().begin());
    if (it.data_type() != static_cast<std::int32_t>(data_type::int64)) return error(errc::bad_data_type, ioff);
    auto indices = tensor_data::make(it, ext);
    if (!indices) return indices.err();
    d.indices_ = *indices;
    std::int64_t idims[2] = {-1, -1};
    std::uint32_t irank = 0;
    for (std::int64_t x : it.dims()) {
        if (irank < 2) idims[irank] = x;
        ++irank;
    }
    if (irank == 1 && static_cast<std::uint64_t>(idims[0]) == nnz) {
        d.layout_ = sparse_layout::linear;
    } else if (irank == 2 && static_cast<std::uint64_t>(idims[0]) == nnz &&
               static_cast<std::uint64_t>(idims[1]) == rank) {
        d.layout_ = sparse_layout::coordinates;
    } else {
        return error(errc::bad_dims, ioff);
    }
    return d;
}

result<std::uint64_t> sparse_data::linear_index(std::uint64_t k) const noexcept {
    const std::uint64_t ioff = indices_.describe().offset;
    if (k >= nnz()) return error(errc::not_found, ioff);
    if (layout_ == sparse_layout::linear) {
        auto v = indices_.at<std::int64_t>(k);
        if (!v) return v.err();
        if (*v < 0 || static_cast<std::uint64_t>(*v) >= dense_size_) return error(errc::bad_dims, ioff);
        return static_cast<std::uint64_t>(*v);
    }
    index_reader r(indices_, k * rank_);
    std::uint64_t lin = 0;
    for (std::int64_t dim : dims_) {
        std::int64_t c;
        if (!r.next(c)) return error(errc::payload_size_mismatch, ioff);
        if (c < 0 || c >= dim) return error(errc::bad_dims, ioff);
        lin = lin * static_cast<std::uint64_t>(dim) + static_cast<std::uint64_t>(c);  // < dense_size_
    }
    return lin;
}

error sparse_data::coordinates(std::uint64_t k, std::int64_t* out, std::size_t capacity) const noexcept {
    const std::uint64_t ioff = indices_.describe().offset;
    if (k >= nnz()) return error(errc::not_found, ioff);
    if (capacity < rank_) return error(errc::buffer_too_small, ioff);
    if (layout_ == sparse_layout::coordinates) {
        index_reader r(indices_, k * rank_);
        std::size_t j = 0;
        for (std::int64_t dim : dims_) {
            std::int64_t c;
            if (!r.next(c)) return error(errc::payload_size_mismatch, ioff);
            if (c < 0 || c >= dim) return error(errc::bad_dims, ioff);
            out[j++] = c;
        }
        return error();
    }
    auto lin = linear_index(k);
    if (!lin) return lin.err();
    // Row-major strides, from the outermost dim inwards (every dim > 0 here,
    // since the index is below dense_size_).
    std::uint64_t stride = dense_size_;
    std::size_t j = 0;
    for (std::int64_t dim : dims_) {
        const auto u = static_cast<std::uint64_t>(dim);
        stride /= u;
        out[j++] = static_cast<std::int64_t>((*lin / stride) % u);
    }
    return error();
}

error sparse_data::validate_indices() const noexcept {
    const std::uint64_t ioff = indices_.describe().offset;
    const std::uint64_t n = nnz();
    if (n == 0) return error();
    index_reader r(indices_, 0);
    bool first = true;
    std::uint64_t prev = 0;
    for (std::uint64_t k = 0; k < n; ++k) {
        std::uint64_t lin = 0;
        if (layout_ == sparse_layout::linear) {
            std::int64_t v;
            if (!r.next(v)) return error(errc::payload_size_mismatch, ioff);
            if (v < 0 || static_cast<std::uint64_t>(v) >= dense_size_) return error(errc::bad_dims, ioff);
            lin = static_cast<std::uint64_t>(v);
        } else {
            for (std::int64_t dim : dims_) {
                std::int64_t c;
                if (!r.next(c)) return error(errc::payload_size_mismatch, ioff);
                if (c < 0 || c >= dim) return error(errc::bad_dims, ioff);
                lin = lin * static_cast<std::uint64_t>(dim) + static_cast<std::uint64_t>(c);
            }
        }
        if (!first && lin <= prev) return error(errc::bad_dims, ioff);
        prev = lin;
        first = false;
    }
    return error();
}

}  // namespace onnxview
