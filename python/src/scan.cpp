// python/src/scan.cpp - onnxview.scan_record(): one file's scan record
// (onnxview/scan.hpp), the dict of one line of `onnxview scan`. Pure and
// picklable in and out, so that Dask or multiprocessing can map it over
// thousands of paths (examples/dask_scan.py).
#include <string>

#include "binding.hpp"
#include "onnxview/scan.hpp"

namespace onnxview_py {

void register_scan(py::module_& m) {
    m.def("scan_record", [](const py::object& path, bool numeric, bool digests) {
        onnxview::scan_options opts;
        opts.numeric = numeric;
        opts.digests = digests;
        const std::string file = file_path(path);
        std::string json;
        {
            py::gil_scoped_release unlocked;
            json = onnxview::scan_file(file.c_str(), opts).json;
        }
        return py::module_::import("json").attr("loads")(json);
    }, py::arg("path"), py::kw_only(), py::arg("numeric") = false, py::arg("digests") = false,
       "The scan record of the file at `path`: the dict of one line of `onnxview scan --format jsonl`\n"
       "(docs/scan.md): what the file is, the model's versions, opsets, operators, inputs and outputs,\n"
       "parameters, external files, the checker's verdict, its digest, and security findings\n"
       "('findings', 'highest'). Never raises for the file itself: a file that cannot be read is a\n"
       "record with 'error'. numeric=True adds `check --numeric`'s findings, digests=True SHA-256\n"
       "digests. Releases the GIL while it works.");
}

}  // namespace onnxview_py
