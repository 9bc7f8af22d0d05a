// python/src/compare.cpp - onnxview.hash() and onnxview.diff(): the
// comparison library (onnxview/compare/, what `onnxview hash` and `onnxview
// diff --json` report) for Python. Built with the package when libxxhash
// is found (ONNXVIEW_PY_COMPARE); without it neither function exists.
#include <string>

#include "binding.hpp"
#include "onnxview/compare/model_diff.hpp"
#include "onnxview/compare/model_hash.hpp"

namespace onnxview_py {

using namespace onnxview;

namespace {

py::str hex(const digest128& d) {
    char out[33];
    d.to_hex(out);
    return py::str(out);
}

py::dict figures_dict(const value_difference& d) {
    py::dict f;
    f["count"] = d.count;
    f["differing"] = d.differing;
    f["first_index"] = d.first_index;
    f["nan_mismatches"] = d.nan_mismatches;
    f["beyond_tolerance"] = d.beyond_tolerance;
    f["max_abs"] = d.max_abs;
    f["max_rel"] = d.max_rel;
    f["mean_abs"] = d.mean_abs;
    f["rms"] = d.rms;
    f["cosine"] = d.cosine;
    return f;
}

py::dict change_dict(const model_change& c) {
    py::dict out;
    out["kind"] = change_kind_name(c.kind);
    out["what"] = change_subject_name(c.what);
    out["scope"] = to_str(c.scope);
    out["subject"] = to_str(c.subject);
    out["part"] = to_str(c.part);
    out["attribute"] = to_str(c.attribute);
    out["before"] = to_str(c.before);
    out["after"] = to_str(c.after);
    out["counted"] = c.counted;
    out["figures"] = c.figures ? py::object(figures_dict(*c.figures)) : py::object(py::none());
    return out;
}

// The keys of `onnxview diff --json` (version 2, docs/diff.md) but the
// paths and each change's printed line.
py::dict report_dict(const model_diff& d) {
    py::dict out;
    out["digest_a"] = hex(d.digest_a);
    out["digest_b"] = hex(d.digest_b);
    out["result"] = diff_verdict_text(d.verdict);
    out["same_computation"] = d.same_computation();
    py::dict counts;
    counts["signature"] = d.counts.signature;
    counts["graph"] = d.counts.graph;
    counts["weights"] = d.counts.weights;
    out["counts"] = counts;
    py::dict matching;
    matching["nodes"] = d.matching.nodes;
    matching["matched"] = d.matching.matched;
    matching["renamed"] = d.matching.renamed;
    matching["values_renamed"] = d.matching.values_renamed;
    out["matching"] = matching;
    for (const diff_section s : {diff_section::model, diff_section::signature, diff_section::graph,
                                 diff_section::weights, diff_section::layout, diff_section::names})
        out[diff_section_name(s)] = py::list();
    for (const model_change& c : d.changes) out[diff_section_name(c.section)].cast<py::list>().append(change_dict(c));
    return out;
}

weights_comparison weights_of(const std::string& w) {
    if (w == "exact") return weights_comparison::exact;
    if (w == "allclose") return weights_comparison::allclose;
    if (w == "none") return weights_comparison::none;
    throw py::value_error("weights must be 'exact', 'allclose' or 'none', not '" + w + "'");
}

node_matching matching_of(const std::string& m) {
    if (m == "name") return node_matching::name;
    if (m == "auto") return node_matching::automatic;
    throw py::value_error("match must be 'name' or 'auto', not '" + m + "'");
}

diff_ignore ignore_of(const std::vector<std::string>& parts) {
    diff_ignore out;
    for (const std::string& p : parts) {
        if (p == "doc_string") out.doc_string = true;
        else if (p == "producer") out.producer = true;
        else if (p == "metadata") out.metadata = true;
        else if (p == "names") out.names = true;
        else if (p == "value_info") out.value_info = true;
        else
            throw py::value_error("ignore takes 'doc_string', 'producer', 'metadata', 'names' and 'value_info', not '" +
                                  p + "'");
    }
    return out;
}

// Opened to read every payload once, front to back.
source_ptr open_for_digest(const py::object& path) { return open_model(file_path(path), false, model_reads::everything); }

}  // namespace

void register_compare(py::module_& m) {
    m.def("hash", [](const py::object& path, bool values, bool names) {
        const source_ptr src = open_for_digest(path);
        digest_options opts;
        opts.values = values;
        opts.names = names;
        opts.payload_hashed = release_hashed_payload;  // pages given back as they are hashed
        opts.user = const_cast<mapped_file*>(&src->model.file());
        result<digest128> d{errc::invalid_argument};
        {
            const external_payload_source ext = src->model.external();
            py::gil_scoped_release unlocked;
            d = model_digest(src->model.model(), &ext, opts);
        }
        if (!d) raise_error(d.err(), src.get(), "cannot hash '" + src->path + "'");
        return hex(*d);
    }, py::arg("path"), py::kw_only(), py::arg("values") = true, py::arg("names") = true,
       "The digest of what the model at `path` computes, as `onnxview hash` prints it (32 hex digits):\n"
       "the same for every layout of the model (external or inline payloads, raw or typed fields,\n"
       "field order), different for any change of what it computes (docs/diff.md). values=False\n"
       "leaves the weights' values out (types and shapes stay); names=False leaves names out.\n"
       "Reads every payload once; raises onnxview.Error for a malformed model or payload.");

    m.def("diff", [](const py::object& a, const py::object& b, const std::string& weights, double rtol, double atol,
                     const std::vector<std::string>& ignore, const std::string& match) {
        diff_options opts;
        opts.weights = weights_of(weights);
        opts.tolerance = {rtol, atol};
        opts.ignore = ignore_of(ignore);
        opts.matching = matching_of(match);
        const source_ptr sa = open_for_digest(a), sb = open_for_digest(b);
        model_diff d;
        error e;
        {
            py::gil_scoped_release unlocked;
            e = diff_models(sa->model, sb->model, opts, d);
        }
        if (e) {
            const source_ptr& failed = d.failed_in_b ? sb : sa;
            raise_error(e, failed.get(), "cannot compare '" + failed->path + "'");
        }
        return report_dict(d);
    }, py::arg("a"), py::arg("b"), py::kw_only(), py::arg("weights") = "exact", py::arg("rtol") = 1e-05,
       py::arg("atol") = 1e-08, py::arg("ignore") = std::vector<std::string>(), py::arg("match") = "name",
       "What changed from model `a` to model `b`, as `onnxview diff --json` reports it (docs/diff.md)\n"
       "without the paths and the printed lines: a dict with 'result' ('identical', 'same computation,\n"
       "layout differs', ..., 'differ'), 'same_computation', 'counts', 'matching', 'digest_a',\n"
       "'digest_b' and one list of changes per section ('model', 'signature', 'graph', 'weights',\n"
       "'layout', 'names'); each change has 'kind', 'what', 'scope', 'subject', 'part', 'attribute',\n"
       "'before', 'after', 'counted' and 'figures' (a dict of value statistics, or None).\n"
       "weights: 'exact', 'allclose' (within rtol and atol, as numpy.allclose) or 'none' (no payload\n"
       "read); ignore: any of 'doc_string', 'producer', 'metadata', 'names', 'value_info';\n"
       "match: 'name', or 'auto' to pair renamed nodes by structure.");
}

}  // namespace onnxview_py
