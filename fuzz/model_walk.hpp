// fuzz/model_walk.hpp - visit every view of an ONNX model with every accessor.
//
// Used by fuzz_model and by tests/hostile. walk_model() reads every field of
// every message reachable from a model_view through the typed accessors
// (subgraphs of If/Loop/Scan attributes, tensors and their scalar arrays,
// sparse tensors, types, functions, training info, device configurations),
// recursing as deep as the views allow. It records the first error any view
// or repeated range reports, and counts what it visited (so the work cannot
// be optimised away and tests can compare two walks).
//
// Recursion is bounded by the views' depth limit: a view past it is empty and
// carries depth_exceeded, so the walk stops there. Singular message fields are
// entered only when present: the empty view of an absent field starts again
// at depth 0, so following absent fields would never end.
#ifndef ONNXVIEW_FUZZ_MODEL_WALK_HPP
#define ONNXVIEW_FUZZ_MODEL_WALK_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "onnxview/model.hpp"

namespace onnxview {
namespace fuzzing {

struct walk_stats {
    error first_error;        // the first error met, in walk order
    std::uint64_t views = 0;  // views made
    std::uint64_t scalars = 0;
    std::uint64_t bytes = 0;  // string/bytes lengths seen
    std::uint64_t checksum = 0;

    void see(error e) noexcept {
        if (!e.ok() && first_error.ok()) first_error = e;
    }
    template <class View>
    bool enter(const View& v) noexcept {
        ++views;
        see(v.err());
        return v.ok();
    }
    void str(std::string_view s) noexcept {
        bytes += s.size();
        if (!s.empty()) checksum = checksum * 131 + static_cast<unsigned char>(s[0]) + s.size();
    }
    void num(std::uint64_t x) noexcept {
        ++scalars;
        checksum = checksum * 31 + x;
    }
};

class model_walker {
public:
    walk_stats stats;

    void model(const model_view& m) {
        if (!stats.enter(m)) return;
        stats.num(static_cast<std::uint64_t>(m.ir_version()) + m.has_ir_version());
        stats.str(m.producer_name());
        stats.str(m.producer_version());
        stats.str(m.domain());
        stats.num(static_cast<std::uint64_t>(m.model_version()));
        stats.str(m.doc_string());
        stats.num(m.has_graph());
        if (m.has_graph()) graph(m.graph());
        for (const opset_id_view& o : m.opset_import()) opset(o);
        entries(m.metadata_props());
        for (const training_info_view& t : m.training_info()) training(t);
        for (const function_view& f : m.functions()) function(f);
        for (const device_configuration_view& d : m.configuration()) {
            if (!stats.enter(d)) continue;
            stats.str(d.name());
            stats.num(static_cast<std::uint32_t>(d.num_devices()));
            strings(d.device());
        }
    }

    void graph(const graph_view& g) {
        if (!stats.enter(g)) return;
        stats.str(g.name());
        stats.str(g.doc_string());
        for (const node_view& n : g.node()) node(n);
        for (const tensor_view& t : g.initializer()) tensor(t);
        for (const value_info_view& v : g.input()) value_info(v);
        for (const value_info_view& v : g.output()) value_info(v);
        for (const value_info_view& v : g.value_info()) value_info(v);
        for (const tensor_annotation_view& a : g.quantization_annotation()) {
            if (!stats.enter(a)) continue;
            stats.str(a.tensor_name());
            entries(a.quant_parameter_tensor_names());
        }
        for (const sparse_tensor_view& s : g.sparse_initializer()) sparse(s);
        entries(g.metadata_props());
    }

    void node(const node_view& n) {
        if (!stats.enter(n)) return;
        strings(n.input());
        strings(n.output());
        stats.str(n.name());
        stats.str(n.op_type());
        stats.str(n.doc_string());
        stats.str(n.domain());
        stats.str(n.overload());
        for (const attribute_view& a : n.attribute()) attribute(a);
        entries(n.metadata_props());
        for (const node_device_configuration_view& d : n.device_configurations()) {
            if (!stats.enter(d)) continue;
            stats.str(d.configuration_id());
            stats.num(static_cast<std::uint32_t>(d.pipeline_stage()));
            for (const sharding_spec_view& s : d.sharding_spec()) {
                if (!stats.enter(s)) continue;
                stats.str(s.tensor_name());
                scalars(s.device());
                for (const int_list_entry_view& e : s.index_to_device_group_map()) {
                    if (!stats.enter(e)) continue;
                    stats.num(static_cast<std::uint64_t>(e.key()));
                    scalars(e.value());
                }
                for (const sharded_dim_view& sd : s.sharded_dim()) {
                    if (!stats.enter(sd)) continue;
                    stats.num(static_cast<std::uint64_t>(sd.axis()));
                    for (const simple_sharded_dim_view& ss : sd.simple_sharding()) {
                        if (!stats.enter(ss)) continue;
                        stats.num(static_cast<std::uint64_t>(ss.dim_value()));
                        stats.str(ss.dim_param());
                        stats.num(static_cast<std::uint64_t>(ss.num_shards()));
                    }
                }
            }
        }
    }

