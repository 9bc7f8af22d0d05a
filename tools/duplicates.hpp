// tools/duplicates.hpp - tensors a model stores more than once: the same
// data type, dims and values under different names (tied weights exported
// twice, a Constant repeating an initializer). `onnxview doctor
// --duplicates` reports them with the bytes the extra copies take. Unlike
// the rest of doctor it reads payloads, so it runs only when asked.
#ifndef ONNXVIEW_TOOLS_DUPLICATES_HPP
#define ONNXVIEW_TOOLS_DUPLICATES_HPP

#include <cstdint>
#include <string>
#include <vector>

#include "tensor_census.hpp"

namespace onnxview_cli {

// One set of identical tensors, in census order.
struct duplicate_group {
    std::string data_type;         // "FLOAT", ...
    std::vector<std::int64_t> dims;
    std::uint64_t bytes = 0;       // of one copy (raw_data layout)
    std::vector<std::string> tensors;  // how a person finds each: 'w', Constant 'c', ...
    // Distinct payload ranges among them: tensors that already share one
    // range of a file (onnxview pack --dedupe) waste nothing.
    std::uint64_t stored = 0;
    std::uint64_t wasted() const { return bytes * (stored - 1); }
};

struct duplicate_report {
    std::vector<duplicate_group> groups;  // most wasted bytes first
    std::uint64_t redundant_copies = 0;   // stored payloads beyond the first of each group
    std::uint64_t wasted_bytes = 0;
    std::uint64_t bytes_read = 0;         // payload bytes hashed or compared
    std::uint64_t unreadable = 0;         // candidates whose payload could not be read (not compared)
};

// Compares the payloads of census tensors that share data type and dims
// (only those are read): a 64-bit content hash of each, then an exact
// comparison of those whose hashes agree. Values are compared in raw_data
// layout, so a tensor stored in float_data and one in raw_data or external
// data with the same values are duplicates. STRING and empty tensors are
// not compared. External payloads come through a resolver for
// `model_path`'s directory, with its safety checks.
duplicate_report find_duplicates(const tensor_census& census, const char* model_path);

}  // namespace onnxview_cli

#endif  // ONNXVIEW_TOOLS_DUPLICATES_HPP
