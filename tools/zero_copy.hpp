// tools/zero_copy.hpp - how ready a model's tensor payloads are to be used
// in place, for `onnxview doctor`: where each payload starts (alignment to
// its element size, 64 B, 4 KiB, 64 KiB) and whether tensor_data::as_span()
// hands it out without a copy on this host, grouped by the file holding it.
// External data problems (missing file, file too short, unsafe path) come
// from the same pass, as the resolver reports them.
#ifndef ONNXVIEW_TOOLS_ZERO_COPY_HPP
#define ONNXVIEW_TOOLS_ZERO_COPY_HPP

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tensor_census.hpp"

namespace onnxview_cli {

struct count_and_bytes {
    std::uint64_t tensors = 0;
    std::uint64_t bytes = 0;
    void add(std::uint64_t b) { ++tensors, bytes += b; }
};

// Payloads stored as bytes (raw_data in the model file, or one external file).
struct payload_group {
    count_and_bytes all;
    // Payloads whose offset in their file is a multiple of the element size
    // (1 for sub-byte types), of 64, 4096 and 65536.
    count_and_bytes aligned_element, aligned_64, aligned_4k, aligned_64k;
    count_and_bytes zero_copy;  // as_span() of the natural type succeeds
    count_and_bytes copied;     // it does not: the reader copies (copy_to, scalars)
    std::map<std::string, std::uint64_t> copy_reasons;  // why, with how many tensors
    // Copied for their alignment alone and at least pack_threshold bytes:
    // what `onnxview pack` aligns with its defaults.
    count_and_bytes packable;
    bool read_into_memory = false;  // external file under external_copy_below: read, not mapped
    std::int64_t file_size = -1;    // external: the file's size once opened
};

// Payloads in the typed fields (float_data, int32_data, ...).
struct typed_group {
    count_and_bytes all;
    count_and_bytes zero_copy;  // FLOAT/DOUBLE/COMPLEX stored as one packed chunk
    count_and_bytes copied;
    count_and_bytes packable;   // copied, at least pack_threshold bytes: pack makes them raw_data
};

// The payload size from which `onnxview pack` aligns and converts by default.
constexpr std::uint64_t pack_threshold = 1024;

// A problem with one external tensor, and the file it names.
struct external_problem {
    std::string location;
    std::string tensor;
    std::string kind;     // "missing", "too_short", "unsafe_path", "other"
    std::string message;  // describe_external_error's line
};

struct zero_copy_report {
    payload_group embedded;                       // raw_data inside the model file
    std::map<std::string, payload_group> external;  // by location
    typed_group typed;
    std::uint64_t empty = 0;      // tensors with no elements: nothing to view
    std::uint64_t strings = 0;    // STRING tensors: no array to view
    std::uint64_t unreadable = 0; // the payload did not validate (size, type)
    std::vector<external_problem> problems;
};

// Opens each tensor of `census` (external ones through a resolver for
// `model_path`'s directory) and classifies its payload.
zero_copy_report assess_payloads(const tensor_census& census, const char* model_path);

}  // namespace onnxview_cli

#endif  // ONNXVIEW_TOOLS_ZERO_COPY_HPP
