// The libprotobuf competitor: C++ classes generated at build time by protoc
// from Debian's onnx.proto (ONNX 1.12), parsed with ParseFromArray, with and
// without a google::protobuf::Arena.
//
// Written as a production loader would: the file is mapped (no extra copy
// before parsing), the arena has large blocks so a model costs few
// allocations, and lazy/alias options are not available to ONNX's schema
// (`bytes raw_data` is always copied into a std::string by libprotobuf 3.21).
// The message tree (or the arena) is handed to keep_or_destroy at the end, so
// the harness can time its destruction as a row of its own.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <climits>
#include <memory>

#include <google/protobuf/arena.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>

#include "common.hpp"
#include "onnx.pb.h"

namespace bench {
namespace {

struct walker {
    walk_result& r;
    bool payloads;

    void str(const std::string& s) noexcept { r.string_bytes += s.size(); }
    void num(std::uint64_t v) noexcept { r.int_sum += v; }

    void tensor(const onnx::TensorProto& t) {
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
        const std::string& raw = t.raw_data();
        if (!raw.empty()) s.add_raw(dtype, raw.data(), raw.size());
        if (t.float_data_size()) s.add_float_block(t.float_data().data(), t.float_data_size());
        for (std::int32_t v : t.int32_data()) s.add_int32_field(dtype, v);
        for (std::int64_t v : t.int64_data()) s.add(double(v));
        if (t.double_data_size()) s.add_double_block(t.double_data().data(), t.double_data_size());
        for (std::uint64_t v : t.uint64_data()) s.add(double(v));
        for (const std::string& v : t.string_data()) str(v);
        s.finish(r);
    }

    void sparse(const onnx::SparseTensorProto& s) {
        if (s.has_values()) tensor(s.values());
        if (s.has_indices()) tensor(s.indices());
        for (std::int64_t d : s.dims()) {
            ++r.dims;
            num(static_cast<std::uint64_t>(d));
        }
    }

    void shape(const onnx::TensorShapeProto& sh) {
        for (const auto& d : sh.dim()) {
            ++r.dims;
            if (d.has_dim_value()) num(static_cast<std::uint64_t>(d.dim_value()));
            else if (d.has_dim_param()) str(d.dim_param());
        }
    }

    void type(const onnx::TypeProto& t) {
        str(t.denotation());
        switch (t.value_case()) {
            case onnx::TypeProto::kTensorType:
                num(static_cast<std::uint64_t>(t.tensor_type().elem_type()));
                if (t.tensor_type().has_shape()) shape(t.tensor_type().shape());
                break;
            case onnx::TypeProto::kSequenceType:
                if (t.sequence_type().has_elem_type()) type(t.sequence_type().elem_type());
                break;
            case onnx::TypeProto::kMapType:
                num(static_cast<std::uint64_t>(t.map_type().key_type()));
                if (t.map_type().has_value_type()) type(t.map_type().value_type());
                break;
            case onnx::TypeProto::kOptionalType:
                if (t.optional_type().has_elem_type()) type(t.optional_type().elem_type());
                break;
            case onnx::TypeProto::kSparseTensorType:
                num(static_cast<std::uint64_t>(t.sparse_tensor_type().elem_type()));
                if (t.sparse_tensor_type().has_shape()) shape(t.sparse_tensor_type().shape());
                break;
            default: break;
        }
    }

    void value_info(const onnx::ValueInfoProto& v) {
        ++r.value_infos;
        str(v.name());
        if (v.has_type()) type(v.type());
    }

    void attribute(const onnx::AttributeProto& a) {
        ++r.attributes;
        str(a.name());
        str(a.ref_attr_name());
        num(static_cast<std::uint64_t>(a.type()));
        num(float_bits(a.f()));
        num(static_cast<std::uint64_t>(a.i()));
        str(a.s());
        for (float v : a.floats()) num(float_bits(v));
        for (std::int64_t v : a.ints()) num(static_cast<std::uint64_t>(v));
        for (const std::string& v : a.strings()) str(v);
        if (a.has_t()) tensor(a.t());
        if (a.has_g()) graph(a.g());
        if (a.has_tp()) type(a.tp());
        if (a.has_sparse_tensor()) sparse(a.sparse_tensor());
        for (const auto& t : a.tensors()) tensor(t);
        for (const auto& g : a.graphs()) graph(g);
        for (const auto& t : a.type_protos()) type(t);
        for (const auto& s : a.sparse_tensors()) sparse(s);
    }

