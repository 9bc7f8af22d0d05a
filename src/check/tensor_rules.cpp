// tensor_rules.cpp - tensors, external data and sparse tensors.
//
// Every fact about a tensor's payload (element count, payload bytes, the
// typed field of a type, the entries it must hold, the external location,
// the values themselves) comes from tensor_data.hpp and data_types.hpp, so
// the checker and the element-access layer cannot disagree; what is here is
// only which finding to report, in onnx.checker's order.
#include <utility>

#include "checker.hpp"
#include "onnxview/data_types.hpp"
#include "onnxview/enums.hpp"
#include "onnxview/external_source.hpp"
#include "onnxview/tensor_data.hpp"

namespace onnxview {
namespace check_detail {
namespace {

// The finding for a tensor the element-access layer refuses after the
// checker's own rules passed. verify() ran first, so wire errors cannot
// happen here; were one to, it is a wire-format problem.
finding_code refused_payload_code(errc code) noexcept {
    switch (code) {
        case errc::payload_size_mismatch: return finding_code::payload_size_mismatch;
        case errc::bad_data_type: return finding_code::bad_data_type;
        case errc::bad_dims: return finding_code::bad_dims;
        default: return finding_code::wire_format;
    }
}

}  // namespace

void checker::check_tensor(const tensor_view& t) {
    const std::uint64_t before = result_.errors;
    check_tensor_rules(t);
    if (result_.errors != before || stopped_) return;
    // The element-access layer's rules (tensor_data.hpp) are the ones every
    // reader of the values applies; a tensor they refuse cannot be read.
    // describe_storage() does not fetch external bytes, so EXTERNAL tensors
    // get the same verdict (a STRING tensor cannot be stored externally).
    auto s = describe_storage(t);
    if (!s)
        error(refused_payload_code(s.err().code),
              "tensor " + quoted(t.name()) + ": " + errc_message(s.err().code) + " (byte " +
                  num(s.err().offset) + ")",
              offset_of(t));
}

void checker::check_tensor_rules(const tensor_view& t) {
    const std::uint64_t off = offset_of(t);
    const text name = quoted(t.name());
    if (!t.has_data_type()) {
        error(finding_code::missing_data_type, "tensor " + name + " has no data_type", off);
        return;
    }
    const std::int32_t dt = t.data_type();
    if (dt == 0) {
        error(finding_code::undefined_data_type, "tensor " + name + " has data_type UNDEFINED", off);
        return;
    }
    const data_type_info* info = find_data_type_info(dt);
    if (info == nullptr) {
        error(finding_code::unknown_data_type, "tensor " + name + " has unknown data_type " + num(dt), off);
        return;
    }
    // Element count and payload bytes, with tensor_data's rules (a zero
    // dimension wins over an overflowing product).
    std::uint64_t n = 0;
    std::uint64_t expected_bytes = unknown_size;  // STRING: no raw size
    bool dims_ok = true;
    if (const auto count = element_count(t.dims()); !count) {
        dims_ok = false;
        bool negative = false;
        for (std::int64_t d : t.dims()) {
            if (d >= 0) continue;
            error(finding_code::negative_dim, "tensor " + name + " has a negative dimension " + num(d), off);
            negative = true;
            break;
        }
        if (!negative) error(finding_code::dims_overflow, "tensor " + name + " has more than 2^64 elements", off);
    } else {
        n = *count;
        if (info->kind != element_kind::string) {
            if (const auto bytes = payload_bytes(*info, n)) {
                expected_bytes = *bytes;
            } else {
                error(finding_code::dims_overflow, "tensor " + name + " holds more than 2^64 bytes", off);
                dims_ok = false;
            }
        }
    }

    // onnx counts a value field only when it is non-empty (an empty raw_data
    // is how proto3 writers and numpy_helper store a 0-element tensor).
    const bool has_raw = !t.raw_data().empty();
    int fields = has_raw ? 1 : 0;
    typed_field typed = typed_field::none;
    std::uint64_t typed_count = 0;
    for (typed_field f : all_typed_fields) {
        const auto entries = typed_entry_count(t, f);
        if (!entries || *entries == 0) continue;
        ++fields;
        typed = f;
        typed_count = *entries;
    }

    if (t.data_location() == location_kind::external) {
        if (fields != 0)
            error(finding_code::external_with_data, "tensor " + name + " is stored externally but also holds data",
                  off);
        check_external(t, dims_ok ? expected_bytes : unknown_size);
        return;
    }
    if (!t.external_data().empty())
        warning(finding_code::external_data_ignored,
                "tensor " + name + " has external_data entries but data_location is not EXTERNAL", off);
    if (!dims_ok) return;
    if (n == 0) {
        if (fields != 0) error(finding_code::empty_with_data, "tensor " + name + " has 0 elements but holds data", off);
        return;
    }
    if (fields != 1) {
        error(finding_code::value_field_count,
              "tensor " + name + " must hold exactly one value field, it holds " + num(fields), off);
        return;
    }
    if (has_raw) {
        if (info->kind == element_kind::string) {
            error(finding_code::string_in_raw_data, "STRING tensor " + name + " cannot be stored in raw_data", off);
            return;
        }
        if (t.raw_data().size() != expected_bytes)
            error(finding_code::payload_size_mismatch,
                  "tensor " + name + " has raw_data of " + num(t.raw_data().size()) + " bytes, but dims x " +
                      info->name + " need " + num(expected_bytes),
                  off);
        return;
    }
    if (typed != info->field) {
        error(finding_code::wrong_value_field,
              str("values of ") + info->name + " tensor " + name + " must be in " +
                  typed_field_name(info->field) + ", not " + typed_field_name(typed),
              off);
        return;
    }
    const auto required = required_typed_entries(*info, n);
    if (!required) return;  // cannot happen: the payload bytes did not overflow
    if (typed_count != *required)
        error(finding_code::payload_size_mismatch,
              "tensor " + name + " has " + num(typed_count) + " " + typed_field_name(typed) +
                  " values, but dims give " + num(*required),
              off);
}

void checker::check_external(const tensor_view& t, std::uint64_t expected) {
    const std::uint64_t off = offset_of(t);
    if (!find_external_location(t).has_location) {
        error(finding_code::external_no_location,
              "tensor " + quoted(t.name()) + " is stored externally without a location", off);
        return;
    }
    if (!resolver_tried_) {
        resolver_tried_ = true;
        if (external_configured()) {
            auto r = external_data_resolver::create(opt_);
            if (r) {
                resolver_ = std::move(r.value());
                have_resolver_ = true;
            } else {
                error(finding_code::external_base,
                      str("cannot open the directory of external data: ") + errc_message(r.err().code));
            }
        }
    }
    if (!have_resolver_) {
        if (!external_warned_ && !external_configured()) {
            external_warned_ = true;
            warning(finding_code::external_not_checked, "external data was not checked (no model path given)", off);
        }
        return;
    }
    list<external_entry> entries(mem_);
    for (const string_entry_view& e : t.external_data()) entries.push_back(external_entry{e.key(), e.value()});
    auto span = resolver_.resolve(entries.data(), entries.size(), expected);
    if (!span) {
        char why[512];
        text msg = str(describe_external_error(span.err(), t, why, sizeof why));
        msg += " [";
        msg += errc_name(span.err().code);
        msg += "]";
        error(finding_code::external_data, msg, off);
    }
}

void checker::check_sparse(const sparse_tensor_view& s) {
    const std::uint64_t off = offset_of(s);
    if (!s.has_values()) {
        error(finding_code::sparse_no_values, "sparse tensor has no values", off);
        return;
    }
    const tensor_view values = s.values();
    const text name = quoted(values.name());
    {
        path_guard p(*this, schema::msg_SparseTensorProto, sparse_tensor_view::field::values);
        check_tensor(values);
    }
    list<std::int64_t> vdims(values.dims().begin(), values.dims().end(), mem_);
    if (vdims.size() != 1) {
        error(finding_code::sparse_values_rank, "sparse tensor " + name + " values must have rank 1", off);
        return;
    }
    const std::int64_t nnz = vdims[0];
    list<std::int64_t> dims(s.dims().begin(), s.dims().end(), mem_);
    if (dims.empty()) {
        error(finding_code::sparse_rank, "sparse tensor " + name + " must have a dense rank > 0", off);
        return;
    }
    for (std::int64_t d : dims) {
        if (d <= 0) {
            error(finding_code::sparse_dims, "sparse tensor " + name + " has a dimension that is not positive", off);
            return;
        }
    }
    // Linear indices are INT64: the dense size must fit 63 bits.
    const auto dense = element_count(s.dims());
    if (!dense || *dense > static_cast<std::uint64_t>(INT64_MAX)) {
        error(finding_code::dims_overflow, "sparse tensor " + name + " has more than 2^63 elements", off);
        return;
    }
    if (!s.has_indices()) {
        if (nnz != 0)
            error(finding_code::sparse_no_indices, "sparse tensor " + name + " has values but no indices", off);
        return;
    }
    const tensor_view indices = s.indices();
    {
        path_guard p(*this, schema::msg_SparseTensorProto, sparse_tensor_view::field::indices);
        check_tensor(indices);
    }
    if (indices.data_type() != static_cast<std::int32_t>(data_type::int64)) {
        error(finding_code::sparse_indices_type, "sparse tensor " + name + " indices must be INT64", off);
        return;
    }
    if (indices.data_location() == location_kind::external) return;  // not read here
    list<std::int64_t> idims(indices.dims().begin(), indices.dims().end(), mem_);
    if (idims.size() != 1 && idims.size() != 2) {
        error(finding_code::sparse_indices_rank, "sparse tensor " + name + " indices must have rank 1 or 2", off);
        return;
    }
    if (idims[0] != nnz) {
        error(finding_code::sparse_indices_count,
              "sparse tensor " + name + " has " + num(idims[0]) + " indices but " + num(nnz) +
                  " values",
              off);
        return;
    }
    if (idims.size() == 2 && idims[1] != static_cast<std::int64_t>(dims.size())) {
        error(finding_code::sparse_indices_rank,
              "sparse tensor " + name + " indices second dimension " + num(idims[1]) +
                  " differs from the dense rank " + num(dims.size()),
              off);
        return;
    }
    // tensor_data reads the values; it refuses what check_tensor reported
    // above, and otherwise holds exactly nnz x rank of them (its dims).
    const auto data = tensor_data::make(indices);
    if (!data || nnz < 0) return;
    const element_range<std::int64_t> values_read = data->elements<std::int64_t>();
    auto next = values_read.begin();
    std::int64_t prev = -1;
    for (std::uint64_t i = 0; i < static_cast<std::uint64_t>(nnz); ++i) {
        std::int64_t linear = 0;
        if (idims.size() == 1) {
            if (next == values_read.end()) return;
            linear = *next;
            ++next;
            if (linear < 0 || static_cast<std::uint64_t>(linear) >= *dense) {
                error(finding_code::sparse_index_range,
                      "sparse tensor " + name + " index " + num(linear) + " at position " +
                          num(i) + " is out of range",
                      off);
                return;
            }
        } else {
            for (std::size_t j = 0; j < dims.size(); ++j) {
                if (next == values_read.end()) return;
                const std::int64_t v = *next;
                ++next;
                if (v < 0 || v >= dims[j]) {
                    error(finding_code::sparse_index_range,
                          "sparse tensor " + name + " index at position [" + num(i) + "," +
                              num(j) + "] is out of range",
                          off);
                    return;
                }
                linear = linear * dims[j] + v;
            }
        }
        if (linear <= prev) {
            error(finding_code::sparse_index_order,
                  "sparse tensor " + name + " index at position " + num(i) + " is not in increasing order",
                  off);
            return;
        }
        prev = linear;
    }
}

}  // namespace check_detail
}  // namespace onnxview
