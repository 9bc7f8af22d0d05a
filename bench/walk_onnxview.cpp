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
    error err;

    void str(std::string_view s) noexcept { r.string_bytes += s.size(); }
    void num(std::uint64_t v) noexcept { r.int_sum += v; }
    // Keeps the first error met: of a view (malformed bytes, nesting past the
    // depth limit), or of a range of scalars (a malformed packed chunk). The
    // walk goes on and walk() checks once, at the end, as the cursors' walk.
    void note(error e) noexcept {
        if (!e.ok() && err.ok()) err = e;
    }
    template <class Elem>
    void dims(const wire::repeated<Elem>& ds) noexcept {
        for (std::int64_t d : ds) {
            ++r.dims;
            num(static_cast<std::uint64_t>(d));
        }
        note(ds.err());
    }

    void tensor(const tensor_view& t) {
        note(t.err());
        ++r.tensors;
        str(t.name());
        const std::int32_t dtype = t.data_type();
        num(static_cast<std::uint64_t>(dtype));
        dims(t.dims());
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
            const auto floats = t.float_data();
            for (float v : floats) s.add(v);
            const auto int32s = t.int32_data();
            for (std::int32_t v : int32s) s.add_int32_field(dtype, v);
            const auto int64s = t.int64_data();
            for (std::int64_t v : int64s) s.add(double(v));
            const auto doubles = t.double_data();
            for (double v : doubles) s.add(v);
            const auto uint64s = t.uint64_data();
            for (std::uint64_t v : uint64s) s.add(double(v));
            for (error e : {floats.err(), int32s.err(), int64s.err(), doubles.err(), uint64s.err()}) note(e);
            for (std::string_view v : t.string_data()) str(v);
        }
        s.finish(r);
    }

    void sparse(const sparse_tensor_view& s) {
        note(s.err());
        if (s.has_values()) tensor(s.values());
        if (s.has_indices()) tensor(s.indices());
        dims(s.dims());
    }

    void shape(const tensor_shape_view& sh) {
        note(sh.err());
        for (const dimension_view& d : sh.dim()) {
            note(d.err());
            ++r.dims;
            if (d.has_dim_value()) num(static_cast<std::uint64_t>(d.dim_value()));
            else if (d.has_dim_param()) str(d.dim_param());
        }
    }

    void type(const type_view& t) {
        note(t.err());
        str(t.denotation());
        if (t.has_tensor_type()) {
            const tensor_type_view tt = t.tensor_type();
            note(tt.err());
            num(static_cast<std::uint64_t>(tt.elem_type()));
            if (tt.has_shape()) shape(tt.shape());
        } else if (t.has_sequence_type()) {
            const sequence_type_view st = t.sequence_type();
            note(st.err());
            if (st.has_elem_type()) type(st.elem_type());
        } else if (t.has_map_type()) {
            const map_type_view mt = t.map_type();
            note(mt.err());
            num(static_cast<std::uint64_t>(mt.key_type()));
            if (mt.has_value_type()) type(mt.value_type());
        } else if (t.has_optional_type()) {
            const optional_type_view ot = t.optional_type();
            note(ot.err());
            if (ot.has_elem_type()) type(ot.elem_type());
        } else if (t.has_sparse_tensor_type()) {
            const sparse_tensor_type_view st = t.sparse_tensor_type();
            note(st.err());
            num(static_cast<std::uint64_t>(st.elem_type()));
            if (st.has_shape()) shape(st.shape());
        } else if (t.has_opaque_type()) {
            const opaque_type_view ot = t.opaque_type();
            note(ot.err());
            str(ot.domain());
            str(ot.name());
        }
    }

    void value_info(const value_info_view& v) {
        note(v.err());
        ++r.value_infos;
        str(v.name());
        if (v.has_type()) type(v.type());
    }

    void attribute(const attribute_view& a) {
        note(a.err());
        ++r.attributes;
        str(a.name());
        str(a.ref_attr_name());
        num(static_cast<std::uint64_t>(a.type()));
        num(float_bits(a.f()));
        num(static_cast<std::uint64_t>(a.i()));
        str(a.s());
        const auto floats = a.floats();
        for (float v : floats) num(float_bits(v));
        note(floats.err());
        const auto ints = a.ints();
        for (std::int64_t v : ints) num(static_cast<std::uint64_t>(v));
        note(ints.err());
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
        note(n.err());
        ++r.nodes;
        str(n.name());
        str(n.op_type());
        str(n.domain());
        for (std::string_view s : n.input()) str(s);
        for (std::string_view s : n.output()) str(s);
        for (const attribute_view& a : n.attribute()) attribute(a);
    }

    void graph(const graph_view& g) {
        note(g.err());
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
        note(o.err());
        str(o.domain());
        num(static_cast<std::uint64_t>(o.version()));
    }

    void model(const model_view& m) {
        num(static_cast<std::uint64_t>(m.ir_version()));
        str(m.producer_name());
        for (const opset_id_view& o : m.opset_import()) opset(o);
        if (m.has_graph()) graph(m.graph());
        for (const training_info_view& t : m.training_info()) {
            note(t.err());
            if (t.has_initialization()) graph(t.initialization());
            if (t.has_algorithm()) graph(t.algorithm());
        }
        for (const function_view& f : m.functions()) {
            note(f.err());
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

// Views report malformed input through err(), which the walk checks as it
// goes (verify() would be a pass of its own before it).
bool walk(const char* data, std::size_t size, bool payloads, walk_result& r, std::string& err) {
    const model_view m = parse_model(data, size);
    if (!m.ok()) {
        err = std::string("parse_model: ") + errc_name(m.err().code);
        return false;
    }
    walker w{r, payloads, error()};
    w.model(m);
    if (!w.err.ok()) {
        err = std::string("views: ") + errc_name(w.err.code) + " at byte " + std::to_string(w.err.offset);
        return false;
    }
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
