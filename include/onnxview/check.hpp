// onnxview/check.hpp - validate what a model means, beyond its wire format.
//
//   onnxview::options opts{};
//   opts.model_path = "net.onnx";               // external data resolves next to it
//   auto r = onnxview::check_model(bytes.data(), bytes.size(), opts,
//       [](void*, const onnxview::check_finding& f) {
//           std::printf("%s: %.*s: %.*s [%s]\n", f.severity == onnxview::check_severity::error
//                       ? "error" : "warning", int(f.path.size()), f.path.data(),
//                       int(f.message.size()), f.message.data(), onnxview::finding_code_name(f.code));
//       }, nullptr);
//   if (r.errors) { /* invalid */ }
//
// What is checked (the rules of onnx.checker.check_model in onnx 1.12, less
// the operator schemas, plus the consistency of tensor payloads):
//   - the whole message parses as libprotobuf would (verify(); the finding
//     gives the byte offset and the field path)
//   - ir_version set, and at most newest_ir_version (onnxview/enums.hpp,
//     the schema's IR_VERSION; a warning above it); opset_import present for IR >= 3 and absent below;
//     metadata_props keys unique; the main graph present
//   - graphs: name non-empty; graph input names unique; initializer names
//     non-empty and unique (with sparse initializers); for IR <= 3 every
//     initializer is a graph input; every node input defined before use by a
//     graph input, an initializer, an earlier node output or a value of an
//     enclosing graph ("" is an omitted optional input); every value produced
//     once (SSA, enclosing graphs included); graph outputs defined; main-graph
//     inputs and outputs fully typed; subgraph nesting within max_graph_depth
//   - nodes: op_type non-empty, some input or output, a domain the model (or
//     function) imports; attributes named, typed (IR >= 2), unique per node,
//     holding at most one value field and the one their type names (zero
//     fields is accepted: proto3 writers omit default values and empty lists)
//   - tensors, by tensor_data.hpp's rules (element_count, payload_bytes,
//     required_typed_entries, describe_storage): data_type set and known;
//     dims non-negative with an element count that fits 64 bits; exactly one
//     value field unless the tensor is empty; the field the data type uses;
//     its size equal to dims x element size (raw_data bytes or typed
//     entries); external data (not STRING) with a location, no inline
//     data, and (with a model path) a safe path inside the model's directory
//     whose file holds the range (external_data.hpp)
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
// their size. Allocation: the checker allocates its name sets, paths and
// messages from options::memory (malloc and free when unset); when that
// memory runs out, std::bad_alloc propagates where exceptions are enabled
// (nothing leaks) and the program aborts where they are not. No allocation
// is sized from a number in the file.
#ifndef ONNXVIEW_CHECK_HPP
#define ONNXVIEW_CHECK_HPP

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "onnxview/enums.hpp"
#include "onnxview/error.hpp"
#include "onnxview/options.hpp"

