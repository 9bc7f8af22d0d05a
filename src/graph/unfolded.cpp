// The unfolded picture (unfolded.hpp): one walk of the graph and its bodies
// (and, when asked, the bodies of the model-local functions it calls), the
// scope tree, and the strings of the few boxes a picture shows.
#include <algorithm>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "onnxview/attribute_values.hpp"
#include "onnxview/display.hpp"
#include "onnxview/enums.hpp"
#include "onnxview/traverse.hpp"
#include "unfolded.hpp"

namespace onnxview {

std::uint32_t scope_tree::child(std::uint32_t parent, std::string_view part) {
    std::string key = std::to_string(parent) + "/";
    key.append(part.data(), part.size());
    const auto [it, fresh] = children_.emplace(std::move(key), static_cast<std::uint32_t>(entries_.size()));
    if (fresh) entries_.push_back({parent, entries_[parent].depth + 1, part});
    return it->second;
}

std::string_view scope_tree::keep(std::string text) {
    kept_.push_back(std::move(text));
    return kept_.back();
}

std::uint32_t scope_tree::ancestor(std::uint32_t s, std::uint32_t d) const {
    while (entries_[s].depth > d) s = entries_[s].parent;
    return s;
}

std::uint32_t scope_tree::common(std::uint32_t a, std::uint32_t b) const {
    a = ancestor(a, entries_[b].depth);
    b = ancestor(b, entries_[a].depth);
    while (a != b) a = entries_[a].parent, b = entries_[b].parent;
    return a;
}

std::string scope_tree::path(std::uint32_t s) const {
    std::vector<std::string_view> parts;
    for (; s != root; s = entries_[s].parent) parts.push_back(entries_[s].part);
    std::string out;
    for (std::size_t i = parts.size(); i-- > 0;) {
        if (!out.empty()) out += '/';
        out.append(parts[i].data(), parts[i].size());
    }
    return out;
}

std::uint32_t scope_tree::find(std::string_view path) const {
    std::uint32_t s = root;
    std::size_t at = 0;
    while (at < path.size()) {
        std::size_t slash = path.find('/', at);
        if (slash == std::string_view::npos) slash = path.size();
        if (slash > at) {
            std::string key = std::to_string(s) + "/";
            key.append(path.data() + at, slash - at);
            const auto it = children_.find(key);
            if (it == children_.end()) return none;
            s = it->second;
        }
        at = slash + 1;
    }
    return s;
}

std::string unfolded::op(std::size_t b) const {
    const unfolded_box& box = boxes[b];
    if (box.domain.empty() || box.domain == "ai.onnx") return std::string(box.op_type);
    return std::string(box.domain) + "::" + std::string(box.op_type);
}

namespace {

// An attribute's value as a box's details show it: lists past 8 items and
// tensors shortened (a picture never reads a weight).
constexpr std::size_t shown_items = 8;

template <class Range, class Fn>
std::string shortened_list(const Range& r, Fn&& item) {
    std::string out = "[";
    std::size_t n = 0;
    for (const auto& x : r) {
        if (n < shown_items) out += (n ? ", " : "") + item(x);
        ++n;
    }
    if (n > shown_items) out += ", ... " + std::to_string(n) + " values";
    return out + "]";
}

std::string tensor_text(const tensor_view& t) {
    std::string out = std::string("tensor ") + data_type_name(t.data_type()) + "[";
    std::size_t n = 0;
    for (std::int64_t d : t.dims()) out += (n++ ? "," : "") + std::to_string(d);
    return out + "]";
}

std::string attribute_text(const attribute_view& a) {
    switch (effective_attribute_type(a)) {
        case attribute_type::float32: return float_text(a.f());
        case attribute_type::int64: return std::to_string(a.i());
        case attribute_type::string: return quoted(a.s());
        case attribute_type::tensor: return tensor_text(a.t());
        case attribute_type::graph: return "(graph)";
        case attribute_type::floats: return shortened_list(a.floats(), [](float f) { return float_text(f); });
        case attribute_type::ints: return shortened_list(a.ints(), [](std::int64_t i) { return std::to_string(i); });
        case attribute_type::strings: return shortened_list(a.strings(), [](std::string_view s) { return quoted(s); });
        case attribute_type::tensors: return shortened_list(a.tensors(), [](const tensor_view& t) { return tensor_text(t); });
        case attribute_type::graphs: return "(" + std::to_string(a.graphs().size()) + " graphs)";
        case attribute_type::sparse_tensor: return "sparse " + tensor_text(a.sparse_tensor().values());
        case attribute_type::sparse_tensors: return "(" + std::to_string(a.sparse_tensors().size()) + " sparse tensors)";
        case attribute_type::type_proto: return type_string(a.tp());
        case attribute_type::type_protos:
            return shortened_list(a.type_protos(), [](const type_view& t) { return type_string(t); });
        default: return "(type " + std::to_string(a.type_raw()) + ")";
    }
}

}  // namespace

graph_box unfolded::materialize_box(std::size_t b) const {
    const unfolded_box& u = boxes[b];
    graph_box box;
    box.kind = u.kind;
    box.id = box_id(b);
    box.name = std::string(u.name);
    box.cluster = cluster_id(u.cluster);
    box.parameters = u.parameters;
    if (u.kind == graph_box_kind::node) {
        box.op_type = op(b);
        box.label = u.name.empty() ? box.op_type : box.op_type + "\n" + box.name;
        for (const attribute_view& a : node_view(result<wire::message>(u.node)).attribute()) {
            std::string value = attribute_text(a);
            if (a.has_ref_attr_name()) value += " (ref " + quoted(a.ref_attr_name()) + ")";
            box.attributes.push_back({std::string(a.name()), std::move(value)});
        }
        if (u.macs != scope_tree::none) box.macs = macs[u.macs].str();
    } else {
        box.label = box.name;
    }
    return box;
}

graph_edge unfolded::materialize_edge(const unfolded_edge& e, std::string from, std::string to) const {
    graph_edge edge;
    edge.from = std::move(from);
    edge.to = std::move(to);
    edge.value = std::string(e.value);
    const auto t = types.find(e.value);
    if (t != types.end()) {
        edge.type = type_string(t->second);
    } else {
        const auto i = inferred_types.find(e.value);
        if (i != inferred_types.end()) edge.type = i->second, edge.inferred = true;
    }
    return edge;
}

graph_cluster unfolded::materialize_cluster(std::size_t c) const {
    return {cluster_id(static_cast<std::uint32_t>(c + 1)), clusters[c].label, cluster_id(clusters[c].parent)};
}

namespace {

std::uint64_t elements_of(const tensor_view& t) {
    std::uint64_t n = 1;
    for (std::int64_t d : t.dims()) {
        if (d < 0) return 0;
        n = d != 0 && n > ~std::uint64_t(0) / static_cast<std::uint64_t>(d) ? ~std::uint64_t(0)
                                                                             : n * static_cast<std::uint64_t>(d);
    }
    return n;
}

// Calls of model-local functions inside one another: drawn expanded this
// deep, then as the call's box.
constexpr std::uint32_t max_function_depth = 16;

class walker : public scope_visitor {
public:
    walker(unfolded& u, const model_view* model, bool expand_functions) : u_(u) {
        if (model != nullptr && expand_functions)
            for (const function_view& f : model->functions())
                functions_.emplace(std::string(f.domain()) + "::" + std::string(f.name()), f);
    }

