// src/compare/diff_internal.hpp - the parts of diff_models()
// (onnxview/compare/model_diff.hpp): the model and signature sections
// (diff_model.cpp), the graph section (diff_graph.cpp, nodes paired by
// diff_match.cpp), the weights section (diff_weights.cpp).
#ifndef ONNXVIEW_COMPARE_DIFF_INTERNAL_HPP
#define ONNXVIEW_COMPARE_DIFF_INTERNAL_HPP

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "onnxview/compare/model_diff.hpp"
#include "onnxview/compare/model_hash.hpp"
#include "onnxview/compare/values.hpp"
#include "onnxview/error.hpp"
#include "onnxview/model_file.hpp"

namespace onnxview {
namespace diff_detail {

using change_list = std::vector<model_change>;

// A change with its place in the report.
model_change make_change(diff_section section, change_kind kind, change_subject what, std::string subject,
                         bool counted);

struct value_names;

// The model section: ir_version and opsets (counted), then producer, model
// version, metadata, doc string (as `skip` leaves them).
void diff_model_fields(const model_view& a, const model_view& b, const diff_ignore& skip, change_list& out);

// The signature section's changes for `what` ("input", "output"): a's value
// infos against b's by name, a's names as b calls them (automatic matching).
void diff_value_infos(const message_range<value_info_view>& a, const message_range<value_info_view>& b,
                      change_subject what, const value_names& names, change_list& out);

// A value's old name and its name in model B, found by --match=auto. Keys
// are namespace_key(ns, name): a function's values live apart from the
// graphs' (ns is "" for the main graph, its subgraphs and training graphs).
struct value_names {
    // Every value paired (a name kept is paired with itself, so that a
    // subgraph's value of the same name cannot claim it).
    std::unordered_map<std::string, std::string> renamed;
    std::size_t values_renamed = 0;
    std::size_t nodes = 0, nodes_matched = 0, nodes_renamed = 0;  // nodes of A
    // The first value and node renamed, old and new name: for the names section.
    std::string first_value_a, first_value_b, first_node_a, first_node_b;

    static std::string namespace_key(std::string_view ns, std::string_view name) {
        std::string k(ns);
        k += '\n';
        return k.append(name);
    }
    // `name` as model B calls it.
    std::string_view in_b(std::string_view ns, std::string_view name) const {
        if (renamed.empty()) return name;
        const auto it = renamed.find(namespace_key(ns, name));
        return it == renamed.end() ? name : std::string_view(it->second);
    }
};

// Each dense tensor's digest as model_digest made it (digest_options::
// tensor_hashed), by where the tensor's message starts.
using tensor_digests = std::unordered_map<const char*, digest128>;

// How a model's attribute values are printed: tensors by type, dims and
// digest (payloads read through `ext`, as `digest` says).
struct attribute_printer {
    external_payload_source ext;
    digest_options digest;
    std::string text(const attribute_view& a) const;
};

// An attribute of a node, left unread until its value is compared or shown.
struct node_attribute {
    std::string_view name;
    wire::message message;  // the AttributeProto
    attribute_view view() const {
        return attribute_view(result<wire::message>(message));
    }
};

// A run of the values or attributes a scope_record holds for its nodes.
template <class T>
struct run_of {
    const T* first = nullptr;
    std::size_t count = 0;
    const T* begin() const { return first; }
    const T* end() const { return first + count; }
    std::size_t size() const { return count; }
    bool empty() const { return count == 0; }
    const T& operator[](std::size_t i) const { return first[i]; }
};

// One node as the graph section compares it. Views into the model's bytes
// and runs of its scope's arrays, which outlive the records: a graph of
// 100000 nodes is collected without an allocation per node.
struct node_record {
    std::string_view name, op_type, domain;  // domain "" for ai.onnx
    std::uint32_t index = 0;                 // its position in the scope
    bool name_repeated = false;              // a name given before in the scope
    run_of<std::string_view> inputs, outputs;
    run_of<node_attribute> attributes;  // by name; of a name given twice, the last
    // How the report calls it: 'name', 'name' #index for a name given
    // twice (the second is told apart by its position), #index unnamed.
    std::string key() const;
};

// One graph or function of a model, and where it sits. Moved, never
// copied: its nodes point into its arrays.
struct scope_record {
    std::string key;  // "graph", "graph > node 'loop' 'body'", "function com.x:f", ...
    std::string ns;   // the value namespace: "" or the function's key
    std::size_t parent = npos;  // a subgraph's scope, in walk order
    std::size_t holder = 0;     // the node of `parent` holding a subgraph
    std::string suffix;         // what follows the holder's key in `key`
    std::vector<std::string_view> inputs, outputs;  // graph or function inputs and outputs
    std::vector<std::pair<std::string_view, std::string>> initializers;  // name, type and dims; dense, then sparse
    std::vector<node_record> nodes;
    std::vector<std::string_view> node_values;   // each node's inputs, then outputs
    std::vector<node_attribute> node_attributes;  // each node's attributes
    const attribute_printer* printer = nullptr;  // its model's
    static constexpr std::size_t npos = static_cast<std::size_t>(-1);

