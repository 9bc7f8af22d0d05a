// onnxview/write.hpp - a streaming writer of ONNX models: the model is
// re-emitted from its own bytes, copying every byte range that does not
// change and re-emitting only the messages that do (TensorProtos and the
// messages that hold them), with their length prefixes recomputed.
//
//   onnxview::pack_options po{};                  // all-zero: the defaults
//   po.external_location = "net.data";            // weights >= 1 KiB to net.data
//   onnxview::write_sink model_out = onnxview::fd_sink(&model_fd);
//   onnxview::write_sink data_out = onnxview::fd_sink(&data_fd);
//   onnxview::pack_stats st;
//   onnxview::error e = onnxview::pack_model(bytes, &source, po, model_out, &data_out, &st);
//
// How. Sizes are computed before anything is written: measuring passes walk
// the message tree (payloads are skipped by their lengths) until every
// length prefix has its width; the writing pass then emits the same layout.
// No payload is ever held in memory: raw_data and external payloads are
// handed to the sink straight from the source bytes (or copied file to file,
// pack_options::source_fd), typed fields are
// converted through a 4 KiB buffer (writes are batched in 32 KiB). Memory,
// from options::memory: 16 bytes per re-emitted message, and with dedupe
// about 80 bytes per external payload.
//
// Meaning. The output parses, under libprotobuf and onnxview, to the same
// messages as the input except for where tensor payloads live:
//   - alignment: before the raw_data of a tensor that is re-emitted, an
//     unknown field (number pack_padding_field, wire type length-delimited,
//     zero bytes) pads raw_data's first byte to a multiple of the alignment
//     in the output file. Unknown fields are kept and ignored by every
//     protobuf reader; pack drops its own earlier padding when it re-emits
//     a tensor. raw_data moves after the tensor's other fields (field
//     order carries no meaning in protobuf); a repeated raw_data keeps only
//     its last occurrence, the one that counts.
//   - typed fields (float_data, int32_data for FLOAT16 ..., int64_data, ...)
//     become raw_data, little-endian, element for element (keep_typed off).
//   - external: data_location EXTERNAL with `location`, `offset` and
//     `length` entries; the payload goes to the external sink at an offset
//     that is a multiple of external_align.
// Tensors left as they are: STRING tensors, tensors whose payload does not
// validate (tensor_storage.hpp), and a singular tensor field (attribute `t`,
// a sparse tensor's `values`) that occurs more than once in its message,
// since protobuf merges those occurrences. Everything else, unknown fields
// included, is copied byte for byte. An EXTERNAL tensor that moves
// (external_location, internalize) is fetched through `source` even when it
// has no elements, as every reader resolves it: a reference the source
// refuses fails the pack with its error (no source: invalid_argument).
//
// Edits (edit_options) change the model's own fields on the way; a rename
// replaces each renamed string where it is (check_renames for its errors).
//
// Errors (nothing more is written after one): the wire errors of a
// malformed model, those of fetching an external payload, message_too_large
// when the model would exceed 2 GiB - 1 bytes (libprotobuf's limit) without
// allow_over_2gib, invalid_argument for alignments that are not powers of
// two or an external sink missing when one is needed, and whatever a sink
// returns (io_write_failed from fd_sink, buffer_too_small from memory_sink).
#ifndef ONNXVIEW_WRITE_HPP
#define ONNXVIEW_WRITE_HPP

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "onnxview/error.hpp"
#include "onnxview/file.hpp"
#include "onnxview/options.hpp"
#include "onnxview/sink.hpp"
#include "onnxview/tensor_storage.hpp"

