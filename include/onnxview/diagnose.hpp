// onnxview/diagnose.hpp - what a file is when it is not an ONNX model.
//
// A parse error ("invalid wire type at byte 0") says the bytes are not a
// ModelProto; it does not say why. Most such files are something else that
// ended up under a .onnx name: a Git LFS pointer, a web page the download
// saved, an archive to extract first, a model of another framework, another
// ONNX message (a tensor, graph, sequence, optional or map saved alone), or
// a model cut short by an interrupted copy. diagnose() tells which, by
// content only (never by file name), in one line a person can act on:
//
//   onnxview::diagnosis d = onnxview::diagnose(bytes.data(), bytes.size());
//   if (!d.healthy()) std::puts(d.line);   // "a Git LFS pointer, not the model (...)"
//
// No false positives: bytes that verify as a ModelProto with a graph are
// always `onnx_model`, whatever else they might look like; every other kind
// is tried only after that. Signatures come from each format's own
// specification (see the comments in src/diagnose/signatures.cpp).
//
// Cost: one verify() of the whole buffer as a ModelProto (linear in its
// fields; payloads skipped), then, for bytes that fail, O(1) signature
// checks, a bounded scan of the first 4 KiB for text, a walk of a zip's
// central directory and, for other protobuf messages, one more verify().
// Allocates nothing; the diagnosis holds its line and points into `data`
// (detail), so it is valid while the bytes are.
#ifndef ONNXVIEW_DIAGNOSE_HPP
#define ONNXVIEW_DIAGNOSE_HPP

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "onnxview/error.hpp"
#include "onnxview/options.hpp"

namespace onnxview {

// What the bytes are. Values are stable; new kinds are appended.
enum class diagnosis_kind : std::uint8_t {
    onnx_model,        // verifies as a ModelProto and has a graph
    empty,             // 0 bytes
    truncated,         // a ModelProto whose enclosing length runs past the end
    zero_filled_tail,  // a ModelProto followed by, or cut off by, a run of zero bytes
    tensor_proto,      // a valid onnx.TensorProto (a test input, a saved tensor)
    graph_proto,       // a valid onnx.GraphProto
    model_without_graph,  // parses as a ModelProto but has no graph
    git_lfs_pointer,
    html,
    xml,
    json,
    text,              // other text (UTF-8 without control bytes)
    gzip,
    bzip2,
    xz,
    zstd,
    seven_zip,
    tar,
    zip,               // any other zip archive
    zip_onnx,          // a zip holding a .onnx file: tf2onnx's --large_model output
    zip_pytorch,       // a torch.save() zip checkpoint (entries like archive/data.pkl)
    zip_numpy,         // a NumPy .npz archive (.npy entries)
    onnxruntime_ort,   // an ONNX Runtime .ort flatbuffer
    tflite,
    safetensors,
    gguf,
    numpy,
    hdf5,
    pytorch_pickle,    // a legacy (pre-1.6) torch.save() pickle
    pickle,            // another Python pickle
    tf_graphdef,       // a TensorFlow GraphDef (frozen .pb)
    tf_saved_model,    // a TensorFlow SavedModel's saved_model.pb
    coreml,            // a Core ML .mlmodel
    malformed,         // none of the above: damaged bytes, or a format not listed here
    sequence_proto,    // a valid onnx.SequenceProto of two or more elements
    // a valid onnx.OptionalProto or a SequenceProto of at most one element:
    // the two messages have the same wire form, so such bytes are both
    sequence_or_optional_proto,
    map_proto,         // a valid onnx.MapProto
};

// Short stable identifier, e.g. "git_lfs_pointer". Never null.
const char* diagnosis_kind_name(diagnosis_kind k) noexcept;

struct diagnosis {
    diagnosis_kind kind = diagnosis_kind::malformed;
    // Why the bytes are not a ModelProto with a graph: verify()'s error (ok
    // when they verify but have no graph, and for onnx_model).
    error model_error;
    // truncated (and zero_filled_tail cut inside a field): the least size the
    // enclosing length prefixes need; present is the buffer's size.
    std::uint64_t expected_size = 0;
    // zero_filled_tail: offset of the first byte of the trailing zero run.
    std::uint64_t zero_tail_offset = 0;
    // git_lfs_pointer: the size the pointer names; gguf: the version;
    // safetensors: the header length; pickle: the protocol; coreml: the
    // specification version; tensor_proto: the data type; graph_proto: the
    // node count; sequence_proto and sequence_or_optional_proto: the element
    // count; map_proto: the entry count; onnx_model and model_without_graph: ir_version.
    std::uint64_t number = 0;
    // Into the bytes: git_lfs_pointer: the oid ("sha256:..."); zip kinds: the
    // entry that decided; tar: the first entry; tf_graphdef: the first op;
    // text kinds: the first line (at most 120 bytes); tensor_proto,
    // graph_proto and the data messages: the name (empty when absent).
    std::string_view detail;
    // One line for people, NUL-terminated, without a trailing newline. For
    // ONNX messages other than a model it ends with the command that reads
    // the file, FILE standing for its path.
    char line[384] = {};

    bool healthy() const noexcept { return kind == diagnosis_kind::onnx_model; }
};

// Classifies [data, data + size). `opts` gives the depth limit and schema
// release of the verify() passes. Never fails: bytes of no known kind are
// `malformed`, with the ModelProto error in model_error.
diagnosis diagnose(const void* data, std::size_t size, const options& opts = {}) noexcept;

}  // namespace onnxview

#endif  // ONNXVIEW_DIAGNOSE_HPP
