// model_digest and tensor_digest (onnxview/compare/model_hash.hpp): what a model
// computes, hashed with XXH3-128 over the views. docs/diff.md is the
// definition; this file follows it line by line.
#include <algorithm>
#include <memory>
#include <new>
#include <string_view>
#include <utility>
#include <unordered_map>
#include <vector>

#include "hasher.hpp"
#include "onnxview/file.hpp"
#include "onnxview/compare/model_hash.hpp"
#include "onnxview/tensor_data.hpp"
#include "onnxview/traverse.hpp"

namespace onnxview {

void digest128::to_hex(char* out) const noexcept {
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 16; ++i) out[i] = digits[(high >> (60 - 4 * i)) & 15];
    for (int i = 0; i < 16; ++i) out[16 + i] = digits[(low >> (60 - 4 * i)) & 15];
    out[32] = '\0';
}

namespace {

using detail::hasher;

// The default ONNX domain has two spellings; nodes and opset imports mean the
// same operator set by either.
std::string_view operator_domain(std::string_view d) noexcept { return d == "ai.onnx" ? std::string_view() : d; }

// Payloads are hashed in pieces of at most this size, each handed to
// digest_options::payload_hashed once hashed.
constexpr std::size_t hashed_piece = std::size_t(8) << 20;

// Payloads read with mapped_file::read_at are copied this much at a time:
// small enough to stay in the core's cache between the copy and the hash.
constexpr std::size_t copied_piece = std::size_t(256) << 10;

struct chunk_hashing {
    hasher& h;
    const digest_options& opts;
};

// Hashes [data, data + size) from `file` through read_at, a copied_piece at a time.
error hash_copied(hasher& h, const mapped_file& file, const char* data, std::size_t size) noexcept {
    // One buffer per thread for every tensor: a new one per tensor would be
    // mapped and faulted in again each time (it is above malloc's mmap threshold).
    thread_local std::unique_ptr<char[]> buffer;
    if (!buffer) {
        buffer.reset(new (std::nothrow) char[copied_piece]);
        if (!buffer) return errc::out_of_memory;
    }
    const std::uint64_t offset = static_cast<std::uint64_t>(data - file.data());
    for (std::size_t done = 0; done < size;) {
        const std::size_t n = std::min(copied_piece, size - done);
        if (error e = file.read_at(offset + done, buffer.get(), n)) return e;
        h.bytes(buffer.get(), n);
        done += n;
    }
    return error();
}

error hash_chunk(void* user, const char* data, std::size_t size) noexcept {
    const chunk_hashing& c = *static_cast<const chunk_hashing*>(user);
    const mapped_file* file = c.opts.payload_file != nullptr ? c.opts.payload_file->file_holding(data, size) : nullptr;
    const mapped_file* copied_from = file != nullptr && file->keeps_descriptor() ? file : nullptr;
    if (c.opts.payload_hashed == nullptr)
        return copied_from != nullptr ? hash_copied(c.h, *copied_from, data, size) : (c.h.bytes(data, size), error());
    for (std::size_t done = 0; done < size;) {
        const std::size_t n = std::min(hashed_piece, size - done);
        if (copied_from != nullptr) {
            if (error e = hash_copied(c.h, *copied_from, data + done, n)) return e;
        } else {
            c.h.bytes(data + done, n);
        }
        // Reading near the last mark mapped some pages before it again
        // (mapping_fault_span, onnxview/file.hpp): they go with this piece.
        // Copied bytes may be mapped too, where reading the metadata around
        // them mapped whole folios; they go back the same way.
        const std::size_t start = done > mapping_fault_span ? done - static_cast<std::size_t>(mapping_fault_span) : 0;
        c.opts.payload_hashed(c.opts.user, data + start, done + n - start);
        done += n;
    }
    return error();
}

void hash_dims(hasher& h, const wire::repeated<wire::elem_int64>& dims) {
    h.tag('d');
    std::uint64_t n = 0;
    for (std::int64_t d : dims) h.i64(d), ++n;
    h.u64(n);
}

void hash_shape(hasher& h, const tensor_shape_view& shape) {
    h.tag('s');
    std::uint64_t n = 0;
    for (const dimension_view& d : shape.dim()) {
        ++n;
        // dim_value and dim_param are a oneof: a dim holds at most one.
        if (d.has_dim_value()) {
            h.tag('v');
            h.i64(d.dim_value());
        } else if (d.has_dim_param()) {
            h.tag('p');
            h.str(d.dim_param());
        } else {
            h.tag('?');
        }
    }
    h.u64(n);
}

void hash_type(hasher& h, const type_view& t) {
    h.tag('Y');
    if (t.has_tensor_type()) {
        const tensor_type_view tt = t.tensor_type();
        h.tag('t');
        h.i64(tt.elem_type());
        if (tt.has_shape()) hash_shape(h, tt.shape());
    } else if (t.has_sequence_type()) {
        h.tag('q');
        if (t.sequence_type().has_elem_type()) hash_type(h, t.sequence_type().elem_type());
    } else if (t.has_map_type()) {
        h.tag('m');
        h.i64(t.map_type().key_type());
        if (t.map_type().has_value_type()) hash_type(h, t.map_type().value_type());
    } else if (t.has_optional_type()) {
        h.tag('o');
        if (t.optional_type().has_elem_type()) hash_type(h, t.optional_type().elem_type());
    } else if (t.has_sparse_tensor_type()) {
        const sparse_tensor_type_view st = t.sparse_tensor_type();
        h.tag('x');
        h.i64(st.elem_type());
        if (st.has_shape()) hash_shape(h, st.shape());
    } else if (t.has_opaque_type()) {
        h.tag('z');
        h.str(t.opaque_type().domain());
        h.str(t.opaque_type().name());
    }
    h.tag('y');
}

void hash_strings(hasher& h, char tag, const string_range& strings) {
    h.tag(tag);
    for (std::string_view s : strings) h.str(s);
    h.u64(strings.size());
}

// Opset imports and other maps: a set, sorted.
template <class Range>
void hash_opsets(hasher& h, const Range& opsets) {
    std::vector<std::pair<std::string_view, std::int64_t>> sorted;
    for (const opset_id_view& o : opsets) sorted.emplace_back(operator_domain(o.domain()), o.version());
    std::sort(sorted.begin(), sorted.end());
    h.tag('O');
    for (const auto& o : sorted) h.str(o.first), h.i64(o.second);
    h.u64(sorted.size());
}

void hash_string_map(hasher& h, char tag, const message_range<string_entry_view>& entries) {
    std::vector<std::pair<std::string_view, std::string_view>> sorted;
    for (const string_entry_view& e : entries) sorted.emplace_back(e.key(), e.value());
    std::sort(sorted.begin(), sorted.end());
    h.tag(tag);
    for (const auto& e : sorted) h.str(e.first), h.str(e.second);
    h.u64(sorted.size());
}

// Payload errors are kept in `failure` (the first one wins) so the walk's
// callbacks, which return nothing, can go on.
struct tensor_hashing {
    const external_payload_source* ext = nullptr;
    digest_options opts;
    error failure;