    bool enter(const model_scope& s) {
        for (const tensor_view& t : s.graph.initializer()) initializers_.emplace(t.name(), elements_of(t));
        for (const sparse_tensor_view& sp : s.graph.sparse_initializer())
            initializers_.emplace(sp.values().name(), elements_of(sp.values()));
        const auto declare = [&](const message_range<value_info_view>& vs) {
            for (const value_info_view& v : vs)
                if (v.has_type()) u_.types.emplace(v.name(), v.type());
        };
        declare(s.graph.input());
        declare(s.graph.value_info());
        declare(s.graph.output());
        if (s.kind == scope_kind::subgraph) {
            const node_view& holder = s.holder.node;
            unfolded_cluster c;
            c.label = std::string(holder.op_type()) + " " +
                      quoted(holder.name().empty() ? holder.op_type() : holder.name()) + " " +
                      std::string(s.holder.attribute.name()) + (s.in_graphs ? "[" + std::to_string(s.index) + "]" : "");
            c.parent = cluster_;
            u_.clusters.push_back(std::move(c));
            cluster_ = static_cast<std::uint32_t>(u_.clusters.size());
        } else {
            // The graph's inputs that are no initializers.
            for (const value_info_view& v : s.graph.input()) {
                if (initializers_.count(v.name()) != 0) continue;
                u_.producer[v.name()] = add_box(graph_box_kind::input, v.name());
            }
        }
        return true;
    }

    void leave(const model_scope& s) {
        if (s.kind == scope_kind::subgraph) cluster_ = u_.clusters[cluster_ - 1].parent;
    }