    scope_record() = default;
    scope_record(scope_record&&) = default;
    scope_record& operator=(scope_record&&) = default;
    scope_record(const scope_record&) = delete;
    scope_record& operator=(const scope_record&) = delete;
};

// Pairs the nodes of two scopes: the index in b of each node of a, or
// scope_record::npos. Named nodes first by name (with mode automatic only
// when the op_type agrees); the rest by structural signatures, refined over
// a few rounds from each node's op, domain and attributes through its
// producers and consumers (Weisfeiler-Lehman), paired in position order
// among equal signatures, the most refined first. No names of values take
// part, so renamed values do not matter. O(nodes + edges) per round.
std::vector<std::size_t> match_nodes(const scope_record& a, const scope_record& b, node_matching mode);

// Adds to `names` what a's values are called in b, through the paired
// nodes (outputs, then inputs slot by slot: graph inputs and initializers
// are found through their consumers), then the scope's own inputs and
// outputs by position, then initializers no node reads by their labels (type,
// shape, digest) in declaration order.
void pair_values(const scope_record& a, const scope_record& b, const std::vector<std::size_t>& a_to_b,
                 value_names& names);

// Every scope of model `m` as the graph section sees it, parents first,
// printing attributes with `printer` (which must outlive `out`, as must m).
// With `known`, an initializer's label (scope_record::initializers) holds
// the start of its digest too.
error collect_scopes(model_file& m, const attribute_printer& printer,
                               std::vector<scope_record>& out, const tensor_digests* known = nullptr);

// One node on one line: "node 'conv1' Conv ['x', 'w'] -> ['y'] strides=[1, 1]".
std::string node_line(const node_record& n, const attribute_printer& printer);

// The graph section: every scope of both models (main graph, subgraphs,
// training graphs, functions, through walk_scopes) paired by where it is,
// nodes paired by match_nodes(): added, removed, op_type,
// domain, inputs, outputs and attributes changed. Tensor attributes of
// Constant nodes are left to the weights section; other tensor attributes
// are compared by digest (external payloads read through each model_file;
// with digest.values false, by type and dims only).
// Fails when a walk does.
// With node_matching::automatic, fills `names` (used by the signature and
// weights sections after it) and scopes are paired through their holders;
// `known_a` and `known_b` let initializers be told apart by their digests.
error diff_graphs(model_file& a, model_file& b, const digest_options& digest, node_matching mode,
                  value_names& names, change_list& out, const tensor_digests* known_a = nullptr,
                  const tensor_digests* known_b = nullptr);

// The weights and layout sections: initializers, sparse initializers and
// Constant tensors by kind, name (a's as b calls them) and scope. With
// `values`, a weight whose digests differ (from `seen_a`/`seen_b` when
// model_digest made them) has its values compared; those within an
// allclose tolerance are counted in `tolerated`, not listed.
error diff_weights(model_file& a, model_file& b, bool values, const diff_options& options,
                   const value_names& names, const tensor_digests& seen_a, const tensor_digests& seen_b,
                   change_list& out, std::size_t& tolerated);

}  // namespace diff_detail
}  // namespace onnxview

#endif  // ONNXVIEW_COMPARE_DIFF_INTERNAL_HPP
