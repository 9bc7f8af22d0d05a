// Scopes for nodes whose names have none (infer_scopes, unfolded.hpp), so
// that a model exported without `/module/path/` names still folds: repeated
// blocks found by structure alone, and single unnamed nodes placed in the
// scope of the named nodes around them.
#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "unfolded.hpp"

namespace onnxview {
namespace {

// A run of `count` consecutive blocks of `length` nodes of one structure,
// from node `start`.
struct block_run {
    std::size_t start = 0, length = 0, count = 0;
    std::size_t covered() const { return length * count; }
};

// The longest run with period `length` in tokens[lo, hi): where token i
// equals token i + length for length or more nodes in a row.
block_run longest_run(const std::vector<std::uint32_t>& tokens, std::size_t lo, std::size_t hi, std::size_t length) {
    block_run best;
    std::size_t run_start = lo, matched = 0;
    for (std::size_t i = lo; i + length <= hi; ++i) {
        const bool same = i + length < hi && tokens[i] == tokens[i + length];
        if (same) {
            if (matched++ == 0) run_start = i;
            continue;
        }
        if (matched >= length) {
            const block_run r{run_start, length, matched / length + 1};
            if (r.covered() > best.covered()) best = r;
        }
        matched = 0;
    }
    return best;
}

// The run covering the most nodes of tokens[lo, hi), among the periods that
// separate equal tokens most often (a layer's period separates each of its
// tokens from its twin in the next layer); count 0 when there is none.
block_run best_run(const std::vector<std::uint32_t>& tokens, std::size_t lo, std::size_t hi) {
    std::unordered_map<std::uint32_t, std::size_t> last;
    std::unordered_map<std::size_t, std::size_t> gaps;
    for (std::size_t i = lo; i < hi; ++i) {
        const auto [it, fresh] = last.emplace(tokens[i], i);
        if (!fresh) {
            const std::size_t gap = i - it->second;
            if (gap >= 2 && gap <= (hi - lo) / 2) ++gaps[gap];
            it->second = i;
        }
    }
    std::vector<std::pair<std::size_t, std::size_t>> candidates(gaps.begin(), gaps.end());  // (gap, times)
    std::sort(candidates.begin(), candidates.end(), [](const auto& a, const auto& b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    constexpr std::size_t tried = 16;
    if (candidates.size() > tried) candidates.resize(tried);
    block_run best;
    for (const auto& c : candidates) {
        const block_run r = longest_run(tokens, lo, hi, c.first);
        // The same nodes in fewer, longer blocks lose: a layer, not two.
        if (r.covered() > best.covered() || (r.covered() == best.covered() && r.count > best.count)) best = r;
    }
    return best;
}

// Runs in tokens[lo, hi), the best first, then in what lies before and after it.
void find_runs(const std::vector<std::uint32_t>& tokens, std::size_t lo, std::size_t hi, std::vector<block_run>& out) {
    if (hi - lo < 4) return;
    const block_run r = best_run(tokens, lo, hi);
    if (r.count < 2) return;
    out.push_back(r);
    find_runs(tokens, lo, r.start, out);
    find_runs(tokens, r.start + r.covered(), hi, out);
}

// The strings of a Python list's repr (`['', 'layers.0', 'layers.0.mlp']`),
// as the torch exporter writes name_scopes; false when it is not one.
bool python_strings(std::string_view text, std::vector<std::string>& out) {
    std::size_t i = 0;
    const auto skip_spaces = [&] {
        while (i < text.size() && text[i] == ' ') ++i;
    };
    skip_spaces();
    if (i >= text.size() || text[i++] != '[') return false;
    for (;;) {
        skip_spaces();
        if (i < text.size() && text[i] == ']') return ++i, true;
        if (i >= text.size() || (text[i] != '\'' && text[i] != '"')) return false;
        const char quote = text[i++];
        std::string item;
        while (i < text.size() && text[i] != quote) {
            if (text[i] == '\\' && i + 1 < text.size()) ++i;
            item += text[i++];
        }
        if (i++ >= text.size()) return false;
        out.push_back(std::move(item));
        skip_spaces();
        if (i < text.size() && text[i] == ',') ++i;
    }
}

// Module paths from the root down ("layers.0", "layers.0.mlp") as scope
// parts ("layers.0", "mlp"), each without its parent's prefix.
std::uint32_t module_scope(const std::vector<std::string>& paths, scope_tree& tree) {
    std::uint32_t s = scope_tree::root;
    std::string parent;
    for (const std::string& path : paths) {
        if (path.empty()) continue;
        const bool under = !parent.empty() && path.size() > parent.size() + 1 &&
                           path.compare(0, parent.size(), parent) == 0 && path[parent.size()] == '.';
        std::string part = under ? path.substr(parent.size() + 1) : path;
        std::replace(part.begin(), part.end(), '/', '.');  // a part never holds the separator
        s = tree.child(s, tree.keep(std::move(part)));
        parent = path;
    }
    return s;
}

// The `/`-separated scope of an exporter's node name, without the node's
// own last part: "/model/layers.3/MatMul" is model, layers.3.
std::uint32_t name_scope(std::string_view name, scope_tree& tree) {
    std::uint32_t s = scope_tree::root;
    if (name.empty() || name.front() != '/') return s;
    for (std::size_t at = 1;;) {
        const std::size_t slash = name.find('/', at);
        if (slash == std::string_view::npos) return s;  // the last part: the node itself
        if (slash > at) s = tree.child(s, name.substr(at, slash - at));
        at = slash + 1;
    }
}

}  // namespace

std::uint32_t exporter_scope(const node_view& n, scope_tree& tree) {
    std::string_view name_scopes, name_space;
    for (const string_entry_view& e : n.metadata_props()) {
        if (e.key() == "pkg.torch.onnx.name_scopes") name_scopes = e.value();
        else if (e.key() == "namespace") name_space = e.value();
    }
    // Both list the root first and the node itself last.
    std::vector<std::string> paths;
    if (!name_scopes.empty() && python_strings(name_scopes, paths) && paths.size() >= 2) {
        paths.pop_back();
        return module_scope(paths, tree);
    }
    paths.clear();
    if (!name_space.empty()) {
        // "name: module class" per level, '/'-joined.
        for (std::size_t at = 0; at <= name_space.size();) {
            std::size_t slash = name_space.find('/', at);
            if (slash == std::string_view::npos) slash = name_space.size();
            const std::string_view level = name_space.substr(at, slash - at);
            paths.emplace_back(level.substr(0, level.find(": ")));
            at = slash + 1;
        }
        if (paths.size() >= 2) {
            paths.pop_back();
            return module_scope(paths, tree);
        }
    }
    return name_scope(n.name(), tree);
}

void infer_scopes(unfolded& u) {
    const std::size_t n = u.main_nodes.size();
    scope_tree& tree = u.scopes;
    // Each main node's boxes: its own, then its bodies' (walk order).
    std::vector<std::vector<std::uint32_t>> boxes_of(n);
    for (std::uint32_t b = 0; b < u.boxes.size(); ++b)
        if (u.boxes[b].kind == graph_box_kind::node && u.boxes[b].top < n) boxes_of[u.boxes[b].top].push_back(b);
    const auto scope_of_node = [&](std::size_t i) { return u.boxes[u.main_nodes[i]].scope; };
    const auto give = [&](std::size_t i, std::uint32_t scope) {
        for (std::uint32_t b : boxes_of[i]) u.boxes[b].scope = scope;
    };
    // A node's structure: its op, how far back the nodes it reads from are,
    // and the ops of its bodies - equal for the same node of two layers.
    std::vector<std::uint32_t> tokens(n);
    std::unordered_map<std::string, std::uint32_t> ids;
    std::string token;  // the numbers below as bytes: a key, never shown
    const auto put = [&](std::uint32_t v) { token.append(reinterpret_cast<const char*>(&v), sizeof v); };
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t b = u.main_nodes[i];
        token.clear();
        put(u.boxes[b].op);
        for (std::size_t r = u.read_begin[b]; r < u.read_end(b); ++r) {
            const std::uint32_t from = u.read_from[r];
            const bool node = from != scope_tree::none && u.boxes[from].kind == graph_box_kind::node && u.boxes[from].top < i;
            put(node ? static_cast<std::uint32_t>(i - u.boxes[from].top) : 0);
        }
        put(scope_tree::none);  // the bodies' ops follow
        for (std::size_t k = 1; k < boxes_of[i].size(); ++k) put(u.boxes[boxes_of[i][k]].op);
        tokens[i] = ids.emplace(token, static_cast<std::uint32_t>(ids.size())).first->second;
    }
    // Stretches of nodes without a scope: runs of blocks inside them.
    for (std::size_t lo = 0; lo < n;) {
        if (scope_of_node(lo) != scope_tree::root) {
            ++lo;
            continue;
        }
        std::size_t hi = lo;
        while (hi < n && scope_of_node(hi) == scope_tree::root) ++hi;
        std::vector<block_run> runs;
        find_runs(tokens, lo, hi, runs);
        for (const block_run& r : runs) {
            const std::uint32_t parent = tree.child(
                scope_tree::root,
                tree.keep("nodes " + std::to_string(r.start) + "-" + std::to_string(r.start + r.covered() - 1)));
            for (std::size_t k = 0; k < r.count; ++k) {
                const std::uint32_t block = tree.child(parent, tree.keep("block." + std::to_string(k)));
                for (std::size_t i = r.start + k * r.length; i < r.start + (k + 1) * r.length; ++i) give(i, block);
            }
        }
        lo = hi;
    }
    // A node still without a scope, between scoped ones: the scope they share.
    std::vector<std::size_t> next_scoped(n + 1, n);
    for (std::size_t i = n; i-- > 0;) next_scoped[i] = scope_of_node(i) == scope_tree::root ? next_scoped[i + 1] : i;
    std::size_t previous = n;
    std::vector<std::pair<std::size_t, std::uint32_t>> given;
    for (std::size_t i = 0; i < n; ++i) {
        if (scope_of_node(i) != scope_tree::root) {
            previous = i;
            continue;
        }
        const std::size_t next = next_scoped[i];
        if (previous == n || next == n) continue;
        const std::uint32_t shared = tree.common(scope_of_node(previous), scope_of_node(next));
        if (shared != scope_tree::root) given.emplace_back(i, shared);
    }
    for (const auto& [i, scope] : given) give(i, scope);
}

}  // namespace onnxview
