// onnxview/compare/model_diff.hpp - what differs between two models, section
// by section, as structured changes (what `onnxview diff` prints).
//
// diff_models() compares model A (old) with model B (new): the model section
// (ir_version, opsets, producer, model_version, metadata, doc_string), the
// signature (the main graph's inputs and outputs), the graph (every scope
// walk_scopes visits, nodes paired by name or by structure), the weights
// (initializers, sparse initializers, Constant tensors: type, shape, value
// figures), the layout (where payloads are stored; not counted) and, with
// node_matching::automatic, the names (renames; not counted). Whether the
// models compute the same is decided by their model_digest()s
// (model_hash.hpp); docs/diff.md has the exact rules.
//
//   onnxview::model_file a = *onnxview::model_file::open("before.onnx");
//   onnxview::model_file b = *onnxview::model_file::open("after.onnx");
//   onnxview::model_diff d;
//   if (onnxview::error e = onnxview::diff_models(a, b, {}, d)) { ... }
//   for (const onnxview::model_change& c : d.changes) ...   // sections in order
//   d.verdict == onnxview::diff_verdict::identical
//
// Part of the optional library `onnxview_compare` (src/compare/), built when
// libxxhash is found. Errors are values; the library throws nothing itself
// (std containers may throw std::bad_alloc, as the checker's do).
//
// Cost: both models' payloads are read once for their digests, in pages given
// back as the walk goes (release_payload); equal digests skip the graph
// section and every second reading of values. The graph section is
// O(nodes + edges) per scope pair. The result holds copies (std::string),
// nothing that points into either model.
#ifndef ONNXVIEW_COMPARE_MODEL_DIFF_HPP
#define ONNXVIEW_COMPARE_MODEL_DIFF_HPP

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "onnxview/compare/model_hash.hpp"
#include "onnxview/compare/values.hpp"
#include "onnxview/error.hpp"
#include "onnxview/model_file.hpp"