    void tensor(hasher& h, const tensor_view& t) {
        const result<digest128> d = tensor_digest(t, ext, opts);
        if (!d && !failure) failure = d.err();
        if (d && opts.tensor_hashed != nullptr) opts.tensor_hashed(opts.tensor_user, t, *d);
        h.digest(d ? *d : digest128());
    }
    void sparse(hasher& h, const sparse_tensor_view& s) {
        const result<digest128> d = sparse_tensor_digest(s, ext, opts);
        if (!d && !failure) failure = d.err();
        h.digest(d ? *d : digest128());
    }

    // Every field of an attribute but doc_string; a subgraph only by its
    // presence here (its digest joins the node's record after the walk has
    // visited it: model_hashing::close_node).
    void attribute(hasher& h, const attribute_view& a) {
        h.tag('A');
        h.str(a.name());
        if (a.has_type()) h.tag('k'), h.i64(a.type_raw());
        if (a.has_f()) h.tag('f'), h.f32(a.f());
        if (a.has_i()) h.tag('i'), h.i64(a.i());
        if (a.has_s()) h.tag('s'), h.str(a.s());
        if (a.has_t()) h.tag('t'), tensor(h, a.t());
        if (a.has_g()) h.tag('g');
        h.tag('F');
        std::uint64_t n = 0;
        for (float f : a.floats()) h.f32(f), ++n;
        h.u64(n);
        h.tag('I');
        n = 0;
        for (std::int64_t i : a.ints()) h.i64(i), ++n;
        h.u64(n);
        hash_strings(h, 'S', a.strings());
        h.tag('T');
        for (const tensor_view& t : a.tensors()) tensor(h, t);
        h.u64(a.tensors().size());
        h.tag('G');
        h.u64(a.graphs().size());
        if (a.has_tp()) h.tag('p'), hash_type(h, a.tp());
        h.tag('P');
        for (const type_view& t : a.type_protos()) hash_type(h, t);
        h.u64(a.type_protos().size());
        if (a.has_ref_attr_name()) h.tag('r'), h.str(a.ref_attr_name());
        if (a.has_sparse_tensor()) h.tag('x'), sparse(h, a.sparse_tensor());
        h.tag('X');
        for (const sparse_tensor_view& s : a.sparse_tensors()) sparse(h, s);
        h.u64(a.sparse_tensors().size());
        h.tag('a');
    }

