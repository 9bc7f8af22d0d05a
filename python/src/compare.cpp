// python/src/compare.cpp - onnxview.hash() and onnxview.diff(): the
// comparison library (onnxview/compare/, what `onnxview hash` and `onnxview
// diff --json` report) for Python. Built with the package when libxxhash
// is found (ONNXVIEW_PY_COMPARE); without it neither function exists.
#include <string>

#include "binding.hpp"
#include "onnxview/compare/diff_report.hpp"
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

// The tolerance comes from rtol and atol, so the word alone is taken here.
weights_comparison weights_of(const std::string& w) {
    diff_options parsed;
    if (w.find(':') != std::string::npos || !parse_diff_weights(w, parsed))
        throw py::value_error("weights must be 'exact', 'allclose' or 'none', not '" + w + "'");
    return parsed.weights;
}

node_matching matching_of(const std::string& m) {
    if (m == "name") return node_matching::name;
    if (m == "auto") return node_matching::automatic;
    throw py::value_error("match must be 'name' or 'auto', not '" + m + "'");
}

diff_ignore ignore_of(const std::vector<std::string>& parts) {
    diff_ignore out;
    for (const std::string& p : parts)
        if (p.empty() || p.find(',') != std::string::npos || !parse_diff_ignore(p, out))
            throw py::value_error("ignore takes 'doc_string', 'producer', 'metadata', 'names' and 'value_info', not '" +
                                  p + "'");
    return out;
}

// Opened to read every payload once, front to back (reading_payloads_once).
source_ptr open_for_digest(const py::object& path) { return open_model(file_path(path), digest_open_options()); }

}  // namespace

void register_compare(py::module_& m) {
    m.def("hash", [](const py::object& path, bool values, bool names) {
        const source_ptr src = open_for_digest(path);
        digest_options opts;
        opts.values = values;
        opts.names = names;
        opts = reading_payloads_once(src->model, opts);
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
        const diff_report_names names{sa->path, sb->path, {}, {}};
        return py::module_::import("json").attr("loads")(diff_report_json(d, opts, names));
    }, py::arg("a"), py::arg("b"), py::kw_only(), py::arg("weights") = "exact", py::arg("rtol") = 1e-05,
       py::arg("atol") = 1e-08, py::arg("ignore") = std::vector<std::string>(), py::arg("match") = "name",
       "What changed from model `a` to model `b`: the dict of `onnxview diff --json` (version 2,\n"
       "docs/diff.md): 'version', 'a', 'b' (the paths), 'digest_a', 'digest_b', 'result' ('identical',\n"
       "'same computation, layout differs', ..., 'differ'), 'same_computation', 'counts', 'matching' and\n"
       "one list of changes per section ('model', 'signature', 'graph', 'weights', 'layout', 'names');\n"
       "each change has 'kind', 'what', 'scope', 'subject', 'part', 'attribute', 'before', 'after',\n"
       "'counted', 'text' (its line in the text report) and, for changed values, 'figures'.\n"
       "weights: 'exact', 'allclose' (within rtol and atol, as numpy.allclose) or 'none' (no payload\n"
       "read); ignore: any of 'doc_string', 'producer', 'metadata', 'names', 'value_info';\n"
       "match: 'name', or 'auto' to pair renamed nodes by structure.");
}

}  // namespace onnxview_py
