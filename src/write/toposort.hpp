// Internal: edit_options::toposort. The order of each graph's and
// function's nodes is computed once, the first time the walk enters that
// message, and kept for the later passes; the walk then emits node
// occurrence k of the message as its node order[k].
#ifndef ONNXVIEW_SRC_WRITE_TOPOSORT_HPP
#define ONNXVIEW_SRC_WRITE_TOPOSORT_HPP

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "../io/heap.hpp"
#include "onnxview/schema.hpp"
#include "onnxview/wire.hpp"
#include "onnxview/write.hpp"

namespace onnxview {
namespace detail {

class node_orders {
public:
    using order = std::vector<std::uint32_t, heap_allocator<std::uint32_t>>;

    node_orders(const heap& memory, toposort_report* report, std::uint32_t max_depth) noexcept;

    // Whether messages of type d hold nodes to order (GraphProto, FunctionProto).
    static bool orders(const schema::message_desc& d) noexcept;
    // The order of the nodes of `m` (of type d: orders(d)), null when they
    // are in order already. Errors: invalid_argument at a node of a cycle
    // (the report says which), those of reading the nodes.
    error find(const wire::message& m, const schema::message_desc& d, const order*& out) noexcept;
    std::uint64_t moved() const noexcept { return moved_; }  // nodes placed elsewhere, all messages

private:
    heap memory_;
    toposort_report* report_;
    std::uint32_t max_depth_;
    std::uint64_t moved_ = 0;
    // By the message's first byte; an empty order: in order already.
    std::unordered_map<const char*, order, std::hash<const char*>, std::equal_to<const char*>,
                       heap_allocator<std::pair<const char* const, order>>>
        known_;
};

}  // namespace detail
}  // namespace onnxview

#endif  // ONNXVIEW_SRC_WRITE_TOPOSORT_HPP
