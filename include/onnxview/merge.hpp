// onnxview/merge.hpp - two models made one, as onnx.compose.merge_models
// makes them, the weights streamed from both inputs to the output (any
// size: neither model is ever held whole).
//
//   const onnxview::merge_connection io[] = {{"features", "input"}};
//   onnxview::merge_request r{};
//   r.connections = io;
//   r.connection_count = 1;
//   r.prefix_b = "head/";
//   onnxview::merge_report why;
//   r.report = &why;
//   onnxview::error e = onnxview::merge_models(a, &source_a, b, &source_b, r, po, out, nullptr);
//
// The result (compose.merge_models' meaning, its differences named):
//   - ir_version: A's, which must equal B's. opset_import: each domain
//     once, A's order then B's new domains; a domain imported at two
//     versions is refused ("ai.onnx" is "") (compose writes both lists, duplicates included).
//   - prefixes: prefix_a to every name of A that compose.add_prefix
//     prefixes (edit_options::prefix: also the references to main-graph
//     values in subgraphs, which compose leaves behind), prefix_b to B's;
//     connection names are given unprefixed and prefixed with them.
//   - graph: A's nodes, then B's, where B's reads of each connection's
//     b_input (in its subgraphs too, where they do not declare the name)
//     read a_output instead. Inputs: A's, then B's but the connected ones.
//     Outputs: A's but the connected ones, then B's. Initializers, sparse
//     initializers and value_info: A's, then B's but those named as a
//     connected input. quantization_annotation and metadata_props of both
//     (compose drops them). Name: A's "_" B's; doc_string as compose writes
//     it. Unknown fields of the graphs are dropped.
//   - the model: producer_name "onnxview merge", model_version 1,
//     metadata_props of both (a key in both with two values is refused),
//     functions of A then B. training_info, doc_string, domain and unknown
//     fields are dropped, as compose drops them.
//   - refused, besides: a name of A's main graph (input, output,
//     initializer, sparse initializer, value_info, node input or output)
//     also one of B's other than a connection's, which would join two
//     values (prefix one side); a function (domain, name, overload) in both.
// Tensors: with po.external_location, those of at least po.threshold bytes
// go to the external sink; otherwise every payload comes into the model
// (po.internalize). po.source_fd and po.reference are ignored; po.edits
// must be null; po.payload_written is given the payloads (in the inputs'
// bytes or their external files), not the join's own memory.
//
// How: each input becomes a weight-less proxy in memory (pack_model's
// reference mode, prefixed, B's connections renamed), the two proxies are
// joined, and the join is packed with its references resolved in A's and
// B's bytes, or through source_a / source_b for the inputs' own external
// data. Memory: both proxies (names, nodes, tensors under po.threshold or
// not in raw_data layout, INT64 tensors, sparse and function tensors).
// Errors: invalid_argument (the problem in `report`), those of reading
// either model, of fetching their external data, and pack_model's.
#ifndef ONNXVIEW_MERGE_HPP
#define ONNXVIEW_MERGE_HPP

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "onnxview/error.hpp"
#include "onnxview/sink.hpp"
#include "onnxview/tensor_storage.hpp"
#include "onnxview/write.hpp"

namespace onnxview {

// B's graph input b_input fed by A's graph output a_output (unprefixed names).
struct merge_connection {
    std::string_view a_output;
    std::string_view b_input;
};

enum class merge_problem : std::uint8_t {
    none = 0,
    no_graph,            // a model (`side`) has no graph, or more than one graph field
    ir_version_differs,  // the two ir_versions (`name`: empty)
    opset_differs,       // domain `name` imported at two versions
    not_an_output,       // `name` is no graph output of A
    not_an_input,        // `name` is no graph input of B
    connected_twice,     // B's input `name` is connected twice
    name_clash,          // `name` (prefixed) is a name of both main graphs
    function_clash,      // a function named `name` (same domain and overload) is in both
    metadata_differs,    // metadata key `name` has two values
    prefix_capture,      // a subgraph of `side` declares the prefixed name of a value it reads
};

struct merge_report {
    merge_problem problem = merge_problem::none;
    char side = 0;              // 'a' or 'b' where it matters
    char name[256] = {};        // the name the problem is about, NUL-terminated (cut at 255 bytes)
    std::uint64_t nodes = 0;         // nodes of the merged main graph
    std::uint64_t initializers = 0;  // its initializers and sparse initializers
    std::uint64_t functions = 0;
};

// One sentence for people about r's problem (its name quoted), e.g.
// "'x' is a name of both graphs: give --prefix-a or --prefix-b". Never null.
const char* merge_problem_message(merge_problem p) noexcept;

struct merge_request {
    const merge_connection* connections = nullptr;
    std::size_t connection_count = 0;
    std::string_view prefix_a;
    std::string_view prefix_b;
    merge_report* report = nullptr;  // filled in when not null
};

// Writes the merge of models `a` and `b` (whole ModelProtos) to `out`; see
// the top of this file. source_a / source_b fetch their own external data
// (null: none).
error merge_models(std::string_view a, const external_payload_source* source_a, std::string_view b,
                   const external_payload_source* source_b, const merge_request& request, const pack_options& po,
                   const write_sink& out, const write_sink* external_out, pack_stats* stats = nullptr) noexcept;

}  // namespace onnxview

#endif  // ONNXVIEW_MERGE_HPP