namespace onnxview {

// The field number pack_model's alignment padding uses in TensorProto: the
// largest protobuf allows, so that no ONNX release will give it a meaning.
constexpr std::uint32_t pack_padding_field = (1u << 29) - 1;

// One change of the model's metadata_props: set `key` to `value` (an entry
// with that key is replaced; the new one comes after the others), or remove
// every entry with that key.
struct metadata_change {
    std::string_view key;
    std::string_view value;
    bool remove = false;
};

// One dimension of a main-graph input's or output's tensor shape, set to a
// number (dim_value) or a name (dim_param); its denotation is kept.
struct dim_change {
    std::string_view value_name;  // the graph input or output
    std::uint64_t axis = 0;       // the dim's position in the shape
    bool is_param = false;
    std::int64_t value = 0;       // dim_value, when !is_param
    std::string_view param;       // dim_param, when is_param
};

// Why extract_request was refused (extract_report::problem).
enum class extract_problem : std::uint8_t {
    none = 0,
    no_outputs,       // no output names given
    no_graph,         // the model's graph is absent, or occurs more than once (protobuf would merge the occurrences)
    unknown_name,     // `name` is no graph input, output, value_info, initializer or node output of the main graph
    repeated_name,    // `name` is given twice among the inputs, or twice among the outputs
    missing_input,    // `name`, a graph input that is not among the inputs given, is needed (by `node`)
    undefined_value,  // `name` is needed (by `node`) but nothing in the main graph defines it
    input_computed,   // `name` is given as an input, yet `node`, needed for the outputs, computes it
    no_type,          // `name` has no ValueInfoProto (graph input, output or value_info) with a complete
                      // type (a tensor type with elem_type and shape, ...) to become an input or output of
                      // the result: onnx.checker requires one
};

// What pack_model extracted, or why it refused (extract_request::report).
struct extract_report {
    extract_problem problem = extract_problem::none;
    // Views into the model's or the request's bytes.
    std::string_view name;  // the value the problem is about
    std::string_view node;  // the node that needs or computes it (its name, else its first output), if any
    std::uint64_t nodes = 0;         // main-graph nodes kept
    std::uint64_t nodes_before = 0;  // main-graph nodes of the input
    std::uint64_t initializers = 0;  // dense and sparse initializers kept
    std::uint64_t functions = 0;     // model-local functions kept
    std::uint64_t opsets = 0;        // opset_import entries kept
};

// A cut of the main graph (`onnxview edit --extract`): the model that
// computes `outputs` from `inputs`, as onnx.utils.extract_model cuts it.
//   - nodes: those that compute an output, found backwards from the outputs
//     and stopping at the inputs given, in their original order; a node
//     whose subgraphs (If, Loop, Scan bodies) use outer-scope values also
//     needs their producers (shadowing respected).
//   - initializers, sparse initializers, value_info and quantization
//     annotations: those whose name a kept node reads or writes (in its
//     subgraphs too); an initializer that is itself an output stays.
//   - graph inputs and outputs: one per name, in the order given, each the
//     ValueInfoProto of that name copied as it is, from graph.input, then
//     value_info, then graph.output (for an output: graph.output first); its
//     type must be complete, as onnx.checker wants of main-graph inputs and
//     outputs. They come after the graph's other fields. Before IR version
//     4, kept initializers that were graph inputs stay inputs too, after
//     the ones given (onnx.checker requires it).
//   - functions: those a kept node calls (domain, name, overload), and the
//     ones their nodes call, transitively, in the model's order.
//   - opset_import: the default domain ("" or "ai.onnx") always, and the
//     domain of every kept node, of the nodes in its subgraphs and of the
//     nodes of kept functions (onnx.checker and onnxruntime need a
//     model-level import for each).
// Everything else (ir_version, metadata, graph name, doc strings,
// training_info, unknown fields, payloads) is carried over as it is. The
// selection is computed before writing, over views of the model: memory
// from options::memory, linear in the number of names. Errors:
// invalid_argument (no_outputs, no_graph, repeated_name, input_computed,
// no_type) or not_found (unknown_name, missing_input, undefined_value), the
// problem and its names in `report`.
struct extract_request {
    const std::string_view* inputs = nullptr;
    std::size_t input_count = 0;
    const std::string_view* outputs = nullptr;
    std::size_t output_count = 0;
    extract_report* report = nullptr;  // filled in by pack_model when not null
};

// One value name of the main graph renamed everywhere it is referenced:
// graph inputs, outputs and value_info, initializer names (TensorProto.name;
// the payload is copied as it is), sparse initializers (their values' name),
// node inputs and outputs, quantization_annotation (tensor_name and the
// values of quant_parameter_tensor_names), and the references inside
// subgraphs (attributes `g` and `graphs`, at any depth) and training graphs
// (TrainingInfoProto initialization and algorithm: the main graph's scope
// reaches them). A graph that declares old_name itself (as an input, an
// initializer, a sparse initializer or a node output) shadows it: in that
// graph and those nested in it, old_name means the inner value and stays.
// Binding keys of training_info name main-graph initializers and are
// renamed; binding values name a training graph's values and follow that
// graph's scope. Model-local functions have their own scope: untouched.
// Each string is replaced where it is, so field order is kept.
// All changes apply at once; see check_renames() for what is refused.
struct name_change {
    std::string_view old_name;
    std::string_view new_name;
};

// Why edit_options::toposort refused: the nodes of a graph or function
// depend on each other in a cycle. Views into the model.
struct toposort_report {
    bool cycle = false;
    std::string_view node;   // a node on the cycle: its name, else its first output
    std::string_view value;  // the value of the cycle that node makes
};

// A tensor without a payload given one again, as an external-data
// reference (`location`, `offset`, `length` entries, data_location
// EXTERNAL): how the put-back of a proxy restores the weights a tool
// dropped (plan_rebinds(), onnxview/rebind.hpp, finds them).
struct tensor_rebind {
    std::uint64_t tensor = 0;   // where the TensorProto's content starts in the edited model's bytes
    std::string_view location;  // relative to the edited model's directory
    std::uint64_t offset = 0;
    std::uint64_t length = 0;
};

// Changes of a model's own fields, made while it streams through
// (`onnxview edit`); tensors are left to pack_options. All-zero: none.
struct edit_options {
    // Every doc_string field, in every message, is left out.
    bool strip_doc_strings = false;
    // ModelProto.producer_name and producer_version, replaced when set.
    bool set_producer_name = false;
    bool set_producer_version = false;
    std::string_view producer_name;
    std::string_view producer_version;
    const metadata_change* metadata = nullptr;
    std::size_t metadata_count = 0;
    const dim_change* dims = nullptr;
    std::size_t dim_count = 0;
    // Applied at once; each name compared with every change, so the cost
    // is the model's names times rename_count. dims name the inputs and
    // outputs by their names in the input.
    const name_change* renames = nullptr;
    std::size_t rename_count = 0;
    // Several renames may give one new name: their values become one
    // (how merge_models feeds two inputs from one output). The caller sees
    // to it that at most one of them stays declared.
    bool renames_join = false;
    // Non-empty: prefixed to every name onnx.compose.add_prefix prefixes,
    // in one pass: each non-empty value name of the main graph (where
    // renames replace them, subgraphs and training graphs included, where
    // they do not declare the name themselves: compose.add_prefix leaves
    // those references behind), the names of the main graph's nodes, and
    // the names of model-local functions with the op_type of every node
    // calling one (same domain, name and overload). Linear in the model's
    // names times log of a subgraph's declarations. Refused where a
    // subgraph declares a prefixed name that it also reads from outside
    // (invalid_argument there: the reference would be captured). Not with
    // renames nor extract (invalid_argument).
    std::string_view prefix;
    // The main graph cut down to a subgraph (null: none). Not with renames
    // (invalid_argument): make them in a second edit.
    const extract_request* extract = nullptr;
    // The nodes of every graph (the main graph, subgraphs, training graphs)
    // and function in a topological order: each after the nodes making the
    // values it reads, as inputs or from inside its subgraphs; of the nodes
    // ready, the earliest in the input first (a graph in order keeps it).
    // Each node is copied whole, only its place changes. A cycle is refused
    // (invalid_argument at a node on it, described in `cycle` when set).
    // Not with extract (invalid_argument): sort in a second edit.
    bool toposort = false;
    toposort_report* cycle = nullptr;
    // Tensors given a reference, sorted by `tensor`. Only a tensor that has
    // no payload (no raw_data, typed data or external_data entries) is
    // changed: its fields are kept and the reference appended. One named
    // that is not such a tensor is an error (invalid_argument at it), as is
    // a rebind naming no tensor of the model.
    const tensor_rebind* rebinds = nullptr;
    std::size_t rebind_count = 0;
};

// The metadata_props key under which a weight-less proxy records its
// source (pack_options::reference).
constexpr std::string_view reference_source_key = "onnxview.reference_source";

// The file a weight-less proxy references, as pack_options::reference
// takes it and find_reference_source() reads it back: its location
// (relative to the proxy's directory) and its stamp when the proxy was
// made. Recorded in metadata_props as the value
// "size=N;mtime_ns=M;location=NAME" (mtime_ns may be negative).
struct reference_source {
    std::string_view location;
    file_stamp stamp{};
};

// What pack_model changes. All-zero means the defaults.
struct pack_options {
    // Tensors of at least this many payload bytes are aligned, or moved to
    // the external sink. 0: 1024 (onnx's convert_model_to_external_data).
    std::uint64_t threshold = 0;
    // raw_data of such tensors kept in the model starts at a multiple of
    // this in the output (a power of two). 0: 64; 1: no alignment.
    std::uint64_t inline_align = 0;
    // Non-empty: tensors of at least `threshold` bytes go to the external
    // sink, referenced by this location (relative to the model's directory);
    // smaller external tensors come back into the model.
    std::string_view external_location;
    // Payload offsets in the external sink are multiples of this (a power
    // of two). 0: 4096.
    std::uint64_t external_align = 0;
    // With an external_location: a payload identical to an earlier one
    // (same data type, dims and bytes; raw_data or external payloads)
    // shares its range of the external file. onnx.load, onnx.checker and
    // onnxruntime read such models (tests/oracle/pack_oracle.py).
    bool dedupe = false;
    // External tensors come back into the model (ignored with an
    // external_location).
    bool internalize = false;
    // Typed fields stay as they are (not converted to raw_data).
    bool keep_typed = false;
    // Write a model over 2 GiB - 1 bytes, which libprotobuf cannot read.
    bool allow_over_2gib = false;
    // The model's own file open for reading (read_descriptor, file.hpp):
    // ranges of it of 32 KiB or more (payloads, tensors copied as they are)
    // are then copied from it by the sinks that can (write_sink::copy)
    // without passing through memory. Null: none.
    const int* source_fd = nullptr;
    // Called with ranges of the input that the walk is done with: of the
    // model's bytes, every 4 MiB of progress (each range written or
    // counted, and the bytes before it), and each external payload in
    // pieces of 4 MiB as they are written: the moment to drop their mapped
    // pages (release_pages,
    // file.hpp). Ranges may be read again later (dropped pages are read
    // back). May be null.
    void (*payload_written)(void* user, const char* data, std::size_t size) = nullptr;
    // Called after each payload, and once at the end, with the bytes written
    // so far and the bytes to write in all (model and external file). May
    // be null.
    void (*progress)(void* user, std::uint64_t done, std::uint64_t total) = nullptr;
    void* user = nullptr;  // passed to payload_written and progress
    // Reference mode (`onnxview pack --reference`), when location is set:
    // a weight-less proxy whose large weights stay in the input's own
    // bytes. Tensors that onnx.load's external-data loader visits (dense
    // initializers and attribute tensors, `t` and `tensors`, of the main
    // graph and of its subgraphs at any depth) with at least `threshold`
    // payload bytes lying in `model` in raw_data layout (raw_data, or
    // float_data / double_data in one packed run: little-endian fixed-width
    // entries), INT64 excepted (shape inference reads those as data), become
    // data_location EXTERNAL with `location` reference.location, `offset`
    // the payload's offset in `model` (which must therefore be the whole
    // file that location names) and `length` its size; no payload byte is
    // read or written. Every other tensor is copied as it is (external ones
    // keep their references; other typed fields stay typed; no alignment).
    // metadata_props gets the entry reference_source_key (one with that key
    // is replaced) recording `reference`. Not with external_location,
    // internalize or dedupe (invalid_argument), nor a location over 4095
    // bytes.
    // Outside reference mode, a pack that moves every external payload
    // (internalize, external_location) drops the reference_source_key
    // entries: the output references no source any more.
    reference_source reference{};
    // Edits of the model's own fields (null: none). With edits, the
    // tensor options above still apply; set inline_align 1 and keep_typed
    // to leave tensors as they are.
    const edit_options* edits = nullptr;
    // Limits and memory: max_message_depth, memory.
    options read_options{};
};

struct pack_stats {
    std::uint64_t model_bytes = 0;       // written to the model sink
    std::uint64_t external_bytes = 0;    // written to the external sink (padding included)
    std::uint64_t tensors = 0;           // TensorProtos seen
    std::uint64_t aligned = 0;           // re-emitted with padding before raw_data
    std::uint64_t converted = 0;         // typed fields turned into raw_data
    std::uint64_t externalized = 0;      // now in the external sink
    std::uint64_t internalized = 0;      // were external, now raw_data in the model
    std::uint64_t deduplicated = 0;      // external, sharing an earlier tensor's range (dedupe)
    std::uint64_t referenced = 0;        // now references into the input (pack_options::reference)
    std::uint64_t dims_set = 0;          // dimensions edit_options::dims changed
    std::uint64_t names_renamed = 0;     // strings edit_options::renames replaced
    std::uint64_t nodes_moved = 0;       // nodes edit_options::toposort placed elsewhere
    std::uint64_t rebound = 0;           // tensors edit_options::rebinds gave a reference
    std::uint64_t kept = 0;              // copied as they were
    std::uint64_t external_kept = 0;     // of those, external: their location still relative to the input's directory
    std::uint64_t unreadable = 0;        // of the kept ones, with a payload that does not validate (tensor_storage.hpp)
    std::uint32_t passes = 0;            // measuring passes before the writing one
};

// Writes the model `model` (a whole ModelProto) to `model_out`, tensors
// changed as `po` asks; external payloads of the input are fetched through
// `source` (null: the model has none, or they are kept as references).
// `external_out` receives the external file when po.external_location is
// set. Linear in the model's bytes; see the top of this file.
error pack_model(std::string_view model, const external_payload_source* source, const pack_options& po,
                 const write_sink& model_out, const write_sink* external_out, pack_stats* stats = nullptr) noexcept;

// The source record of a weight-less proxy: the last metadata_props entry
// of `model` (a whole ModelProto) with key reference_source_key, its
// location a view into `model`. Errors: not_found when there is none,
// external_bad_entry (offset: the entry) when its value is not
// "size=N;mtime_ns=M;location=NAME" with decimal numbers and a non-empty
// NAME, and those of reading the ModelProto's own fields. Linear in those
// fields (payloads are skipped).
result<reference_source> find_reference_source(std::string_view model, const options& opts = {}) noexcept;

// Why a set of name changes cannot be made (check_renames).
enum class rename_problem : std::uint8_t {
    none,
    empty_old_name,     // "" is the name of an absent optional input, not a value
    empty_new_name,
    old_name_repeated,  // two changes of one name
    new_name_repeated,  // two names changed to one
    chained,            // a new_name is another change's old_name (changes apply at once)
    not_in_main_graph,  // old_name is not a value name of the main graph
    new_name_in_use,    // new_name is already a name of the main graph, or of a
                        // subgraph or training graph the change reaches (it
                        // would capture the references renamed there)
};

// One sentence for people, to follow a change's OLD=NEW, e.g. "renames a
// name that is not a value name of the main graph". Never null.
const char* rename_problem_message(rename_problem p) noexcept;

struct rename_check {
    rename_problem problem = rename_problem::none;
    std::size_t change = 0;    // the refused change: its index in edit_options::renames
    std::size_t other = 0;     // old_name_repeated, new_name_repeated, chained: the other change
    std::uint64_t offset = 0;  // new_name_in_use: the byte of the model where the name is
};

// Whether the renames of `e` can be made on `model` (a whole ModelProto):
// ok with check->problem set (none when they can), or the error of reading
// a malformed model. pack_model makes the same check and refuses (before
// writing anything) with invalid_argument, or not_found for
// not_in_main_graph, offset as in rename_check; this gives the details.
// Linear in the model's metadata (payloads are skipped) times the changes.
error check_renames(std::string_view model, const edit_options& e, rename_check* check,
                    const options& opts = {}) noexcept;

// Whether two models hold the same tensors, in the same order (the tensors
// pack_model visits): same name, data type, dims and element bit patterns,
// wherever each payload lives. ok, or not_found at the first difference
// (offset: that tensor in `b`), or the error of reading either. For
// `onnxview pack --verify`. Linear in the payloads.
error same_tensors(std::string_view a, const external_payload_source* source_a, std::string_view b,
                   const external_payload_source* source_b, const options& opts = {},
                   std::uint64_t* compared = nullptr) noexcept;

}  // namespace onnxview

#endif  // ONNXVIEW_WRITE_HPP
