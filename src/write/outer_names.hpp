// Internal: the names a node's subgraphs take from the scopes around it
// (an If branch reading an outer value), for the edits that must know what
// a node depends on: --extract keeps their producers, --toposort orders
// the node after them.
#ifndef ONNXVIEW_SRC_WRITE_OUTER_NAMES_HPP
#define ONNXVIEW_SRC_WRITE_OUTER_NAMES_HPP

#include <cstdint>
#include <functional>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "../io/heap.hpp"
#include "onnxview/traverse.hpp"

namespace onnxview {
namespace detail {

using name_set = std::unordered_set<std::string_view, std::hash<std::string_view>, std::equal_to<std::string_view>,
                                    heap_allocator<std::string_view>>;

// Calls fn(name) for each name the subgraphs of node `n` (node `index` of
// scope `s`) read or name as their outputs without defining it themselves
// or in a subgraph around them (inputs, initializers, node outputs); a name
// read twice is given twice. Errors: a subgraph or node that does not read
// (its error), depth_exceeded past max_depth.
template <class Fn>
error for_each_outer_name(const model_scope& s, const node_view& n, std::uint32_t index, const heap& memory,
                          std::uint32_t max_depth, Fn&& fn) {
    struct finder : scope_visitor {
        const heap& memory;
        Fn& fn;
        std::vector<name_set, heap_allocator<name_set>> scopes;  // the subgraphs entered, outermost first
        error failure;
        finder(const heap& m, Fn& f) : memory(m), fn(f), scopes(heap_allocator<name_set>(m)) {}
        bool defined_inside(std::string_view name) const {
            for (const name_set& d : scopes)
                if (d.count(name) != 0) return true;
            return false;
        }
        bool enter(const model_scope& scope) {
            scopes.emplace_back(heap_allocator<std::string_view>(memory));
            if (!scope.graph.ok()) {
                if (!failure) failure = scope.graph.err();
                return false;
            }
            for_each_declared_name(scope, [this](std::string_view name) { scopes.back().insert(name); });
            return true;
        }
        void node(const model_scope&, const node_view& inner, std::uint32_t) {
            if (!inner.ok() && !failure) failure = inner.err();
            for (std::string_view in : inner.input())
                if (!in.empty() && !defined_inside(in)) fn(in);
        }
        void leave(const model_scope& scope) {
            for (const value_info_view& v : scope.graph.output())
                if (!defined_inside(v.name())) fn(v.name());
            scopes.pop_back();
        }
    } f(memory, fn);
    const error e = walk_node_scopes(s, n, index, f, max_depth);
    return e ? e : f.failure;
}

}  // namespace detail
}  // namespace onnxview

#endif  // ONNXVIEW_SRC_WRITE_OUTER_NAMES_HPP
