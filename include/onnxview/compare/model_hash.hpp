// onnxview/compare/model_hash.hpp - a digest of what a model computes, the same for
// every layout of the same model.
//
// model_digest() hashes the meaning of a model (XXH3, 128 bits) and none of
// its layout: inline or external payloads, raw_data or typed fields, packed
// or unpacked repeated numbers, field order, non-minimal varints, unknown
// fields and the order of initializers give the same digest; any change of
// ir_version, opset imports, nodes, attributes, graph inputs and outputs
// (types and shapes), tensor types, shapes or element bits, sparse
// initializers, functions or training_info gives another. What is left out
// (doc strings, producer, metadata, value_info, ...) is listed in
// docs/diff.md, with the exact definition.
//
//   onnxview::model_file mf = *onnxview::model_file::open("model.onnx");
//   onnxview::external_payload_source ext = mf.external();
//   onnxview::result<onnxview::digest128> d = onnxview::model_digest(mf.model(), &ext);
//   char hex[33];
//   d->to_hex(hex);
//
// Part of the optional library `onnxview_compare` (src/compare/), built when
// libxxhash is found; the core library does not depend on it.
//
// Cost: one pass over the model's metadata and every tensor payload, read in
// place (raw and external bytes) or converted through a 4 KiB buffer (typed
// fields): nothing the size of the weights is held, and with
// digest_options::payload_hashed the caller can give each payload's pages
// back as the walk goes; with digest_options::payload_file the payloads are
// copied with pread instead, and never mapped. Linear in the file size.
#ifndef ONNXVIEW_COMPARE_MODEL_HASH_HPP
#define ONNXVIEW_COMPARE_MODEL_HASH_HPP

#include <cstddef>
#include <cstdint>

#include "onnxview/error.hpp"
#include "onnxview/model.hpp"
#include "onnxview/model_file.hpp"
#include "onnxview/tensor_storage.hpp"

namespace onnxview {

// A 128-bit digest (XXH3-128: high and low halves).
struct digest128 {
    std::uint64_t high = 0;
    std::uint64_t low = 0;

    // 32 lowercase hex digits, high half first, and a NUL: out needs 33 bytes.
    void to_hex(char* out) const noexcept;
    friend bool operator==(const digest128& a, const digest128& b) noexcept {
        return a.high == b.high && a.low == b.low;
    }
    friend bool operator!=(const digest128& a, const digest128& b) noexcept { return !(a == b); }
    friend bool operator<(const digest128& a, const digest128& b) noexcept {
        return a.high != b.high ? a.high < b.high : a.low < b.low;
    }
};

// What the digests read.
struct digest_options {
    // false: no tensor payload is read, and a tensor's digest is that of its
    // data type, dims and segment only: the digest of a model's graph
    // without its weights (`onnxview diff --weights=none`).
    bool values = true;
    // false: names leave the digest. Node and graph names are not hashed,
    // and each value name stands as the number of its first appearance
    // (graph inputs, outputs, then node inputs and outputs in order;
    // initializers by the number their readers gave them): two models that
    // differ only in names have the same digest (`onnxview diff
    // --match=auto` checks renames with it). Training bindings keep names.
    bool names = true;
    // Called with each piece of at most 8 MiB of a raw or external payload
    // once it is hashed (from 2 MiB before it, mapping_fault_span, within
    // the payload): the moment to give its pages back (as
    // write_options::payload_written is for pack), so that hashing a model of
    // many GiB keeps a small resident set. Bytes copied through
    // payload_file are handed here too: reading the metadata around them
    // maps whole folios of them all the same. May be null.
    void (*payload_hashed)(void* user, const char* data, std::size_t size) = nullptr;
    void* user = nullptr;  // passed to payload_hashed
    // The model_file the payloads come from, opened with
    // options::keep_descriptor: raw and external payload bytes held in its
    // files are then copied with mapped_file::read_at (pread) into a
    // 256 KiB buffer and hashed there instead of where they are mapped,
    // which on a file in the page cache takes a fifth of the time
    // (docs/diff.md). May be null; the digest is the same either way.
    const model_file* payload_file = nullptr;
    // Called by model_digest with each dense tensor's digest (initializers,
    // Constant and other tensor attributes, in every scope; the parts of
    // sparse tensors are not), so that a caller who needs them too
    // (`onnxview diff`) does not read the payloads a second time. May be null.
    void (*tensor_hashed)(void* user, const tensor_view& t, const digest128& d) = nullptr;
    void* tensor_user = nullptr;  // passed to tensor_hashed
};

// A digest_options::payload_hashed whose `user` is the const mapped_file*
// the payloads are in: each piece's pages given back (release_payload).
void release_hashed_payload(void* user, const char* data, std::size_t size) noexcept;

// `base` with what opening a model for reading every payload once wants
// (onnxview hash and diff, Python's hash() and diff()): model_reads::metadata,
// so that the pages of its metadata are private copies and reading a
// tensor's header maps none of the weights around it, and keep_descriptor,
// so that reading_payloads_once copies the payloads with pread. A 1.5 GB
// model then hashes in about the time `cat` reads it, in a few MiB
// (docs/diff.md).
inline options digest_open_options(options base = {}) noexcept {
    base.reads = model_reads::metadata;
    base.keep_descriptor = true;
    base.drop_verified_pages = false;  // it would drop the copies
    return base;
}

// `base` set up for reading every payload of `mf` once, front to back, with
// a small resident set: payload_file is `mf` (copied with pread when `mf`
// was opened with options::keep_descriptor, as onnxview hash and diff do),
// and pages that are mapped all the same (files without a descriptor) are
// given back once hashed (release_hashed_payload).
digest_options reading_payloads_once(const model_file& mf, digest_options base = {}) noexcept;

// The digest of one TensorProto's content: data type, dims, segment and
// element values in raw_data layout (strings with their lengths), wherever
// the payload is; its name, doc_string and metadata are not part of it.
// EXTERNAL payloads are read through `ext`. Errors: the tensor's payload
// errors (tensor_data::make), and those of `ext`.
result<digest128> tensor_digest(const tensor_view& t, const external_payload_source* ext = nullptr,
                                const digest_options& opts = {}) noexcept;

// The digest of a SparseTensorProto: dims, then the digests of its values
// and indices.
result<digest128> sparse_tensor_digest(const sparse_tensor_view& s, const external_payload_source* ext = nullptr,
                                       const digest_options& opts = {}) noexcept;

// The digest of what model `m` computes (docs/diff.md). Errors: a view's
// error, a tensor's payload error, and depth_exceeded when subgraphs nest
// deeper than walk_scopes() goes (onnxview/traverse.hpp).
result<digest128> model_digest(const model_view& m, const external_payload_source* ext = nullptr,
                               const digest_options& opts = {}) noexcept;

}  // namespace onnxview

#endif  // ONNXVIEW_COMPARE_MODEL_HASH_HPP
