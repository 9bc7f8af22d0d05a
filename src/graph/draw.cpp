// The picture of a model's graph (draw_graph, onnxview/graph.hpp): every
// node, input and output as a box, then folded by scope and repeats.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "onnxview/display.hpp"
#include "onnxview/graph.hpp"
#include "onnxview/traverse.hpp"
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
    }
    return "node";
}

namespace {

// A folded group of boxes: the key it was folded by, its nodes in order.
struct group {
    std::string key;                 // scope path ("model/layers.3"), or "" for a box of its own
    std::vector<std::size_t> boxes;  // of the unfolded picture, in file order
};

// The structure of a group, for repeat detection: each node's op type and,
// for each value it reads, which earlier node of the group made it (or
// none): equal for layers that differ only in names and weights.
std::string signature_of(const group& g, const graph_picture& p, const std::vector<std::vector<std::string_view>>& reads,
                         const std::unordered_map<std::string_view, std::size_t>& producer) {
    std::unordered_map<std::size_t, std::size_t> position;
    for (std::size_t i = 0; i < g.boxes.size(); ++i) position[g.boxes[i]] = i;
    std::string sig;
    for (std::size_t i = 0; i < g.boxes.size(); ++i) {
        const std::size_t b = g.boxes[i];
        sig += p.boxes[b].op_type + "(";
        for (std::string_view v : reads[b]) {
            const auto pr = producer.find(v);
            const auto at = pr == producer.end() ? position.end() : position.find(pr->second);
            sig += at == position.end() ? "x," : std::to_string(i - at->second) + ",";
        }
        sig += ")";
    }
    return sig;
}

// "layers.12" -> ("layers.", 12); false without a trailing number.
bool numbered(const std::string& last, std::string& stem, long& number) {
    std::size_t d = last.size();
    while (d > 0 && last[d - 1] >= '0' && last[d - 1] <= '9') --d;
    if (d == last.size() || last.size() - d > 9) return false;
    stem = last.substr(0, d);
    number = std::strtol(last.c_str() + d, nullptr, 10);
    return true;
}

// Whether `scope` lies in `within` (every scope lies in the empty one).
bool lies_in(const std::vector<std::string>& scope, const std::vector<std::string>& within) {
    return scope.size() >= within.size() && std::equal(within.begin(), within.end(), scope.begin());
}

// The picture folded to scopes `depth` levels deep, repeats folded with
// `repeats`; `merged` counts the scopes that joined a run. With `within`
// (a scope path), only that scope's nodes: its direct nodes as boxes of
// their own, what it reads and what reads it from outside as input and
// output boxes named by the value.
graph_picture fold(const unfolded& u, std::uint32_t depth, bool repeats, const std::vector<std::string>& within,
                   std::size_t* merged = nullptr) {
    const graph_picture& p = u.p;
    constexpr std::size_t outside = ~std::size_t(0);
    // Groups in order of their first box.
    std::vector<group> groups;
    std::map<std::string, std::size_t> by_key;
    std::vector<std::size_t> group_of(p.boxes.size());
    for (std::size_t b = 0; b < p.boxes.size(); ++b) {
        const box_facts& f = u.facts[b];
        if (!within.empty() && (!f.foldable || !lies_in(f.scope, within))) {
            group_of[b] = outside;
            continue;
        }
        if (!f.foldable || depth == 0 || f.scope.size() <= within.size()) {
            group_of[b] = groups.size();
            groups.push_back({std::string(), {b}});
            continue;
        }
        const std::string key = join(f.scope, depth);
        const auto it = by_key.find(key);
        if (it != by_key.end()) {
            group_of[b] = it->second;
            groups[it->second].boxes.push_back(b);
        } else {
            by_key.emplace(key, groups.size());
            group_of[b] = groups.size();
            groups.push_back({key, {b}});
        }
    }
    // Runs of numbered siblings with one structure become one group.
    std::vector<std::size_t> merged_into(groups.size());
    std::vector<std::uint64_t> run_length(groups.size(), 1);
    std::vector<std::string> run_last(groups.size());
    for (std::size_t g = 0; g < groups.size(); ++g) merged_into[g] = g;
    if (repeats) {
        std::size_t g = 0;
        while (g < groups.size()) {
            const group& first = groups[g];
            std::string stem, parent;
            long number = 0;
            const std::size_t cut = first.key.rfind('/');
            parent = cut == std::string::npos ? std::string() : first.key.substr(0, cut);
            const std::string last = cut == std::string::npos ? first.key : first.key.substr(cut + 1);
            if (first.key.empty() || !numbered(last, stem, number)) {
                ++g;
                continue;
            }
            const std::string sig = signature_of(first, p, u.reads, u.producer);
            std::size_t h = g + 1;
            long expect = number + 1;
            for (; h < groups.size(); ++h, ++expect) {
                const group& next = groups[h];
                if (next.key != (parent.empty() ? "" : parent + "/") + stem + std::to_string(expect)) break;
                if (signature_of(next, p, u.reads, u.producer) != sig) break;
            }
            if (h - g >= 2) {
                if (merged != nullptr) *merged += h - g - 1;
                for (std::size_t k = g; k < h; ++k) merged_into[k] = g;
                run_length[g] = h - g;
                run_last[g] = groups[h - 1].key;
            }
            g = h;
        }
    }
    // Boxes: a scope of one node (and no run) is that node's box.
    graph_picture out;
    out.model_nodes = p.model_nodes;
    out.clusters = p.clusters;
    out.depth = depth;
    std::vector<std::string> id_of(groups.size());
    for (std::size_t g = 0; g < groups.size(); ++g) {
        if (merged_into[g] != g) continue;
        const group& gr = groups[g];
        if (gr.key.empty() || (gr.boxes.size() == 1 && run_length[g] == 1)) {
            out.boxes.push_back(p.boxes[gr.boxes[0]]);
            id_of[g] = out.boxes.back().id;
            continue;
        }
        graph_box box;
        box.kind = run_length[g] > 1 ? graph_box_kind::repeat : graph_box_kind::scope;
        box.id = "s" + std::to_string(out.boxes.size());
        box.name = gr.key;
        box.nodes = 0;
        box.repeats = run_length[g];
        for (std::size_t k = g; k < groups.size(); ++k)
            if (merged_into[k] == g)
                for (std::size_t b : groups[k].boxes) box.nodes += 1, box.parameters += p.boxes[b].parameters;
        const std::size_t cut = gr.key.rfind('/');
        const std::string shown = run_length[g] > 1
                                      ? gr.key + " \xE2\x80\x93 " + run_last[g].substr(cut == std::string::npos ? 0 : cut + 1) +
                                            " \xC3\x97" + std::to_string(run_length[g])
                                      : gr.key;
        box.label = shown + "\n" + grouped_count(box.nodes) + (box.nodes == 1 ? " node" : " nodes") +
                    (box.parameters != 0 ? ", " + grouped_count(box.parameters) + " parameters" : "");
        out.boxes.push_back(std::move(box));
        id_of[g] = out.boxes.back().id;
    }
    // Clusters of folded nodes disappear into their box.
    std::vector<bool> cluster_used(out.clusters.size(), false);
    for (const graph_box& b : out.boxes)
        for (std::size_t c = 0; c < out.clusters.size(); ++c)
            if (b.cluster == out.clusters[c].id) cluster_used[c] = true;
    // A used cluster keeps its parents.
    for (std::size_t c = out.clusters.size(); c-- > 0;)
        if (cluster_used[c])
            for (std::size_t q = 0; q < out.clusters.size(); ++q)
                if (out.clusters[q].id == out.clusters[c].parent) cluster_used[q] = true;
    std::vector<graph_cluster> kept;
    for (std::size_t c = 0; c < out.clusters.size(); ++c)
        if (cluster_used[c]) kept.push_back(out.clusters[c]);
    out.clusters = std::move(kept);
    // The values crossing the border of `within`: a box each, by value.
    std::map<std::pair<graph_box_kind, std::string>, std::string> border;
    const auto border_box = [&](graph_box_kind kind, const std::string& value) {
        auto [it, fresh] = border.emplace(std::make_pair(kind, value), std::string());
        if (fresh) {
            graph_box box;
            box.kind = kind;
            box.id = "b" + std::to_string(out.boxes.size());
            box.name = value;
            box.label = value;
            box.nodes = 0;
            out.boxes.push_back(std::move(box));
            it->second = out.boxes.back().id;
        }
        return it->second;
    };
    // Edges between the boxes, one per pair with the values they stand for.
    std::unordered_map<std::string, std::size_t> box_index;
    for (std::size_t b = 0; b < p.boxes.size(); ++b) box_index.emplace(p.boxes[b].id, b);
    std::map<std::pair<std::string, std::string>, graph_edge> folded;
    std::set<std::tuple<std::string, std::string, std::string>> values;  // (from, to, value) counted
    for (const graph_edge& e : p.edges) {
        const std::size_t from_group = group_of[box_index[e.from]], to_group = group_of[box_index[e.to]];
        if (from_group == outside && to_group == outside) continue;
        const std::string from = from_group == outside ? border_box(graph_box_kind::input, e.value)
                                                       : id_of[merged_into[from_group]];
        const std::string to = to_group == outside ? border_box(graph_box_kind::output, e.value)
                                                   : id_of[merged_into[to_group]];
        if (from == to) continue;
        auto [it, fresh] = folded.emplace(std::make_pair(from, to), e);
        it->second.from = from;
        it->second.to = to;
        if (values.emplace(from, to, e.value).second && !fresh) ++it->second.values;
    }
    for (auto& [key, e] : folded) out.edges.push_back(std::move(e));
    return out;
}

// The boxes within `radius` edges of those named `around` (a node's name;
// else a value's: its maker and readers), with the edges and clusters among
// them; false when nothing has that name.
bool neighbourhood(graph_picture& p, const std::string& around, std::uint32_t radius) {
    std::unordered_map<std::string, std::size_t> index;
    for (std::size_t b = 0; b < p.boxes.size(); ++b) index.emplace(p.boxes[b].id, b);
    std::vector<std::vector<std::size_t>> next(p.boxes.size());
    std::vector<std::size_t> frontier;
    std::vector<bool> seen(p.boxes.size(), false);
    const auto start = [&](std::size_t b) {
        if (!seen[b]) seen[b] = true, frontier.push_back(b);
    };
    // A node of that name; else the value (graph inputs and outputs are
    // boxes named by their value).
    for (std::size_t b = 0; b < p.boxes.size(); ++b)
        if (p.boxes[b].name == around && p.boxes[b].kind == graph_box_kind::node) start(b);
    const bool by_value = frontier.empty();
    for (const graph_edge& e : p.edges) {
        const std::size_t from = index[e.from], to = index[e.to];
        next[from].push_back(to);
        next[to].push_back(from);
        if (by_value && e.value == around) start(from), start(to);
    }
    if (by_value)
        for (std::size_t b = 0; b < p.boxes.size(); ++b)
            if (p.boxes[b].name == around && p.boxes[b].kind != graph_box_kind::node) start(b);
    if (frontier.empty()) return false;
    for (std::uint32_t r = 0; r < radius && !frontier.empty(); ++r) {
        std::vector<std::size_t> further;
        for (std::size_t b : frontier)
            for (std::size_t n : next[b])
                if (!seen[n]) seen[n] = true, further.push_back(n);
        frontier = std::move(further);
    }
    std::vector<graph_box> boxes;
    std::set<std::string> kept, clusters;
    for (std::size_t b = 0; b < p.boxes.size(); ++b)
        if (seen[b]) {
            kept.insert(p.boxes[b].id);
            clusters.insert(p.boxes[b].cluster);
            boxes.push_back(std::move(p.boxes[b]));
        }
    p.boxes = std::move(boxes);
    std::vector<graph_edge> edges;
    for (graph_edge& e : p.edges)
        if (kept.count(e.from) != 0 && kept.count(e.to) != 0) edges.push_back(std::move(e));
    p.edges = std::move(edges);
    // A cluster stays when a kept box sits in it, and so do its parents.
    bool grew = true;
    while (grew) {
        grew = false;
        for (const graph_cluster& c : p.clusters)
            if (clusters.count(c.id) != 0 && clusters.insert(c.parent).second) grew = true;
    }
    std::vector<graph_cluster> kept_clusters;
    for (graph_cluster& c : p.clusters)
        if (clusters.count(c.id) != 0) kept_clusters.push_back(std::move(c));
    p.clusters = std::move(kept_clusters);
    return true;
}

// The deepest scope among the nodes in `within`, and how many boxes lie in it.
std::uint32_t deepest_scope(const unfolded& u, const std::vector<std::string>& within, std::size_t& inside) {
    std::size_t d = 0;
    inside = 0;
    for (const box_facts& f : u.facts) {
        if (!within.empty() && (!f.foldable || !lies_in(f.scope, within))) continue;
        ++inside;
        d = std::max(d, f.scope.size());
    }
    return static_cast<std::uint32_t>(d);
}

std::vector<std::string> split_scope(const std::string& path) {
    std::vector<std::string> parts;
    std::size_t at = 0;
    while (at < path.size()) {
        std::size_t slash = path.find('/', at);
        if (slash == std::string::npos) slash = path.size();
        if (slash > at) parts.push_back(path.substr(at, slash - at));
        at = slash + 1;
    }
    return parts;
}

}  // namespace

