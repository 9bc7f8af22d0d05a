// Protobuf files of other frameworks, recognized by the shape of their
// top-level fields (no magic number: a protobuf file has none). The field
// numbers are those of each framework's .proto:
//   TensorFlow GraphDef   tensorflow/core/framework/graph.proto: node = 1 (NodeDef),
//                         library = 2, version = 3, versions = 4; NodeDef
//                         (node_def.proto): name = 1, op = 2, input = 3, device = 4,
//                         attr = 5, experimental_debug_info = 6, experimental_type = 7
//   TensorFlow SavedModel tensorflow/core/protobuf/saved_model.proto:
//                         saved_model_schema_version = 1, meta_graphs = 2
//                         (MetaGraphDef, meta_graph.proto: meta_info_def = 1,
//                         graph_def = 2, saver_def = 3, collection_def = 4,
//                         signature_def = 5, asset_file_def = 6, object_graph_def = 7)
//   Core ML               coremltools mlmodel/format/Model.proto: specificationVersion
//                         = 1, description = 2, isUpdatable = 10, the model type a
//                         oneof of fields 200 (pipelineClassifier) and up
// Each parses as some ModelProto (unknown fields are skipped, and field 1 is
// ir_version for Core ML and SavedModel), so they are told apart here, after
// the bytes are known not to be an ONNX model with a graph.
#include "line.hpp"
#include "onnxview/wire_message.hpp"

namespace onnxview {
namespace diagnosis_detail {
namespace {

using wire::wire_type;

bool is_identifier(std::string_view s) noexcept {
    if (s.empty() || s.size() > 128) return false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        const bool letter = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
        if (!letter && !(i > 0 && c >= '0' && c <= '9')) return false;
    }
    return true;
}

wire::message root(const char* p, std::size_t n) noexcept { return wire::message::root(p, n); }

wire::message nested(const wire::message& parent, const wire::field& f) noexcept {
    return wire::message(parent.base(), f.payload, f.payload + f.raw, 0);
}

// A NodeDef: only its own fields, a name and an operator that is an
// identifier. Sets `op` to the operator.
bool tf_node(const wire::message& m, std::string_view& op) noexcept {
    bool has_name = false;
    op = {};
    wire::field f;
    auto c = m.fields();
    while (c.next(f)) {
        if (f.number < 1 || f.number > 7 || f.type != wire_type::length_delimited) return false;
        if (f.number == 1) has_name = true;
        if (f.number == 2) op = f.bytes();
    }
    return c.err().ok() && has_name && is_identifier(op);
}

bool tf_graphdef(const wire::message& m, std::string_view& first_op, std::uint64_t& nodes) noexcept {
    nodes = 0;
    wire::field f;
    auto c = m.fields();
    while (c.next(f)) {
        if (f.number == 3 ? f.type != wire_type::varint
                          : f.number < 1 || f.number > 4 || f.type != wire_type::length_delimited)
            return false;
        if (f.number != 1) continue;
        std::string_view op;
        if (!tf_node(nested(m, f), op)) return false;
        if (nodes++ == 0) first_op = op;
    }
    return c.err().ok() && nodes > 0;
}

bool tf_saved_model(const wire::message& m) noexcept {
    bool has_graph_def = false, has_meta_graph = false;
    wire::field f;
    auto c = m.fields();
    while (c.next(f)) {
        if (f.number == 1 && f.type == wire_type::varint) continue;
        if (f.number != 2 || f.type != wire_type::length_delimited) return false;
        has_meta_graph = true;
        const wire::message meta = nested(m, f);
        wire::field g;
        auto mc = meta.fields();
        while (mc.next(g)) {
            if (g.number < 1 || g.number > 7 || g.type != wire_type::length_delimited) return false;
            if (g.number == 2) {
                std::string_view op;
                std::uint64_t nodes = 0;
                const wire::message graph = nested(meta, g);
                // An empty GraphDef is a GraphDef too.
                if (!graph.empty() && !tf_graphdef(graph, op, nodes)) return false;
                has_graph_def = true;
            }
        }
        if (mc.err()) return false;
    }
    return c.err().ok() && has_meta_graph && has_graph_def;
}

bool coreml(const wire::message& m, std::uint64_t& version) noexcept {
    bool has_version = false, has_type = false;
    wire::field f;
    auto c = m.fields();
    while (c.next(f)) {
        if (f.number == 1 && f.type == wire_type::varint) {
            version = f.raw;
            has_version = f.raw >= 1 && f.raw <= 100;
        } else if (f.number == 10 && f.type == wire_type::varint) {
            continue;
        } else if (f.number == 2 && f.type == wire_type::length_delimited) {
            continue;
        } else if (f.number >= 200 && f.number < 4000 && f.type == wire_type::length_delimited) {
            has_type = true;
        } else {
            return false;
        }
    }
    return c.err().ok() && has_version && has_type;
}

}  // namespace

bool recognize_foreign_protobuf(const char* p, std::size_t n, diagnosis& d) noexcept {
    const wire::message m = root(p, n);
    std::string_view op;
    std::uint64_t count = 0;
    if (tf_saved_model(m)) {
        d.kind = diagnosis_kind::tf_saved_model;
        line_builder(d).text(
            "a TensorFlow SavedModel (saved_model.pb), not ONNX: convert its directory with tf2onnx (--saved-model)");
        return true;
    }
    if (tf_graphdef(m, op, count)) {
        d.kind = diagnosis_kind::tf_graphdef;
        d.detail = op;
        d.number = count;
        line_builder(d)
            .text("a TensorFlow GraphDef (frozen .pb, ")
            .number(count)
            .text(count == 1 ? " node, first op " : " nodes, first op ")
            .quoted(op)
            .text("), not ONNX: convert it with tf2onnx (--graphdef)");
        return true;
    }
    if (coreml(m, count)) {
        d.kind = diagnosis_kind::coreml;
        d.number = count;
        line_builder(d)
            .text("a Core ML model (.mlmodel, specification version ")
            .number(count)
            .text("), not ONNX: convert the original model with onnxmltools or the exporter of its framework");
        return true;
    }
    return false;
}

}  // namespace diagnosis_detail
}  // namespace onnxview