namespace onnxview {

// How weights' values are compared.
enum class weights_comparison : std::uint8_t {
    exact,     // every differing value is a change
    allclose,  // a weight is unchanged when every value is within diff_options::tolerance
    none,      // no payload is read: weights by type and shape only, digests without values
};

// How the nodes of two scopes are paired.
enum class node_matching : std::uint8_t {
    // Named nodes by name; unnamed ones by structure, so that one removed in
    // the middle does not shift every later one.
    name,
    // Every node by name when both models agree on it, by structure
    // otherwise; values are then paired through the nodes, and renames are
    // listed in the names section instead of as graph changes.
    automatic,
};

// What a comparison leaves out. All false: nothing.
struct diff_ignore {
    bool doc_string = false;  // the model's doc_string line
    bool producer = false;    // the producer and model_version lines
    bool metadata = false;    // the metadata lines
    // Renamed nodes and values: matched as node_matching::automatic does,
    // and no names-section change is listed (the matching statistics still
    // count them). Renamed graph inputs and outputs stay signature changes:
    // callers bind them by name.
    bool names = false;
    // value_info (shape-inference annotations) is never compared, nor part
    // of a digest: accepted so that a CI can say so, and changes nothing.
    bool value_info = false;
};

// How diff_models() compares. Value-initialized: exact weights, numpy's
// allclose defaults as tolerance, nothing ignored, nodes matched by name.
struct diff_options {
    weights_comparison weights = weights_comparison::exact;
    value_tolerance tolerance{1e-05, 1e-08};  // numpy.allclose's defaults; weights_comparison::allclose
    diff_ignore ignore;
    node_matching matching = node_matching::name;
    // When an external payload's file cannot be found on either side (git
    // hands a blob over alone), compare the weights as weights_comparison::
    // none does and say so in a model-section change (change_kind::
    // values_unread), instead of failing.
    bool weights_by_shape_when_missing = false;
    // Make the two digests (which read every payload) on two threads at
    // once, on POSIX systems, when a and b are two model_files; false: one
    // after the other, on the caller's thread only.
    bool parallel = true;
};

// The sections of a report, in the order they are listed.
enum class diff_section : std::uint8_t { model, signature, graph, weights, layout, names };

// What happened to a change's subject.
enum class change_kind : std::uint8_t {
    added,      // subject (or attribute, when set) added; `after` describes it
    removed,    // subject (or attribute) removed; `before` describes it
    renamed,    // an input or output renamed to `after`; names section: the first of `what` renamed
    changed,    // a model field or metadata value, an attribute's value: `before` -> `after`
    op_type,    // a node's op_type
    domain,     // a node's domain
    inputs,     // a node's inputs, as lists "['x', 'w']"
    outputs,    // a node's outputs
    order,      // a scope's nodes come in another order
    element_type,  // an input's or output's element type
    shape,      // an input's or output's shape, or a weight's dims
    type,       // an input's or output's whole type (not a tensor's)
    data_type,  // a weight's data type
    values,     // a weight's values (figures set when they could be compared as numbers or strings)
    storage,    // layout: where a weight's payload is stored
    encoding,   // layout: the files differ only in field order, padding or encodings
    unitemized,  // graph: the digests differ in a part no section itemizes (docs/diff.md)
    values_unread,  // model: weights compared by type and shape only; subject "a" or "b" has no external data
};

// What a change's subject is.
enum class change_subject : std::uint8_t {
    none,  // the change is about its section or scope as a whole (order, encoding, unitemized, values_unread)
    ir_version, opset, producer, model_version, metadata, doc_string,  // model
    input, output,                                                     // signature
    node, scope,                                                       // graph
    initializer, sparse_initializer, constant,                         // weights, layout
    nodes, values,                                                     // names: the first renamed
};

// One change. Strings are copies; names are as the models give them (not
// quoted), but for `scope`, scope keys with quoted names ("graph", "graph >
// node 'loop' body", "function com.x:f"), and for nodes, whose subject
// is their key: 'name', 'name' #index for a name given twice, #index unnamed.
struct model_change {
    diff_section section = diff_section::graph;
    change_kind kind = change_kind::changed;
    change_subject what = change_subject::none;
    // graph: the scope key; weights and layout: the scope path of a tensor
    // outside the main graph (append_scope_path), else "".
    std::string scope;
    std::string subject;    // the opset's domain, metadata key, value, node key or tensor name
    std::string part;       // a sparse initializer's "indices" or "values"
    std::string attribute;  // a node's attribute, when the change is one of its attributes
    std::string before, after;  // the old and new value as printed (types as type_string, lists, numbers)
    bool counted = false;   // counts in diff_counts (not: model fields but ir_version and opsets, layout, names)
    // change_kind::values: how far the values are; of a STRING tensor only
    // the counts and first_index mean anything.
    std::optional<value_difference> figures;
    bool string_values = false;
};

// The counted changes per section; `graph` includes the model section's
// ir_version and opset changes.
struct diff_counts {
    std::size_t signature = 0, graph = 0, weights = 0;
};

// The verdict, from the digests and the changes.
enum class diff_verdict : std::uint8_t {
    identical,              // nothing to report
    same_layout_differs,    // equal digests; layout or uncounted model fields differ
    same_names_differ,      // only nodes and inner values renamed (node_matching::automatic)
    same_within_tolerance,  // only weights within weights_comparison::allclose
    differ,
};

// How the nodes of model A were paired: filled by node_matching::automatic
// (or diff_ignore::names) when the graph section ran, zero otherwise.
struct matching_statistics {
    std::size_t nodes = 0, matched = 0, renamed = 0;  // nodes of A
    std::size_t values_renamed = 0;
};

// The result of diff_models().
struct model_diff {
    std::vector<model_change> changes;  // by section (diff_section order), each in report order
    diff_counts counts;
    diff_verdict verdict = diff_verdict::identical;
    digest128 digest_a, digest_b;  // model_digest()s, without values when values_compared is false
    bool values_compared = true;   // false with weights_comparison::none or values_unread
    matching_statistics matching;
    // After an error: whether model b's digest failed (else the error is
    // model a's, or of the comparison).
    bool failed_in_b = false;
    // The models compute the same: equal digests, or only names or
    // tolerated weights differ.
    bool same_computation() const noexcept { return verdict != diff_verdict::differ; }
};

// Compares a (old) with b (new) into `out` (cleared first; on an error only
// failed_in_b means anything). Both model
// files must have opened; their payloads are read, external ones through
// each model_file. Errors: a model's walk or payload error (with
// weights_by_shape_when_missing, a missing external file is not one).
error diff_models(model_file& a, model_file& b, const diff_options& options, model_diff& out);

// What node_matching::automatic calls the values of a's main graph, its
// subgraphs and training graphs in b: (name in a, name in b) for each
// value whose name differs, sorted. Weights are paired through the nodes
// reading them (no payload is read): the put-back of a proxy a tool renamed
// finds the weights with it (plan_rebinds, onnxview/rebind.hpp). Errors: a
// model's walk.
error pair_value_names(model_file& a, model_file& b, std::vector<std::pair<std::string, std::string>>& out);

// "model", "signature", "graph", "weights", "layout", "names".
const char* diff_section_name(diff_section s) noexcept;
// The enumerator's name: "added", "op_type", "values_unread", ...
const char* change_kind_name(change_kind k) noexcept;
// The enumerator's name: "opset", "node", "sparse_initializer", ...; "" for none.
const char* change_subject_name(change_subject s) noexcept;
// "identical", "same computation, layout differs", "same computation, names
// differ", "same computation, weights within tolerance", "differ".
const char* diff_verdict_text(diff_verdict v) noexcept;

// Every scope of `m` as stable lines, for `onnxview hash --textconv`: per
// scope in walk order "KEY: N nodes", then one "KEY: node 'conv1' Conv
// ['x', 'w'] -> ['y'] strides=[1, 1]" per node (attributes sorted, tensor
// attributes by type, dims and digest). Errors: a walk's.
error scope_node_lines(model_file& m, std::vector<std::string>& out);

}  // namespace onnxview

#endif  // ONNXVIEW_COMPARE_MODEL_DIFF_HPP
