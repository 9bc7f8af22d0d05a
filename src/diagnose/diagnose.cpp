// diagnose(): the order of the questions, and the ModelProto ones - is it a
// model, a model without a graph, a model cut short or zero-filled.
//
// The order is what keeps false positives out: "is this a ModelProto with a
// graph?" is asked first and decides alone; every other kind is a guess
// about bytes already known not to be a usable model. Signatures come next
// (they are exact); then other ONNX messages and other frameworks' protobuf
// files, which must verify completely; a zero-filled tail or a truncation
// only when nothing else fits, since any damaged model might look like one.
#include "onnxview/diagnose.hpp"

#include "line.hpp"
#include "onnxview/data_types.hpp"
#include "onnxview/enums.hpp"
#include "onnxview/model.hpp"
#include "onnxview/tensor_storage.hpp"
#include "onnxview/verify.hpp"

namespace onnxview {

const char* diagnosis_kind_name(diagnosis_kind k) noexcept {
    switch (k) {
        case diagnosis_kind::onnx_model: return "onnx_model";
        case diagnosis_kind::empty: return "empty";
        case diagnosis_kind::truncated: return "truncated";
        case diagnosis_kind::zero_filled_tail: return "zero_filled_tail";
        case diagnosis_kind::tensor_proto: return "tensor_proto";
        case diagnosis_kind::graph_proto: return "graph_proto";
        case diagnosis_kind::model_without_graph: return "model_without_graph";
        case diagnosis_kind::git_lfs_pointer: return "git_lfs_pointer";
        case diagnosis_kind::html: return "html";
        case diagnosis_kind::xml: return "xml";
        case diagnosis_kind::json: return "json";
        case diagnosis_kind::text: return "text";
        case diagnosis_kind::gzip: return "gzip";
        case diagnosis_kind::bzip2: return "bzip2";
        case diagnosis_kind::xz: return "xz";
        case diagnosis_kind::zstd: return "zstd";
        case diagnosis_kind::seven_zip: return "7z";
        case diagnosis_kind::tar: return "tar";
        case diagnosis_kind::zip: return "zip";
        case diagnosis_kind::zip_onnx: return "zip_onnx";
        case diagnosis_kind::zip_pytorch: return "zip_pytorch";
        case diagnosis_kind::zip_numpy: return "zip_numpy";
        case diagnosis_kind::onnxruntime_ort: return "onnxruntime_ort";
        case diagnosis_kind::tflite: return "tflite";
        case diagnosis_kind::safetensors: return "safetensors";
        case diagnosis_kind::gguf: return "gguf";
        case diagnosis_kind::numpy: return "numpy";
        case diagnosis_kind::hdf5: return "hdf5";
        case diagnosis_kind::pytorch_pickle: return "pytorch_pickle";
        case diagnosis_kind::pickle: return "pickle";
        case diagnosis_kind::tf_graphdef: return "tf_graphdef";
        case diagnosis_kind::tf_saved_model: return "tf_saved_model";
        case diagnosis_kind::coreml: return "coreml";
        case diagnosis_kind::sequence_proto: return "sequence_proto";
        case diagnosis_kind::sequence_or_optional_proto: return "sequence_or_optional_proto";
        case diagnosis_kind::map_proto: return "map_proto";
        case diagnosis_kind::malformed: return "malformed";
    }
    return "malformed";
}

namespace diagnosis_detail {
namespace {

using wire::wire_type;

bool is_model_with_graph(const char* p, std::size_t n, const options& opts, error& e,
                         std::uint64_t& ir_version) noexcept {
    e = verify(p, n, schema::msg_ModelProto, opts);
    if (e) return false;
    const model_view m = parse_model(p, n, opts);
    ir_version = static_cast<std::uint64_t>(m.ir_version());
    return m.ok() && m.has_graph();
}

// ---- a model cut short ----------------------------------------------------

// ModelProto's own fields with the wire type each takes (onnx.proto):
// ir_version 1, producer_name 2, producer_version 3, domain 4,
// model_version 5, doc_string 6, graph 7, opset_import 8,
// metadata_props 14, training_info 20, functions 25, configuration 26.
bool is_model_field(std::uint32_t number, wire_type t) noexcept {
    switch (number) {
        case 1:
        case 5: return t == wire_type::varint;
        case 2: case 3: case 4: case 6: case 7: case 8: case 14: case 20: case 25: case 26:
            return t == wire_type::length_delimited;
        default: return false;
    }
}

// When the top-level fields of a ModelProto are well formed up to one whose
// length (or varint) runs past the end, the size that field needs. The
// fields before it must be ModelProto fields and verify as one.
bool truncation(const char* p, std::size_t n, const options& opts, std::uint64_t& expected) noexcept {
    const char* q = p;
    const char* end = p + n;
    while (q != end) {
        const char* tag = q;
        std::uint32_t number = 0;
        wire_type type = wire_type::varint;
        const errc te = wire::decode_tag(q, end, number, type);
        if (te == errc::truncated) {
            expected = n + 1;
            end = tag;
            break;
        }
        if (te != errc::ok || !is_model_field(number, type)) return false;
        std::uint64_t v = 0;
        const errc ve = wire::decode_varint(q, end, v);
        if (ve == errc::truncated) {
            expected = n + 1;
            end = tag;
            break;
        }
        if (ve != errc::ok) return false;
        if (type == wire_type::varint) continue;
        const auto remaining = static_cast<std::uint64_t>(end - q);
        if (v > remaining) {
            const auto payload_at = static_cast<std::uint64_t>(q - p);
            if (v > ~std::uint64_t(0) - payload_at) return false;
            expected = payload_at + v;
            end = tag;  // what comes before must be a well-formed ModelProto
            break;
        }
        q += v;
    }
    if (end == p + n) return false;  // nothing ran past the end
    return !verify(p, static_cast<std::size_t>(end - p), schema::msg_ModelProto, opts);
}

// Trailing zero bytes: a preallocated file the download never filled, or
// padding after a complete model. At least 16 of them, and the parse must
// fail inside them on a zero tag (field number 0), so a model whose last
// tensor happens to end in zeros is never taken for one.
bool zero_filled_tail(const char* p, std::size_t n, const options& opts, error e, diagnosis& d) noexcept {
    std::size_t z = n;
    while (z > 0 && p[z - 1] == 0) --z;
    const std::size_t zeros = n - z;
    if (zeros < 16 || e.code != errc::bad_field_number || e.offset < z || e.offset >= n) return false;
    d.kind = diagnosis_kind::zero_filled_tail;
    d.zero_tail_offset = z;
    error prefix_error;
    std::uint64_t ir_version = 0;
    line_builder l(d);
    if (is_model_with_graph(p, static_cast<std::size_t>(e.offset), opts, prefix_error, ir_version)) {
        d.zero_tail_offset = e.offset;
        l.text("zero-filled tail: ").number(n - e.offset).text(" zero bytes follow a complete model at byte ");
        l.number(e.offset).text("; remove them (truncate -s ").number(e.offset).text(" FILE)");
        return true;
    }
    l.text("zero-filled tail: the last ").number(zeros).text(" bytes (from byte ").number(z);
    l.text(") are zeros; the file was allocated but never completely written (an interrupted download or copy)");
    return true;
}

}  // namespace
}  // namespace diagnosis_detail

diagnosis diagnose(const void* data, std::size_t size, const options& opts) noexcept {
    using namespace diagnosis_detail;
    diagnosis d;
    const char* p = static_cast<const char*>(data);
    if (size == 0 || p == nullptr) {
        d.kind = diagnosis_kind::empty;
        line_builder(d).text("empty file (0 bytes): the download or copy wrote nothing");
        return d;
    }
    std::uint64_t ir_version = 0;
    if (is_model_with_graph(p, size, opts, d.model_error, ir_version)) {
        d.kind = diagnosis_kind::onnx_model;
        d.number = ir_version;
        line_builder(d).text("a valid ONNX model (ir_version ").number(ir_version).text(")");
        return d;
    }
    if (recognize_signature(reinterpret_cast<const unsigned char*>(p), size, d)) return d;
    if (recognize_onnx_message(p, size, opts, d) || recognize_foreign_protobuf(p, size, d)) return d;
    if (d.model_error.ok()) {
        d.kind = diagnosis_kind::model_without_graph;
        d.number = ir_version;
        // Writers emit fields in number order, so a model cut just before its
        // graph (field 7) keeps ir_version (field 1) and loses the rest.
        if (ir_version != 0)
            line_builder(d).text("parses as an onnx.ModelProto but has no graph (ir_version ")
                .number(ir_version)
                .text("): not a usable model, or a copy cut before its graph");
        else
            line_builder(d).text(
                "parses as an onnx.ModelProto with neither ir_version nor graph: another protobuf message, not a model");
        return d;
    }
    if (zero_filled_tail(p, size, opts, d.model_error, d)) return d;
    // verify() calls a top-level length past the end length_out_of_bounds;
    // truncation() tells it from a nested length past its parent's end.
    const errc code = d.model_error.code;
    if ((code == errc::truncated || code == errc::length_out_of_bounds) && truncation(p, size, opts, d.expected_size)) {
        d.kind = diagnosis_kind::truncated;
        line_builder(d).text("truncated: at least ")
            .number(d.expected_size)
            .text(" bytes expected, ")
            .number(size)
            .text(" present; the download or copy was interrupted");
        return d;
    }
    d.kind = diagnosis_kind::malformed;
    line_builder(d).text("not a format onnxview recognizes, and not a well-formed ONNX model: the bytes are damaged");
    return d;
}

}  // namespace onnxview
