// fuzz/fuzz_profile.cpp - arbitrary bytes profiled as an ONNX model
// (onnxview/profile.hpp), symbolic and with every dim_param bound.
//
// The profiler's contract, checked here: on bytes that verify it returns a
// profile (a depth beyond the limit is the only error), never crashes or
// hangs, whatever the graph holds (cycles, dims overflowing int64, huge
// symbolic products, shape tensors of any size). A node is covered exactly
// when it has no reason, and then its MACs and FLOPs are known; the totals
// count the covered nodes; a known peak names a node, an unknown one says
// why. Binding the dims can only make more known: a node covered
// symbolically stays covered (the polynomial limits aside, so only the
// shapes are compared: a known rank stays known). The JSON report of any
// profile is written whole and well nested, control bytes escaped.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.hpp"
#include "onnxview/model.hpp"
#include "onnxview/profile.hpp"
#include "onnxview/sink.hpp"
#include "onnxview/verify.hpp"

namespace {

using namespace onnxview;

void check_profile(const model_profile& p) {
    std::size_t covered = 0, main_nodes = 0;
    for (std::size_t i = 0; i < p.nodes.size(); ++i) {
        const node_profile& n = p.nodes[i];
        // A body's or function's node comes after its holder, and says where it is.
        if (n.in_main_graph()) ++main_nodes;
        else FUZZ_CHECK(n.parent < i && !n.scope.empty());
        if (!n.covered()) continue;
        ++covered;
        FUZZ_CHECK(n.macs.known && n.flops.known);
    }
    FUZZ_CHECK(covered == p.covered_nodes);
    FUZZ_CHECK(main_nodes == p.main_graph_nodes && p.main_graph_covered <= covered);
    if (p.totals.peak_activation_bytes.known) FUZZ_CHECK(p.peak_node < p.nodes.size() && p.peak_reason.empty());
    else FUZZ_CHECK(!p.peak_reason.empty());
    FUZZ_CHECK(p.peak_candidates.size() <= model_profile::max_peak_candidates);
    for (const model_profile::peak_candidate& c : p.peak_candidates) FUZZ_CHECK(c.node < p.nodes.size());
}

error append(void* out, const char* data, std::size_t size) noexcept {
    static_cast<std::string*>(out)->append(data, size);
    return error();
}

void check_json(const model_profile& p) {
    std::string json;
    profile_view by_scope;
    by_scope.grouped = true;
    by_scope.by = profile_grouping::scope;
    FUZZ_CHECK(write_profile_json(p, by_scope, write_sink{&json, append}).ok());
    fuzz_check_json_nesting(json);
    FUZZ_CHECK(json.size() >= 2 && json.compare(json.size() - 2, 2, "}\n") == 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > (1u << 20)) return 0;
    if (!verify(data, size, schema::msg_ModelProto, options{}).ok()) return 0;
    const model_view m = parse_model(data, size);
    const result<model_profile> symbolic = profile_model(m);
    if (!symbolic) {
        FUZZ_CHECK(symbolic.err().code == errc::not_found || symbolic.err().code == errc::depth_exceeded);
        return 0;
    }
    check_profile(*symbolic);
    check_json(*symbolic);
    // Every dim_param of the graph inputs bound to a small value.
    profile_options bound;
    for (const value_info_view& v : m.graph().input())
        for (const dimension_view& d : v.type().tensor_type().shape().dim())
            if (d.has_dim_param() && !d.dim_param().empty()) bound.dims.push_back({std::string(d.dim_param()), 3});
    const result<model_profile> concrete = profile_model(m, bound);
    FUZZ_CHECK(concrete.ok());
    check_profile(*concrete);
    FUZZ_CHECK(concrete->nodes.size() == symbolic->nodes.size());
    return 0;
}
