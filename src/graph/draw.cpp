// The picture of a model's graph (draw_graph, onnxview/graph.hpp): every
// node, input and output as a box, then folded by scope and repeats.
#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "onnxview/display.hpp"
#include "onnxview/graph.hpp"
#include "unfolded.hpp"

namespace onnxview {

const char* graph_fold_name(graph_fold f) noexcept {
    switch (f) {
        case graph_fold::none: return "none";
        case graph_fold::scope: return "scope";
        case graph_fold::repeat: return "repeat";
        case graph_fold::automatic: return "auto";
    }
    return "auto";
}

bool parse_graph_fold(std::string_view w, graph_fold& out) noexcept {
    for (graph_fold f : {graph_fold::none, graph_fold::scope, graph_fold::repeat, graph_fold::automatic})
        if (w == graph_fold_name(f)) return out = f, true;
    return false;
}

const char* graph_box_kind_name(graph_box_kind k) noexcept {
    switch (k) {
        case graph_box_kind::node: return "node";
        case graph_box_kind::input: return "input";
        case graph_box_kind::output: return "output";
        case graph_box_kind::initializer: return "initializer";
        case graph_box_kind::scope: return "scope";
        case graph_box_kind::repeat: return "repeat";
        case graph_box_kind::range: return "range";
    }
    return "node";
}
namespace {

constexpr std::uint32_t own_box = scope_tree::none;

// A folded group of boxes: the scope it was folded by (own_box for a box
// drawn as itself), its boxes in file order.
struct group {
    std::uint32_t key = own_box;
    std::vector<std::uint32_t> boxes;
};

// The structure of a group, for repeat detection: each node's op and, for
// each value it reads, how far back in the group the node that made it is
// (0: outside the group): equal for layers that differ only in names and
// weights.
std::vector<std::uint32_t> signature_of(const group& g, const unfolded& u) {
    std::unordered_map<std::uint32_t, std::uint32_t> position;
    for (std::uint32_t i = 0; i < g.boxes.size(); ++i) position[g.boxes[i]] = i;
    std::vector<std::uint32_t> sig;
    for (std::uint32_t i = 0; i < g.boxes.size(); ++i) {
        const std::uint32_t b = g.boxes[i];
        sig.push_back(u.boxes[b].op);
        sig.push_back(static_cast<std::uint32_t>(u.read_end(b) - u.read_begin[b]));
        for (std::size_t r = u.read_begin[b]; r < u.read_end(b); ++r) {
            const auto at = u.read_from[r] == scope_tree::none ? position.end() : position.find(u.read_from[r]);
            sig.push_back(at == position.end() || at->second >= i ? 0 : i - at->second);
        }
    }
    return sig;
}

// "layers.12" -> ("layers.", 12); false without a trailing number.
bool numbered(std::string_view last, std::string_view& stem, long& number) {
    std::size_t d = last.size();
    while (d > 0 && last[d - 1] >= '0' && last[d - 1] <= '9') --d;
    if (d == last.size() || last.size() - d > 9) return false;
    stem = last.substr(0, d);
    number = std::strtol(std::string(last.substr(d)).c_str(), nullptr, 10);
    return true;
}

// Each box in `within` (the root: every box), and how deep the deepest
// scope among them is.
std::vector<bool> boxes_inside(const unfolded& u, std::uint32_t within, std::uint32_t& deepest, std::size_t& inside) {
    std::vector<bool> in(u.boxes.size(), within == scope_tree::root);
    deepest = 0;
    inside = 0;
    for (std::size_t b = 0; b < u.boxes.size(); ++b) {
        const std::uint32_t s = u.boxes[b].scope;
        if (within != scope_tree::root && (s == scope_tree::root || !u.scopes.lies_in(s, within))) continue;
        in[b] = true;
        ++inside;
        deepest = std::max(deepest, u.scopes.depth(s));
    }
    return in;
}

// The picture folded to scopes `depth` levels deep, repeats folded with
// `repeats`; `merged` counts the scopes that joined a run. With `within` (a
// scope), only that scope's boxes: its direct nodes as boxes of their own,
// what it reads and what reads it from outside as input and output boxes
// named by the value.
graph_picture fold(const unfolded& u, std::uint32_t depth, bool repeats, std::uint32_t within,
                   std::size_t* merged = nullptr, std::uint64_t max_boxes = 0) {
    constexpr std::size_t outside = ~std::size_t(0);
    std::uint32_t deepest = 0;
    std::size_t inside = 0;
    const std::vector<bool> in = boxes_inside(u, within, deepest, inside);
    const std::uint32_t within_depth = u.scopes.depth(within);
    // Groups in order of their first box.
    std::vector<group> groups;
    std::unordered_map<std::uint32_t, std::size_t> by_key;
    std::vector<std::size_t> group_of(u.boxes.size(), outside);
    for (std::uint32_t b = 0; b < u.boxes.size(); ++b) {
        if (!in[b]) continue;
        const std::uint32_t s = u.boxes[b].scope;
        if (s == scope_tree::root || depth == 0 || u.scopes.depth(s) <= within_depth) {
            group_of[b] = groups.size();
            groups.push_back({own_box, {b}});
            continue;
        }
        const std::uint32_t key = u.scopes.ancestor(s, depth);
        const auto [it, fresh] = by_key.emplace(key, groups.size());
        if (fresh) groups.push_back({key, {}});
        group_of[b] = it->second;
        groups[it->second].boxes.push_back(b);
    }
    // Runs of numbered siblings with one structure become one group.
    std::vector<std::size_t> merged_into(groups.size());
    std::vector<std::uint64_t> run_length(groups.size(), 1);
    std::vector<std::uint32_t> run_last(groups.size());
    for (std::size_t g = 0; g < groups.size(); ++g) merged_into[g] = g;
    for (std::size_t g = 0; repeats && g < groups.size();) {
        const std::uint32_t key = groups[g].key;
        std::string_view stem;
        long number = 0;
        if (key == own_box || !numbered(u.scopes.part(key), stem, number)) {
            ++g;
            continue;
        }
        const std::vector<std::uint32_t> sig = signature_of(groups[g], u);
        std::size_t h = g + 1;
        for (long expect = number + 1; h < groups.size(); ++h, ++expect) {
            const std::uint32_t next = groups[h].key;
            if (next == own_box || u.scopes.parent(next) != u.scopes.parent(key) ||
                u.scopes.part(next) != std::string(stem) + std::to_string(expect))
                break;
            if (signature_of(groups[h], u) != sig) break;
        }
        if (h - g >= 2) {
            if (merged != nullptr) *merged += h - g - 1;
            for (std::size_t k = g; k < h; ++k) merged_into[k] = g;
            run_length[g] = h - g;
            run_last[g] = groups[h - 1].key;
        }
        g = h;
    }
    // What a group's box is called: its scope's path (a run's first and
    // last), else its node's name, op or value.
    const auto shown = [&](std::size_t g) {
        const group& gr = groups[g];
        if (gr.key == own_box || (gr.boxes.size() == 1 && run_length[g] == 1)) {
            const unfolded_box& b = u.boxes[gr.boxes[0]];
            return b.name.empty() ? u.op(gr.boxes[0]) : std::string(b.name);
        }
        const std::string path = u.scopes.path(gr.key);
        return run_length[g] > 1 ? path + " \xE2\x80\x93 " + std::string(u.scopes.part(run_last[g])) + " \xC3\x97" +
                                       std::to_string(run_length[g])
                                 : path;
    };
    // Past max_boxes, consecutive boxes become ranges of `per` of them.
    std::vector<std::size_t> range_size(groups.size(), 1);
    std::vector<std::size_t> range_last(groups.size());
    std::size_t tops = 0;
    for (std::size_t g = 0; g < groups.size(); ++g) tops += merged_into[g] == g;
    if (max_boxes != 0 && tops > max_boxes) {
        const std::size_t per = (tops + max_boxes - 1) / max_boxes;
        std::vector<std::size_t> leader(groups.size());
        std::size_t k = 0, current = 0;
        for (std::size_t g = 0; g < groups.size(); ++g) {
            if (merged_into[g] != g) continue;
            if (k++ % per == 0) current = g;
            leader[g] = current;
            range_size[current] += g != current;
            range_last[current] = g;
        }
        for (std::size_t g = 0; g < groups.size(); ++g) merged_into[g] = leader[merged_into[g]];
    }
    std::vector<std::vector<std::size_t>> members(groups.size());
    for (std::size_t g = 0; g < groups.size(); ++g) members[merged_into[g]].push_back(g);
    // Boxes: a scope of one node (and no run) is that node's box.
    graph_picture out;
    out.model_nodes = u.model_nodes;
    out.depth = depth;
    std::vector<std::string> id_of(groups.size());
    std::vector<bool> cluster_used(u.clusters.size() + 1, false);
    for (std::size_t g = 0; g < groups.size(); ++g) {
        if (merged_into[g] != g) continue;
        const group& gr = groups[g];
        if (range_size[g] == 1 && (gr.key == own_box || (gr.boxes.size() == 1 && run_length[g] == 1))) {
            out.boxes.push_back(u.materialize_box(gr.boxes[0]));
            cluster_used[u.boxes[gr.boxes[0]].cluster] = true;
            id_of[g] = out.boxes.back().id;
            continue;
        }
        graph_box box;
        const bool range = range_size[g] > 1;
        box.kind = range ? graph_box_kind::range : run_length[g] > 1 ? graph_box_kind::repeat : graph_box_kind::scope;
        box.id = (range ? "r" : "s") + std::to_string(out.boxes.size());
        box.name = range ? shown(g) + " \xE2\x80\xA6 " + shown(range_last[g]) : u.scopes.path(gr.key);
        box.nodes = 0;
        box.repeats = range ? 1 : run_length[g];
        std::optional<dim_expr> macs;
        if (u.inferred) macs = dim_expr(0);
        for (std::size_t k : members[g])
            for (std::uint32_t b : groups[k].boxes) {
                const unfolded_box& ub = u.boxes[b];
                if (ub.kind != graph_box_kind::node) continue;  // a range's inputs and outputs
                box.nodes += 1, box.parameters += ub.parameters;
                // A main-graph node's cost holds its bodies'.
                const bool main_node = ub.top < u.main_nodes.size() && u.main_nodes[ub.top] == b;
                if (!macs || !main_node) continue;
                macs = ub.macs == scope_tree::none ? std::nullopt : add(*macs, u.macs[ub.macs]);
            }
        if (macs) box.macs = macs->str();
        const std::string title = range ? box.name + " (" + grouped_count(range_size[g]) + " boxes)" : shown(g);
        box.label = title + "\n" + grouped_count(box.nodes) + (box.nodes == 1 ? " node" : " nodes") +
                    (box.parameters != 0 ? ", " + grouped_count(box.parameters) + " parameters" : "");
        out.boxes.push_back(std::move(box));
        id_of[g] = out.boxes.back().id;
    }
    // The clusters some box still sits in, and their parents.
    for (std::size_t c = u.clusters.size(); c-- > 0;)
        if (cluster_used[c + 1]) cluster_used[u.clusters[c].parent] = true;
    for (std::size_t c = 0; c < u.clusters.size(); ++c)
        if (cluster_used[c + 1]) out.clusters.push_back(u.materialize_cluster(c));
    // The values crossing the border of `within`: a box each, by value.
    std::unordered_map<std::string_view, std::string> border_in, border_out;
    const auto border_box = [&](graph_box_kind kind, std::string_view value) -> const std::string& {
        auto& border = kind == graph_box_kind::input ? border_in : border_out;
        auto [it, fresh] = border.emplace(value, std::string());
        if (fresh) {
            graph_box box;
            box.kind = kind;
            box.id = "b" + std::to_string(out.boxes.size());
            box.name = std::string(value);
            box.label = box.name;
            box.nodes = 0;
            out.boxes.push_back(std::move(box));
            it->second = out.boxes.back().id;
        }
        return it->second;
    };
    // Edges between the boxes, one per pair, with the values they stand for.
    struct folded_edge {
        const unfolded_edge* first;
        std::string from, to;
        std::uint64_t values = 0;
    };
    struct pair_value_hash {
        std::size_t operator()(const std::pair<std::size_t, std::string_view>& k) const {
            return std::hash<std::string_view>()(k.second) * 31 + k.first;
        }
    };
    std::vector<folded_edge> edges;
    std::unordered_map<std::string, std::size_t> by_pair;  // "from>to"
    std::unordered_set<std::pair<std::size_t, std::string_view>, pair_value_hash> counted;
    for (const unfolded_edge& e : u.edges) {
        const std::size_t from_group = group_of[e.from], to_group = group_of[e.to];
        if (from_group == outside && to_group == outside) continue;
        std::string from = from_group == outside ? border_box(graph_box_kind::input, e.value) : id_of[merged_into[from_group]];
        std::string to = to_group == outside ? border_box(graph_box_kind::output, e.value) : id_of[merged_into[to_group]];
        if (from == to) continue;
        const auto [it, fresh] = by_pair.emplace(from + ">" + to, edges.size());
        if (fresh) edges.push_back({&e, std::move(from), std::move(to), 0});
        if (counted.emplace(it->second, e.value).second) ++edges[it->second].values;
    }
    for (folded_edge& f : edges) {
        graph_edge e = u.materialize_edge(*f.first, std::move(f.from), std::move(f.to));
        e.values = f.values;
        out.edges.push_back(std::move(e));
    }
    return out;
}

// The boxes in `keep` with the edges among them (one per value) and the
// clusters they sit in: the picture unfolded.
graph_picture unfolded_picture(const unfolded& u, const std::vector<bool>& keep) {
    graph_picture p;
    p.model_nodes = u.model_nodes;
    std::vector<bool> cluster_used(u.clusters.size() + 1, false);
    for (std::size_t b = 0; b < u.boxes.size(); ++b)
        if (keep[b]) {
            p.boxes.push_back(u.materialize_box(b));
            cluster_used[u.boxes[b].cluster] = true;
        }
    for (std::size_t c = u.clusters.size(); c-- > 0;)
        if (cluster_used[c + 1]) cluster_used[u.clusters[c].parent] = true;
    for (std::size_t c = 0; c < u.clusters.size(); ++c)
        if (cluster_used[c + 1]) p.clusters.push_back(u.materialize_cluster(c));
    for (const unfolded_edge& e : u.edges)
        if (keep[e.from] && keep[e.to]) p.edges.push_back(u.materialize_edge(e, unfolded::box_id(e.from), unfolded::box_id(e.to)));
    return p;
}

// The boxes within `radius` edges of those named `around` (a node's name;
// else a value's: its maker and readers); false when nothing has that name.
bool neighbourhood(const unfolded& u, const std::string& around, std::uint32_t radius, std::vector<bool>& seen) {
    std::vector<std::vector<std::uint32_t>> next(u.boxes.size());
    std::vector<std::uint32_t> frontier;
    seen.assign(u.boxes.size(), false);
    const auto start = [&](std::uint32_t b) {
        if (!seen[b]) seen[b] = true, frontier.push_back(b);
    };
    for (std::uint32_t b = 0; b < u.boxes.size(); ++b)
        if (u.boxes[b].name == around && u.boxes[b].kind == graph_box_kind::node) start(b);
    const bool by_value = frontier.empty();
    for (const unfolded_edge& e : u.edges) {
        next[e.from].push_back(e.to);
        next[e.to].push_back(e.from);
        if (by_value && e.value == around) start(e.from), start(e.to);
    }
    if (by_value)
        for (std::uint32_t b = 0; b < u.boxes.size(); ++b)
            if (u.boxes[b].name == around && u.boxes[b].kind != graph_box_kind::node) start(b);
    if (frontier.empty()) return false;
    for (std::uint32_t r = 0; r < radius && !frontier.empty(); ++r) {
        std::vector<std::uint32_t> further;
        for (std::uint32_t b : frontier)
            for (std::uint32_t n : next[b])
                if (!seen[n]) seen[n] = true, further.push_back(n);
        frontier = std::move(further);
    }
    return true;
}

}  // namespace

result<graph_picture> draw_graph(const model_view& m, const graph_options& opts) {
    unfolded_ptr u;
    if (error e = unfold_graph(m, opts, u)) return e;
    return fold_graph(*u, opts);
}

result<graph_picture> draw_graph(const graph_view& g, const graph_options& opts) {
    unfolded_ptr u;
    if (error e = unfold_graph(g, nullptr, opts, u)) return e;
    return fold_graph(*u, opts);
}

result<graph_picture> fold_graph(const unfolded& u, const graph_options& opts) {
    if (!opts.around.empty()) {
        std::vector<bool> seen;
        if (!neighbourhood(u, opts.around, opts.radius, seen)) return error(errc::not_found);
        graph_picture p = unfolded_picture(u, seen);
        p.fold = graph_fold::none;
        p.note = "the neighbourhood of " + quoted(opts.around) + " within " + std::to_string(opts.radius) +
                 (opts.radius == 1 ? " edge: " : " edges: ") + grouped_count(p.boxes.size()) + " of " +
                 grouped_count(p.model_nodes) + " nodes' boxes";
        return p;
    }
    const std::uint32_t within = u.scopes.find(opts.within);
    if (within == scope_tree::none) return error(errc::not_found);
    const std::uint32_t within_depth = u.scopes.depth(within);
    std::uint32_t deepest = 0;
    std::size_t inside = 0;
    const std::vector<bool> in = boxes_inside(u, within, deepest, inside);
    if (inside == 0 && within != scope_tree::root) return error(errc::not_found);
    const std::string where = within == scope_tree::root ? std::string() : " in " + u.scopes.path(within);
    const graph_fold fold_mode = opts.fold;
    const bool fits = fold_mode == graph_fold::automatic && opts.depth == 0 && inside <= opts.max_boxes;
    if (fold_mode == graph_fold::automatic && opts.depth == 0 && !fits && deepest <= within_depth) {
        // Nothing to fold by and too many boxes: consecutive ones as ranges.
        graph_picture p = fold(u, 0, false, within, nullptr, opts.max_boxes);
        p.fold = graph_fold::automatic;
        p.note = grouped_count(inside) + " boxes" + where + ", no scopes in the node names to fold by: drawn as " +
                 grouped_count(p.boxes.size()) + " with consecutive ones in ranges";
        return p;
    }
    if (fold_mode == graph_fold::none || fits || deepest <= within_depth) {
        graph_picture p = within == scope_tree::root ? unfolded_picture(u, in) : fold(u, 0, false, within);
        p.fold = graph_fold::none;
        const std::string count = grouped_count(within == scope_tree::root ? p.model_nodes : inside);
        p.note = deepest <= within_depth && fold_mode != graph_fold::none && !fits
                     ? "every node" + where + " (" + count + "): no scopes in the node names to fold by"
                     : "every node" + where + " (" + count + ")";
        return p;
    }
    const bool repeats = fold_mode != graph_fold::scope;
    std::uint32_t depth = opts.depth != 0 ? std::max(within_depth + 1, std::min(opts.depth, deepest)) : 0;
    graph_picture best;
    if (depth == 0) {
        // Where runs of repeated scopes are, the level that folds the most
        // of them (a transformer's layers); else the deepest level that fits.
        std::size_t most = 0;
        for (std::uint32_t d = within_depth + 1; d <= deepest && repeats; ++d) {
            std::size_t merged = 0;
            graph_picture p = fold(u, d, true, within, &merged);
            if (merged > most && p.boxes.size() <= opts.max_boxes) most = merged, depth = d, best = std::move(p);
        }
        if (most == 0)
            for (std::uint32_t d = deepest; d > within_depth; --d) {
                best = fold(u, d, repeats, within);
                depth = d;
                if (best.boxes.size() <= opts.max_boxes) break;
            }
    } else {
        best = fold(u, depth, repeats, within);
    }
    best.fold = repeats ? (fold_mode == graph_fold::automatic ? graph_fold::automatic : graph_fold::repeat)
                        : graph_fold::scope;
    best.note = grouped_count(within == scope_tree::root ? best.model_nodes : inside) + " nodes" + where +
                " folded to scopes " + std::to_string(depth) + (depth == 1 ? " level deep" : " levels deep") +
                (repeats ? ", repeats drawn once" : "") + ": " + grouped_count(best.boxes.size()) + " boxes";
    if (best.boxes.size() > opts.max_boxes && fold_mode == graph_fold::automatic && opts.depth == 0) {
        // No scope level is small enough: consecutive boxes as ranges.
        const std::size_t before = best.boxes.size();
        graph_picture ranged = fold(u, depth, repeats, within, nullptr, opts.max_boxes);
        ranged.fold = best.fold;
        ranged.note = best.note.substr(0, best.note.rfind(": ")) + ": " + grouped_count(before) +
                      " boxes, drawn as " + grouped_count(ranged.boxes.size()) + " with consecutive ones in ranges";
        best = std::move(ranged);
    }
    if (best.boxes.size() > opts.max_boxes)
        best.note += " (more than " + grouped_count(opts.max_boxes) + ": the scopes fold no further)";
    return best;
}

}  // namespace onnxview