    // Attributes by name: their order in the node is layout.
    template <class Range>
    void attributes(hasher& h, const Range& range) {
        // The views are large: they stay where they are, and their positions
        // are sorted (insertion sort, stable; a node has a few attributes).
        // Both vectors keep their capacity from node to node.
        attribute_scratch.clear();
        order.clear();
        for (const attribute_view& a : range) {
            attribute_scratch.push_back(a);
            std::size_t i = order.size();
            order.push_back(static_cast<std::uint32_t>(i));
            for (; i > 0 && a.name() < attribute_scratch[order[i - 1]].name(); --i) order[i] = order[i - 1];
            order[i] = static_cast<std::uint32_t>(attribute_scratch.size() - 1);
        }
        h.tag('L');
        for (std::uint32_t i : order) attribute(h, attribute_scratch[i]);
        h.u64(order.size());
    }
    std::vector<attribute_view> attribute_scratch;
    std::vector<std::uint32_t> order;
};

// A subgraph's digest, waiting for the record of the node holding it.
struct subgraph_digest {
    std::string_view attribute;
    bool in_graphs = false;
    std::uint32_t index = 0;
    digest128 digest;
    bool operator<(const subgraph_digest& o) const noexcept {
        if (attribute != o.attribute) return attribute < o.attribute;
        if (in_graphs != o.in_graphs) return in_graphs < o.in_graphs;
        if (index != o.index) return index < o.index;
        // An attribute name given twice (malformed, yet parsed): the order
        // of the two must not depend on the layout either.
        return digest < o.digest;
    }
};

// One scope being hashed: its own stream, and the subgraphs of its last node.
struct scope_frame {
    hasher h;
    bool node_open = false;
    std::vector<subgraph_digest> pending;
    graph_view deferred;  // digest_options::names false: initializers hashed at the end
    bool has_deferred = false;
};

struct training_digests {
    digest128 initialization, algorithm;
};

struct function_digest {
    std::string_view domain, name, overload;
    digest128 digest;
    bool operator<(const function_digest& o) const noexcept {
        if (domain != o.domain) return domain < o.domain;
        if (name != o.name) return name < o.name;
        if (overload != o.overload) return overload < o.overload;
        return digest < o.digest;
    }
};

// The walk_scopes() visitor: each scope hashed into its own frame, frames
// nested as the scopes are; the digests of the top scopes kept for the model.
struct model_hashing : scope_visitor {
    tensor_hashing tensors;
    std::vector<std::unique_ptr<scope_frame>> frames;  // reused: frames[0..depth)
    std::size_t depth = 0;
    // digest_options::names false: each value name stands as the number of
    // its first appearance (a function's values numbered apart), node and
    // graph names are left out.
    std::unordered_map<std::string_view, std::uint64_t> numbers;

    void value(hasher& h, std::string_view name) {
        if (tensors.opts.names || name.empty()) return h.str(name);
        const auto it = numbers.emplace(name, numbers.size()).first;
        h.tag('#');
        h.u64(it->second);
    }
    void values(hasher& h, char tag, const string_range& names) {
        h.tag(tag);
        for (std::string_view n : names) value(h, n);
        h.u64(names.size());
    }
    void value_infos(hasher& h, char tag, const message_range<value_info_view>& infos) {
        h.tag(tag);
        for (const value_info_view& v : infos) {
            value(h, v.name());
            h.tag(v.has_type() ? '+' : '-');
            if (v.has_type()) hash_type(h, v.type());
        }
        h.u64(infos.size());
    }
    bool has_main = false;
    digest128 main;
    std::vector<training_digests> training;
    std::vector<function_digest> functions;