error unfold_graph(const model_view& m, bool initializers, unfolded_ptr& out) {
    if (!m.has_graph()) return error(errc::not_found);
    return unfold_graph(m.graph(), initializers, out);
}

error unfold_graph(const graph_view& g, bool initializers, unfolded_ptr& out) {
    unfolded_ptr u(new unfolded);
    model_scope main;
    main.graph = g;
    if (error e = walk_scope(main, *u)) return e;
    u->finish(main.graph, initializers);
    infer_scopes(*u);
    out = std::move(u);
    return error();
}

result<graph_picture> draw_graph(const model_view& m, const graph_options& opts) {
    unfolded_ptr u;
    if (error e = unfold_graph(m, opts.initializers, u)) return e;
    return fold_graph(*u, opts);
}

result<graph_picture> draw_graph(const graph_view& g, const graph_options& opts) {
    unfolded_ptr u;
    if (error e = unfold_graph(g, opts.initializers, u)) return e;
    return fold_graph(*u, opts);
}

result<graph_picture> fold_graph(const unfolded& u, const graph_options& opts) {
    if (!opts.around.empty()) {
        graph_picture p = u.p;
        if (!neighbourhood(p, opts.around, opts.radius)) return error(errc::not_found);
        p.fold = graph_fold::none;
        p.note = "the neighbourhood of " + quoted(opts.around) + " within " + std::to_string(opts.radius) +
                 (opts.radius == 1 ? " edge: " : " edges: ") + grouped_count(p.boxes.size()) + " of " +
                 grouped_count(p.model_nodes) + " nodes' boxes";
        return p;
    }
    const std::vector<std::string> within = split_scope(opts.within);
    const auto within_depth = static_cast<std::uint32_t>(within.size());
    std::size_t inside = 0;
    const std::uint32_t deepest = deepest_scope(u, within, inside);
    if (inside == 0) return error(errc::not_found);
    const std::string where = within.empty() ? std::string() : " in " + join(within, within.size());
    graph_fold fold_mode = opts.fold;
    const bool fits = fold_mode == graph_fold::automatic && opts.depth == 0 && inside <= opts.max_boxes;
    if (fold_mode == graph_fold::none || fits || deepest <= within_depth) {
        graph_picture p = within.empty() ? u.p : fold(u, 0, false, within);
        p.fold = graph_fold::none;
        const std::string count = grouped_count(within.empty() ? p.model_nodes : inside);
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
    best.note = grouped_count(within.empty() ? best.model_nodes : inside) + " nodes" + where + " folded to scopes " +
                std::to_string(depth) + (depth == 1 ? " level deep" : " levels deep") +
                (repeats ? ", repeats drawn once" : "") + ": " + grouped_count(best.boxes.size()) + " boxes";
    if (best.boxes.size() > opts.max_boxes)
        best.note += " (more than " + grouped_count(opts.max_boxes) + ": the scopes fold no further)";
    return best;
}

}  // namespace onnxview