    void attribute(const attribute_view& a) {
        if (!stats.enter(a)) return;
        stats.str(a.name());
        float f = a.f();
        std::uint32_t fbits;
        std::memcpy(&fbits, &f, 4);
        stats.num(fbits);
        stats.num(static_cast<std::uint64_t>(a.i()));
        stats.str(a.s());
        stats.num(a.has_t() + a.has_g() + a.has_tp() + a.has_sparse_tensor());
        if (a.has_t()) tensor(a.t());
        if (a.has_g()) graph(a.g());
        scalars(a.floats());
        scalars(a.ints());
        strings(a.strings());
        for (const tensor_view& t : a.tensors()) tensor(t);
        for (const graph_view& g : a.graphs()) graph(g);
        stats.str(a.doc_string());
        if (a.has_tp()) type(a.tp());
        for (const type_view& t : a.type_protos()) type(t);
        stats.num(static_cast<std::uint32_t>(a.type()));
        stats.num(static_cast<std::uint32_t>(a.type_raw()));
        stats.str(a.ref_attr_name());
        if (a.has_sparse_tensor()) sparse(a.sparse_tensor());
        for (const sparse_tensor_view& s : a.sparse_tensors()) sparse(s);
    }

    // Extended with element access once tensor_data lands (see fuzz_model).
    void tensor(const tensor_view& t) {
        if (!stats.enter(t)) return;
        scalars(t.dims());
        stats.num(static_cast<std::uint32_t>(t.data_type()));
        const tensor_segment_view seg = t.segment();
        if (stats.enter(seg)) {
            stats.num(static_cast<std::uint64_t>(seg.begin()));
            stats.num(static_cast<std::uint64_t>(seg.end()));
        }
        scalars(t.float_data());
        scalars(t.int32_data());
        strings(t.string_data());
        scalars(t.int64_data());
        stats.str(t.name());
        stats.str(t.raw_data());
        scalars(t.double_data());
        scalars(t.uint64_data());
        stats.str(t.doc_string());
        entries(t.external_data());
        stats.num(static_cast<std::uint32_t>(t.data_location()));
        stats.num(static_cast<std::uint32_t>(t.data_location_raw()));
        entries(t.metadata_props());
        if (tensor_hook) tensor_hook(*this, t);
    }

    void sparse(const sparse_tensor_view& s) {
        if (!stats.enter(s)) return;
        if (s.has_values()) tensor(s.values());
        if (s.has_indices()) tensor(s.indices());
        scalars(s.dims());
    }

    void value_info(const value_info_view& v) {
        if (!stats.enter(v)) return;
        stats.str(v.name());
        if (v.has_type()) type(v.type());
        stats.str(v.doc_string());
        entries(v.metadata_props());
    }

    void type(const type_view& t) {
        if (!stats.enter(t)) return;
        stats.num(t.has_tensor_type() + 2u * t.has_sequence_type() + 4u * t.has_map_type() +
                  8u * t.has_opaque_type() + 16u * t.has_sparse_tensor_type() + 32u * t.has_optional_type());
        const tensor_type_view tt = t.tensor_type();
        if (stats.enter(tt)) {
            stats.num(static_cast<std::uint32_t>(tt.elem_type()));
            shape(tt.shape());
        }
        const sequence_type_view st = t.sequence_type();
        if (stats.enter(st) && st.has_elem_type()) type(st.elem_type());
        const map_type_view mt = t.map_type();
        if (stats.enter(mt)) {
            stats.num(static_cast<std::uint32_t>(mt.key_type()));
            if (mt.has_value_type()) type(mt.value_type());
        }
        stats.str(t.denotation());
        const opaque_type_view ot = t.opaque_type();
        if (stats.enter(ot)) {
            stats.str(ot.domain());
            stats.str(ot.name());
        }
        const sparse_tensor_type_view sp = t.sparse_tensor_type();
        if (stats.enter(sp)) {
            stats.num(static_cast<std::uint32_t>(sp.elem_type()));
            shape(sp.shape());
        }
        const optional_type_view op = t.optional_type();
        if (stats.enter(op) && op.has_elem_type()) type(op.elem_type());
    }