    void node(const model_scope& s, const node_view& n, std::uint32_t index) {
        ++u_.model_nodes;
        if (s.kind == scope_kind::main_graph) {
            top_ = index;
            top_scope_ = exporter_scope(n, u_.scopes);
        }
        const auto f = functions_.empty() ? functions_.end()
                                          : functions_.find(std::string(n.domain()) + "::" + std::string(n.op_type()));
        if (f != functions_.end() && f->second.node().size() != 0) {
            std::vector<std::string_view> ins(n.input().begin(), n.input().end());
            std::vector<std::string_view> outs(n.output().begin(), n.output().end());
            const std::uint32_t first = static_cast<std::uint32_t>(u_.boxes.size());
            expand(n, f->second, ins, outs, 1);
            if (s.kind == scope_kind::main_graph) u_.main_nodes.push_back(first);
            return;
        }
        const std::uint32_t b = add_node(n);
        if (s.kind == scope_kind::main_graph) u_.main_nodes.push_back(b);
        for (std::string_view in : n.input()) read(b, in);
        for (std::string_view out : n.output())
            if (!out.empty()) u_.producer[out] = b;
    }

    // The edges and the graph's outputs, once every producer is known.
    void finish(const graph_view& g, bool draw_initializers) {
        if (draw_initializers) {
            // In name order: the order of a hash map would change the picture.
            std::vector<std::pair<std::string_view, std::uint64_t>> sorted(initializers_.begin(), initializers_.end());
            std::sort(sorted.begin(), sorted.end());
            for (const auto& [name, elements] : sorted) {
                const std::uint32_t b = add_box(graph_box_kind::initializer, name);
                u_.boxes[b].parameters = elements;
                u_.producer.emplace(name, b);
            }
        }
        u_.read_from.assign(u_.reads.size(), scope_tree::none);
        for (std::size_t b = 0; b < u_.boxes.size(); ++b)
            for (std::size_t r = u_.read_begin[b]; r < u_.read_end(b); ++r) {
                const auto it = u_.producer.find(u_.reads[r]);
                if (it != u_.producer.end()) u_.read_from[r] = it->second;
                link(u_.reads[r], static_cast<std::uint32_t>(b));
            }
        for (const value_info_view& v : g.output()) link(v.name(), add_box(graph_box_kind::output, v.name()));
        std::sort(u_.edges.begin(), u_.edges.end(), [](const unfolded_edge& a, const unfolded_edge& b) {
            return std::tie(a.from, a.to, a.value) < std::tie(b.from, b.to, b.value);
        });
        u_.edges.erase(std::unique(u_.edges.begin(), u_.edges.end(),
                                   [](const unfolded_edge& a, const unfolded_edge& b) {
                                       return a.from == b.from && a.to == b.to && a.value == b.value;
                                   }),
                       u_.edges.end());
    }

private:
    std::uint32_t add_box(graph_box_kind kind, std::string_view name) {
        unfolded_box box;
        box.kind = kind;
        box.name = name;
        box.cluster = cluster_;
        box.scope = kind == graph_box_kind::node ? top_scope_ : scope_tree::root;
        box.top = top_;
        u_.boxes.push_back(box);
        u_.read_begin.push_back(u_.reads.size());
        return static_cast<std::uint32_t>(u_.boxes.size() - 1);
    }

    std::uint32_t add_node(const node_view& n) {
        const std::uint32_t b = add_box(graph_box_kind::node, n.name());
        u_.boxes[b].node = n.wire_message();
        const std::string_view op_type = n.op_type(), domain = n.domain();
        u_.boxes[b].op_type = op_type;
        u_.boxes[b].domain = domain;
        std::string key(domain);
        key += '\0';
        key.append(op_type.data(), op_type.size());
        u_.boxes[b].op = ops_.emplace(std::move(key), static_cast<std::uint32_t>(ops_.size())).first->second;
        return b;
    }

    // Box b reads `value` (the last box added: reads are stored in order).
    void read(std::uint32_t b, std::string_view value) {
        if (value.empty()) return;
        u_.reads.push_back(value);
        const auto it = initializers_.find(value);
        if (it != initializers_.end()) u_.boxes[b].parameters += it->second;
    }

