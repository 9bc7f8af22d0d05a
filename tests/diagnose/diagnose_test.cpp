// diagnose(): one fixture per kind, built here, with its exact line. Where
// each magic number is documented: src/diagnose/signatures.cpp and
// src/diagnose/foreign_protobuf.cpp (the header comment of each).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "../wire_builder.hpp"
#include "onnxview/diagnose.hpp"

using onnxview::diagnose;
using onnxview::diagnosis;
using onnxview::diagnosis_kind;
using onnxview::testing::wire_builder;

namespace {

// diagnosis::detail points into the bytes: callers that read it keep them.
diagnosis of(const std::string& bytes) { return diagnose(bytes.data(), bytes.size()); }

std::string bytes(const char* s, std::size_t n) { return std::string(s, n); }

wire_builder relu_node() {
    return wire_builder().field_bytes(1, "x").field_bytes(2, "y").field_bytes(4, "Relu");
}

// ModelProto { ir_version: 8, graph { node { Relu x -> y } name: "g" }, opset_import { version: 13 } }
wire_builder graph_builder() { return wire_builder().field_message(1, relu_node()).field_bytes(2, "g"); }

std::string small_model() {
    return wire_builder()
        .field_varint(1, 8)
        .field_message(7, graph_builder())
        .field_message(8, wire_builder().field_varint(2, 13))
        .str();
}

std::string le32(std::uint32_t v) {
    std::string s(4, '\0');
    for (int i = 0; i < 4; ++i) s[i] = static_cast<char>(v >> (8 * i));
    return s;
}
std::string le16(std::uint32_t v) { return le32(v).substr(0, 2); }

// A zip of empty stored entries: local headers, the central directory and
// its end record (APPNOTE.TXT 4.3.7, 4.3.12, 4.3.16).
std::string zip_of(const std::vector<std::string>& names) {
    std::string local, central;
    for (const std::string& name : names) {
        const std::uint32_t at = static_cast<std::uint32_t>(local.size());
        local += "PK\x03\x04" + le16(20) + le16(0) + le16(0) + le16(0) + le16(0) + le32(0) + le32(0) + le32(0) +
                 le16(static_cast<std::uint32_t>(name.size())) + le16(0) + name;
        central += "PK\x01\x02" + le16(20) + le16(20) + le16(0) + le16(0) + le16(0) + le16(0) + le32(0) + le32(0) +
                   le32(0) + le16(static_cast<std::uint32_t>(name.size())) + le16(0) + le16(0) + le16(0) + le16(0) +
                   le32(0) + le32(at) + name;
    }
    const auto n = static_cast<std::uint32_t>(names.size());
    return local + central + "PK\x05\x06" + le16(0) + le16(0) + le16(n) + le16(n) +
           le32(static_cast<std::uint32_t>(central.size())) + le32(static_cast<std::uint32_t>(local.size())) + le16(0);
}

}  // namespace

TEST_CASE("a ModelProto with a graph is a valid model") {
    const diagnosis d = of(small_model());
    CHECK(d.healthy());
    CHECK(d.kind == diagnosis_kind::onnx_model);
    CHECK(d.number == 8);
    CHECK(std::string(d.line) == "a valid ONNX model (ir_version 8)");
}

TEST_CASE("a valid model is valid whatever its last bytes are") {
    // An initializer whose raw_data (the last field) is 64 zero bytes: zeros
    // at the end are not a zero-filled tail when the model parses.
    const std::string zeros(64, '\0');
    const wire_builder tensor = wire_builder().packed_varint(1, {16}).field_varint(2, 1).field_bytes(8, "w").field_bytes(9, zeros);
    const std::string m = wire_builder().field_varint(1, 8).field_message(7, graph_builder().field_message(5, tensor)).str();
    CHECK(of(m).healthy());
}

TEST_CASE("empty") {
    const diagnosis d = diagnose(nullptr, 0);
    CHECK(d.kind == diagnosis_kind::empty);
    CHECK(std::string(d.line) == "empty file (0 bytes): the download or copy wrote nothing");
}