    void shape(const tensor_shape_view& s) {
        if (!stats.enter(s)) return;
        for (const dimension_view& d : s.dim()) {
            if (!stats.enter(d)) continue;
            stats.num(static_cast<std::uint64_t>(d.dim_value()));
            stats.str(d.dim_param());
            stats.str(d.denotation());
        }
    }

    void opset(const opset_id_view& o) {
        if (!stats.enter(o)) return;
        stats.str(o.domain());
        stats.num(static_cast<std::uint64_t>(o.version()));
    }

    void training(const training_info_view& t) {
        if (!stats.enter(t)) return;
        if (t.has_initialization()) graph(t.initialization());
        if (t.has_algorithm()) graph(t.algorithm());
        entries(t.initialization_binding());
        entries(t.update_binding());
    }

    void function(const function_view& f) {
        if (!stats.enter(f)) return;
        stats.str(f.name());
        strings(f.input());
        strings(f.output());
        strings(f.attribute());
        for (const node_view& n : f.node()) node(n);
        stats.str(f.doc_string());
        for (const opset_id_view& o : f.opset_import()) opset(o);
        stats.str(f.domain());
        for (const attribute_view& a : f.attribute_proto()) attribute(a);
        for (const value_info_view& v : f.value_info()) value_info(v);
        stats.str(f.overload());
        entries(f.metadata_props());
    }

    // onnx-data.proto roots.
    void sequence(const sequence_view& s) {
        if (!stats.enter(s)) return;
        stats.str(s.name());
        stats.num(static_cast<std::uint32_t>(s.elem_type()));
        for (const tensor_view& t : s.tensor_values()) tensor(t);
        for (const sparse_tensor_view& t : s.sparse_tensor_values()) sparse(t);
        for (const sequence_view& t : s.sequence_values()) sequence(t);
        for (const map_view& t : s.map_values()) map(t);
        for (const optional_view& t : s.optional_values()) optional(t);
    }
    void map(const map_view& m) {
        if (!stats.enter(m)) return;
        stats.str(m.name());
        stats.num(static_cast<std::uint32_t>(m.key_type()));
        scalars(m.keys());
        strings(m.string_keys());
        if (m.has_values()) sequence(m.values());
    }
    void optional(const optional_view& o) {
        if (!stats.enter(o)) return;
        stats.str(o.name());
        stats.num(static_cast<std::uint32_t>(o.elem_type()));
        if (o.has_tensor_value()) tensor(o.tensor_value());
        if (o.has_sparse_tensor_value()) sparse(o.sparse_tensor_value());
        if (o.has_sequence_value()) sequence(o.sequence_value());
        if (o.has_map_value()) map(o.map_value());
        if (o.has_optional_value()) optional(o.optional_value());
    }

    // Called for every tensor that made a valid view (element access).
    void (*tensor_hook)(model_walker&, const tensor_view&) = nullptr;

    template <class Elem>
    void scalars(const wire::repeated<Elem>& r) {
        std::uint64_t n = 0;
        for (auto v : r) {
            stats.num(static_cast<std::uint64_t>(v));
            ++n;
        }
        stats.see(r.err());
        const auto c = r.count();
        stats.see(c.err());
        if (c.ok() && r.err().ok() && *c != n) stats.see(error(errc::invalid_argument, 0));
    }
    void scalars(const wire::repeated<wire::elem_float>& r) {
        for (float v : r) {
            std::uint32_t b;
            std::memcpy(&b, &v, 4);
            stats.num(b);
        }
        stats.see(r.err());
    }
    void scalars(const wire::repeated<wire::elem_double>& r) {
        for (double v : r) {
            std::uint64_t b;
            std::memcpy(&b, &v, 8);
            stats.num(b);
        }
        stats.see(r.err());
    }
    void strings(const string_range& r) {
        std::size_t n = 0;
        for (std::string_view s : r) {
            stats.str(s);
            ++n;
        }
        // size() is the count indexing found; iteration must yield as many.
        if (n != r.size()) stats.see(error(errc::invalid_argument, 0));
    }
    void entries(const message_range<string_entry_view>& r) {
        for (const string_entry_view& e : r) {
            if (!stats.enter(e)) continue;
            stats.str(e.key());
            stats.str(e.value());
        }
    }
};

}  // namespace fuzzing
}  // namespace onnxview

#endif  // ONNXVIEW_FUZZ_MODEL_WALK_HPP
