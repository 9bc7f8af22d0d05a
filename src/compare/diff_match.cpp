// src/compare/diff_match.cpp - pairing the nodes of two scopes by structure
// when their names do not tell (diff_models(), docs/diff.md "Matching nodes").
#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "diff_internal.hpp"

namespace onnxview {
namespace diff_detail {
namespace {

constexpr std::size_t npos = scope_record::npos;
// Signature rounds: each one sees one more producer and consumer away.
// Three tell apart the repeated blocks of the corpus models at a fraction of
// the cost of more; a change then disturbs the signatures only that far from it.
constexpr int rounds = 3;

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
    // splitmix64's finalizer over the running value: order matters, as it must
    // for a node's inputs.
    std::uint64_t x = h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

std::uint64_t text_hash(std::string_view s) { return std::hash<std::string_view>()(s); }

// Where a scope's values come from, without their names.
struct wiring {
    struct slot {
        std::size_t node;
        std::uint32_t index;
    };
    std::vector<std::vector<slot>> consumers;  // per node: who reads each of its outputs
    std::vector<std::vector<std::size_t>> producers;  // per node and input: the producer, or npos
    std::vector<std::vector<std::uint32_t>> producer_slot;
    std::vector<std::vector<std::uint64_t>> source;  // per node and input: the label of a value no node makes
    std::vector<std::uint64_t> output_positions;     // per node: which scope outputs it makes
};

wiring wire(const scope_record& s) {
    wiring w;
    const std::size_t n = s.nodes.size();
    w.consumers.resize(n);
    w.producers.resize(n);
    w.producer_slot.resize(n);
    w.source.resize(n);
    w.output_positions.assign(n, 0);
    std::unordered_map<std::string_view, wiring::slot> made;
    for (std::size_t i = 0; i < n; ++i)
        for (std::uint32_t j = 0; j < s.nodes[i].outputs.size(); ++j)
            if (!s.nodes[i].outputs[j].empty()) made.emplace(s.nodes[i].outputs[j], wiring::slot{i, j});
    std::unordered_map<std::string_view, std::uint64_t> given;  // inputs by position, initializers by type
    for (std::size_t k = 0; k < s.inputs.size(); ++k) given.emplace(s.inputs[k], mix(1, k));
    for (const auto& [name, type] : s.initializers) given.emplace(name, mix(2, text_hash(type)));
    for (std::size_t k = 0; k < s.outputs.size(); ++k) {
        const auto m = made.find(s.outputs[k]);
        if (m != made.end()) w.output_positions[m->second.node] = mix(w.output_positions[m->second.node], k + 1);
    }
    for (std::size_t i = 0; i < n; ++i) {
        const node_record& node = s.nodes[i];
        for (std::uint32_t j = 0; j < node.inputs.size(); ++j) {
            const std::string_view v = node.inputs[j];
            const auto m = made.find(v);
            if (m != made.end()) {
                w.producers[i].push_back(m->second.node);
                w.producer_slot[i].push_back(m->second.index);
                w.source[i].push_back(0);
                w.consumers[m->second.node].push_back({i, j});
                continue;
            }
            w.producers[i].push_back(npos);
            w.producer_slot[i].push_back(0);
            const auto g = given.find(v);
            // An empty name is an optional input left out; any other is
            // an outer scope's value.
            w.source[i].push_back(g != given.end() ? g->second : v.empty() ? 4 : 3);
        }
    }
    return w;
}

// labels[r + 1][i]: node i's signature after r rounds; labels[0][i]: its
// op alone, the last resort, which pairs a node whose attributes changed.
std::vector<std::vector<std::uint64_t>> signatures(const scope_record& s) {
    const wiring w = wire(s);
    const std::size_t n = s.nodes.size();
    std::vector<std::vector<std::uint64_t>> labels(rounds + 2, std::vector<std::uint64_t>(n));
    for (std::size_t i = 0; i < n; ++i) {
        const node_record& node = s.nodes[i];
        std::uint64_t h = mix(text_hash(node.op_type), text_hash(node.domain));
        labels[0][i] = h;
        h = mix(mix(h, node.inputs.size()), node.outputs.size());
        for (const node_attribute& a : node.attributes)
            h = mix(mix(h, text_hash(a.name)), text_hash(s.printer->text(a.view())));
        labels[1][i] = mix(h, w.output_positions[i]);
    }
    std::vector<std::uint64_t> around;
    for (int r = 2; r <= rounds + 1; ++r) {
        const std::vector<std::uint64_t>& prev = labels[r - 1];
        for (std::size_t i = 0; i < n; ++i) {
            std::uint64_t h = prev[i];
            for (std::size_t j = 0; j < w.producers[i].size(); ++j)
                h = mix(h, w.producers[i][j] == npos ? w.source[i][j]
                                                     : mix(prev[w.producers[i][j]], w.producer_slot[i][j]));
            // Consumers are a set: their order in the node list is layout.
            around.clear();
            for (const wiring::slot& c : w.consumers[i]) around.push_back(mix(prev[c.node], c.index));
            std::sort(around.begin(), around.end());
            for (std::uint64_t c : around) h = mix(h, c);
            labels[r][i] = h;
        }
    }
    return labels;
}

}  // namespace

std::vector<std::size_t> match_nodes(const scope_record& a, const scope_record& b, node_matching mode) {
    std::vector<std::size_t> a_to_b(a.nodes.size(), npos);
    std::vector<bool> b_taken(b.nodes.size(), false);
    // By name; a name given twice in a scope, by name and position.
    std::unordered_map<std::string_view, std::size_t> by_name;
    std::unordered_map<std::string, std::size_t> by_repeated_name;
    by_name.reserve(b.nodes.size());
    for (std::size_t i = 0; i < b.nodes.size(); ++i) {
        const node_record& n = b.nodes[i];
        if (n.name_repeated) by_repeated_name.emplace(n.key(), i);
        else if (!n.name.empty()) by_name.emplace(n.name, i);
    }
    for (std::size_t i = 0; i < a.nodes.size(); ++i) {
        const node_record& n = a.nodes[i];
        if (n.name.empty()) continue;
        std::size_t partner = npos;
        if (n.name_repeated) {
            const auto m = by_repeated_name.find(n.key());
            if (m != by_repeated_name.end()) partner = m->second;
        } else {
            const auto m = by_name.find(n.name);
            if (m != by_name.end()) partner = m->second;
        }
        if (partner == npos) continue;
        // By name, a node whose op changed is the same node changed; with
        // auto, a name reused for another op is left to the structure.
        if (mode == node_matching::automatic && b.nodes[partner].op_type != n.op_type) continue;
        a_to_b[i] = partner;
        b_taken[partner] = true;
    }
    // By name, named nodes are never paired by structure: one not found is
    // removed (or added).
    const auto open_a = [&](std::size_t i) {
        return a_to_b[i] == npos && (mode == node_matching::automatic || a.nodes[i].name.empty());
    };
    const auto open_b = [&](std::size_t i) {
        return !b_taken[i] && (mode == node_matching::automatic || b.nodes[i].name.empty());
    };
    bool any_a = false, any_b = false;
    for (std::size_t i = 0; i < a.nodes.size(); ++i) any_a = any_a || open_a(i);
    for (std::size_t i = 0; i < b.nodes.size(); ++i) any_b = any_b || open_b(i);
    if (!any_a || !any_b) return a_to_b;
    const auto la = signatures(a), lb = signatures(b);
    std::unordered_map<std::uint64_t, std::vector<std::size_t>> waiting;  // b's open nodes by signature, in order
    for (int r = rounds + 1; r >= 0; --r) {
        waiting.clear();
        for (std::size_t i = 0; i < b.nodes.size(); ++i)
            if (open_b(i)) waiting[lb[r][i]].push_back(i);
        std::unordered_map<std::uint64_t, std::size_t> next;  // how many of each list are taken
        for (std::size_t i = 0; i < a.nodes.size(); ++i) {
            if (!open_a(i)) continue;
            const auto m = waiting.find(la[r][i]);
            if (m == waiting.end()) continue;
            std::size_t& k = next[la[r][i]];
            if (k == m->second.size()) continue;
            a_to_b[i] = m->second[k++];
            b_taken[a_to_b[i]] = true;
        }
    }
    // By name, unnamed nodes left over are paired by position, as before
    // there were signatures: a node whose op changed is told as such.
    if (mode == node_matching::name) {
        std::size_t j = 0;
        for (std::size_t i = 0; i < a.nodes.size(); ++i) {
            if (!open_a(i)) continue;
            while (j < b.nodes.size() && !open_b(j)) ++j;
            if (j == b.nodes.size()) break;
            a_to_b[i] = j;
            b_taken[j] = true;
        }
    }
    return a_to_b;
}

void pair_values(const scope_record& a, const scope_record& b, const std::vector<std::size_t>& a_to_b,
                 value_names& names) {
    // A value keeps the first partner found: what its producer makes, then
    // where its first reader reads it.
    std::unordered_map<std::string_view, std::string_view> found;
    std::vector<std::pair<std::string_view, std::string_view>> in_order;  // so that "first" is stable
    const auto pair = [&](std::string_view x, std::string_view y) {
        if (!x.empty() && !y.empty() && found.emplace(x, y).second) in_order.emplace_back(x, y);
    };
    for (std::size_t i = 0; i < a_to_b.size(); ++i) {
        if (a_to_b[i] == npos) continue;
        const node_record& x = a.nodes[i];
        const node_record& y = b.nodes[a_to_b[i]];
        for (std::size_t j = 0; j < x.outputs.size() && j < y.outputs.size(); ++j) pair(x.outputs[j], y.outputs[j]);
    }
    for (std::size_t i = 0; i < a_to_b.size(); ++i) {
        if (a_to_b[i] == npos) continue;
        const node_record& x = a.nodes[i];
        const node_record& y = b.nodes[a_to_b[i]];
        for (std::size_t j = 0; j < x.inputs.size() && j < y.inputs.size(); ++j) {
            // An outer scope's value was paired in its own scope.
            if (names.renamed.count(value_names::namespace_key(a.ns, x.inputs[j])) != 0) continue;
            pair(x.inputs[j], y.inputs[j]);
        }
    }
    for (std::size_t k = 0; k < a.inputs.size() && k < b.inputs.size(); ++k) pair(a.inputs[k], b.inputs[k]);
    for (std::size_t k = 0; k < a.outputs.size() && k < b.outputs.size(); ++k) pair(a.outputs[k], b.outputs[k]);
    // Initializers nobody reads: by label (type, shape, digest), a name
    // both models give first, then in order. A name given twice (malformed)
    // is paired once, by its first label. One a node reads is no candidate
    // on either side (in b, read by a node of its own, an Identity a tool
    // put before the consumer: not the weight of an unread one of a).
    std::unordered_map<std::string_view, bool> taken;  // b's names paired, or read
    for (const auto& [x, y] : found) taken[y] = true;
    for (const node_record& n : b.nodes)
        for (std::string_view v : n.inputs) taken[v] = true;
    std::unordered_map<std::string_view, bool> read_in_a;
    for (const node_record& n : a.nodes)
        for (std::string_view v : n.inputs) read_in_a[v] = true;
    std::unordered_map<std::string_view, std::string_view> b_label;  // b's unread names
    for (const auto& [name, label] : b.initializers)
        if (!taken[name]) b_label.emplace(name, label);
    for (const auto& [name, label] : a.initializers) {
        const auto m = b_label.find(name);
        if (found.count(name) == 0 && !read_in_a[name] && m != b_label.end() && m->second == label && !taken[name]) {
            pair(name, name);
            taken[name] = true;
        }
    }
    std::unordered_map<std::string_view, std::vector<std::string_view>> unread;  // b's left, by label
    for (const auto& [name, label] : b.initializers)
        if (!taken[name]) unread[label].push_back(name), taken[name] = true;
    std::unordered_map<std::string_view, std::size_t> next;
    for (const auto& [name, label] : a.initializers) {
        if (found.count(name) != 0 || read_in_a[name]) continue;
        const auto m = unread.find(label);
        if (m == unread.end()) continue;
        std::size_t& k = next[label];
        if (k < m->second.size()) pair(name, m->second[k++]);
    }
    for (const auto& [x, y] : in_order) {
        const auto [it, added] = names.renamed.emplace(value_names::namespace_key(a.ns, x), std::string(y));
        if (!added || x == y) continue;
        if (names.values_renamed++ == 0) names.first_value_a = x, names.first_value_b = y;
    }
    for (std::size_t i = 0; i < a_to_b.size(); ++i) {
        ++names.nodes;
        if (a_to_b[i] == npos) continue;
        ++names.nodes_matched;
        if (a.nodes[i].name == b.nodes[a_to_b[i]].name) continue;
        if (names.nodes_renamed++ == 0) names.first_node_a = a.nodes[i].name, names.first_node_b = b.nodes[a_to_b[i]].name;
    }
}

}  // namespace diff_detail
}  // namespace onnxview