    bool enter(const model_scope& s) {
        if (depth == frames.size()) frames.push_back(std::make_unique<scope_frame>());
        scope_frame& f = *frames[depth++];
        f.h.reset();
        f.node_open = false;
        f.pending.clear();
        if (tensors.failure) return false;
        hasher& h = f.h;
        h.tag(static_cast<char>('0' + static_cast<int>(s.kind)));
        f.has_deferred = false;
        if (s.is_graph()) {
            h.str(tensors.opts.names ? s.graph.name() : std::string_view());
            value_infos(h, 'i', s.graph.input());
            value_infos(h, 'o', s.graph.output());
            if (tensors.opts.names) {
                initializers(h, s.graph);
            } else {
                f.deferred = s.graph;
                f.has_deferred = true;
            }
        } else {
            const function_view& fn = s.function;
            if (!tensors.opts.names) numbers.clear();
            h.str(fn.domain());
            h.str(fn.name());
            h.str(fn.overload());
            values(h, 'i', fn.input());
            values(h, 'o', fn.output());
            hash_strings(h, 'a', fn.attribute());
            tensors.attributes(h, fn.attribute_proto());
            hash_opsets(h, fn.opset_import());
        }
        return true;
    }

    // Initializers and sparse initializers: sets keyed by name, sorted.
    void initializers(hasher& h, const graph_view& g) {
        std::vector<std::pair<std::string_view, digest128>> named;
        for (const tensor_view& t : g.initializer()) {
            hasher one;
            tensors.tensor(one, t);
            named.emplace_back(t.name(), one.result());
        }
        std::sort(named.begin(), named.end());
        h.tag('W');
        for (const auto& n : named) h.str(n.first), h.digest(n.second);
        h.u64(named.size());
        named.clear();
        for (const sparse_tensor_view& s : g.sparse_initializer()) {
            hasher one;
            tensors.sparse(one, s);
            named.emplace_back(s.values().name(), one.result());
        }
        std::sort(named.begin(), named.end());
        h.tag('V');
        for (const auto& n : named) h.str(n.first), h.digest(n.second);
        h.u64(named.size());
    }

    // Initializers without names: each by the number its readers gave its
    // name (those nobody reads after them, by digest), so that which tensor
    // feeds which input still counts.
    void numbered_initializers(hasher& h, const graph_view& g) {
        constexpr std::uint64_t unread = ~std::uint64_t(0);
        std::vector<std::pair<std::uint64_t, digest128>> numbered;
        const auto number = [this](std::string_view name) {
            const auto it = numbers.find(name);
            return it == numbers.end() ? unread : it->second;
        };
        for (const tensor_view& t : g.initializer()) {
            hasher one;
            tensors.tensor(one, t);
            numbered.emplace_back(number(t.name()), one.result());
        }
        std::sort(numbered.begin(), numbered.end());
        h.tag('W');
        for (const auto& n : numbered) h.u64(n.first), h.digest(n.second);
        h.u64(numbered.size());
        numbered.clear();
        for (const sparse_tensor_view& sp : g.sparse_initializer()) {
            hasher one;
            tensors.sparse(one, sp);
            numbered.emplace_back(number(sp.values().name()), one.result());
        }
        std::sort(numbered.begin(), numbered.end());
        h.tag('V');
        for (const auto& n : numbered) h.u64(n.first), h.digest(n.second);
        h.u64(numbered.size());
    }

    void node(const model_scope&, const node_view& n, std::uint32_t) {
        scope_frame& f = *frames[depth - 1];
        close_node(f);
        hasher& h = f.h;
        h.tag('N');
        h.str(n.op_type());
        h.str(operator_domain(n.domain()));
        h.str(n.overload());
        h.str(tensors.opts.names ? n.name() : std::string_view());
        values(h, 'i', n.input());
        values(h, 'o', n.output());
        tensors.attributes(h, n.attribute());
        f.node_open = true;
    }

    // Ends the open node's record with the digests of its subgraphs, by
    // attribute name (the walk visits them in attribute order, which is layout).
    static void close_node(scope_frame& f) {
        if (!f.node_open) return;
        std::sort(f.pending.begin(), f.pending.end());
        f.h.tag('B');
        for (const subgraph_digest& s : f.pending) {
            f.h.str(s.attribute);
            f.h.tag(s.in_graphs ? 'G' : 'g');
            f.h.u64(s.index);
            f.h.digest(s.digest);
        }
        f.h.u64(f.pending.size());
        f.pending.clear();
        f.node_open = false;
    }

