// src/profile/control_flow.cpp - the bodies of If, Loop and Scan: their
// inputs from the holder's (ONNX operator spec: Loop 11+, Scan 8 and 9+),
// and the holder's outputs and cost from the bodies'.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "control_flow.hpp"
#include "rules.hpp"

namespace onnxview {
namespace profile_detail {
namespace {

bool standard_domain(std::string_view d) { return d.empty() || d == "ai.onnx"; }

// A holder's input as a body input: type and shape, not the values (a
// loop-carried value changes from one iteration to the next).
value_fact without_values(const value_fact* f) {
    value_fact out;
    if (f == nullptr) return out;
    out.elem_type = f->elem_type;
    out.shape = f->shape;
    return out;
}

value_fact scalar(data_type type) {
    value_fact f;
    f.elem_type = static_cast<std::int32_t>(type);
    f.shape.rank_known = true;
    return f;
}

// Where Scan's inputs are: its state variables, then num_scan_inputs scan
// inputs; Scan 8 has sequence_lens first and a batch axis in front of every
// input (the scan axis is then axis 1).
struct scan_layout {
    std::size_t first = 0;  // index of the first state variable
    std::size_t states = 0;
    std::size_t scans = 0;
    bool batched = false;  // Scan 8
};

bool scan_counts(const node_context& c, scan_layout& out) {
    out.batched = c.opset == 8;
    out.first = out.batched ? 1 : 0;
    const std::int64_t m = c.int_attribute("num_scan_inputs", -1);
    if (m < 0 || c.input_count() < out.first || static_cast<std::uint64_t>(m) > c.input_count() - out.first)
        return false;
    out.scans = static_cast<std::size_t>(m);
    out.states = c.input_count() - out.first - out.scans;
    return true;
}

// A fact without its first `n` axes (Scan 8's batch axis, its slices'
// batch and scan axes); unknown rank when it has fewer.
value_fact drop_leading(value_fact f, std::size_t n) {
    if (!f.shape.rank_known) return f;
    if (f.shape.dims.size() < n) f.shape = value_shape();
    else f.shape.dims.erase(f.shape.dims.begin(), f.shape.dims.begin() + static_cast<std::ptrdiff_t>(n));
    return f;
}

// The axis `axes[i]` (0 when not given) of a rank-`rank` value.
bool axis_at(const std::optional<std::vector<std::int64_t>>& axes, std::size_t i, std::size_t rank, std::size_t& out) {
    const std::int64_t a = axes && i < axes->size() ? (*axes)[i] : 0;
    return normalize_axis(a, rank, out);
}

// The union of two branches' facts, as onnx's If inference makes it: a dim
// both give alike stays; two known dims that differ are the condition's to
// decide (a data-dependent dim of output k); any other is unknown. Values
// (shape vectors) are kept where both branches give them alike.
value_fact branch_union(const node_context& c, std::size_t k, const value_fact& a, const value_fact& b) {
    value_fact out;
    out.elem_type = a.elem_type != 0 ? a.elem_type : b.elem_type;
    if (!a.shape.rank_known || !b.shape.rank_known || a.shape.dims.size() != b.shape.dims.size()) return out;
    out.shape = a.shape;
    for (std::size_t i = 0; i < out.shape.dims.size(); ++i) {
        const quantity& x = a.shape.dims[i];
        const quantity& y = b.shape.dims[i];
        if (x.known && y.known && x.value != y.value) out.shape.dims[i] = data_dependent(c, k, i);
        else if (!(x.known && y.known)) out.shape.dims[i] = quantity();
    }
    // A shape vector both branches compute alike (each from the values around the If) goes on.
    if (a.values_known && b.values_known && a.values.size() == b.values.size()) {
        out.values_known = true;
        for (std::size_t i = 0; i < a.values.size(); ++i) {
            const bool same = a.values[i].known && b.values[i].known && a.values[i].value == b.values[i].value;
            out.values.push_back(same ? a.values[i] : quantity());
        }
    }
    return out;
}

// `body` x `trip`, both MACs and FLOPs.
std::string repeated(const body_result& body, const quantity& trip, node_cost& cost) {
    cost.macs = times(body.macs, trip);
    cost.flops = times(body.flops, trip);
    if (!cost.macs.known || !cost.flops.known) return "body cost x trip count overflows";
    return std::string();
}

std::string combine_if(const node_context& c, const std::vector<body_result>& bodies, std::vector<value_fact>& outputs, node_cost& cost,
                       std::string& basis) {
    const body_result* then_branch = nullptr;
    const body_result* else_branch = nullptr;
    for (const body_result& b : bodies) {
        if (b.attribute == "then_branch") then_branch = &b;
        if (b.attribute == "else_branch") else_branch = &b;
    }
    if (then_branch == nullptr || else_branch == nullptr) return "If without a then_branch and an else_branch";
    for (std::size_t k = 0; k < outputs.size(); ++k)
        if (k < then_branch->outputs.size() && k < else_branch->outputs.size())
            outputs[k] = branch_union(c, k, then_branch->outputs[k], else_branch->outputs[k]);
    for (const body_result* b : {then_branch, else_branch})
        if (!b->reason.empty()) return std::string(b->attribute) + ": " + b->reason;
    // Which branch runs depends on data: the larger one bounds what runs. When the two compare
    // either way (then 10*N, else 5*N + 100), the one growing faster as the dims grow.
    const dim_order macs = compare(then_branch->macs.value, else_branch->macs.value);
    const dim_order flops = compare(then_branch->flops.value, else_branch->flops.value);
    auto larger = [&](dim_order o, const quantity& t, const quantity& e) {
        if (o == dim_order::unordered) return grows_faster(e, t) ? else_branch : then_branch;
        return o == dim_order::greater_or_equal ? then_branch : else_branch;
    };
    const body_result* by_macs = larger(macs, then_branch->macs, else_branch->macs);
    const body_result* by_flops = larger(flops, then_branch->flops, else_branch->flops);
    const bool for_large_dims = macs == dim_order::unordered || flops == dim_order::unordered;
    cost.macs = by_macs->macs;
    cost.flops = by_flops->flops;
    if (then_branch->macs.value == else_branch->macs.value && then_branch->flops.value == else_branch->flops.value)
        basis = "the branches cost alike";
    else if (by_macs == by_flops)
        basis = std::string(for_large_dims ? "the larger branch for large dims: " : "the larger branch: ") +
                std::string(by_macs->attribute);
    else
        basis = std::string(for_large_dims ? "the larger of each for large dims: MACs of " : "the larger of each: MACs of ") +
                std::string(by_macs->attribute) + ", FLOPs of " + std::string(by_flops->attribute);
    return std::string();
}

std::string combine_loop(const node_context& c, const body_result& body, std::vector<value_fact>& outputs,
                         node_cost& cost, std::string& basis) {
    const std::size_t carried = c.input_count() > 2 ? c.input_count() - 2 : 0;
    // M: the trip count, when the graph gives it as a constant (or a value
    // computed from shapes: symbolic).
    quantity trip;
    const bool has_m = c.input_count() > 0 && !c.input_names[0].empty();
    const value_fact* m = c.input(0);
    if (has_m && m != nullptr && m->values_known && m->values.size() == 1 && m->values[0].known &&
        !(m->values[0].concrete() && m->values[0].value.constant_term() < 0))
        trip = m->values[0];
    // Else the data decides (an M from a graph input's values, or no M: until cond is false): one symbol
    // for the iterations, which the scan outputs stack and the cost multiplies.
    const bool data_trip = !trip.known;
    if (data_trip) trip = data_dependent_count(c, "iterations");
    // A constant M of 0: the loop-carried values come out as they went in.
    // At least one iteration: M of 1 or more, and no initial cond, or one
    // known true (a false one runs none).
    const bool never = !data_trip && trip.concrete() && trip.value.constant_term() == 0;
    const bool has_cond = c.input_count() > 1 && !c.input_names[1].empty();
    const value_fact* first_cond = has_cond ? c.input(1) : nullptr;
    const bool starts = !has_cond || (first_cond != nullptr && first_cond->values_known &&
                                      first_cond->values.size() == 1 && first_cond->values[0].concrete() &&
                                      first_cond->values[0].value.constant_term() != 0);
    const bool at_least_once = !data_trip && trip.concrete() && trip.value.constant_term() >= 1 && starts;
    for (std::size_t k = 0; k < outputs.size(); ++k) {
        const std::size_t body_output = k + 1;  // after cond
        if (k < carried) {
            if (never && c.input(k + 2) != nullptr) {
                outputs[k] = *c.input(k + 2);
                continue;
            }
            // A loop-carried value's final shape: what the body makes, or else what went in.
            outputs[k] = body_output < body.outputs.size() && body.outputs[body_output].shape.rank_known
                             ? body.outputs[body_output]
                             : without_values(c.input(k + 2));
            // Its values, when the body knows them: the body saw its inputs
            // without values (body_inputs), so they depend on no iteration
            // and hold after the last one, if there is one.
            if (!(at_least_once && body_output < body.outputs.size() && body.outputs[body_output].values_known)) {
                outputs[k].values_known = false;
                outputs[k].values.clear();
            }
            continue;
        }
        // A scan output: the body's per-iteration value, stacked.
        if (body_output >= body.outputs.size()) continue;
        value_fact f = without_values(&body.outputs[body_output]);
        // Stacked once per iteration.
        if (f.shape.rank_known) f.shape.dims.insert(f.shape.dims.begin(), trip);
        outputs[k] = std::move(f);
    }
    if (!body.reason.empty()) return "body: " + body.reason;
    for (std::size_t k = 0; k < carried; ++k) {
        const value_fact* in = c.input(k + 2);
        if (in == nullptr || k + 1 >= body.outputs.size() || !body.outputs[k + 1].shape.complete()) continue;
        if (in->shape.complete() && in->shape.str() != body.outputs[k + 1].shape.str())
            return "loop-carried value " + std::to_string(k) + " changes shape from " + in->shape.str() + " to " +
                   body.outputs[k + 1].shape.str() + ": the cost of later iterations differs";
    }
    if (std::string why = repeated(body, trip, cost); !why.empty()) return why;
    if (!has_m) basis = "body x " + trip.str() + " iterations (data-dependent: no M, it runs until cond is false)";
    else if (data_trip)
        basis = "body x " + trip.str() + " iterations (data-dependent: M '" + std::string(c.input_names[0]) +
                "' is not a constant in the model)";
    else basis = "body x M = " + trip.str() + " iterations" + (has_cond ? " (the most: cond may end it sooner)" : "");
    return std::string();
}

std::string combine_scan(const node_context& c, const body_result& body, std::vector<value_fact>& outputs,
                         node_cost& cost, std::string& basis) {
    scan_layout l;
    if (!scan_counts(c, l)) return "Scan without a valid num_scan_inputs";
    // The number of iterations: the scan axis length of the scan inputs (all
    // alike); Scan 8 runs it for every element of the batch axis too.
    quantity trip, batch;
    const std::optional<std::vector<std::int64_t>> in_axes = c.ints_attribute("scan_input_axes");
    const value_fact* first = l.scans > 0 ? c.input(l.first + l.states) : nullptr;
    std::size_t axis = l.batched ? 1 : 0;
    if (first != nullptr && first->shape.rank_known &&
        (l.batched ? first->shape.dims.size() > 1 : axis_at(in_axes, 0, first->shape.dims.size(), axis))) {
        trip = first->shape.dims[axis];
        if (l.batched) batch = first->shape.dims[0];
    }
    const std::optional<std::vector<std::int64_t>> out_axes = c.ints_attribute("scan_output_axes");
    for (std::size_t k = 0; k < outputs.size() && k < body.outputs.size(); ++k) {
        value_fact f = without_values(&body.outputs[k]);
        if (k < l.states && !f.shape.rank_known) {
            f = without_values(c.input(l.first + k));
            if (l.batched) f = drop_leading(std::move(f), 1);
        }
        if (k >= l.states && f.shape.rank_known) {
            std::size_t at = 0;
            if (l.batched) f.shape.dims.insert(f.shape.dims.begin(), trip);
            else if (axis_at(out_axes, k - l.states, f.shape.dims.size() + 1, at))
                f.shape.dims.insert(f.shape.dims.begin() + static_cast<std::ptrdiff_t>(at), trip);
            else f.shape = value_shape();
        }
        if (l.batched && f.shape.rank_known) f.shape.dims.insert(f.shape.dims.begin(), batch);
        outputs[k] = std::move(f);
    }
    if (!body.reason.empty()) return "body: " + body.reason;
    if (!trip.known || (l.batched && !batch.known))
        return "scan length unknown: the scan inputs' scan axis has no known size";
    const quantity runs = l.batched ? times(batch, trip) : trip;
    if (std::string why = repeated(body, runs, cost); !why.empty()) return why;
    basis = l.batched ? "body x " + batch.str() + " x " + trip.str() + " iterations (batch x scan axis length, Scan 8)"
                      : "body x " + trip.str() + " iterations (scan axis length)";
    return std::string();
}

}  // namespace

bool is_control_flow(const node_view& n) noexcept {
    const std::string_view op = n.op_type();
    return standard_domain(n.domain()) && (op == "If" || op == "Loop" || op == "Scan");
}

std::string body_inputs(const node_context& c, std::string_view attribute, std::vector<value_fact>& out) {
    out.clear();
    const std::string_view op = c.node.op_type();
    if (op == "Loop" && attribute == "body") {
        out.push_back(scalar(data_type::int64));  // iteration_num
        out.push_back(scalar(data_type::boolean));  // cond
        for (std::size_t k = 2; k < c.input_count(); ++k) out.push_back(without_values(c.input(k)));
        return std::string();
    }
    if (op == "Scan" && attribute == "body") {
        scan_layout l;
        if (!scan_counts(c, l)) return "Scan without a valid num_scan_inputs";
        for (std::size_t k = 0; k < l.states; ++k)
            out.push_back(drop_leading(without_values(c.input(l.first + k)), l.batched ? 1 : 0));
        const std::optional<std::vector<std::int64_t>> axes = c.ints_attribute("scan_input_axes");
        std::string reason;
        for (std::size_t j = 0; j < l.scans; ++j) {
            value_fact f = without_values(c.input(l.first + l.states + j));
            std::size_t axis = 0;
            if (l.batched && f.shape.rank_known && f.shape.dims.size() >= 2) f = drop_leading(std::move(f), 2);
            else if (!l.batched && f.shape.rank_known && axis_at(axes, j, f.shape.dims.size(), axis))
                f.shape.dims.erase(f.shape.dims.begin() + static_cast<std::ptrdiff_t>(axis));
            else {
                f.shape = value_shape();
                if (reason.empty()) reason = "scan input " + std::to_string(j) + " has no known shape";
            }
            out.push_back(std::move(f));
        }
        return reason;
    }
    return std::string();  // If's branches take no inputs
}

std::string combine_bodies(const node_context& c, const std::vector<body_result>& bodies,
                           std::vector<value_fact>& outputs, node_cost& cost, std::string& basis) {
    const std::string_view op = c.node.op_type();
    if (op == "If") return combine_if(c, bodies, outputs, cost, basis);
    const body_result* body = nullptr;
    for (const body_result& b : bodies)
        if (b.attribute == "body") body = &b;
    if (body == nullptr) return std::string(op) + " without a body";
    if (op == "Loop") return combine_loop(c, *body, outputs, cost, basis);
    return combine_scan(c, *body, outputs, cost, basis);
}

}  // namespace profile_detail
}  // namespace onnxview
