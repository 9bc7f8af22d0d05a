// The onnxview-views competitor: typed views over the mapped file (the
// onnxview competitor walks with cursors: walk_onnxview_cursor.cpp).
#include <sys/mman.h>

#include "common.hpp"
#include "onnxview/file.hpp"
#include "onnxview/metadata_reads.hpp"
#include "onnxview/model.hpp"
#include "onnxview/tensor_data.hpp"

namespace bench {
namespace {

using namespace onnxview;

struct walker {
    walk_result& r;
    bool payloads;

    void str(std::string_view s) noexcept { r.string_bytes += s.size(); }
    void num(std::uint64_t v) noexcept { r.int_sum += v; }

    void tensor(const tensor_view& t) {
        ++r.tensors;
        str(t.name());
        const std::int32_t dtype = t.data_type();
        num(static_cast<std::uint64_t>(dtype));
        for (std::int64_t d : t.dims()) {
            ++r.dims;
            num(static_cast<std::uint64_t>(d));
        }
        if (!payloads) return;
        tensor_sum s;
        // tensor_data: one API whatever the storage (sizes checked against
        // dims); raw payloads summed in blocks, typed fields element-wise.
        const auto d = tensor_data::make(t);
        if (d) {
            if (d->type() == 8) {
                for (std::string_view v : d->elements<std::string_view>()) str(v);
            } else if (const byte_blocks blocks = d->blocks(); blocks.ok()) {
                // raw_data, and float_data/double_data chunks, as bytes
                // (zero-copy, any alignment) converted a block at a time:
                // as_span refuses unaligned payloads, and scalars() decodes
                // one element per call (~10x slower: see RESULTS.md).
                for (std::string_view b : blocks) s.add_raw(d->type(), b.data(), b.size());
            } else {
                for (double v : d->scalars<double>()) s.add(v);  // varint-typed fields
            }
        } else {
            // Payloads tensor_data rejects (sizes that disagree with dims):
            // the fields as they are, as the peers read them.
            const std::string_view raw = t.raw_data();
            if (!raw.empty()) s.add_raw(dtype, raw.data(), raw.size());
            for (float v : t.float_data()) s.add(v);
            for (std::int32_t v : t.int32_data()) s.add_int32_field(dtype, v);
            for (std::int64_t v : t.int64_data()) s.add(double(v));
            for (double v : t.double_data()) s.add(v);
            for (std::uint64_t v : t.uint64_data()) s.add(double(v));
            for (std::string_view v : t.string_data()) str(v);
        }
        s.finish(r);
    }

    void sparse(const sparse_tensor_view& s) {
        if (s.has_values()) tensor(s.values());
        if (s.has_indices()) tensor(s.indices());
        for (std::int64_t d : s.dims()) {
            ++r.dims;
            num(static_cast<std::uint64_t>(d));
        }
    }

    void shape(const tensor_shape_view& sh) {
        for (const dimension_view& d : sh.dim()) {
            ++r.dims;
            if (d.has_dim_value()) num(static_cast<std::uint64_t>(d.dim_value()));
            else if (d.has_dim_param()) str(d.dim_param());
        }
    }

    void type(const type_view& t) {
        str(t.denotation());
        if (t.has_tensor_type()) {
            const tensor_type_view tt = t.tensor_type();
            num(static_cast<std::uint64_t>(tt.elem_type()));
            if (tt.has_shape()) shape(tt.shape());
        } else if (t.has_sequence_type()) {
            const sequence_type_view st = t.sequence_type();
            if (st.has_elem_type()) type(st.elem_type());
        } else if (t.has_map_type()) {
            const map_type_view mt = t.map_type();
            num(static_cast<std::uint64_t>(mt.key_type()));
            if (mt.has_value_type()) type(mt.value_type());
        } else if (t.has_optional_type()) {
            const optional_type_view ot = t.optional_type();
            if (ot.has_elem_type()) type(ot.elem_type());
        } else if (t.has_sparse_tensor_type()) {
            const sparse_tensor_type_view st = t.sparse_tensor_type();
            num(static_cast<std::uint64_t>(st.elem_type()));
            if (st.has_shape()) shape(st.shape());
        } else if (t.has_opaque_type()) {
            const opaque_type_view ot = t.opaque_type();
            str(ot.domain());
            str(ot.name());
        }
    }

    void value_info(const value_info_view& v) {
        ++r.value_infos;
        str(v.name());
        if (v.has_type()) type(v.type());
    }

