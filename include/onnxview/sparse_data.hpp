// onnxview/sparse_data.hpp - the elements of a SparseTensorProto: values,
// and indices in either layout ([NNZ, rank] coordinates or [NNZ] linear).
#ifndef ONNXVIEW_SPARSE_DATA_HPP
#define ONNXVIEW_SPARSE_DATA_HPP

#include "onnxview/tensor_data.hpp"

namespace onnxview {

// ---------------------------------------------------------------------------
// Sparse tensors (SparseTensorProto): `values` holds NNZ elements, `indices`
// (INT64) their positions in the dense tensor of shape `dims`, either as
// coordinate tuples (indices shape [NNZ, rank]) or as linearized row-major
// indices (shape [NNZ]).

enum class sparse_layout : std::uint8_t {
    coordinates,  // indices dims [NNZ, rank]
    linear,       // indices dims [NNZ]
};

// A validated sparse tensor. make() checks: values 1-D; indices INT64 with
// dims [NNZ] or [NNZ, rank] (rank = number of dense dims, at least 1) and
// NNZ equal to the values' length (else bad_dims / bad_data_type); dense
// dims non-negative with a product that fits (bad_dims). The index values
// themselves are checked per access (linear_index, coordinates) or all at
// once by validate_indices(). Valid while the model bytes are.
class sparse_data {
public:
    sparse_data() noexcept = default;
    static result<sparse_data> make(const sparse_tensor_view& s,
                                    const external_payload_source* ext = nullptr) noexcept;

    const tensor_data& values() const noexcept { return values_; }
    const tensor_data& indices() const noexcept { return indices_; }
    std::uint64_t nnz() const noexcept { return values_.size(); }
    std::uint32_t rank() const noexcept { return rank_; }
    sparse_layout layout() const noexcept { return layout_; }
    // Elements of the dense tensor (product of dims).
    std::uint64_t dense_size() const noexcept { return dense_size_; }
    const wire::repeated<wire::elem_int64>& dims() const noexcept { return dims_; }

    // Row-major linear position of non-zero k in the dense tensor. O(rank)
    // for raw/external indices, O(k x rank) for typed ones. Errors:
    // not_found (k >= NNZ), bad_dims (an index or coordinate out of range).
    result<std::uint64_t> linear_index(std::uint64_t k) const noexcept;
    // Coordinates of non-zero k, out[0..rank). Errors as linear_index, and
    // buffer_too_small when capacity < rank.
    error coordinates(std::uint64_t k, std::int64_t* out, std::size_t capacity) const noexcept;
    // Checks every index: in range, and strictly ascending in row-major order
    // (sorted, no duplicates, as the spec requires). Linear in NNZ x rank.
    // Error: bad_dims with the offset of the indices tensor.
    error validate_indices() const noexcept;

private:
    tensor_data values_;
    tensor_data indices_;
    wire::repeated<wire::elem_int64> dims_;
    std::uint64_t dense_size_ = 0;
    std::uint32_t rank_ = 0;
    sparse_layout layout_ = sparse_layout::linear;
};

}  // namespace onnxview

#endif  // ONNXVIEW_SPARSE_DATA_HPP
