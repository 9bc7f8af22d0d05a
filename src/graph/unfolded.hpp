// The unfolded picture of a model (every node, input and output a box),
// made by one walk of the model; draw_graph folds it once, graph_html folds
// it once per picture of its page. Internal to src/graph/.
#ifndef ONNXVIEW_GRAPH_UNFOLDED_HPP
#define ONNXVIEW_GRAPH_UNFOLDED_HPP

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "onnxview/display.hpp"
#include "onnxview/graph.hpp"
#include "onnxview/traverse.hpp"

namespace onnxview {

// What folding needs to know of each box of the unfolded picture.
struct box_facts {
    std::vector<std::string> scope;  // of the main-graph node it belongs to (a body's nodes: their holder's)
    std::size_t top = 0;             // that node's position among the main graph's nodes
    bool foldable = false;           // a node (or a body's node) with a scope
};

// The `/`-separated scope of an exporter's node name, without the node's own
// last component: "/model/layers.3/MatMul" -> {"model", "layers.3"}.
inline std::vector<std::string> scope_of(std::string_view name) {
    std::vector<std::string> parts;
    if (name.empty() || name.front() != '/') return parts;
    std::size_t at = 1;
    for (;;) {
        const std::size_t slash = name.find('/', at);
        if (slash == std::string_view::npos) break;  // the last component: the node itself
        if (slash > at) parts.emplace_back(name.substr(at, slash - at));
        at = slash + 1;
    }
    return parts;
}

inline std::string join(const std::vector<std::string>& parts, std::size_t n) {
    std::string s;
    for (std::size_t i = 0; i < n && i < parts.size(); ++i) s += (i ? "/" : "") + parts[i];
    return s;
}

inline std::uint64_t elements_of(const tensor_view& t) {
    std::uint64_t n = 1;
    for (std::int64_t d : t.dims()) {
        if (d < 0) return 0;
        n = d != 0 && n > ~std::uint64_t(0) / static_cast<std::uint64_t>(d) ? ~std::uint64_t(0)
                                                                             : n * static_cast<std::uint64_t>(d);
    }
    return n;
}

// The scope an exporter recorded for a node (scopes.cpp): the torch
// exporter's metadata (`pkg.torch.onnx.name_scopes`, else `namespace`)
// where present, else the `/`-separated scope of its name.
std::vector<std::string> exporter_scope(const node_view& n);

// The unfolded picture, built by one walk of the main graph and its bodies.
class unfolded : public scope_visitor {
public:
    graph_picture p;
    std::vector<box_facts> facts;
    // Per box: the names it reads (nodes) - edges are made once every
    // producer is known.
    std::vector<std::vector<std::string_view>> reads;
    std::unordered_map<std::string_view, std::size_t> producer;  // value -> box
    std::unordered_map<std::string_view, std::string> types;     // value -> declared type
    std::unordered_map<std::string_view, std::uint64_t> initializers;  // name -> elements
    std::vector<std::size_t> main_nodes;  // the box of each main-graph node, in file order

    bool enter(const model_scope& s) {
        for (const tensor_view& t : s.graph.initializer()) initializers.emplace(t.name(), elements_of(t));
        for (const sparse_tensor_view& sp : s.graph.sparse_initializer())
            initializers.emplace(sp.values().name(), elements_of(sp.values()));
        const auto declare = [&](const message_range<value_info_view>& vs) {
            for (const value_info_view& v : vs)
                if (v.has_type()) types.emplace(v.name(), type_string(v.type()));
        };
        declare(s.graph.input());
        declare(s.graph.value_info());
        declare(s.graph.output());
        if (s.kind == scope_kind::subgraph) {
            graph_cluster c;
            c.id = "c" + std::to_string(p.clusters.size());
            const node_view& holder = s.holder.node;
            c.label = std::string(holder.op_type()) + " " + quoted(holder.name().empty() ? holder.op_type() : holder.name()) +
                      " " + std::string(s.holder.attribute.name()) + (s.in_graphs ? "[" + std::to_string(s.index) + "]" : "");
            c.parent = clusters_.empty() ? std::string() : clusters_.back();
            clusters_.push_back(c.id);
            p.clusters.push_back(std::move(c));
        } else {
            // The main graph's inputs (not initializers) and outputs.
            for (const value_info_view& v : s.graph.input()) {
                if (initializers.count(v.name()) != 0) continue;
                const std::size_t b = add_box(graph_box_kind::input, std::string(v.name()), std::string(v.name()));
                producer[v.name()] = b;
            }
        }
        return true;
    }

