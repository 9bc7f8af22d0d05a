// src/profile/values.hpp - what the profiler records of each value name of
// a scope, and the sweep of live activations over the main graph's values.
// Private to src/profile/.
#ifndef ONNXVIEW_SRC_PROFILE_VALUES_HPP
#define ONNXVIEW_SRC_PROFILE_VALUES_HPP

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "facts.hpp"
#include "onnxview/profile.hpp"
#include "value_table.hpp"

namespace onnxview {
namespace profile_detail {

// The size of a tensor stored in the model (initializer, sparse
// initializer's values, Constant output): a parameter when a node reads it.
struct stored_size {
    std::uint64_t elements = 0;
    std::uint64_t bytes = 0;
    bool read = false;
    // Where the TensorProto is: one tensor met several times (a function's
    // Constant, once per call) counts once.
    const char* origin = nullptr;
};

// What only a stored tensor's entry needs: apart, so that the other
// entries (nearly all of them) stay small.
struct stored_record {
    stored_size size;
    std::vector<std::size_t> readers;  // the nodes reading it (each once)
};

// Everything known of one value name of a scope: one hash lookup per use (a
// 100k-node model has as many names, so the small members sit together at
// the end, without padding between them).
struct value_entry {
    value_fact fact;
    // The TypeProto of its value_info or graph output, as its bytes (a
    // type_view is 200 bytes, this 40: a 100k-node model declares 300k
    // values); viewed again and converted when the value is made.
    wire::message declared;
    // An initializer or Constant output: a parameter, not an activation.
    std::unique_ptr<stored_record> stored;
    std::size_t producer = no_node;
    std::size_t last_use = no_node;
    std::uint32_t output = 0;  // which of the producer's outputs (its bytes are there)
    bool has_fact = false;
    bool has_declared = false;
    bool graph_input = false;
    bool graph_output = false;
    static constexpr std::size_t no_node = static_cast<std::size_t>(-1);
};

using value_map = value_table<value_entry>;

// Sets out's peak (totals.peak_activation_bytes, peak_node,
// peak_candidates, peak_reason) from the main graph's values: sweeps the
// main graph's nodes in file order. Graph inputs are live from the start,
// graph outputs to the end; stored tensors are weights, not activations.
void sweep_peak(model_profile& out, value_map& values,
                const std::vector<std::string_view>& graph_inputs);

}  // namespace profile_detail
}  // namespace onnxview

#endif  // ONNXVIEW_SRC_PROFILE_VALUES_HPP