    void attribute(const attribute_view& a) {
        ++r.attributes;
        str(a.name());
        str(a.ref_attr_name());
        num(static_cast<std::uint64_t>(a.type()));
        num(float_bits(a.f()));
        num(static_cast<std::uint64_t>(a.i()));
        str(a.s());
        for (float v : a.floats()) num(float_bits(v));
        for (std::int64_t v : a.ints()) num(static_cast<std::uint64_t>(v));
        for (std::string_view v : a.strings()) str(v);
        if (a.has_t()) tensor(a.t());
        if (a.has_g()) graph(a.g());
        if (a.has_tp()) type(a.tp());
        if (a.has_sparse_tensor()) sparse(a.sparse_tensor());
        for (const tensor_view& t : a.tensors()) tensor(t);
        for (const graph_view& g : a.graphs()) graph(g);
        for (const type_view& t : a.type_protos()) type(t);
        for (const sparse_tensor_view& s : a.sparse_tensors()) sparse(s);
    }

    void node(const node_view& n) {
        ++r.nodes;
        str(n.name());
        str(n.op_type());
        str(n.domain());
        for (std::string_view s : n.input()) str(s);
        for (std::string_view s : n.output()) str(s);
        for (const attribute_view& a : n.attribute()) attribute(a);
    }

    void graph(const graph_view& g) {
        ++r.graphs;
        str(g.name());
        for (const node_view& n : g.node()) node(n);
        for (const tensor_view& t : g.initializer()) tensor(t);
        for (const sparse_tensor_view& s : g.sparse_initializer()) sparse(s);
        for (const value_info_view& v : g.input()) value_info(v);
        for (const value_info_view& v : g.output()) value_info(v);
        for (const value_info_view& v : g.value_info()) value_info(v);
    }

    void opset(const opset_id_view& o) {
        str(o.domain());
        num(static_cast<std::uint64_t>(o.version()));
    }

    void model(const model_view& m) {
        num(static_cast<std::uint64_t>(m.ir_version()));
        str(m.producer_name());
        for (const opset_id_view& o : m.opset_import()) opset(o);
        if (m.has_graph()) graph(m.graph());
        for (const training_info_view& t : m.training_info()) {
            if (t.has_initialization()) graph(t.initialization());
            if (t.has_algorithm()) graph(t.algorithm());
        }
        for (const function_view& f : m.functions()) {
            ++r.functions;
            str(f.name());
            str(f.domain());
            for (std::string_view s : f.input()) str(s);
            for (std::string_view s : f.output()) str(s);
            for (std::string_view s : f.attribute()) str(s);
            for (const node_view& n : f.node()) node(n);
            for (const opset_id_view& o : f.opset_import()) opset(o);
        }
    }
};

// Views report malformed input through err(); verify() is the up-front check
// a loader would run, so a walk over verified bytes needs no per-view checks.
bool walk(const char* data, std::size_t size, bool payloads, walk_result& r, std::string& err) {
    const model_view m = parse_model(data, size);
    if (!m.ok()) {
        err = std::string("parse_model: ") + errc_name(m.err().code);
        return false;
    }
    walker{r, payloads}.model(m);
    at_peak();
    return true;
}

}  // namespace

// Workload 1 for both onnxview competitors.
bool open_onnxview(const char* path, walk_result& r, std::string& err) {
    options o;
    o.file_hint = access_hint::random;
    auto f = mapped_file::open(path, o);
    if (!f) {
        err = std::string("mapped_file::open: ") + errc_name(f.err().code);
        return false;
    }
    // The model's own fields are indexed; the graph is located, not read:
    // m.graph() reads it when it is asked for.
    const model_view m = parse_model(f->data(), f->size());
    if (!m.ok() || !m.has_graph()) {
        err = std::string("parse_model: ") + (m.ok() ? "no graph" : errc_name(m.err().code));
        return false;
    }
    r.graphs = 1;
    r.string_bytes = m.producer_name().size();
    return true;
}

// Workloads 4 and 5 for both onnxview competitors: the file opened as a
// one-off reader would open it, then walked by `walk_bytes`.
bool open_onnxview_then_walk(const char* path, bool payloads, walk_bytes_fn walk_bytes, walk_result& r,
                             std::string& err) {
    options o;
    // Full walk: every byte once, front to back. Metadata: the plan of
    // onnxview/metadata_reads.hpp (what model_reads::metadata does).
    if (payloads) o.file_hint = access_hint::sequential;
    auto f = mapped_file::open(path, o);
    if (!f) {
        err = std::string("mapped_file::open: ") + errc_name(f.err().code);
        return false;
    }
    if (!payloads) (void)advise_metadata_reads(*f);
    return walk_bytes(f->data(), f->size(), payloads, r, err);
}

namespace {

bool open_walk(const char* path, bool payloads, walk_result& r, std::string& err) {
    return open_onnxview_then_walk(path, payloads, walk, r, err);
}

}  // namespace

const competitor onnxview_views_competitor = {"onnxview-views", open_onnxview, walk, open_walk};

}  // namespace bench