    void leave(const model_scope& s) {
        if (s.kind == scope_kind::subgraph) clusters_.pop_back();
    }

    void node(const model_scope& s, const node_view& n, std::uint32_t index) {
        ++p.model_nodes;
        const std::string_view d = n.domain();
        const std::string op = d.empty() || d == "ai.onnx" ? std::string(n.op_type())
                                                            : std::string(d) + "::" + std::string(n.op_type());
        const std::size_t b = add_box(graph_box_kind::node, op, std::string(n.name()));
        graph_box& box = p.boxes[b];
        box.op_type = op;
        box.label = n.name().empty() ? op : op + "\n" + std::string(n.name());
        if (s.kind == scope_kind::main_graph) {
            top_ = index;
            top_scope_ = exporter_scope(n);
            main_nodes.push_back(b);
        }
        facts[b].scope = top_scope_;
        facts[b].top = top_;
        facts[b].foldable = !top_scope_.empty();
        for (std::string_view in : n.input()) {
            if (in.empty()) continue;
            reads[b].push_back(in);
            const auto it = initializers.find(in);
            if (it != initializers.end()) box.parameters += it->second;
        }
        for (std::string_view out : n.output())
            if (!out.empty()) producer[out] = b;
    }

    // Edges and the outputs, once every producer is known.
    void finish(const graph_view& main, bool draw_initializers) {
        if (draw_initializers)
            for (const auto& [name, elements] : initializers) {
                const std::size_t b = add_box(graph_box_kind::initializer, std::string(name), std::string(name));
                p.boxes[b].parameters = elements;
                producer.emplace(name, b);
            }
        for (std::size_t b = 0; b < reads.size(); ++b)
            for (std::string_view value : reads[b]) link(value, b);
        for (const value_info_view& v : main.output()) {
            const std::size_t b = add_box(graph_box_kind::output, std::string(v.name()), std::string(v.name()));
            link(v.name(), b);
        }
        // Edges in a stable order, one per (from, to, value).
        std::sort(p.edges.begin(), p.edges.end(), [](const graph_edge& a, const graph_edge& b) {
            return std::tie(a.from, a.to, a.value) < std::tie(b.from, b.to, b.value);
        });
        p.edges.erase(std::unique(p.edges.begin(), p.edges.end(),
                                  [](const graph_edge& a, const graph_edge& b) {
                                      return a.from == b.from && a.to == b.to && a.value == b.value;
                                  }),
                      p.edges.end());
    }

private:
    std::size_t add_box(graph_box_kind kind, std::string label, std::string name) {
        graph_box box;
        box.kind = kind;
        box.id = "n" + std::to_string(p.boxes.size());
        box.label = std::move(label);
        box.name = std::move(name);
        box.cluster = clusters_.empty() ? std::string() : clusters_.back();
        p.boxes.push_back(std::move(box));
        facts.emplace_back();
        reads.emplace_back();
        return p.boxes.size() - 1;
    }

    void link(std::string_view value, std::size_t to) {
        const auto it = producer.find(value);
        if (it == producer.end() || it->second == to) return;
        graph_edge e;
        e.from = p.boxes[it->second].id;
        e.to = p.boxes[to].id;
        e.value = std::string(value);
        const auto t = types.find(value);
        if (t != types.end()) e.type = t->second;
        p.edges.push_back(std::move(e));
    }

    std::vector<std::string> clusters_;
    std::size_t top_ = 0;
    std::vector<std::string> top_scope_;
};

using unfolded_ptr = std::unique_ptr<unfolded>;

// Gives nodes without a scope in their name one where the picture can
// tell it (scopes.cpp): runs of blocks of one structure, `nodes 3-482`
// with `block.0`, `block.1`, ... inside, so that they fold as repeats do;
// else, a node among scoped ones, the scope its neighbours share.
void infer_scopes(unfolded& u);

// Errors: not_found (no graph), depth_exceeded (bodies nested too deep).
error unfold_graph(const model_view& m, bool initializers, unfolded_ptr& out);
error unfold_graph(const graph_view& g, bool initializers, unfolded_ptr& out);
// The picture `opts` asks for (opts.initializers is the unfold's).
result<graph_picture> fold_graph(const unfolded& u, const graph_options& opts);

}  // namespace onnxview

#endif  // ONNXVIEW_GRAPH_UNFOLDED_HPP
