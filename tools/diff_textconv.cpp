// tools/diff_textconv.cpp - `onnxview hash --textconv MODEL`: a model as
// stable lines, for git's textconv (`git log -p`, `git diff` of two commits).
//
// One fact per line, so that a line-based diff shows what changed: the
// model's version and opsets, the main graph's inputs and outputs, each
// scope's nodes in graph order (one line each, attributes sorted), each
// stored tensor with its type and digest (sorted by label, since their order
// in the file is layout), and last the model's digest. Nothing of the layout
// appears, so re-encoding a model changes no line; weights moved to an
// external file do, when git hands over the blob without that file.
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "diff.hpp"
#include "onnxview/compare/model_hash.hpp"
#include "onnxview/enums.hpp"
#include "onnxview/traverse.hpp"
#include "output.hpp"

namespace onnxview_cli {
namespace {

using namespace onnxview;

std::string hex(const digest128& d) {
    char out[33];
    d.to_hex(out);
    return out;
}

std::string tensor_line(const stored_tensor& st, const result<digest128>& d) {
    std::string out = std::string(tensor_origin_name(st.origin)) + " " + quoted(st.tensor.name());
    if (st.scope->kind != scope_kind::main_graph) {
        out += " in ";
        append_scope_path(*st.scope, out);
    }
    out += std::string(" ") + data_type_name(st.tensor.data_type()) + "[";
    bool first = true;
    for (std::int64_t dim : st.tensor.dims()) {
        if (!first) out += ',';
        first = false;
        out += std::to_string(dim);
    }
    if (d) return out + "] xxh3:" + hex(*d);
    const result<storage_info> where = describe_storage(st.tensor);
    return out + "] external " + quoted(where ? where->location : std::string_view()) + ", not found";
}

// An external payload's file is not there (not: the payload is invalid).
bool not_found(const error& e) { return e.sys_errno != 0 || e.code == errc::io_resolve_failed; }

}  // namespace

error print_textconv(model_file& mf) {
    const model_view m = mf.model();
    std::printf("ir_version %lld\n", static_cast<long long>(m.ir_version()));
    std::map<std::string, std::int64_t> opsets;
    for (const opset_id_view& o : m.opset_import())
        opsets[o.domain().empty() ? std::string("ai.onnx") : std::string(o.domain())] = o.version();
    for (const auto& [domain, version] : opsets) std::printf("opset %s %lld\n", quoted(domain).c_str(), static_cast<long long>(version));
    for (const value_info_view& v : m.graph().input())
        std::printf("input %s %s\n", quoted(v.name()).c_str(), type_string(v.type()).c_str());
    for (const value_info_view& v : m.graph().output())
        std::printf("output %s %s\n", quoted(v.name()).c_str(), type_string(v.type()).c_str());
    std::vector<std::string> lines;
    if (error e = scope_node_lines(mf, lines)) return e;
    for (const std::string& line : lines) std::printf("%s\n", line.c_str());
    const external_payload_source ext = mf.external();
    std::set<std::string> tensors;  // sorted: their order in the file is layout
    error failure;
    bool all_read = true;
    if (error e = for_each_tensor(m, [&](const stored_tensor& st) {
            if (failure) return;
            const result<digest128> d = tensor_digest(st.tensor, &ext);
            if (!d && !not_found(d.err())) {
                failure = d.err();
                return;
            }
            all_read = all_read && d.ok();
            tensors.insert(tensor_line(st, d));
        }))
        return e;
    if (failure) return failure;
    for (const std::string& line : tensors) std::printf("%s\n", line.c_str());
    digest_options opts;
    opts.values = all_read;
    const result<digest128> digest = model_digest(m, &ext, opts);
    if (!digest) return digest.err();
    std::printf("%s %s\n", all_read ? "digest" : "digest without values", hex(*digest).c_str());
    return error();
}

}  // namespace onnxview_cli