namespace onnxview {

// What a finding is about; finding_code_name() gives its stable identifier
// (the CLI prints it in brackets). The severity of each code is fixed: the
// five marked (warning) are warnings, every other code is an error.
enum class finding_code : std::uint8_t {
    // --- the model ---
    wire_format,              // the bytes do not parse as onnx.ModelProto (verify())
    missing_ir_version,       // ir_version absent or 0
    bad_ir_version,           // ir_version negative
    new_ir_version,           // (warning) ir_version above newest_ir_version
    duplicate_metadata_key,   // a metadata_props key appears twice
    duplicate_opset,          // (warning) a domain imported twice
    missing_opset_import,     // IR >= 3 without opset_import
    unexpected_opset_import,  // IR < 3 with opset_import
    missing_graph,            // no main graph
    // --- graphs and values ---
    too_deep,                 // subgraphs nest deeper than max_graph_depth
    empty_graph_name,         // a graph without a name
    empty_name,               // a value info, initializer, attribute or function without a name
    missing_type,             // a main-graph input/output without a type, or a type with no kind set
    missing_elem_type,        // a type without its element, key or value type
    missing_shape,            // a tensor type without a shape
    duplicate_input,          // a graph or function input declared twice
    duplicate_output,         // a value produced twice (SSA), or a function output declared twice
    duplicate_initializer,    // an initializer name used twice (dense and sparse together)
    initializer_not_input,    // IR <= 3: an initializer that is not a graph input
    undefined_input,          // a node input not defined before use
    undefined_output,         // a graph or function output nothing produces
    // --- nodes and attributes ---
    empty_op_type,            // a node without op_type
    no_inputs_outputs,        // a node with neither inputs nor outputs
    missing_opset,            // a node of a domain the model (or function) does not import
    duplicate_attribute,      // an attribute name used twice on a node or function
    missing_attribute_type,   // IR >= 2: an attribute without a type
    attribute_type_mismatch,  // an attribute holding a field its type does not name
    attribute_several_values, // an attribute holding more than one value field
    ref_attr_outside_function,// (warning) ref_attr_name outside a function body
    ref_attr_with_value,      // ref_attr_name together with a value
    // --- tensors ---
    missing_data_type,        // data_type absent
    undefined_data_type,      // data_type UNDEFINED
    unknown_data_type,        // data_type not in the schema
    negative_dim,             // a negative dimension
    dims_overflow,            // more than 2^64 elements or bytes (sparse: dense size above 2^63)
    empty_with_data,          // 0 elements but a value field
    value_field_count,        // not exactly one value field
    string_in_raw_data,       // STRING in raw_data
    wrong_value_field,        // values in a typed field the data type does not use
    payload_size_mismatch,    // payload size differs from dims x element size
    bad_data_type,            // refused by tensor_data with errc::bad_data_type for another reason
    bad_dims,                 // refused by tensor_data with errc::bad_dims for another reason
    external_with_data,       // EXTERNAL with inline data
    external_data_ignored,    // (warning) external_data entries without data_location EXTERNAL
    external_no_location,     // EXTERNAL without a location entry
    external_base,            // the directory of external data cannot be opened
    external_not_checked,     // (warning) external data not checked: no model path given
    external_data,            // external data refused by external_data_resolver (reason in brackets)
    // --- sparse tensors ---
    sparse_no_values,         // no values tensor
    sparse_values_rank,       // values not of rank 1
    sparse_rank,              // dense rank 0
    sparse_dims,              // a dense dimension not positive
    sparse_no_indices,        // values but no indices
    sparse_indices_type,      // indices not INT64
    sparse_indices_rank,      // indices neither [nnz] nor [nnz, rank]
    sparse_indices_count,     // indices count differs from the values count
    sparse_index_range,       // an index outside the dense shape
    sparse_index_order,       // indices not strictly increasing
    // --- model-local functions ---
    function_no_domain,       // IR >= 8: a function without a domain
    duplicate_function,       // (domain, name, overload) defined twice
    recursive_function,       // a function that calls itself, directly or through others
};
// Number of finding codes (finding_code values are 0 .. finding_code_count - 1).
constexpr std::size_t finding_code_count = static_cast<std::size_t>(finding_code::recursive_function) + 1;

// The code's stable identifier, its enumerator's name ("undefined_input").
// "unknown" for a number that is no finding_code. Never null.
const char* finding_code_name(finding_code code) noexcept;


enum class check_severity : std::uint8_t {
    warning = 1,  // legal but suspicious, or not checked (e.g. external data without a path)
    error = 2,    // the model is invalid
};

// One problem. Every string_view is valid only during the callback.
struct check_finding {
    check_severity severity = check_severity::error;
    finding_code code = finding_code::wire_format;  // what; finding_code_name(code): "undefined_input"
    std::string_view path;        // where: "graph.node[12] 'conv1'.input[2]"
    std::string_view message;     // what, for people
    std::uint64_t offset = 0;     // byte offset of the message concerned (0: the model)
};

using check_callback = void (*)(void* user, const check_finding& finding);

struct check_result {
    std::uint64_t errors = 0;
    std::uint64_t warnings = 0;
    bool truncated = false;  // max_findings reached; the check stopped early
    bool ok() const noexcept { return errors == 0; }
};

// Checks the model in [data, data + size) and calls `callback` (may be null)
// once per finding, in model order. Of the options it reads
// max_message_depth and release (the wire-format check is verify()'s),
// max_graph_depth, max_findings, errors_only, and the external-data members
// (onnxview/options.hpp): with none of model_path, external_base_dir and
// external_files set, external tensors get a warning and are not opened.
check_result check_model(const void* data, std::size_t size, const options& opts,
                         check_callback callback, void* user);

// The same, for a model in a std::string_view (valid while it lives).
inline check_result check_model(std::string_view bytes, const options& opts,
                                check_callback callback, void* user) {
    return check_model(bytes.data(), bytes.size(), opts, callback, user);
}

}  // namespace onnxview

#endif  // ONNXVIEW_CHECK_HPP
