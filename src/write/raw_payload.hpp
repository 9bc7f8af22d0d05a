// Internal: a tensor's payload in raw_data layout (little-endian elements,
// sub-byte elements packed low bits first, complex as real then imaginary),
// produced in chunks from any storage: raw and external payloads as they
// are, FLOAT/DOUBLE/COMPLEX typed fields block by block, the other typed
// fields through a small buffer. Nothing the size of the payload is held.
#ifndef ONNXVIEW_SRC_WRITE_RAW_PAYLOAD_HPP
#define ONNXVIEW_SRC_WRITE_RAW_PAYLOAD_HPP

#include <cstddef>

#include "onnxview/tensor_data.hpp"

namespace onnxview {
namespace detail {

// Calls chunk(user, data, size) for consecutive pieces of d's payload in
// raw_data layout, byte_size bytes in all; stops at the first error chunk
// returns. Errors: bad_data_type for STRING, payload_size_mismatch when the
// typed field holds fewer entries than validated.
error for_each_raw_chunk(const tensor_data& d, error (*chunk)(void* user, const char* data, std::size_t size),
                         void* user) noexcept;

}  // namespace detail
}  // namespace onnxview

#endif  // ONNXVIEW_SRC_WRITE_RAW_PAYLOAD_HPP