    void leave(const model_scope& s) {
        scope_frame& f = *frames[depth - 1];
        close_node(f);
        if (f.has_deferred) numbered_initializers(f.h, f.deferred);
        f.h.tag('E');
        const digest128 d = f.h.result();
        --depth;
        switch (s.kind) {
            case scope_kind::subgraph:
                frames[depth - 1]->pending.push_back({s.holder.attribute.name(), s.in_graphs, s.index, d});
                break;
            case scope_kind::main_graph:
                has_main = true;
                main = d;
                break;
            case scope_kind::training_initialization:
            case scope_kind::training_algorithm:
                if (training.size() <= s.index) training.resize(s.index + 1);
                (s.kind == scope_kind::training_initialization ? training[s.index].initialization
                                                               : training[s.index].algorithm) = d;
                break;
            case scope_kind::function:
                functions.push_back({s.function.domain(), s.function.name(), s.function.overload(), d});
                break;
        }
    }
};

}  // namespace

result<digest128> tensor_digest(const tensor_view& t, const external_payload_source* ext,
                                const digest_options& opts) noexcept {
    if (error e = t.err()) return e;
    hasher h;
    h.tag('T');
    h.i64(t.data_type());
    hash_dims(h, t.dims());
    if (t.has_segment()) h.tag('g'), h.i64(t.segment().begin()), h.i64(t.segment().end());
    if (!opts.values) {
        h.tag('-');
        return h.result();
    }
    const result<tensor_data> d = tensor_data::make(t, ext);
    if (!d) return d.err();
    if (d->info().kind == element_kind::string) {
        h.tag('S');
        for (std::string_view s : d->elements<std::string_view>()) h.str(s);
    } else {
        h.tag('R');
        chunk_hashing c{h, opts};
        if (error e = for_each_raw_chunk(*d, hash_chunk, &c)) return e;
    }
    return h.result();
}

result<digest128> sparse_tensor_digest(const sparse_tensor_view& s, const external_payload_source* ext,
                                       const digest_options& opts) noexcept {
    if (error e = s.err()) return e;
    hasher h;
    h.tag('X');
    hash_dims(h, s.dims());
    for (const bool indices : {false, true}) {
        const bool present = indices ? s.has_indices() : s.has_values();
        h.tag(present ? '+' : '-');
        if (!present) continue;
        const result<digest128> d = tensor_digest(indices ? s.indices() : s.values(), ext, opts);
        if (!d) return d.err();
        h.digest(*d);
    }
    return h.result();
}

result<digest128> model_digest(const model_view& m, const external_payload_source* ext,
                               const digest_options& opts) noexcept {
    if (error e = m.err()) return e;
    model_hashing walk;
    walk.tensors.ext = ext;
    walk.tensors.opts = opts;
    if (error e = walk_scopes(m, walk)) return e;
    if (walk.tensors.failure) return walk.tensors.failure;

    hasher h;
    h.str("onnxview model digest 1");
    h.i64(m.ir_version());
    hash_opsets(h, m.opset_import());
    h.tag(walk.has_main ? 'G' : '-');
    if (walk.has_main) h.digest(walk.main);
    h.tag('R');
    std::uint32_t i = 0;
    for (const training_info_view& t : m.training_info()) {
        const training_digests d = i < walk.training.size() ? walk.training[i] : training_digests();
        h.tag(t.has_initialization() ? '+' : '-');
        h.digest(d.initialization);
        h.tag(t.has_algorithm() ? '+' : '-');
        h.digest(d.algorithm);
        hash_string_map(h, 'i', t.initialization_binding());
        hash_string_map(h, 'u', t.update_binding());
        ++i;
    }
    h.u64(i);
    std::sort(walk.functions.begin(), walk.functions.end());
    h.tag('F');
    for (const function_digest& f : walk.functions) h.digest(f.digest);
    h.u64(walk.functions.size());
    return h.result();
}

void release_hashed_payload(void* user, const char* data, std::size_t size) noexcept {
    release_payload(*static_cast<const mapped_file*>(user), data, size);
}

digest_options reading_payloads_once(const model_file& mf, digest_options base) noexcept {
    base.payload_file = &mf;
    base.payload_hashed = release_hashed_payload;
    base.user = const_cast<mapped_file*>(&mf.file());
    return base;
}

}  // namespace onnxview
