// onnxview/rebind.hpp - the put-back of a weight-less proxy that a tool
// rewrote: each tensor the tool left without a payload (onnx's version
// converter drops every external_data entry; a clean-up renames
// initializers) bound again to the tensor of the original model it stands
// for, as a reference to where that tensor's bytes lie.
//
//   onnxview::rebind_plan plan;
//   onnxview::error e = onnxview::plan_rebinds(tool_output.model(), original.model(), "big.onnx",
//                                              renames, rename_count, plan);
//   for (const onnxview::rebind_problem& p : plan.refused) ...   // each names a tensor and why
//   onnxview::edit_options ed;
//   ed.rebinds = plan.rebinds.data();
//   ed.rebind_count = plan.rebinds.size();
//   // pack_model(tool_output bytes, ..., po.edits = &ed): a proxy whose references hold again
//
// A tensor is matched, in this order:
//   - by name: the original has one tensor of that name (or several with one
//     payload; several payloads are told apart by the node attribute holding
//     them, the node known by its first output as named or as `renames`
//     renamed it, then by the subgraph: which node holding subgraphs, in
//     order, and which attribute, at each level) and it has the same data
//     type and dims; another data type or dims is refused;
//   - a node's tensor attribute without a name found (a Constant's value
//     is often unnamed): the same attribute of the original's node making
//     the same value (its first output), as named or as `renames` renamed it;
//   - by structure: `renames` (what the caller's graph matching found each
//     value of the original called in the tool's output, e.g. `onnxview
//     diff --match=auto`'s, pair_value_names() in onnxview/compare) names a
//     value that is the tensor, or an Identity chain's output whose start is
//     the tensor (a tool that put an Identity before each consumer); the
//     original's tensors so found with the tensor's data type and dims must
//     be one (two: ambiguous, refused).
// A tensor with no match is refused. Tensors with a payload, and tensors
// with none that hold no element, are left alone: new constants a tool
// added stay as they are.
//
// The tensors considered, in both models, are those onnx.load resolves and
// a proxy references: initializers and node tensor attributes of the main
// graph and its subgraphs, not sparse ones. An original tensor can be
// bound when its payload lies in the original's bytes in raw_data layout
// (the reference then names `original_location`) or in external data (its
// own entries are repeated: the locations stay relative to the original's
// directory, which must be the tool output's).
//
// Cost: one walk of each model's metadata, no payload read (a proxy with
// nothing missing: `original` is not walked); memory linear in the tensors. Allocates (std::vector, std::string): for tools, not for
// the readers' no-allocation paths.
#ifndef ONNXVIEW_REBIND_HPP
#define ONNXVIEW_REBIND_HPP

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "onnxview/error.hpp"
#include "onnxview/model.hpp"
#include "onnxview/write.hpp"

namespace onnxview {

// A value of the original model and what the tool's output calls it.
struct value_rename {
    std::string_view original;
    std::string_view renamed;
};

// How a tensor was matched.
enum class rebind_match : std::uint8_t { name, structure };

// A tensor given its payload again.
struct rebind_entry {
    // In the tool's output; an unnamed attribute tensor as "(attribute
    // value of the node making c)".
    std::string name;
    std::string original_name;  // of the original tensor it stands for
    rebind_match match = rebind_match::name;
};

// Why a tensor without a payload cannot be given one.
enum class rebind_refusal : std::uint8_t {
    no_match,        // no tensor of the original stands for it
    type_differs,    // the original's tensor has another data type (detail: both)
    shape_differs,   // ... other dims (detail: both)
    ambiguous,       // several original tensors match (detail: two of them)
    not_referable,   // the original's payload is not in raw_data layout (int32_data, ...)
};

struct rebind_problem {
    std::string name;  // in the tool's output
    rebind_refusal why = rebind_refusal::no_match;
    std::string detail;  // e.g. "FLOAT [4, 4] here, FLOAT [2, 8] in the original's 'w'"
};

struct rebind_plan {
    std::vector<rebind_entry> bound;      // in the order of the tool output's tensors
    std::vector<tensor_rebind> rebinds;   // the same, sorted by offset for edit_options::rebinds
    std::vector<rebind_problem> refused;  // in the order of the tool output's tensors
    // Every tensor without a payload considered: bound + refused.
    std::size_t missing() const noexcept { return bound.size() + refused.size(); }
};

// Plans the rebinds of `proxy` (a tool's output, whose bytes edit_options::
// rebinds will edit) from `original` (the model the proxy was made from,
// whose bytes stay mapped while the plan is used: its external locations
// are views into them, as is original_location, the original's file name
// relative to the proxy's directory). Errors: a model whose walk fails.
error plan_rebinds(const model_view& proxy, const model_view& original, std::string_view original_location,
                   const value_rename* renames, std::size_t rename_count, rebind_plan& out);

// "no_match", "type_differs", ...
const char* rebind_refusal_name(rebind_refusal r) noexcept;

}  // namespace onnxview

#endif  // ONNXVIEW_REBIND_HPP