    void node(const onnx::NodeProto& n) {
        ++r.nodes;
        str(n.name());
        str(n.op_type());
        str(n.domain());
        for (const std::string& s : n.input()) str(s);
        for (const std::string& s : n.output()) str(s);
        for (const auto& a : n.attribute()) attribute(a);
    }

    void graph(const onnx::GraphProto& g) {
        ++r.graphs;
        str(g.name());
        for (const auto& n : g.node()) node(n);
        for (const auto& t : g.initializer()) tensor(t);
        for (const auto& s : g.sparse_initializer()) sparse(s);
        for (const auto& v : g.input()) value_info(v);
        for (const auto& v : g.output()) value_info(v);
        for (const auto& v : g.value_info()) value_info(v);
    }

    void opset(const onnx::OperatorSetIdProto& o) {
        str(o.domain());
        num(static_cast<std::uint64_t>(o.version()));
    }

    void model(const onnx::ModelProto& m) {
        num(static_cast<std::uint64_t>(m.ir_version()));
        str(m.producer_name());
        for (const auto& o : m.opset_import()) opset(o);
        if (m.has_graph()) graph(m.graph());
        for (const auto& t : m.training_info()) {
            if (t.has_initialization()) graph(t.initialization());
            if (t.has_algorithm()) graph(t.algorithm());
        }
        for (const auto& f : m.functions()) {
            ++r.functions;
            str(f.name());
            str(f.domain());
            for (const std::string& s : f.input()) str(s);
            for (const std::string& s : f.output()) str(s);
            for (const std::string& s : f.attribute()) str(s);
            for (const auto& n : f.node()) node(n);
            for (const auto& o : f.opset_import()) opset(o);
        }
    }
};

google::protobuf::ArenaOptions arena_options() {
    google::protobuf::ArenaOptions o;
    o.start_block_size = 64 << 10;
    o.max_block_size = 4 << 20;  // default 8 KiB: too many blocks for a model
    return o;
}

// A parsed model and what owns it.
template <bool UseArena>
struct parsed {
    std::unique_ptr<google::protobuf::Arena> arena;
    std::unique_ptr<onnx::ModelProto> heap;
    onnx::ModelProto* model = nullptr;

    bool parse(const char* data, std::size_t size, std::string& err) {
        if (UseArena) {
            arena.reset(new google::protobuf::Arena(arena_options()));
            model = google::protobuf::Arena::CreateMessage<onnx::ModelProto>(arena.get());
        } else {
            heap.reset(new onnx::ModelProto);
            model = heap.get();
        }
        if (size > static_cast<std::size_t>(INT_MAX)) {
            // ParseFromArray takes an int size. The stream parsers stop at
            // the same 2 GiB limit (CodedInputStream's total_bytes_limit is
            // INT_MAX): show what they do with the bytes.
            google::protobuf::io::ArrayInputStream in(data, INT_MAX);
            const bool ok = model->ParseFromZeroCopyStream(&in);
            err = std::string("libprotobuf: ") + (ok ? "parsed only the first 2 GiB"
                                                     : "refused (message over 2 GiB, int sizes)");
            return false;
        }
        if (!model->ParseFromArray(data, static_cast<int>(size))) {
            err = "libprotobuf: ParseFromArray failed";
            return false;
        }
        return true;
    }
};

template <bool UseArena>
bool walk(const char* data, std::size_t size, bool payloads, walk_result& r, std::string& err) {
    parsed<UseArena> p;
    if (!p.parse(data, size, err)) return false;
    walker{r, payloads}.model(*p.model);
    at_peak();
    keep_or_destroy(std::move(p));
    return true;
}

template <bool UseArena>
bool open(const char* path, walk_result& r, std::string& err) {
    file_map f;
    if (!f.open(path, MADV_SEQUENTIAL, err)) return false;
    parsed<UseArena> p;
    if (!p.parse(f.data(), f.size(), err)) return false;
    if (!p.model->has_graph()) {
        err = "no graph";
        return false;
    }
    r.graphs = 1;
    r.string_bytes = p.model->producer_name().size();
    keep_or_destroy(std::move(p));
    return true;
}

template <bool UseArena>
bool open_walk(const char* path, bool payloads, walk_result& r, std::string& err) {
    file_map f;
    if (!f.open(path, MADV_SEQUENTIAL, err)) return false;  // the parser reads every byte
    return walk<UseArena>(f.data(), f.size(), payloads, r, err);
}

}  // namespace

const competitor protobuf_competitor = {"libprotobuf", open<false>, walk<false>, open_walk<false>};
const competitor protobuf_arena_competitor = {"libprotobuf-arena", open<true>, walk<true>,
                                              open_walk<true>};

}  // namespace bench
