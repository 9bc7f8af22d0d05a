// python/src/profile.cpp - onnxview.profile(): the profiler
// (onnxview/profile.hpp) for Python, its result the dict of `onnxview
// profile --json` (both written by write_profile_json).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "binding.hpp"
#include "onnxview/profile.hpp"

namespace onnxview_py {

using namespace onnxview;

namespace {

error append(void* out, const char* data, std::size_t size) noexcept {
    static_cast<std::string*>(out)->append(data, size);
    return error();
}

profile_options options_of(const std::map<std::string, std::int64_t>& dims,
                           const std::map<std::string, std::vector<std::int64_t>>& inputs) {
    profile_options opts;
    for (const auto& [name, value] : dims) {
        if (name.empty() || value < 0)
            throw py::value_error("dims maps dim_param names to sizes >= 0, not '" + name + "': " +
                                  std::to_string(value));
        opts.dims.push_back({name, value});
    }
    for (const auto& [name, shape] : inputs) {
        for (std::int64_t d : shape)
            if (d < 0) throw py::value_error("inputs['" + name + "'] has a negative size: " + std::to_string(d));
        opts.inputs.push_back({name, shape});
    }
    return opts;
}

}  // namespace

void register_profile(py::module_& m) {
    m.def("profile", [](const py::object& path, const std::map<std::string, std::int64_t>& dims,
                        const std::map<std::string, std::vector<std::int64_t>>& inputs, const std::string& by) {
        profile_view view;
        if (!parse_profile_view(by, view))
            throw py::value_error("by must be 'node', 'op', 'scope' or 'scope:DEPTH' (DEPTH >= 1), not '" + by + "'");
        const profile_options opts = options_of(dims, inputs);
        const source_ptr src = open_model(file_path(path), true, model_reads::metadata);
        std::string json;
        {
            py::gil_scoped_release unlocked;
            const result<model_profile> p = profile_model(src->model.model(), opts);
            if (p) {
                const error written = write_profile_json(*p, view, write_sink{&json, append});
                (void)written;  // appending to a string does not fail
            } else {
                py::gil_scoped_acquire locked;
                const errc code = p.err().code;
                // The bindings are checked against the model there: name their errors.
                if ((!opts.inputs.empty() || !opts.dims.empty()) && src->model.model().has_graph() &&
                    (code == errc::not_found || code == errc::invalid_argument))
                    throw py::value_error(code == errc::not_found
                                              ? "an input of inputs= is no graph input of '" + src->path + "'"
                                              : "inputs= or dims= contradicts the shapes '" + src->path +
                                                    "' declares (rank, a dim_value, or two values for one dim_param)");
                raise_error(p.err(), src.get(), "cannot profile '" + src->path + "'");
            }
        }
        return py::module_::import("json").attr("loads")(json);
    }, py::arg("path"), py::kw_only(), py::arg("dims") = std::map<std::string, std::int64_t>(),
       py::arg("inputs") = std::map<std::string, std::vector<std::int64_t>>(), py::arg("by") = "node",
       "Parameters, MACs, FLOPs, output shapes and peak activation memory of every node of the model\n"
       "at `path`, without reading a weight: the dict of `onnxview profile --json` (version 2,\n"
       "docs/profile.md): 'totals' ('params', 'param_bytes', 'macs', 'flops', 'peak_activation_bytes'),\n"
       "'coverage', 'peak', 'nodes' (one dict per node: 'name', 'op_type', 'macs', 'params',\n"
       "'output_shapes', ...), 'unknown', 'shared', 'notes', and with by= the groups ('ops' or\n"
       "'scopes'). A count is an int when concrete, a str (a polynomial in the dim names, 'N*seq')\n"
       "when symbolic, None when unknown.\n"
       "dims: {dim_param: size} makes dims concrete; inputs: {graph input: [sizes]} gives an input\n"
       "its shape; by: 'node', 'op', 'scope' or 'scope:DEPTH'. Releases the GIL while it works;\n"
       "raises onnxview.Error for a malformed model, ValueError for bad arguments.");
}

}  // namespace onnxview_py
