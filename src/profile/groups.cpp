// src/profile/groups.cpp - the aggregate views of a profile (--by op,
// --by scope[:depth]): sums over the main graph's nodes.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "facts.hpp"
#include "onnxview/profile.hpp"

namespace onnxview {

std::string name_scope(std::string_view name, std::uint32_t depth) {
    if (!name.empty() && name.front() == '/') name.remove_prefix(1);
    const std::size_t last = name.rfind('/');
    if (last == std::string_view::npos) return std::string();
    name = name.substr(0, last);
    if (depth == 0) return std::string(name);
    std::size_t end = 0;
    for (std::uint32_t part = 0; part < depth; ++part) {
        const std::size_t slash = name.find('/', end);
        if (slash == std::string_view::npos) return std::string(name);
        end = slash + 1;
    }
    return std::string(name.substr(0, end - 1));
}

const char* group_key_name(profile_grouping by) noexcept { return by == profile_grouping::op ? "op_type" : "scope"; }

std::vector<profile_group> group_nodes(const model_profile& p, profile_grouping by, std::uint32_t scope_depth) {
    std::vector<profile_group> rows;
    std::unordered_map<std::string, std::size_t> at;
    for (const node_profile& n : p.nodes) {
        // A holder's cost counts its bodies: the main graph's nodes add up to the totals.
        if (!n.in_main_graph()) continue;
        std::string key;
        if (by == profile_grouping::scope) key = name_scope(n.name, scope_depth);
        else if (n.domain.empty() || n.domain == "ai.onnx") key = n.op_type;
        else key.append(n.domain).append("::").append(n.op_type);
        const auto [it, fresh] = at.emplace(std::move(key), rows.size());
        if (fresh) {
            rows.emplace_back();
            rows.back().key = it->first;
        }
        profile_group& r = rows[it->second];
        ++r.nodes;
        r.params += n.params;
        if (!n.covered()) {
            ++r.not_covered;
            continue;
        }
        r.macs = profile_detail::plus(r.macs, n.macs);
        r.flops = profile_detail::plus(r.flops, n.flops);
    }
    if (by == profile_grouping::op)
        std::sort(rows.begin(), rows.end(), [](const profile_group& a, const profile_group& b) { return a.key < b.key; });
    return rows;
}

}  // namespace onnxview
