// fuzz/fuzz_pack.cpp - arbitrary bytes packed as an ONNX model
// (onnxview/write.hpp), in place and with external data.
//
// The writer's contract, checked here: a model that verifies packs without
// error (unless it needs external bytes this target does not have), the
// output verifies, holds the same tensors bit for bit (same_tensors), and
// packing the output again changes nothing; with edits (doc strings
// stripped, producer, metadata and dims of input x set) too, but for the
// last. Renaming x is refused exactly when check_renames() says so, and
// when renaming it back is accepted too the tensors are the input's again.
// An extraction (x to y) verifies and extracting it again changes nothing.
// A proxy (pack_options::reference) verifies, reads back as the input's
// tensors, and its weights put back are the input's again.
// Binding again (plan_rebinds) the input's tensors without a payload to
// those of its own proxy (x renamed): whatever the bytes, a plan; a valid
// input with the planned rebinds packs into a model that verifies, each
// rebind met.
// Merged with itself (merge_models), prefixed, with and without x fed by
// y: refused with a reason, or a model that verifies and holds twice the
// input's main-graph initializers.
// Bytes that do not verify may fail to pack, but must not crash it.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.hpp"
#include "onnxview/merge.hpp"
#include "onnxview/model.hpp"
#include "onnxview/rebind.hpp"
#include "onnxview/verify.hpp"
#include "onnxview/write.hpp"

