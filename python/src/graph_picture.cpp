// python/src/graph_picture.cpp - onnxview.graph(): the picture of a model's
// graph (onnxview/graph.hpp) as `onnxview graph` writes it: DOT or Mermaid
// text, or the JSON as a dict.
#include <string>

#include "binding.hpp"
#include "onnxview/graph.hpp"

namespace onnxview_py {

using namespace onnxview;

void register_graph_picture(py::module_& m) {
    m.def("graph", [](const py::object& path, const std::string& format, const std::string& fold, std::uint32_t depth,
                      std::uint64_t max_boxes, bool initializers, const std::string& around,
                      std::uint32_t radius) -> py::object {
        if (format != "dot" && format != "json" && format != "mermaid")
            throw py::value_error("format must be 'dot', 'json' or 'mermaid', not '" + format + "'");
        graph_options opts;
        if (!parse_graph_fold(fold, opts.fold))
            throw py::value_error("fold must be 'auto', 'scope', 'repeat' or 'none', not '" + fold + "'");
        if (max_boxes == 0) throw py::value_error("max_boxes must be at least 1");
        opts.depth = depth;
        opts.max_boxes = max_boxes;
        opts.initializers = initializers;
        opts.around = around;
        opts.radius = radius;
        const source_ptr src = open_model(file_path(path), true, model_reads::metadata);
        std::string text;
        {
            py::gil_scoped_release unlocked;
            const result<graph_picture> p = draw_graph(src->model.model(), opts);
            if (!p) {
                py::gil_scoped_acquire locked;
                if (!around.empty() && p.err().code == errc::not_found && src->model.model().has_graph())
                    throw py::key_error("no node or value named '" + around + "' in '" + src->path + "'");
                raise_error(p.err(), src.get(), "cannot draw '" + src->path + "'");
            }
            text = format == "dot" ? graph_dot(*p) : format == "json" ? graph_json(*p) : graph_mermaid(*p);
        }
        if (format == "json") return py::module_::import("json").attr("loads")(text);
        return py::str(text);
    }, py::arg("path"), py::kw_only(), py::arg("format") = "dot", py::arg("fold") = "auto", py::arg("depth") = 0u,
       py::arg("max_boxes") = 400u, py::arg("initializers") = false, py::arg("around") = "", py::arg("radius") = 2u,
       "The picture of the model's main graph, as `onnxview graph` draws it (docs/graph.md): DOT\n"
       "(format='dot', for Graphviz) or Mermaid text, or the JSON as a dict. fold: 'auto' (every\n"
       "node up to max_boxes boxes, else by the scopes of the node names with repeated layers drawn\n"
       "once), 'scope', 'repeat' or 'none'; depth: the scope levels shown; around: only the boxes\n"
       "within `radius` edges of that node or value (KeyError when none has that name). Weights are\n"
       "not read.");
}

}  // namespace onnxview_py
