// python/src/stats.cpp - onnxview.stats(): the statistics of every weight
// (onnxview/stats.hpp), the dict of `onnxview stats --json` (both written by
// write_tensor_stats_json).
#include <string>
#include <vector>

#include "binding.hpp"
#include "onnxview/stats.hpp"

namespace onnxview_py {

using namespace onnxview;

void register_stats(py::module_& m) {
    m.def("stats", [](const py::object& path, const std::vector<std::string>& names, std::uint32_t histogram) {
        model_stats_options opts;
        opts.names = names;
        opts.histogram_bins = histogram;
        const std::string file = file_path(path);
        options open_opts = stats_file_options();
        open_opts.keep_malformed = false;
        const source_ptr src = open_model(file, open_opts);
        std::string json;
        {
            py::gil_scoped_release unlocked;
            result<std::string> r = model_stats_json(src->model, file, opts);
            if (!r) {
                py::gil_scoped_acquire locked;
                raise_error(r.err(), src.get(), "cannot read the weights of '" + src->path + "'");
            }
            json = std::move(*r);
        }
        return py::module_::import("json").attr("loads")(json);
    }, py::arg("path"), py::kw_only(), py::arg("names") = std::vector<std::string>(), py::arg("histogram") = 0u,
       "The statistics of every tensor the model at `path` stores (or of those named in names=):\n"
       "the dict of `onnxview stats --json` (docs/stats.md): 'file', 'tensors' (one dict each:\n"
       "'name', 'path', 'origin', 'data_type', 'dims', 'storage', 'elements', 'values', 'finite',\n"
       "'min', 'max', 'mean', 'std', 'zeros', 'nan', 'pos_inf', 'neg_inf', 'subnormal', for FLOAT\n"
       "and DOUBLE the fp16/bf16 conversion counts, 'histogram' with histogram=BINS, or 'error'\n"
       "when the payload cannot be read) and 'totals'. Reads every payload once, the GIL released;\n"
       "raises onnxview.Error for a model that does not parse.");
}

}  // namespace onnxview_py
