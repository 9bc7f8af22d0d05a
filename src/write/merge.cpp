// merge_models (onnxview/merge.hpp): two proxies joined in memory, the join
// packed with its references resolved in the two inputs.
#include "onnxview/merge.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "../io/heap.hpp"
#include "../model/function_key.hpp"
#include "onnxview/decimal.hpp"
#include "onnxview/model.hpp"
#include "onnxview/wire_encode.hpp"

namespace onnxview {

const char* merge_problem_message(merge_problem p) noexcept {
    switch (p) {
    case merge_problem::none: return "can be merged";
    case merge_problem::no_graph: return "has no graph, or its graph field occurs more than once";
    case merge_problem::ir_version_differs: return "the two models' ir_versions differ";
    case merge_problem::opset_differs: return "is imported at two different opset versions";
    case merge_problem::not_an_output: return "is no graph output of A";
    case merge_problem::not_an_input: return "is no graph input of B";
    case merge_problem::connected_twice:
        return "is connected twice (an input of B takes one output of A)";
    case merge_problem::name_clash:
        return "is a name of both graphs, which would join two values: give --prefix-a or --prefix-b";
    case merge_problem::function_clash:
        return "is a local function (same domain and overload) of both models: give --prefix-a or --prefix-b";
    case merge_problem::metadata_differs: return "is a metadata_props key with different values in the two models";
    case merge_problem::prefix_capture:
        return "is declared by a subgraph that also reads that value of the main graph: the prefixed reference "
               "would be captured";
    }
    return "unknown merge problem";
}

namespace {

using buffer = std::vector<char, detail::heap_allocator<char>>;
using names = std::vector<std::string_view, detail::heap_allocator<std::string_view>>;

// The location of the proxies' references: no file can have it (the
// resolver refuses NUL bytes), and the join's source tells A's from B's by
// where the tensor sits.
constexpr std::string_view proxy_location{"\0merge", 6};

error append(void* user, const char* data, std::size_t size) noexcept {
    auto* b = static_cast<buffer*>(user);
    b->insert(b->end(), data, data + size);
    return error();
}

void put_varint(buffer& out, std::uint64_t v) {
    char b[10];
    out.insert(out.end(), b, b + wire::encode_varint(b, v));
}

void put_string(buffer& out, std::uint32_t number, std::string_view s) {
    put_varint(out, wire::make_tag(number, wire::wire_type::length_delimited));
    put_varint(out, s.size());
    out.insert(out.end(), s.begin(), s.end());
}

struct refusal {
    const merge_request& request;
    error operator()(merge_problem p, char side, std::string_view name) const noexcept {
        if (request.report != nullptr) {
            merge_report& r = *request.report;
            r.problem = p;
            r.side = side;
            const std::size_t n = std::min(name.size(), sizeof r.name - 1);
            if (n != 0) std::memcpy(r.name, name.data(), n);
            r.name[n] = '\0';
        }
        return errc::invalid_argument;
    }
};

// The weight-less proxy of one input, its names prefixed.
error make_proxy(std::string_view model, std::string_view prefix, const pack_options& po, buffer& out) noexcept {
    pack_options proxy{};
    proxy.threshold = po.threshold;
    proxy.read_options = po.read_options;
    proxy.reference.location = proxy_location;
    edit_options e{};
    e.prefix = prefix;
    if (!prefix.empty()) proxy.edits = &e;
    return pack_model(model, nullptr, proxy, write_sink{&out, &append, nullptr}, nullptr);
}

// B's proxy with its connected inputs renamed to A's outputs, tensors as
// they are. An output of A may feed several inputs of B.
error connect(std::string_view proxy, const name_change* renames, std::size_t rename_count, const pack_options& po,
              buffer& out) noexcept {
    pack_options again{};
    again.inline_align = 1;
    again.keep_typed = true;
    again.read_options = po.read_options;
    edit_options r{};
    r.renames = renames;
    r.rename_count = rename_count;
    r.renames_join = true;
    again.edits = &r;
    return pack_model(proxy, nullptr, again, write_sink{&out, &append, nullptr}, nullptr);
}

// Every name of g's main graph that would clash: inputs, outputs,
// initializers, sparse initializers, value_info, node inputs and outputs.
error value_names(const graph_view& g, names& out) {
    const auto add = [&out](std::string_view s) {
        if (!s.empty()) out.push_back(s);
    };
    for (const value_info_view& v : g.input()) add(v.name());
    for (const value_info_view& v : g.output()) add(v.name());
    for (const value_info_view& v : g.value_info()) add(v.name());
    for (const tensor_view& t : g.initializer()) add(t.name());
    for (const sparse_tensor_view& s : g.sparse_initializer()) {
        add(s.values().name());
        add(s.indices().name());
    }
    for (const node_view& n : g.node()) {
        if (!n.ok()) return n.err();
        for (std::string_view s : n.input()) add(s);
        for (std::string_view s : n.output()) add(s);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return g.ok() ? error() : g.err();
}

bool contains(const names& sorted, std::string_view s) noexcept {
    return std::binary_search(sorted.begin(), sorted.end(), s);
}

// The single graph field of a proxy, or null when it has none or several.
const char* single_graph(const wire::message& root, wire::field& graph) noexcept {
    int count = 0;
    wire::reader r(root.base(), root.begin(), root.end(), root.depth(), root.max_depth());
    wire::field f;
    while (!r.at_end()) {
        if (r.next(f)) return nullptr;
        if (f.number == model_view::field::graph && f.type == wire::wire_type::length_delimited) {
            graph = f;
            ++count;
        }
    }
    return count == 1 ? graph.payload : nullptr;
}

// The name by which a graph's field `number` occurrence is dropped when
// connected: an initializer's, a value_info's, a sparse initializer's values'.
std::string_view dropped_by(std::uint32_t number, const result<wire::message>& m) noexcept {
    switch (number) {
    case graph_view::field::initializer: return tensor_view(m).name();
    case graph_view::field::input:
    case graph_view::field::output:
    case graph_view::field::value_info: return value_info_view(m).name();
    case graph_view::field::sparse_initializer: return sparse_tensor_view(m).values().name();
    default: return {};
    }
}

// The graph of the join (see the top of merge.hpp), appended to `out`
// as ModelProto.graph; `from_b` receives the ranges of `out` copied from B.
error join_graphs(const wire::message& ga, const wire::message& gb, const names& connected, buffer& out,
                  std::vector<std::pair<std::uint64_t, std::uint64_t>>& from_b, merge_report* report) {
    const graph_view va{result<wire::message>(ga)}, vb{result<wire::message>(gb)};
    buffer g(out.get_allocator());
    std::vector<std::pair<std::uint64_t, std::uint64_t>> in_graph;
    // Field `number` of graph m, its connected occurrences dropped if asked.
    const auto copy = [&](const wire::message& m, std::uint32_t number, bool drop_connected) -> error {
        const std::uint64_t start = g.size();
        wire::reader r(m.base(), m.begin(), m.end(), m.depth(), m.max_depth());
        wire::field f;
        while (!r.at_end()) {
            const char* at = r.position();
            if (error e = r.next(f)) return e;
            // Another wire type makes an unknown field, which the join drops.
            if (f.number != number || f.type != wire::wire_type::length_delimited) continue;
            if (drop_connected) {
                const result<wire::message> child = m.child(f);
                if (!child) return child.err();
                if (contains(connected, dropped_by(number, child))) continue;
            }
            g.insert(g.end(), at, r.position());
            if (report != nullptr && number == graph_view::field::node) ++report->nodes;
            if (report != nullptr &&
                (number == graph_view::field::initializer || number == graph_view::field::sparse_initializer))
                ++report->initializers;
        }
        if (&m == &gb) in_graph.emplace_back(start, g.size());
        return error();
    };
    // Per field: whether A's, and B's, connected occurrences are dropped.
    struct part {
        std::uint32_t number;
        bool drop_a, drop_b;
    };
    constexpr part parts[] = {
        {graph_view::field::node, false, false},         {graph_view::field::initializer, false, true},
        {graph_view::field::input, false, true},         {graph_view::field::output, true, false},
        {graph_view::field::value_info, false, true},    {graph_view::field::quantization_annotation, false, false},
        {graph_view::field::sparse_initializer, false, true}, {graph_view::field::metadata_props, false, false},
    };
    for (const part& p : parts) {
        if (error e = copy(ga, p.number, p.drop_a)) return e;
        if (error e = copy(gb, p.number, p.drop_b)) return e;
    }
    const std::string a_name(va.name()), b_name(vb.name());
    put_string(g, graph_view::field::name, a_name + "_" + b_name);
    put_string(g, graph_view::field::doc_string,
               "Graph combining " + a_name + " and " + b_name + "\n" + a_name + "\n\n" +
                   std::string(va.doc_string()) + "\n\n" + b_name + "\n\n" + std::string(vb.doc_string()));
    put_varint(out, wire::make_tag(model_view::field::graph, wire::wire_type::length_delimited));
    put_varint(out, g.size());
    const std::uint64_t base = out.size();
    out.insert(out.end(), g.begin(), g.end());
    for (const auto& r : in_graph) from_b.emplace_back(base + r.first, base + r.second);
    return error();
}

// The join's payload source: the proxies' references read in A's or B's
// bytes, the inputs' own external data through their sources.
struct join_source {
    std::string_view a, b;
    const external_payload_source* source_a;
    const external_payload_source* source_b;
    const std::vector<std::pair<std::uint64_t, std::uint64_t>>* from_b;

    static result<std::string_view> fetch(void* user, const tensor_view& t, std::uint64_t expected) noexcept {
        const auto* s = static_cast<const join_source*>(user);
        const wire::message& m = t.wire_message();
        const std::uint64_t at = m.offset_of(m.begin());
        bool in_b = false;
        for (const auto& r : *s->from_b) in_b |= at >= r.first && at < r.second;
        std::string_view location, offset, length;
        for (const string_entry_view& kv : t.external_data()) {
            if (!kv.ok()) return kv.err();
            if (kv.key() == "location") location = kv.value();
            else if (kv.key() == "offset") offset = kv.value();
            else if (kv.key() == "length") length = kv.value();
        }
        if (location != proxy_location) {
            const external_payload_source* own = in_b ? s->source_b : s->source_a;
            if (own == nullptr || own->fetch == nullptr) return error(errc::invalid_argument, at);
            return own->fetch(own->user, t, expected);
        }
        const std::string_view bytes = in_b ? s->b : s->a;
        const result<std::uint64_t> o = parse_decimal(offset), n = parse_decimal(length);
        if (!o || !n) return error(errc::external_bad_entry, at);
        if (*o > bytes.size() || *n > bytes.size() - *o || *n != expected)
            return error(errc::external_out_of_bounds, at);
        return bytes.substr(static_cast<std::size_t>(*o), static_cast<std::size_t>(*n));
    }
};

// pack_options' callbacks passed on: payload_written for the payloads
// only (of the inputs' bytes and their external files), not the join, which
// is this function's memory and not a file's pages.
struct callbacks {
    std::string_view join;
    const pack_options* po;

    static void written(void* user, const char* data, std::size_t size) noexcept {
        const auto* c = static_cast<const callbacks*>(user);
        const bool in_join = !c->join.empty() && data >= c->join.data() && data < c->join.data() + c->join.size();
        if (!in_join) c->po->payload_written(c->po->user, data, size);
    }
    static void progress(void* user, std::uint64_t done, std::uint64_t total) noexcept {
        const auto* c = static_cast<const callbacks*>(user);
        c->po->progress(c->po->user, done, total);
    }
};

}  // namespace

error merge_models(std::string_view a, const external_payload_source* source_a, std::string_view b,
                   const external_payload_source* source_b, const merge_request& request, const pack_options& po,
                   const write_sink& out, const write_sink* external_out, pack_stats* stats) noexcept {
    if (po.edits != nullptr) return errc::invalid_argument;
    if (request.report != nullptr) *request.report = merge_report{};
    const refusal refuse{request};
    const detail::heap memory(po.read_options.memory);
    const model_view ma = parse_model(a.data(), a.size(), po.read_options);
    const model_view mb = parse_model(b.data(), b.size(), po.read_options);
    if (!ma.ok()) return ma.err();
    if (!mb.ok()) return mb.err();
    if (ma.ir_version() != mb.ir_version()) return refuse(merge_problem::ir_version_differs, 0, {});
    // Opsets: one version per domain, over both lists (compose's check).
    std::vector<std::pair<std::string_view, std::int64_t>> opsets;
    for (const model_view* m : {&ma, &mb})
        for (const opset_id_view& o : m->opset_import()) {
            if (!o.ok()) return o.err();
            bool seen = false;
            for (const auto& known : opsets)
                if (detail::domain_key(known.first) == detail::domain_key(o.domain())) {
                    if (known.second != o.version()) return refuse(merge_problem::opset_differs, 0, o.domain());
                    seen = true;
                }
            if (!seen) opsets.emplace_back(o.domain(), o.version());
        }
    // Connections, checked on the inputs' own names.
    std::vector<std::string> prefixed;  // a_output and b_input of each connection, prefixed
    std::vector<name_change> renames;
    for (std::size_t i = 0; i < request.connection_count; ++i) {
        const merge_connection& c = request.connections[i];
        bool output = false, input = false;
        for (const value_info_view& v : ma.graph().output()) output |= !c.a_output.empty() && v.name() == c.a_output;
        for (const value_info_view& v : mb.graph().input()) input |= !c.b_input.empty() && v.name() == c.b_input;
        if (!output) return refuse(merge_problem::not_an_output, 'a', c.a_output);
        if (!input) return refuse(merge_problem::not_an_input, 'b', c.b_input);
        for (std::size_t j = 0; j < i; ++j)
            if (request.connections[j].b_input == c.b_input)
                return refuse(merge_problem::connected_twice, 'b', c.b_input);
        prefixed.push_back(std::string(request.prefix_a) + std::string(c.a_output));
        prefixed.push_back(std::string(request.prefix_b) + std::string(c.b_input));
    }
    for (std::size_t i = 0; i < prefixed.size(); i += 2)
        if (prefixed[i] != prefixed[i + 1]) renames.push_back({prefixed[i + 1], prefixed[i]});

    buffer pa{detail::heap_allocator<char>(memory)}, pb{detail::heap_allocator<char>(memory)};
    if (error e = make_proxy(a, request.prefix_a, po, pa)) {
        if (e.code == errc::invalid_argument && !request.prefix_a.empty())
            return refuse(merge_problem::prefix_capture, 'a', request.prefix_a);
        return e;
    }
    if (error e = make_proxy(b, request.prefix_b, po, pb)) {
        if (e.code == errc::invalid_argument && !request.prefix_b.empty())
            return refuse(merge_problem::prefix_capture, 'b', request.prefix_b);
        return e;
    }
    if (!renames.empty()) {
        buffer connected_b{detail::heap_allocator<char>(memory)};
        const std::string_view proxy_b(pb.data(), pb.size());
        if (error e = connect(proxy_b, renames.data(), renames.size(), po, connected_b)) {
            // The renamer refused: a connected output's name is one of B's.
            edit_options check{};
            check.renames = renames.data();
            check.rename_count = renames.size();
            check.renames_join = true;
            rename_check c;
            if (e.code == errc::invalid_argument && !check_renames(proxy_b, check, &c, po.read_options) &&
                c.problem != rename_problem::none)
                return refuse(merge_problem::name_clash, 'b', renames[c.change].new_name);
            return e;
        }
        pb.swap(connected_b);
    }
    const wire::message ra = wire::message::root(pa.data(), pa.size(), po.read_options.max_message_depth);
    const wire::message rb = wire::message::root(pb.data(), pb.size(), po.read_options.max_message_depth);
    wire::field ga, gb;
    if (single_graph(ra, ga) == nullptr) return refuse(merge_problem::no_graph, 'a', {});
    if (single_graph(rb, gb) == nullptr) return refuse(merge_problem::no_graph, 'b', {});
    const model_view pva(result<wire::message>{ra}), pvb(result<wire::message>{rb});

    // Names of both main graphs, but the connections' (which B now reads).
    names connected{detail::heap_allocator<std::string_view>(memory)};
    for (std::size_t i = 0; i < prefixed.size(); i += 2) connected.push_back(prefixed[i]);
    std::sort(connected.begin(), connected.end());
    names in_a{detail::heap_allocator<std::string_view>(memory)}, in_b{detail::heap_allocator<std::string_view>(memory)};
    if (error e = value_names(pva.graph(), in_a)) return e;
    if (error e = value_names(pvb.graph(), in_b)) return e;
    for (std::string_view s : in_b)
        if (!contains(connected, s) && contains(in_a, s)) return refuse(merge_problem::name_clash, 0, s);
    std::vector<detail::function_key> functions;
    for (const function_view& f : pva.functions()) functions.push_back({f.domain(), f.name(), f.overload()});
    std::sort(functions.begin(), functions.end());
    for (const function_view& f : pvb.functions())
        if (std::binary_search(functions.begin(), functions.end(), detail::function_key{f.domain(), f.name(), f.overload()}))
            return refuse(merge_problem::function_clash, 0, f.name());
    // Metadata: A's keys in their order (the last value of a key), then B's new ones.
    std::vector<std::pair<std::string_view, std::string_view>> metadata;
    for (const model_view* m : {&pva, &pvb}) {
        const bool from_a = m == &pva;
        for (const string_entry_view& kv : m->metadata_props()) {
            if (kv.key() == reference_source_key) continue;
            auto known = std::find_if(metadata.begin(), metadata.end(),
                                      [&kv](const auto& p) { return p.first == kv.key(); });
            if (known == metadata.end()) metadata.emplace_back(kv.key(), kv.value());
            else if (from_a) known->second = kv.value();
            else if (known->second != kv.value()) return refuse(merge_problem::metadata_differs, 0, kv.key());
        }
    }

    // The join.
    buffer joined{detail::heap_allocator<char>(memory)};
    std::vector<std::pair<std::uint64_t, std::uint64_t>> from_b;
    put_varint(joined, wire::make_tag(model_view::field::ir_version, wire::wire_type::varint));
    put_varint(joined, static_cast<std::uint64_t>(ma.ir_version()));
    put_string(joined, model_view::field::producer_name, "onnxview merge");
    put_varint(joined, wire::make_tag(model_view::field::model_version, wire::wire_type::varint));
    put_varint(joined, 1);
    {
        const result<wire::message> graph_a = ra.child(ga), graph_b = rb.child(gb);
        if (!graph_a) return graph_a.err();
        if (!graph_b) return graph_b.err();
        if (error e = join_graphs(*graph_a, *graph_b, connected, joined, from_b, request.report)) return e;
    }
    for (const auto& o : opsets) {
        buffer entry{detail::heap_allocator<char>(memory)};
        put_string(entry, opset_id_view::field::domain, o.first);
        put_varint(entry, wire::make_tag(opset_id_view::field::version, wire::wire_type::varint));
        put_varint(entry, static_cast<std::uint64_t>(o.second));
        put_string(joined, model_view::field::opset_import, std::string_view(entry.data(), entry.size()));
    }
    for (const auto& kv : metadata) {
        buffer entry{detail::heap_allocator<char>(memory)};
        put_string(entry, string_entry_view::field::key, kv.first);
        put_string(entry, string_entry_view::field::value, kv.second);
        put_string(joined, model_view::field::metadata_props, std::string_view(entry.data(), entry.size()));
    }
    for (const wire::message* root : {&ra, &rb}) {
        const std::uint64_t start = joined.size();
        wire::reader r(root->base(), root->begin(), root->end(), root->depth(), root->max_depth());
        wire::field f;
        while (!r.at_end()) {
            const char* at = r.position();
            if (error e = r.next(f)) return e;
            if (f.number != model_view::field::functions || f.type != wire::wire_type::length_delimited) continue;
            joined.insert(joined.end(), at, r.position());
            if (request.report != nullptr) ++request.report->functions;
        }
        if (root == &rb) from_b.emplace_back(start, joined.size());
    }

    // Packed: every payload moves (into the model, or to the external sink).
    const join_source js{a, b, source_a, source_b, &from_b};
    const external_payload_source source{const_cast<join_source*>(&js), &join_source::fetch};
    pack_options final_po = po;
    final_po.source_fd = nullptr;
    final_po.reference = reference_source{};
    callbacks passed{std::string_view(joined.data(), joined.size()), &po};
    final_po.user = &passed;
    if (po.payload_written != nullptr) final_po.payload_written = &callbacks::written;
    if (po.progress != nullptr) final_po.progress = &callbacks::progress;
    if (final_po.external_location.empty()) final_po.internalize = true;
    return pack_model(std::string_view(joined.data(), joined.size()), &source, final_po, out, external_out, stats);
}

}  // namespace onnxview
