// Internal: the weight-less proxy's source record (pack_options::reference,
// find_reference_source): the record written as a metadata_props entry.
#ifndef ONNXVIEW_SRC_WRITE_REFERENCE_HPP
#define ONNXVIEW_SRC_WRITE_REFERENCE_HPP

#include <cstdint>

#include "emitter.hpp"
#include "onnxview/write.hpp"

namespace onnxview {
namespace detail {

// Writes the ModelProto field metadata_props holding the entry
// reference_source_key = "size=N;mtime_ns=M;location=NAME" for r.
void emit_reference_record(emitter& out, const reference_source& r) noexcept;

// Whether field f of the ModelProto m is a metadata_props entry with key
// reference_source_key.
bool is_reference_record(const wire::message& m, const wire::field& f) noexcept;

}  // namespace detail
}  // namespace onnxview

#endif  // ONNXVIEW_SRC_WRITE_REFERENCE_HPP
