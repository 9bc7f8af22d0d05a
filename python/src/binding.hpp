// python/src/binding.hpp - what the parts of the onnxview Python extension
// share: the source that keeps a file's bytes alive, errors raised as
// onnxview.Error, and the conversions every part uses. Only public headers.
#ifndef ONNXVIEW_PY_BINDING_HPP
#define ONNXVIEW_PY_BINDING_HPP

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "onnxview/onnxview.hpp"

namespace onnxview_py {

namespace py = pybind11;

// The bytes every view, array and graph object points into: a model (with
// the resolver of its external data) or a standalone TensorProto file. Held
// by shared_ptr: the Model, each array's base object, each Graph and Node
// own one reference, so closing a model never invalidates what the user
// still holds, and the last reference unmaps the files.
struct source {
    onnxview::model_file model;  // when is_model
    onnxview::mapped_file file;  // a standalone TensorProto file otherwise
    bool is_model = false;
    std::string path;  // the model's path: check() resolves external data with it
    // A remote model's (a URL's) settings, which its external files are
    // opened with for as long as it lives (model.cpp).
    std::shared_ptr<void> remote;
    // Where external data is found: options::model_path and, for a URL,
    // the remote reader's callbacks.
    void external_options(onnxview::options& opts) const;
    // The message type of the bytes, for field paths in errors.
    const onnxview::schema::message_desc* root = &onnxview::schema::msg_TensorProto;

    std::string_view bytes() const noexcept { return is_model ? model.bytes() : file.bytes(); }
    // The main graph, indexed once: indexing visits each of its fields (14 ms
    // for 100k nodes), and keys(), get_tensor() and graph all start there.
    const onnxview::graph_view& main_graph() {
        if (!graph_indexed_) {
            graph_ = model.model().graph();
            graph_indexed_ = true;
        }
        return graph_;
    }

private:
    onnxview::graph_view graph_;
    bool graph_indexed_ = false;
};
using source_ptr = std::shared_ptr<source>;

// --- errors.cpp
// Raises onnxview.Error for `e`: its code name, byte offset and the field
// path of that offset in src's bytes (when src is given), after `what`; with
// `what_it_is` (diagnose() of a file that is no model), what the file is.
[[noreturn]] void raise_error(onnxview::error e, const source* src, std::string_view what = {},
                              const onnxview::diagnosis* what_it_is = nullptr);
inline void check(onnxview::error e, const source_ptr& src, std::string_view what = {}) {
    if (e) raise_error(e, src.get(), what);
}
void register_errors(py::module_& m);
// --- edit.cpp: onnxview.edit()
void register_edit(py::module_& m);
void register_merge(py::module_& m);

// --- strings: names are UTF-8 in ONNX; bytes that are not become lone
// surrogates (surrogateescape), so a hostile name never raises on access.
py::str to_str(std::string_view s);
// A name from Python back to its bytes: str (encoded the same way) or bytes.
std::string from_name(const py::handle& name);
inline py::bytes to_bytes(std::string_view s) { return py::bytes(s.data(), s.size()); }
template <class Range>
py::list str_list(const Range& r) {
    py::list out;
    for (std::string_view s : r) out.append(to_str(s));
    return out;
}

// --- arrays.cpp
// The NumPy dtype get_tensor gives for DataType `type` (narrow floats as
// float32, 4- and 2-bit integers as int8/uint8, STRING as object); None
// for UNDEFINED and unknown numbers.
py::object decoded_dtype(std::int32_t type);
// The dims of t as a NumPy shape; raises for malformed dims.
std::vector<py::ssize_t> tensor_shape(const onnxview::tensor_view& t, const source_ptr& src);
// The values of a dense tensor: read-only, over the file's bytes when the
// payload is aligned and little-endian, one copy otherwise.
py::array tensor_array(const onnxview::tensor_view& t, const source_ptr& src);
// The stored bytes (raw_data layout, zero-copy for raw and external data)
// and the type's name.
py::tuple tensor_raw(const onnxview::tensor_view& t, const source_ptr& src);
// Rows [start, stop) of dim 0 (already clipped); only those bytes are read
// for raw and external payloads of types of a byte or more.
py::array tensor_rows(const onnxview::tensor_view& t, const source_ptr& src, std::uint64_t start,
                      std::uint64_t stop);
// A sparse tensor made dense (zeros elsewhere), as get_tensor returns it.
py::array sparse_dense_array(const onnxview::sparse_tensor_view& s, const source_ptr& src);
void register_arrays(py::module_& m);

// --- graph.cpp
py::object make_graph(const onnxview::graph_view& g, const source_ptr& src);
py::object make_type(const onnxview::type_view& t, const source_ptr& src);
void register_graph(py::module_& m);

// --- model.cpp
// A path as the system wants it: str, bytes or os.PathLike (os.fsencode).
std::string file_path(const py::object& path);
// The model at `path`, opened with `reads` as its read-ahead advice
// (model_reads::metadata: only what is asked is paged in); raises
// onnxview.Error naming what the file is when it is no model.
source_ptr open_model(const std::string& path, bool verify, onnxview::model_reads reads);
// The same with all the options (their verify and reads included).
source_ptr open_model(const std::string& path, const onnxview::options& opts);
void register_model(py::module_& m);

// --- profile.cpp
void register_profile(py::module_& m);

// --- stats.cpp
void register_stats(py::module_& m);

// --- scan.cpp
void register_scan(py::module_& m);

// --- graph_picture.cpp
void register_graph_picture(py::module_& m);
// The default picture of a graph of `model` as SVG (Jupyter's _repr_svg_),
// or None without Graphviz's library or when it cannot be drawn. The main
// graph is drawn as onnxview.graph() draws the model (inferred shapes too).
py::object svg_picture(const onnxview::model_view& model, const onnxview::graph_view& g);

// --- compare.cpp (with ONNXVIEW_PY_COMPARE)
void register_compare(py::module_& m);

}  // namespace onnxview_py

#endif  // ONNXVIEW_PY_BINDING_HPP