    // A call of a model-local function drawn as its body, in a cluster: the
    // body's own values renamed per call, its formal inputs and outputs the
    // call's actual ones.
    void expand(const node_view& call, const function_view& f, const std::vector<std::string_view>& actual_in,
                const std::vector<std::string_view>& actual_out, std::uint32_t depth) {
        unfolded_cluster c;
        c.label = std::string(call.op_type()) + " " + quoted(call.name().empty() ? call.op_type() : call.name()) +
                  " (function " + std::string(f.domain()) + "::" + std::string(f.name()) + ")";
        c.parent = cluster_;
        u_.clusters.push_back(std::move(c));
        const std::uint32_t outer = cluster_;
        cluster_ = static_cast<std::uint32_t>(u_.clusters.size());
        const std::string prefix = "call" + std::to_string(cluster_) + ":";
        std::unordered_map<std::string_view, std::string_view> renamed;
        std::size_t i = 0;
        for (std::string_view formal : f.input()) renamed[formal] = i < actual_in.size() ? actual_in[i++] : std::string_view();
        i = 0;
        for (std::string_view formal : f.output()) renamed[formal] = i < actual_out.size() ? actual_out[i++] : std::string_view();
        const auto rename = [&](std::string_view v) -> std::string_view {
            if (v.empty()) return v;
            const auto it = renamed.find(v);
            if (it != renamed.end()) return it->second;
            return renamed.emplace(v, u_.scopes.keep(prefix + std::string(v))).first->second;
        };
        for (const node_view& n : f.node()) {
            std::vector<std::string_view> ins, outs;
            for (std::string_view v : n.input()) ins.push_back(rename(v));
            for (std::string_view v : n.output()) outs.push_back(rename(v));
            const auto inner = depth < max_function_depth
                                   ? functions_.find(std::string(n.domain()) + "::" + std::string(n.op_type()))
                                   : functions_.end();
            if (inner != functions_.end() && inner->second.node().size() != 0) {
                expand(n, inner->second, ins, outs, depth + 1);
                continue;
            }
            const std::uint32_t b = add_node(n);
            for (std::string_view v : ins) read(b, v);
            for (std::string_view v : outs)
                if (!v.empty()) u_.producer[v] = b;
        }
        cluster_ = outer;
    }

    void link(std::string_view value, std::uint32_t to) {
        const auto it = u_.producer.find(value);
        if (it == u_.producer.end() || it->second == to) return;
        u_.edges.push_back({it->second, to, value});
    }

    unfolded& u_;
    std::unordered_map<std::string, function_view> functions_;  // "domain::name"
    std::unordered_map<std::string, std::uint32_t> ops_;        // "domain\0op_type" -> unfolded_box::op
    std::unordered_map<std::string_view, std::uint64_t> initializers_;  // name -> elements
    std::uint32_t cluster_ = 0;
    std::uint32_t top_ = 0;
    std::uint32_t top_scope_ = scope_tree::root;
};

}  // namespace

namespace {
void infer(unfolded& u, const model_view& m);
}  // namespace

error unfold_graph(const model_view& m, const graph_options& opts, unfolded_ptr& out) {
    if (!m.has_graph()) return error(errc::not_found);
    if (error e = unfold_graph(m.graph(), &m, opts, out)) return e;
    const bool wanted = opts.shapes == graph_options::inference::inferred ||
                        (opts.shapes == graph_options::inference::automatic &&
                         out->model_nodes <= graph_options::infer_max_nodes);
    if (wanted) infer(*out, m);
    return error();
}

error unfold_graph(const graph_view& g, const model_view* functions_of, const graph_options& opts, unfolded_ptr& out) {
    unfolded_ptr u(new unfolded);
    walker w(*u, functions_of, opts.expand_functions);
    model_scope main;
    main.graph = g;
    if (error e = walk_scope(main, w)) return e;
    w.finish(g, opts.initializers);
    infer_scopes(*u);
    out = std::move(u);
    return error();
}

namespace {

// The types the shape rules give values declared nowhere, and the MACs of
// the main graph's nodes.
void infer(unfolded& u, const model_view& m) {
    const result<model_profile> p = profile_model(m);
    if (!p) return;  // the picture without inferred shapes: no worse than declared ones
    u.inferred = true;
    std::size_t main = 0;
    for (const node_profile& n : p->nodes) {
        for (const profiled_output& o : n.outputs) {
            if (o.name.empty() || u.types.count(o.name) != 0 || (o.elem_type == 0 && !o.shape.rank_known)) continue;
            std::string text = o.elem_type != 0 ? data_type_name(o.elem_type) : "?";
            if (o.shape.rank_known) text += o.shape.str();
            u.inferred_types.emplace(o.name, std::move(text));
        }
        if (!n.in_main_graph()) continue;
        const std::size_t i = main++;
        if (i >= u.main_nodes.size() || !n.macs.known) continue;
        unfolded_box& box = u.boxes[u.main_nodes[i]];
        // An expanded call's first box is its body's: its cost is the call's.
        if (box.op_type != n.op_type || box.domain != n.domain) continue;
        box.macs = static_cast<std::uint32_t>(u.macs.size());
        u.macs.push_back(n.macs.value);
    }
}

}  // namespace

}  // namespace onnxview