TEST_CASE("Git LFS pointer") {
    const std::string pointer =
        "version https://git-lfs.github.com/spec/v1\n"
        "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
        "size 12345\n";
    const diagnosis d = of(pointer);
    CHECK(d.kind == diagnosis_kind::git_lfs_pointer);
    CHECK(d.detail == "sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393");
    CHECK(d.number == 12345);
    CHECK(std::string(d.line) ==
          "a Git LFS pointer, not the model (oid 'sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393', "
          "12345 bytes): fetch the file itself with `git lfs pull` in its repository");
    CHECK(d.model_error.code == onnxview::errc::bad_wire_type);  // 'v' is field 14, wire type 6
}

TEST_CASE("Git LFS pointer with CRLF line ends, from the pre-release spec URL") {
    const std::string pointer = "version https://hawser.github.com/spec/v1\r\noid sha256:ab\r\nsize 7\r\n";
    const diagnosis d = of(pointer);
    CHECK(d.kind == diagnosis_kind::git_lfs_pointer);
    CHECK(d.detail == "sha256:ab");
    CHECK(d.number == 7);
    CHECK(std::string(d.line) ==
          "a Git LFS pointer, not the model (oid 'sha256:ab', 7 bytes): fetch the file itself with `git lfs pull` in its repository");
}

TEST_CASE("text documents") {
    SECTION("HTML") {
        const diagnosis d = of("<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body></body></html>\n");
        CHECK(d.kind == diagnosis_kind::html);
        CHECK(std::string(d.line) ==
              "an HTML page, not a model: the download saved a web page (an error or sign-in page, or a page link "
              "such as Hugging Face's /blob/ instead of /resolve/); title 'Sign in'");
    }
    SECTION("XML with an error code") {
        const diagnosis d = of("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>NoSuchKey</Code></Error>");
        CHECK(d.kind == diagnosis_kind::xml);
        CHECK(std::string(d.line) ==
              "an XML document, not a model: likely a server's error response to the download, code 'NoSuchKey'");
    }
    SECTION("JSON") {
        const diagnosis d = of("{\"error\":\"Repository not found\"}");
        CHECK(d.kind == diagnosis_kind::json);
        CHECK(std::string(d.line) ==
              "JSON text, not a model (a server's response or a configuration file): '{\"error\":\"Repository not found\"}'");
    }
    SECTION("other text, UTF-8 included") {
        const std::string text = "  Entrée refusée\r\nsecond line\n";
        const diagnosis d = of(text);
        CHECK(d.kind == diagnosis_kind::text);
        CHECK(d.detail == "Entrée refusée");
        CHECK(std::string(d.line) == "text, not a model; it begins 'Entr??e refus??e'");
    }
}

