// tools/hash.cpp - `onnxview hash`: a digest of what a model computes
// (onnxview/compare/model_hash.hpp), or one per tensor with --manifest.
#include <cstdio>
#include <string>

#include "onnxview/compare/model_hash.hpp"
#include "onnxview/enums.hpp"
#include "onnxview/traverse.hpp"
#include "diff.hpp"
#include "options.hpp"
#include "output.hpp"
#include "subcommand.hpp"

namespace onnxview_cli {
namespace {

struct arguments {
    const char* file = nullptr;
    bool manifest = false;
    bool textconv = false;
};

command_line make_command_line(arguments& a) {
    return {"hash",
            "a digest of what a model computes, whatever its layout",
            "Prints the XXH3-128 digest of what MODEL computes, then its path, as\n"
            "sha256sum does. Layout does not change it: external or inline payloads,\n"
            "raw_data or typed fields, packed or unpacked numbers, field order, padding\n"
            "fields, the order of initializers. Any change of ir_version, opset imports,\n"
            "nodes, attributes, inputs and outputs (types, shapes), tensors (types, dims,\n"
            "element bits), functions or training_info changes it. Names count; doc\n"
            "strings, producer, model version, metadata and value_info do not\n"
            "(docs/diff.md).\n",
            "exit status: 0 ok, 1 MODEL is not a valid model (or a tensor's payload is\n"
            "invalid), 2 usage or I/O error\n",
            {flag("manifest", 0, a.manifest,
                  "JSON: the model's digest and one digest per stored tensor (name,\n"
                  "field path, origin, data type, dims)"),
             flag("textconv", 0, a.textconv,
                  "the model as stable lines for git's textconv (`git log -p`):\n"
                  "opsets, inputs, outputs, nodes, tensors with their digests,\n"
                  "the digest; layout changes no line (docs/diff.md)")},
            {{"MODEL", &a.file}}};
}

std::string hex(const onnxview::digest128& d) {
    char out[33];
    d.to_hex(out);
    return out;
}

// "cannot hash 'PATH': ..." for a tensor's payload error, exit 1 (2 when the
// system refused to read an external file).
int hash_failure(const char* path, onnxview::error e, const onnxview::model_file& mf) {
    print_error("hash", "cannot hash '" + shown_path(path) + "': " +
                            describe(e, mf.bytes().data(), mf.bytes().size()));
    return e.sys_errno != 0 ? exit_usage : exit_findings;
}

int print_manifest(const char* path, onnxview::model_file& mf, const onnxview::digest128& model) {
    const onnxview::external_payload_source ext = mf.external();
    json_writer j;
    j.begin_object();
    j.field("file", shown_path(path));
    j.field("digest", hex(model));
    j.key("tensors");
    j.begin_array();
    onnxview::error failure;
    std::string where;
    (void)onnxview::for_each_tensor(mf.model(), [&](const onnxview::stored_tensor& st) {
        if (failure) return;
        const onnxview::result<onnxview::digest128> d = onnxview::tensor_digest(st.tensor, &ext, onnxview::reading_payloads_once(mf));
        if (!d) {
            failure = d.err();
            return;
        }
        where.clear();
        onnxview::append_tensor_path(st, where);
        j.begin_object();
        j.field("name", st.tensor.name());
        j.field("where", where);
        j.field("origin", onnxview::tensor_origin_name(st.origin));
        j.field("data_type", onnxview::data_type_name(st.tensor.data_type()));
        j.key("dims");
        j.begin_array();
        for (std::int64_t dim : st.tensor.dims()) j.value(dim);
        j.end_array();
        j.field("digest", hex(*d));
        j.end_object();
    });
    if (failure) return hash_failure(path, failure, mf);
    j.end_array();
    j.end_object();
    std::fputs(j.str().c_str(), stdout);
    return exit_ok;
}

int run(arguments& a) {
    int code = exit_ok;
    onnxview::options opts = onnxview::digest_open_options();
    opts.verify = true;
    onnxview::model_file mf;
    if (!open_model("hash", a.file, opts, mf, code)) return code;
    // git hands textconv a copy of the blob in a temporary directory, where
    // no external data file is: it reads what it can (diff_textconv.cpp).
    if (a.textconv) {
        if (onnxview::error e = print_textconv(mf)) return hash_failure(a.file, e, mf);
        return std::fflush(stdout) == 0 ? exit_ok : exit_usage;
    }
    const onnxview::external_payload_source ext = mf.external();
    const onnxview::result<onnxview::digest128> d = onnxview::model_digest(mf.model(), &ext, onnxview::reading_payloads_once(mf));
    if (!d) return hash_failure(a.file, d.err(), mf);
    if (a.manifest) {
        code = print_manifest(a.file, mf, *d);
    } else {
        std::printf("%s  %s\n", hex(*d).c_str(), shown_path(a.file).c_str());
    }
    if (std::fflush(stdout) != 0) {
        print_error("hash", "cannot write to standard output");
        return exit_usage;
    }
    return code;
}

}  // namespace

const subcommand hash_subcommand = make_subcommand<arguments, make_command_line, run>();

}  // namespace onnxview_cli
