// edit_options::toposort: a stable topological order of the nodes of every
// graph and function. Node j comes after the node making each value it
// reads, as an input or from inside its subgraphs; of the nodes ready, the
// earliest in the file goes first (Kahn's algorithm with a min-heap), so a
// graph already in order keeps it, and two runs give the same bytes.
#include "toposort.hpp"

#include <algorithm>
#include <functional>
#include <queue>
#include <string_view>
#include <unordered_map>

#include "onnxview/model.hpp"
#include "onnxview/traverse.hpp"
#include "outer_names.hpp"

namespace onnxview {
namespace detail {
namespace {

template <class T>
using list = std::vector<T, heap_allocator<T>>;
using producers = std::unordered_map<std::string_view, std::uint32_t, std::hash<std::string_view>,
                                     std::equal_to<std::string_view>,
                                     heap_allocator<std::pair<const std::string_view, std::uint32_t>>>;

// What the report calls a node: its name, else its first output.
std::string_view label(const node_view& n) noexcept {
    if (!n.name().empty()) return n.name();
    for (std::string_view o : n.output()) return o;
    return {};
}

}  // namespace

node_orders::node_orders(const heap& memory, toposort_report* report, std::uint32_t max_depth) noexcept
    : memory_(memory), report_(report), max_depth_(max_depth), known_(heap_allocator<std::pair<const char* const, order>>(memory)) {}

bool node_orders::orders(const schema::message_desc& d) noexcept {
    return &d == &schema::msg_GraphProto || &d == &schema::msg_FunctionProto;
}

error node_orders::find(const wire::message& m, const schema::message_desc& d, const order*& out) noexcept {
    out = nullptr;
    const auto seen = known_.find(m.begin());
    if (seen != known_.end()) {
        out = seen->second.empty() ? nullptr : &seen->second;
        return error();
    }
    model_scope scope;
    if (&d == &schema::msg_FunctionProto) {
        scope.kind = scope_kind::function;
        scope.function = function_view(m);
    } else {
        scope.kind = scope_kind::subgraph;
        scope.graph = graph_view(m);
    }
    list<node_view> nodes{heap_allocator<node_view>(memory_)};
    producers made{heap_allocator<std::pair<const std::string_view, std::uint32_t>>(memory_)};
    for (const node_view& n : scope.nodes()) {
        if (!n.ok()) return n.err();
        for (std::string_view o : n.output())
            if (!o.empty()) made.emplace(o, static_cast<std::uint32_t>(nodes.size()));  // the first maker, in a broken model
        nodes.push_back(n);
    }
    const std::uint32_t count = static_cast<std::uint32_t>(nodes.size());
    // Edges p -> j (p makes a value j reads), as lists by maker; indegree by reader.
    list<std::uint32_t> waiting(count, 0, heap_allocator<std::uint32_t>(memory_));
    list<list<std::uint32_t>> readers(count, list<std::uint32_t>(heap_allocator<std::uint32_t>(memory_)),
                                      heap_allocator<list<std::uint32_t>>(memory_));
    for (std::uint32_t j = 0; j < count; ++j) {
        list<std::uint32_t> from{heap_allocator<std::uint32_t>(memory_)};
        auto needs = [&](std::string_view name) {
            const auto p = name.empty() ? made.end() : made.find(name);
            if (p != made.end()) from.push_back(p->second);
        };
        for (std::string_view in : nodes[j].input()) needs(in);
        if (error e = for_each_outer_name(scope, nodes[j], j, memory_, max_depth_, needs)) return e;
        std::sort(from.begin(), from.end());
        from.erase(std::unique(from.begin(), from.end()), from.end());
        for (std::uint32_t p : from) {
            readers[p].push_back(j);
            ++waiting[j];
        }
    }
    order result{heap_allocator<std::uint32_t>(memory_)};
    result.reserve(count);
    std::priority_queue<std::uint32_t, list<std::uint32_t>, std::greater<std::uint32_t>> ready{
        std::greater<std::uint32_t>(), list<std::uint32_t>(heap_allocator<std::uint32_t>(memory_))};
    for (std::uint32_t j = 0; j < count; ++j)
        if (waiting[j] == 0) ready.push(j);
    while (!ready.empty()) {
        const std::uint32_t j = ready.top();
        ready.pop();
        result.push_back(j);
        for (std::uint32_t r : readers[j])
            if (--waiting[r] == 0) ready.push(r);
    }
    if (result.size() != count) {
        // A node left waiting lies on a cycle or after one: follow the makers it still waits for
        // until one comes again, which is on the cycle.
        std::uint32_t at = 0;
        while (waiting[at] == 0) ++at;
        list<std::uint8_t> visited(count, 0, heap_allocator<std::uint8_t>(memory_));
        std::string_view through;
        while (visited[at] == 0) {
            visited[at] = 1;
            const node_view& n = nodes[at];
            std::uint32_t next = at;
            auto waits_on = [&](std::string_view name) {
                const auto p = name.empty() ? made.end() : made.find(name);
                if (next == at && p != made.end() && waiting[p->second] != 0) {
                    next = p->second;
                    through = name;
                }
            };
            for (std::string_view in : n.input()) waits_on(in);
            if (next == at) (void)for_each_outer_name(scope, n, at, memory_, max_depth_, waits_on);
            if (next == at) break;  // cannot happen: a waiting node waits on a waiting maker
            at = next;
        }
        if (report_ != nullptr) {
            report_->cycle = true;
            report_->node = label(nodes[at]);
            report_->value = through;
        }
        return error(errc::invalid_argument, nodes[at].wire_message().offset_of(nodes[at].wire_message().begin()));
    }
    std::uint64_t moved = 0;
    for (std::uint32_t k = 0; k < count; ++k) moved += result[k] != k;
    auto& kept = known_.emplace(m.begin(), order(heap_allocator<std::uint32_t>(memory_))).first->second;
    if (moved != 0) {
        kept = std::move(result);
        out = &kept;
    }
    moved_ += moved;
    return error();
}

}  // namespace detail
}  // namespace onnxview