TEST_CASE("compressed data and archives") {
    struct fixture {
        std::string bytes;
        diagnosis_kind kind;
        const char* line;
    };
    const fixture fixtures[] = {
        {bytes("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 10), diagnosis_kind::gzip,
         "gzip-compressed data, not a model: decompress it first (gunzip)"},
        {"BZh91AY&SY", diagnosis_kind::bzip2, "bzip2-compressed data, not a model: decompress it first (bunzip2)"},
        {bytes("\xfd" "7zXZ\x00\x00\x04", 8), diagnosis_kind::xz,
         "xz-compressed data, not a model: decompress it first (unxz)"},
        {bytes("\x28\xb5\x2f\xfd\x04\x58", 6), diagnosis_kind::zstd,
         "zstd-compressed data, not a model: decompress it first (unzstd)"},
        {bytes("7z\xbc\xaf\x27\x1c\x00\x04", 8), diagnosis_kind::seven_zip,
         "a 7z archive, not a model: extract it first (7z x)"},
        {zip_of({"__MODEL_PROTO.onnx", "weights_0"}), diagnosis_kind::zip_onnx,
         "a zip archive holding '__MODEL_PROTO.onnx' (the tf2onnx --large_model format): unzip it and open that "
         ".onnx; its weights are the files beside it"},
        {zip_of({"archive/data.pkl", "archive/data/0", "archive/version"}), diagnosis_kind::zip_pytorch,
         "a PyTorch checkpoint (torch.save zip, 'archive/data.pkl'), not ONNX: export the model with torch.onnx.export"},
        {zip_of({"a.npy", "b.npy"}), diagnosis_kind::zip_numpy, "a NumPy .npz archive ('a.npy'), not a model"},
        {zip_of({"readme.txt"}), diagnosis_kind::zip,
         "a zip archive (first entry 'readme.txt'), not a model: extract it first (unzip)"},
    };
    for (const fixture& f : fixtures) {
        const diagnosis d = of(f.bytes);
        INFO(d.line);
        CHECK(d.kind == f.kind);
        CHECK(std::string(d.line) == f.line);
    }
    SECTION("a zip read from its local headers when the central directory is cut off") {
        std::string z = zip_of({"model.onnx"});
        z.resize(z.find("PK\x01\x02"));
        const diagnosis d = of(z);
        CHECK(d.kind == diagnosis_kind::zip_onnx);
        CHECK(d.detail == "model.onnx");
    }
    SECTION("tar") {
        std::string t(1024, '\0');
        t.replace(0, 14, "small_cnn.onnx");
        t.replace(257, 6, std::string("ustar\0", 6));
        const diagnosis d = of(t);
        CHECK(d.kind == diagnosis_kind::tar);
        CHECK(std::string(d.line) == "a tar archive (first entry 'small_cnn.onnx'), not a model: extract it first (tar -xf)");
    }
}

TEST_CASE("models of other formats") {
    struct fixture {
        std::string bytes;
        diagnosis_kind kind;
        const char* line;
    };
    const fixture fixtures[] = {
        {bytes("\x14\x00\x00\x00ORTM\x00\x00\x00\x00", 12), diagnosis_kind::onnxruntime_ort,
         "an ONNX Runtime .ort model (flatbuffer 'ORTM'), not a protobuf ONNX model: load it with ONNX Runtime, or "
         "use the .onnx it was converted from"},
        {bytes("\x1c\x00\x00\x00TFL3\x00\x00\x00\x00", 12), diagnosis_kind::tflite,
         "a TensorFlow Lite model (flatbuffer 'TFL3'), not ONNX: convert it with tf2onnx (--tflite)"},
        {bytes("\x0d\x00\x00\x00\x00\x00\x00\x00{\"a\":{\"b\":1}}", 21), diagnosis_kind::safetensors,
         "a safetensors file (13-byte header): weights without a graph, not ONNX; export the model to ONNX (e.g. "
         "optimum-cli export onnx)"},
        {bytes("GGUF\x03\x00\x00\x00\x00\x00\x00\x00", 12), diagnosis_kind::gguf,
         "a GGUF model (llama.cpp/ggml) version 3, not ONNX"},
        {bytes("\x93NUMPY\x01\x00\x76\x00{'descr': '<f4'", 26), diagnosis_kind::numpy,
         "a NumPy .npy array (format 1.0), not a model"},
        {bytes("\x89HDF\r\n\x1a\n\x00\x00\x00\x00", 12), diagnosis_kind::hdf5,
         "an HDF5 file (a Keras .h5 model or weights?), not ONNX: convert the Keras model with tf2onnx"},
        {bytes("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19.", 15), diagnosis_kind::pytorch_pickle,
         "a PyTorch checkpoint (legacy torch.save pickle), not ONNX: export the model with torch.onnx.export"},
        {bytes("\x80\x04\x95\x05\x00\x00\x00\x00\x00\x00\x00K\x01.", 14), diagnosis_kind::pickle,
         "a Python pickle (protocol 4; a PyTorch or scikit-learn file?), not ONNX: export the model to ONNX"},
    };
    for (const fixture& f : fixtures) {
        const diagnosis d = of(f.bytes);
        INFO(d.line);
        CHECK(d.kind == f.kind);
        CHECK(std::string(d.line) == f.line);
    }
}

TEST_CASE("protobuf files of other frameworks") {
    // GraphDef { node { name: "c" op: "Const" } node { name: "i" op: "Identity" input: "c" } versions { producer: 1 } }
    const wire_builder graphdef =
        wire_builder()
            .field_message(1, wire_builder().field_bytes(1, "c").field_bytes(2, "Const"))
            .field_message(1, wire_builder().field_bytes(1, "i").field_bytes(2, "Identity").field_bytes(3, "c"))
            .field_message(4, wire_builder().field_varint(1, 1));
    SECTION("TensorFlow GraphDef") {
        const diagnosis d = of(graphdef.str());
        CHECK(d.kind == diagnosis_kind::tf_graphdef);
        CHECK(std::string(d.line) ==
              "a TensorFlow GraphDef (frozen .pb, 2 nodes, first op 'Const'), not ONNX: convert it with tf2onnx (--graphdef)");
    }
    SECTION("TensorFlow SavedModel") {
        // SavedModel { saved_model_schema_version: 1 meta_graphs { meta_info_def { tags: "serve" } graph_def {...} } }
        const std::string m =
            wire_builder()
                .field_varint(1, 1)
                .field_message(2, wire_builder().field_message(1, wire_builder().field_bytes(4, "serve")).field_message(2, graphdef))
                .str();
        const diagnosis d = of(m);
        CHECK(d.kind == diagnosis_kind::tf_saved_model);
        CHECK(std::string(d.line) ==
              "a TensorFlow SavedModel (saved_model.pb), not ONNX: convert its directory with tf2onnx (--saved-model)");
    }
    SECTION("Core ML") {
        // Model { specificationVersion: 4 description { input { name: "x" } } neuralNetwork (500) { } }
        const std::string m = wire_builder()
                                  .field_varint(1, 4)
                                  .field_message(2, wire_builder().field_message(1, wire_builder().field_bytes(1, "x")))
                                  .field_message(500, wire_builder().field_message(1, wire_builder().field_bytes(1, "n")))
                                  .str();
        const diagnosis d = of(m);
        CHECK(d.kind == diagnosis_kind::coreml);
        CHECK(std::string(d.line) ==
              "a Core ML model (.mlmodel, specification version 4), not ONNX: convert the original model with "
              "onnxmltools or the exporter of its framework");
    }
}

TEST_CASE("other ONNX messages") {
    SECTION("TensorProto") {
        // dims [3], FLOAT, name "w", raw_data 12 bytes: "w" read as ModelProto.opset_import fails to parse.
        const std::string t = wire_builder()
                                  .packed_varint(1, {3})
                                  .field_varint(2, 1)
                                  .field_bytes(8, "w")
                                  .field_bytes(9, std::string(12, '\1'))
                                  .str();
        const diagnosis d = of(t);
        CHECK(d.kind == diagnosis_kind::tensor_proto);
        CHECK_FALSE(d.model_error.ok());
        CHECK(std::string(d.line) ==
              "a valid onnx.TensorProto ('w', FLOAT [3]), not a ModelProto: read it with `onnxview dump --type "
              "onnx.TensorProto FILE`");
    }
    SECTION("TensorProto that also parses as a ModelProto without a graph") {
        const diagnosis d = of(bytes("\x0a\x01\x03\x10\x01\x4a\x0c\x00\x00\x80\x3f\x00\x00\x00\x40\x00\x00\x40\x40", 19));
        CHECK(d.kind == diagnosis_kind::tensor_proto);
        CHECK(d.model_error.ok());
        CHECK(std::string(d.line) ==
              "a valid onnx.TensorProto (FLOAT [3]), not a ModelProto: read it with `onnxview dump --type onnx.TensorProto FILE`");
    }
    SECTION("a tensor whose payload does not fit its dims is not called a TensorProto") {
        const std::string t = wire_builder().packed_varint(1, {4}).field_varint(2, 1).field_bytes(9, std::string(12, '\1')).str();
        CHECK(of(t).kind != diagnosis_kind::tensor_proto);
    }
    SECTION("GraphProto") {
        const diagnosis d = of(graph_builder().str());
        CHECK(d.kind == diagnosis_kind::graph_proto);
        CHECK(d.number == 1);
        CHECK(std::string(d.line) ==
              "a valid onnx.GraphProto ('g', 1 node), not a ModelProto: read it with `onnxview dump --type onnx.GraphProto FILE`");
    }
    SECTION("ModelProto without a graph") {
        const diagnosis d = of(wire_builder().field_varint(1, 7).field_bytes(2, "exporter").str());
        CHECK(d.kind == diagnosis_kind::model_without_graph);
        CHECK(std::string(d.line) ==
              "parses as an onnx.ModelProto but has no graph (ir_version 7): not a usable model, or a copy cut before its graph");
        CHECK(d.number == 7);
    }
    SECTION("a message that fits ModelProto's fields by chance") {
        // SequenceProto { name: "s" elem_type: 1 tensor_values { dims: 1 } }: no ir_version, no graph.
        const std::string seq =
            wire_builder().field_bytes(1, "s").field_varint(2, 1).field_message(3, wire_builder().field_varint(1, 1)).str();
        const diagnosis d = of(seq);
        CHECK(d.kind == diagnosis_kind::model_without_graph);
        CHECK(std::string(d.line) ==
              "parses as an onnx.ModelProto with neither ir_version nor graph: another protobuf message, not a model");
    }
}

TEST_CASE("ONNX data messages: sequences, optionals and maps") {
    // TensorProto { dims: [2], data_type: FLOAT, raw_data: 8 bytes }
    const wire_builder tensor = wire_builder().packed_varint(1, {2}).field_varint(2, 1).field_bytes(9, std::string(8, '\1'));
    SECTION("SequenceProto of three tensors") {
        const std::string s = wire_builder()
                                  .field_bytes(1, "seq")
                                  .field_varint(2, 1)
                                  .field_message(3, tensor)
                                  .field_message(3, tensor)
                                  .field_message(3, tensor)
                                  .str();
        const diagnosis d = of(s);
        CHECK(d.kind == diagnosis_kind::sequence_proto);
        CHECK(d.number == 3);
        CHECK(d.detail == "seq");
        CHECK(std::string(d.line) ==
              "a valid onnx.SequenceProto ('seq', 3 TENSOR elements), not a ModelProto: read it with `onnxview dump "
              "--type onnx.SequenceProto FILE`");
    }
    SECTION("OptionalProto holding a sequence: both messages at once") {
        const wire_builder inner = wire_builder().field_varint(2, 1).field_message(3, tensor).field_message(3, tensor);
        const diagnosis d = of(wire_builder().field_bytes(1, "opt").field_varint(2, 3).field_message(5, inner).str());
        CHECK(d.kind == diagnosis_kind::sequence_or_optional_proto);
        CHECK(d.number == 1);
        CHECK(std::string(d.line) ==
              "a valid onnx.OptionalProto or onnx.SequenceProto (the two share one wire form; 'opt', one SEQUENCE "
              "element), not a ModelProto: read it with `onnxview dump --type onnx.OptionalProto FILE` or --type "
              "onnx.SequenceProto");
    }
    SECTION("an empty optional: a name and elem_type UNDEFINED") {
        const diagnosis d = of(wire_builder().field_bytes(1, "optional_input").field_varint(2, 0).str());
        CHECK(d.kind == diagnosis_kind::sequence_or_optional_proto);
        CHECK(d.number == 0);
        CHECK(std::string(d.line) ==
              "a valid onnx.OptionalProto or onnx.SequenceProto (the two share one wire form; 'optional_input', no "
              "element), not a ModelProto: read it with `onnxview dump --type onnx.OptionalProto FILE` or --type "
              "onnx.SequenceProto");
    }
    SECTION("MapProto with INT64 keys and with STRING keys") {
        const wire_builder values = wire_builder().field_varint(2, 1).field_message(3, tensor).field_message(3, tensor);
        const diagnosis d = of(wire_builder().field_bytes(1, "m").field_varint(2, 7).packed_varint(3, {10, 20}).field_message(5, values).str());
        CHECK(d.kind == diagnosis_kind::map_proto);
        CHECK(d.number == 2);
        CHECK(std::string(d.line) ==
              "a valid onnx.MapProto ('m', 2 entries, INT64 keys), not a ModelProto: read it with `onnxview dump "
              "--type onnx.MapProto FILE`");
        const wire_builder one = wire_builder().field_varint(2, 1).field_message(3, tensor);
        const diagnosis s = of(wire_builder().field_varint(2, 8).field_bytes(4, "k").field_message(5, one).str());
        CHECK(s.kind == diagnosis_kind::map_proto);
        CHECK(std::string(s.line) ==
              "a valid onnx.MapProto (1 entry, STRING keys), not a ModelProto: read it with `onnxview dump --type "
              "onnx.MapProto FILE`");
    }
    SECTION("bytes that only parse as one are not called one") {
        // Elements in a field other than the one elem_type names.
        CHECK(of(wire_builder().field_varint(2, 2).field_message(3, tensor).field_message(3, tensor).str()).kind ==
              diagnosis_kind::model_without_graph);
        // An elem_type the schema does not define.
        CHECK(of(wire_builder().field_varint(2, 9).str()).kind == diagnosis_kind::model_without_graph);
        // A tensor element whose payload does not fit its dims.
        const wire_builder bad = wire_builder().packed_varint(1, {4}).field_varint(2, 1).field_bytes(9, std::string(8, '\1'));
        CHECK(of(wire_builder().field_varint(2, 1).field_message(3, bad).field_message(3, bad).str()).kind ==
              diagnosis_kind::model_without_graph);
        // A map with more keys than values, and one whose key type is FLOAT.
        const wire_builder one = wire_builder().field_varint(2, 1).field_message(3, tensor);
        CHECK(of(wire_builder().field_varint(2, 7).packed_varint(3, {1, 2}).field_message(5, one).str()).kind !=
              diagnosis_kind::map_proto);
        CHECK(of(wire_builder().field_varint(2, 1).packed_varint(3, {1}).field_message(5, one).str()).kind !=
              diagnosis_kind::map_proto);
    }
}

TEST_CASE("truncated models") {
    const std::string m = small_model();
    // The graph field: tag 0x3a at byte 2, its one-byte length at 3, its payload from byte 4.
    REQUIRE(static_cast<unsigned char>(m[2]) == 0x3a);
    const std::uint64_t graph_end = 4 + static_cast<unsigned char>(m[3]);
    for (std::size_t cut = 5; cut < graph_end; ++cut) {
        const diagnosis d = of(m.substr(0, cut));
        INFO("cut at " << cut << ": " << d.line);
        CHECK(d.kind == diagnosis_kind::truncated);
        CHECK(d.expected_size == graph_end);
        CHECK(std::string(d.line) == "truncated: at least " + std::to_string(graph_end) + " bytes expected, " +
                                         std::to_string(cut) + " present; the download or copy was interrupted");
    }
    SECTION("a length past its parent's end inside a complete field is damage, not truncation") {
        // graph { node (length 100, 3 bytes present) } and more fields after it.
        const std::string bad = wire_builder()
                                    .field_varint(1, 8)
                                    .field_message(7, wire_builder().field_len_raw(1, 100, "abc"))
                                    .field_message(8, wire_builder().field_varint(2, 13))
                                    .str();
        const diagnosis d = of(bad);
        CHECK(d.kind == diagnosis_kind::malformed);
        CHECK(std::string(d.line) ==
              "not a format onnxview recognizes, and not a well-formed ONNX model: the bytes are damaged");
    }
}

TEST_CASE("zero-filled tails") {
    const std::string m = small_model();
    SECTION("a file allocated at its full size and written only in part") {
        std::string f = m.substr(0, 10) + std::string(m.size() - 10 + 32, '\0');
        const diagnosis d = of(f);
        CHECK(d.kind == diagnosis_kind::zero_filled_tail);
        CHECK(d.zero_tail_offset == 10);
        CHECK(std::string(d.line) == "zero-filled tail: the last " + std::to_string(f.size() - 10) +
                                         " bytes (from byte 10) are zeros; the file was allocated but never "
                                         "completely written (an interrupted download or copy)");
    }
    SECTION("zeros after a complete model") {
        const std::string f = m + std::string(100, '\0');
        const diagnosis d = of(f);
        const std::string at = std::to_string(m.size());
        CHECK(d.kind == diagnosis_kind::zero_filled_tail);
        CHECK(d.zero_tail_offset == m.size());
        CHECK(std::string(d.line) == "zero-filled tail: 100 zero bytes follow a complete model at byte " + at +
                                         "; remove them (truncate -s " + at + " FILE)");
    }
    SECTION("fewer than 16 zeros are not called a tail") {
        CHECK(of(m + std::string(8, '\0')).kind == diagnosis_kind::malformed);
    }
}

TEST_CASE("bytes of no known kind") {
    const diagnosis d = of(std::string(11, '\xff'));
    CHECK(d.kind == diagnosis_kind::malformed);
    CHECK(d.model_error.code == onnxview::errc::varint_too_long);
}

TEST_CASE("every kind has a name of its own") {
    // The last kind: a name missing from diagnosis_kind_name() falls back to "malformed".
    constexpr int last = static_cast<int>(diagnosis_kind::map_proto);
    std::vector<std::string> names;
    for (int k = 0; k <= last; ++k) {
        const std::string name = onnxview::diagnosis_kind_name(static_cast<diagnosis_kind>(k));
        CHECK((name == "malformed") == (k == static_cast<int>(diagnosis_kind::malformed)));
        for (const std::string& seen : names) CHECK(seen != name);
        names.push_back(name);
    }
    CHECK(std::string(onnxview::diagnosis_kind_name(diagnosis_kind::zip_onnx)) == "zip_onnx");
    CHECK(std::string(onnxview::diagnosis_kind_name(static_cast<diagnosis_kind>(last + 1))) == "malformed");
}
