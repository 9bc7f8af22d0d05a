// onnxview/check.hpp - validate what a model means, beyond its wire format.
//
//   onnxview::check_options opts{};
//   opts.model_path = "net.onnx";               // external data resolves next to it
//   auto r = onnxview::check_model(bytes.data(), bytes.size(), opts,
//       [](void*, const onnxview::check_finding& f) {
//           std::printf("%s: %.*s: %.*s\n", f.severity == onnxview::check_severity::error
//                       ? "error" : "warning", int(f.path.size()), f.path.data(),
//                       int(f.message.size()), f.message.data());
//       }, nullptr);
//   if (r.errors) { /* invalid */ }
//
// What is checked (the rules of onnx.checker.check_model in onnx 1.12, less
// the operator schemas, plus the consistency of tensor payloads):
//   - the whole message parses as libprotobuf would (verify(); the finding
//     gives the byte offset and the field path)
//   - ir_version set; opset_import present for IR >= 3 and absent below;
//     metadata_props keys unique; the main graph present
//   - graphs: name non-empty; graph input names unique; initializer names
//     non-empty and unique (with sparse initializers); for IR <= 3 every
//     initializer is a graph input; every node input defined before use by a
//     graph input, an initializer, an earlier node output or a value of an
//     enclosing graph ("" is an omitted optional input); every value produced
//     once (SSA, enclosing graphs included); graph outputs defined; main-graph
//     inputs and outputs fully typed; subgraph nesting within max_depth
//   - nodes: op_type non-empty, some input or output, a domain the model (or
//     function) imports; attributes named, typed (IR >= 2), unique per node,
//     holding at most one value field and the one their type names (zero
//     fields is accepted: proto3 writers omit default values and empty lists)
//   - tensors: data_type set and known; dims non-negative with an element
//     count that fits 64 bits; exactly one value field unless the tensor is
//     empty; the field the data type uses; its size equal to dims x element
//     size (raw_data bytes or typed element count); external data with a
//     location, no inline data, and (with a model path) a safe path inside
//     the model's directory whose file holds the range (external_data.hpp)
//   - sparse tensors: values of rank 1, dense dims positive, INT64 indices of
//     rank 1 (linear) or 2 (coordinates), in range and strictly increasing
//   - model-local functions: named, with a domain, unique (domain, name,
//     overload), unique inputs/outputs/attributes, nodes in SSA order over the
//     function's inputs, outputs defined, no function calling itself directly
//     or through others
//
// Paths name where a finding is, e.g. `graph.node[12] 'conv1'.input[2]`,
// `functions[0] 'f'.node[1]`, `graph.initializer[3] 'w'`.
//
// Cost: linear in the fields of the model, plus one hash-set entry per value
// name (views into the buffer, not copies). Payloads are read only for
// sparse-tensor indices and external files are opened (not read) to check
// their size. Allocation: the checker allocates its name sets and path
// strings (std::bad_alloc propagates where exceptions are enabled); no
// allocation is sized from a number in the file.
#ifndef ONNXVIEW_CHECK_HPP
#define ONNXVIEW_CHECK_HPP

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "onnxview/error.hpp"
#include "onnxview/external_data.hpp"

namespace onnxview {

enum class check_severity : std::uint8_t {
    warning = 1,  // legal but suspicious, or not checked (e.g. external data without a path)
    error = 2,    // the model is invalid
};

// One problem. Every string_view is valid only during the callback.
struct check_finding {
    check_severity severity = check_severity::error;
    const char* code = "";        // short stable identifier, e.g. "undefined_input"
    std::string_view path;        // where: "graph.node[12] 'conv1'.input[2]"
    std::string_view message;     // what, for people
    std::uint64_t offset = 0;     // byte offset of the message concerned (0: the model)
};

using check_callback = void (*)(void* user, const check_finding& finding);

// All-zero means the defaults.
struct check_options {
    // The model file's path: external data is resolved in its directory. With
    // neither this nor `external` set, external tensors get a warning and are
    // not opened.
    const char* model_path = nullptr;
    // Full control over external data resolution (base_dir, callbacks, limits);
    // wins over model_path.
    const external_data_options* external = nullptr;
    // Deepest subgraph nesting accepted (main graph = 0). 0: 32.
    std::uint32_t max_depth = 0;
    // Stop after this many findings (check_result::truncated). 0: 1000.
    std::uint32_t max_findings = 0;
    // Also report warnings.
    bool warnings = true;
};

struct check_result {
    std::uint64_t errors = 0;
    std::uint64_t warnings = 0;
    bool truncated = false;  // max_findings reached; the check stopped early
    bool ok() const noexcept { return errors == 0; }
};

// Checks the model in [data, data + size) and calls `callback` (may be null)
// once per finding, in model order.
check_result check_model(const void* data, std::size_t size, const check_options& options,
                         check_callback callback, void* user);

// The same, for a model in a std::string_view (valid while it lives).
inline check_result check_model(std::string_view bytes, const check_options& options,
                                check_callback callback, void* user) {
    return check_model(bytes.data(), bytes.size(), options, callback, user);
}

}  // namespace onnxview

#endif  // ONNXVIEW_CHECK_HPP