namespace {

using namespace onnxview;

error append(void* user, const char* data, std::size_t size) noexcept {
    static_cast<std::string*>(user)->append(data, size);
    return error();
}

result<std::string_view> fetch(void* user, const tensor_view& t, std::uint64_t expected) noexcept {
    const std::string& file = *static_cast<const std::string*>(user);
    const std::uint64_t offset = find_external_location(t).offset;
    if (offset > file.size() || file.size() - offset < expected) return errc::external_range_past_end;
    return std::string_view(file.data() + offset, static_cast<std::size_t>(expected));
}

// `from` with the value c.old_name renamed (tensors left as they are).
error rename(const std::string& from, const name_change& c, std::string& to) noexcept {
    edit_options edits{};
    edits.renames = &c;
    edits.rename_count = 1;
    rename_check check;
    const error checked = check_renames(from, edits, &check);
    pack_options po{};
    po.inline_align = 1;
    po.keep_typed = true;
    po.edits = &edits;
    const write_sink ms{&to, append};
    const error e = pack_model(from, nullptr, po, ms, nullptr);
    FUZZ_CHECK(checked.ok() || !e.ok());
    if (checked.ok()) FUZZ_CHECK(e.ok() == (check.problem == rename_problem::none));
    return e;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > (1u << 20)) return 0;
    const std::string in(reinterpret_cast<const char*>(data), size);
    const bool valid = verify(data, size, schema::msg_ModelProto, options{}).ok();
    // Edits (onnxview edit) on top of packing: the tensors survive them.
    {
        const metadata_change changes[] = {{"k", "v", false}, {"gone", "", true}};
        edit_options edits{};
        edits.strip_doc_strings = true;
        edits.set_producer_name = true;
        edits.producer_name = "fuzz";
        edits.metadata = changes;
        edits.metadata_count = 2;
        const dim_change dims[] = {{"x", 0, true, 0, "N"}, {"x", 1, false, 3, {}}};
        edits.dims = dims;
        edits.dim_count = 2;
        pack_options po{};
        po.edits = &edits;
        std::string model;
        const write_sink ms{&model, append};
        const error e = pack_model(in, nullptr, po, ms, nullptr);
        if (valid) {
            FUZZ_CHECK(e.ok());
            FUZZ_CHECK(verify(model.data(), model.size(), schema::msg_ModelProto, options{}).ok());
            FUZZ_CHECK(same_tensors(in, nullptr, model, nullptr).ok());
        }
    }
    if (valid) {
        std::string there, back;
        if (rename(in, {"x", "fuzz.x"}, there).ok()) {
            FUZZ_CHECK(verify(there.data(), there.size(), schema::msg_ModelProto, options{}).ok());
            if (rename(there, {"fuzz.x", "x"}, back).ok()) FUZZ_CHECK(same_tensors(in, nullptr, back, nullptr).ok());
        }
    }
    // Extraction of x -> y: refused with a reason, or a model that verifies,
    // holds the tensors it kept unchanged, and that the same cut leaves as it is.
    {
        const std::string_view inputs[] = {"x"}, outputs[] = {"y"};
        extract_report report;
        extract_request cut{};
        cut.inputs = inputs;
        cut.input_count = 1;
        cut.outputs = outputs;
        cut.output_count = 1;
        cut.report = &report;
        edit_options edits{};
        edits.extract = &cut;
        pack_options po{};
        po.inline_align = 1;
        po.keep_typed = true;
        po.edits = &edits;
        std::string model;
        const write_sink ms{&model, append};
        const error e = pack_model(in, nullptr, po, ms, nullptr);
        if (valid && e.ok()) {
            FUZZ_CHECK(report.problem == extract_problem::none);
            FUZZ_CHECK(verify(model.data(), model.size(), schema::msg_ModelProto, options{}).ok());
            std::string again;
            const write_sink as{&again, append};
            FUZZ_CHECK(pack_model(model, nullptr, po, as, nullptr).ok());
            FUZZ_CHECK(again == model);
        } else if (valid) {
            FUZZ_CHECK(report.problem != extract_problem::none || e.code == errc::depth_exceeded);
        }
    }
    for (int external = 0; external < 2; ++external) {
        std::string model, weights;
        const write_sink ms{&model, append};
        const write_sink ws{&weights, append};
        pack_options po{};
        po.threshold = 16;
        if (external) po.external_location = "w.bin";
        const error e = pack_model(in, nullptr, po, ms, &ws);
        if (!valid) continue;
        if (e.code == errc::invalid_argument) continue;  // an external tensor of the input: no source here
        FUZZ_CHECK(e.ok());
        FUZZ_CHECK(verify(model.data(), model.size(), schema::msg_ModelProto, options{}).ok());
        const external_payload_source src{&weights, fetch};
        FUZZ_CHECK(same_tensors(in, nullptr, model, external ? &src : nullptr).ok());
        std::string again;
        const write_sink as{&again, append};
        pack_options repack{};
        repack.threshold = 16;
        FUZZ_CHECK(pack_model(model, nullptr, repack, as, nullptr).ok());
        if (!external) FUZZ_CHECK(again == model);
    }
    // A weight-less proxy referencing the input's own bytes: it verifies,
    // its tensors read through the references are the input's, and putting
    // the weights back gives them again, without the source record.
    if (valid) {
        std::string proxy, back;
        const write_sink ps{&proxy, append};
        const write_sink bs{&back, append};
        pack_options po{};
        po.threshold = 16;
        po.reference.location = "in.onnx";
        po.reference.stamp = {size, 1};
        FUZZ_CHECK(pack_model(in, nullptr, po, ps, nullptr).ok());
        FUZZ_CHECK(verify(proxy.data(), proxy.size(), schema::msg_ModelProto, options{}).ok());
        const result<reference_source> record = find_reference_source(proxy);
        FUZZ_CHECK(record.ok() && record->location == "in.onnx" && record->stamp == po.reference.stamp);
        // The input's own external tensors are resolved in its bytes too, on both sides alike.
        const external_payload_source src{const_cast<std::string*>(&in), fetch};
        FUZZ_CHECK(same_tensors(in, &src, proxy, &src).ok());
        // The original: the proxy with x renamed, so that a tensor x of
        // the input without a payload is found by place (w's, as if a tool
        // had renamed w to x), or by name when the input names another.
        rebind_plan plan;
        std::string original;
        const value_rename renames[] = {{"w", "x"}};
        if (rename(proxy, {"x", "fuzz.x"}, original).ok() &&
            plan_rebinds(parse_model(data, size), parse_model(original.data(), original.size()), "in.onnx", renames,
                         1, plan)
                .ok() &&
            !plan.rebinds.empty()) {
            FUZZ_CHECK(plan.rebinds.size() == plan.bound.size());
            edit_options edits{};
            edits.rebinds = plan.rebinds.data();
            edits.rebind_count = plan.rebinds.size();
            pack_options rebinding{};
            rebinding.inline_align = 1;
            rebinding.keep_typed = true;
            rebinding.edits = &edits;
            std::string rebound;
            const write_sink rs{&rebound, append};
            pack_stats st;
            FUZZ_CHECK(pack_model(in, nullptr, rebinding, rs, nullptr, &st).ok());
            FUZZ_CHECK(st.rebound == plan.rebinds.size());
            FUZZ_CHECK(verify(rebound.data(), rebound.size(), schema::msg_ModelProto, options{}).ok());
        }
        pack_options put_back{};
        put_back.internalize = true;
        const error e = pack_model(proxy, &src, put_back, bs, nullptr);
        if (e.ok()) {
            FUZZ_CHECK(find_reference_source(back).err().code == errc::not_found);
            FUZZ_CHECK(same_tensors(in, &src, back, &src).ok());
        } else {  // only a reference of the input's own that its bytes do not hold
            FUZZ_CHECK(errc_group(e.code) == errc::external_out_of_bounds || e.code == errc::external_range_past_end ||
                       errc_group(e.code) == errc::payload_size_mismatch);
        }
    }
    if (valid) {
        const external_payload_source src{const_cast<std::string*>(&in), fetch};
        const merge_connection io[] = {{"y", "x"}};
        for (std::size_t connections = 0; connections < 2; ++connections) {
            merge_request request{};
            request.prefix_a = "a/";
            request.prefix_b = "b/";
            request.connections = io;
            request.connection_count = connections;
            merge_report report;
            request.report = &report;
            std::string merged;
            const write_sink ms{&merged, append};
            const error e = merge_models(in, &src, in, &src, request, pack_options{}, ms, nullptr);
            if (e.ok()) {
                FUZZ_CHECK(report.problem == merge_problem::none);
                FUZZ_CHECK(verify(merged.data(), merged.size(), schema::msg_ModelProto, options{}).ok());
                std::uint64_t once = 0, twice = 0;
                for (const tensor_view& t : parse_model(data, size).graph().initializer()) once += t.ok();
                for (const tensor_view& t : parse_model(merged.data(), merged.size()).graph().initializer())
                    twice += t.ok();
                if (connections == 0) FUZZ_CHECK(twice == 2 * once);
            } else if (report.problem == merge_problem::none) {  // the input's own payloads, or its depth
                FUZZ_CHECK(errc_group(e.code) == errc::external_out_of_bounds ||
                           e.code == errc::external_range_past_end || errc_group(e.code) == errc::payload_size_mismatch ||
                           e.code == errc::depth_exceeded);
            }
        }
    }
    return 0;
}
