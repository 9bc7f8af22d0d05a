// The unfolded picture of a model (every node, input and output a box),
// made by one walk of the model; draw_graph folds it once, graph_html folds
// it once per picture of its page. Internal to src/graph/.
//
// It holds indices and views into the model's bytes, not the strings of a
// graph_picture: a 100,000-node model has 100,000 boxes here and maybe 20 in
// its picture, and only those become strings (materialize_box/_edge).
#ifndef ONNXVIEW_GRAPH_UNFOLDED_HPP
#define ONNXVIEW_GRAPH_UNFOLDED_HPP

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "onnxview/graph.hpp"
#include "onnxview/profile.hpp"

namespace onnxview {

// The scopes of a model's nodes as a tree: each scope one id, its parent's
// id and its own part ("layers.3"); 0 is the root, "no scope".
class scope_tree {
public:
    static constexpr std::uint32_t root = 0, none = ~std::uint32_t(0);
    scope_tree() : entries_{{none, 0, std::string_view()}} {}
    // The child `part` of `parent`, made on first use. `part` must outlive
    // the tree (a view into the model's bytes, or a text of keep()).
    std::uint32_t child(std::uint32_t parent, std::string_view part);
    // A text kept as long as the tree, for parts made here.
    std::string_view keep(std::string text);
    std::uint32_t parent(std::uint32_t s) const { return entries_[s].parent; }
    std::uint32_t depth(std::uint32_t s) const { return entries_[s].depth; }
    std::string_view part(std::uint32_t s) const { return entries_[s].part; }
    // s's ancestor `d` levels deep (s itself when it is not deeper).
    std::uint32_t ancestor(std::uint32_t s, std::uint32_t d) const;
    // Whether s is `within` or lies inside it.
    bool lies_in(std::uint32_t s, std::uint32_t within) const { return ancestor(s, depth(within)) == within; }
    // The deepest scope both lie in.
    std::uint32_t common(std::uint32_t a, std::uint32_t b) const;
    // "model/layers.3"; "" for the root.
    std::string path(std::uint32_t s) const;
    // The scope of a '/'-separated path, or none when no node has it.
    std::uint32_t find(std::string_view path) const;

private:
    struct entry {
        std::uint32_t parent, depth;
        std::string_view part;
    };
    std::vector<entry> entries_;
    std::unordered_map<std::string, std::uint32_t> children_;  // "<parent id>/<part>" -> id
    std::deque<std::string> kept_;
};

struct unfolded_box {
    graph_box_kind kind = graph_box_kind::node;
    std::string_view name;     // node name, or the value's name
    std::string_view op_type;  // nodes
    std::string_view domain;   // nodes
    std::uint32_t cluster = 0;  // 0: the main graph; else clusters[cluster - 1]
    std::uint32_t scope = scope_tree::root;  // of the main-graph node it belongs to (a body's: its holder's)
    std::uint32_t top = 0;      // that node's position in the main graph
    std::uint32_t op = 0;       // nodes: their (domain, op_type), numbered in order of first use
    std::uint64_t parameters = 0;
    // Nodes: the node's message, for its attributes (a node_view is 256
    // bytes; this one view is made again for the few boxes shown).
    wire::message node;
    // Main-graph nodes, when inferred: index into macs (none: unknown).
    std::uint32_t macs = scope_tree::none;
};

struct unfolded_edge {
    std::uint32_t from = 0, to = 0;  // box indices
    std::string_view value;
};

struct unfolded_cluster {
    std::string label;
    std::uint32_t parent = 0;  // 0: the main graph; else clusters[parent - 1]
};

struct unfolded {
    std::vector<unfolded_box> boxes;
    std::vector<unfolded_edge> edges;  // sorted by (from, to, value), no two alike
    std::vector<unfolded_cluster> clusters;
    std::vector<std::uint32_t> main_nodes;  // the box of each main-graph node, in file order
    // What box b reads: reads[read_begin[b] .. read_begin[b + 1]).
    std::vector<std::string_view> reads;
    std::vector<std::uint32_t> read_from;  // per read: the box that makes the value, or scope_tree::none
    std::vector<std::size_t> read_begin;
    std::unordered_map<std::string_view, std::uint32_t> producer;  // value -> box
    std::unordered_map<std::string_view, type_view> types;         // value -> declared type
    scope_tree scopes;
    std::uint64_t model_nodes = 0;
    // Inferred (graph_options::shapes): the types of values declared
    // nowhere, and the MACs of main-graph nodes (unfolded_box::macs).
    std::unordered_map<std::string_view, std::string> inferred_types;
    std::vector<dim_expr> macs;
    bool inferred = false;

    std::size_t read_end(std::size_t b) const { return b + 1 < read_begin.size() ? read_begin[b + 1] : reads.size(); }
    // The op as pictures show it: domain::op_type outside the default domain.
    std::string op(std::size_t b) const;
    graph_box materialize_box(std::size_t b) const;
    graph_edge materialize_edge(const unfolded_edge& e, std::string from, std::string to) const;
    graph_cluster materialize_cluster(std::size_t c) const;  // clusters[c]
    static std::string box_id(std::size_t b) { return "n" + std::to_string(b); }
    static std::string cluster_id(std::uint32_t c) { return c == 0 ? std::string() : "c" + std::to_string(c - 1); }
};
using unfolded_ptr = std::unique_ptr<unfolded>;

// The scope an exporter recorded for a node (scopes.cpp): the torch
// exporter's metadata (`pkg.torch.onnx.name_scopes`, else `namespace`)
// where present, else the `/`-separated scope of its name.
std::uint32_t exporter_scope(const node_view& n, scope_tree& tree);

// Gives nodes without a scope one where the picture can tell it
// (scopes.cpp): runs of blocks of one structure, `nodes 3-482` with
// `block.0`, `block.1`, ... inside, so that they fold as repeats do; else,
// a node among scoped ones, the scope its neighbours share.
void infer_scopes(unfolded& u);

// The walk (unfolded.cpp). Errors: not_found (no graph), depth_exceeded
// (bodies nested too deep).
error unfold_graph(const model_view& m, const graph_options& opts, unfolded_ptr& out);
error unfold_graph(const graph_view& g, const model_view* functions_of, const graph_options& opts, unfolded_ptr& out);
// The picture `opts` asks for (opts.initializers and expand_functions are
// the unfold's).
result<graph_picture> fold_graph(const unfolded& u, const graph_options& opts);

}  // namespace onnxview

#endif  // ONNXVIEW_GRAPH_UNFOLDED_HPP
