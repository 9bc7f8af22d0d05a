// src/profile/control_flow.hpp - If, Loop and Scan: what their bodies'
// inputs are, given the holder's inputs, and what the holder's outputs and
// cost are, given what the bodies came to. Private to src/profile/.
#ifndef ONNXVIEW_SRC_PROFILE_CONTROL_FLOW_HPP
#define ONNXVIEW_SRC_PROFILE_CONTROL_FLOW_HPP

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "facts.hpp"

namespace onnxview {
namespace profile_detail {

// Whether the node is a standard If, Loop or Scan, whose bodies are profiled.
bool is_control_flow(const node_view& n) noexcept;

// What one body came to: the sums over its own nodes (each a holder of
// deeper bodies counted with them) and the facts of its graph outputs.
struct body_result {
    std::string_view attribute;  // "then_branch", "else_branch", "body"
    quantity macs = quantity(std::int64_t{0});
    quantity flops = quantity(std::int64_t{0});
    std::uint64_t params = 0;
    std::uint64_t param_bytes = 0;
    // The first of its nodes not covered ("node 'x' (Flatten): ..."), or
    // why its inputs are unknown; empty when all are covered.
    std::string reason;
    std::vector<value_fact> outputs;  // per graph output; unknown rank when nothing is known
};

// The facts of the body inputs of the holder's graph attribute `attribute`,
// as the spec defines them: Loop's (iteration_num: int64 [], cond: bool
// [], then the loop-carried values as the Loop's inputs give them), Scan's
// (the state variables, then each scan input without its scan axis); If's
// branches have none. Values are dropped (they change from one iteration
// to the next). Returns why some are unknown, or empty.
std::string body_inputs(const node_context& holder, std::string_view attribute, std::vector<value_fact>& out);

// The holder's output facts and cost from its bodies, when they are all
// covered: If the larger branch (each of MACs and FLOPs: the same branch
// nearly always), Loop the body x its trip count (the constant `M`), Scan
// the body x the scan axis length. `basis` says which. Returns why the cost
// is unknown, or empty; the outputs are filled as far as known either way.
std::string combine_bodies(const node_context& holder, const std::vector<body_result>& bodies,
                           std::vector<value_fact>& outputs, node_cost& cost, std::string& basis);

}  // namespace profile_detail
}  // namespace onnxview

#endif  // ONNXVIEW_SRC_PROFILE_CONTROL_FLOW_HPP
