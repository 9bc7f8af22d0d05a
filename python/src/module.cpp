// python/src/module.cpp - the onnxview._onnxview extension module: the
// parts registered in the order their types are first used.
#include "binding.hpp"

PYBIND11_MODULE(_onnxview, m) {
    m.doc() = "onnxview's C++ reader bound for Python (import onnxview, not this module).";
    onnxview_py::register_errors(m);
    onnxview_py::register_arrays(m);
    onnxview_py::register_graph(m);
    onnxview_py::register_model(m);
    onnxview_py::register_profile(m);
    onnxview_py::register_stats(m);
    onnxview_py::register_scan(m);
    onnxview_py::register_graph_picture(m);
    onnxview_py::register_edit(m);
    onnxview_py::register_merge(m);
#ifdef ONNXVIEW_PY_COMPARE
    onnxview_py::register_compare(m);
#endif
}
