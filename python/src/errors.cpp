// python/src/errors.cpp - onnxview.Error: one exception type for every
// failure of the input (malformed bytes, unsafe external data, I/O), with
// the library's error code, the byte offset and the field path there.
#include <cstring>
#include <string>

#include "binding.hpp"

namespace onnxview_py {

namespace {

PyObject* error_type = nullptr;  // owned by the module once registered

const char error_doc[] =
    "An ONNX file onnxview cannot read as asked.\n\n"
    "Attributes:\n"
    "  code    the library's error code name, e.g. 'truncated', 'external_parent_component'\n"
    "  group   the broad kind of code, e.g. 'external_path_unsafe', 'io_error'\n"
    "  offset  the byte offset of the offending byte in the file (0 for I/O errors)\n"
    "  path    the field holding that byte, e.g. 'graph.initializer[3].raw_data' ('' when none)\n"
    "  errno   the system's error number for I/O errors, else 0\n"
    "  diagnosis  for a file that is not a model, what it is (e.g. 'git_lfs_pointer',\n"
    "          'truncated', 'safetensors'), else None\n";

std::string field_path(onnxview::error e, const source* src) {
    if (src == nullptr || e.offset == 0) return {};
    const std::string_view bytes = src->bytes();
    if (e.offset > bytes.size()) return {};
    char path[512];
    const auto n = onnxview::field_path_at(bytes.data(), bytes.size(), e.offset, *src->root, path, sizeof path);
    if (!n.ok() && n.err().code != onnxview::errc::buffer_too_small) return {};
    return path;
}

}  // namespace

py::str to_str(std::string_view s) {
    PyObject* o = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "surrogateescape");
    if (o == nullptr) throw py::error_already_set();
    return py::reinterpret_steal<py::str>(o);
}

std::string from_name(const py::handle& name) {
    if (PyBytes_Check(name.ptr())) return std::string(py::reinterpret_borrow<py::bytes>(name));
    if (!PyUnicode_Check(name.ptr())) throw py::type_error("a tensor name is a str or bytes");
    const py::bytes encoded = py::reinterpret_steal<py::bytes>(
        PyUnicode_AsEncodedString(name.ptr(), "utf-8", "surrogateescape"));
    if (!encoded) throw py::error_already_set();
    return std::string(encoded);
}

void raise_error(onnxview::error e, const source* src, std::string_view what,
                 const onnxview::diagnosis* what_it_is) {
    const bool diagnosed = what_it_is != nullptr && !what_it_is->healthy() &&
                           what_it_is->kind != onnxview::diagnosis_kind::malformed;
    const std::string path = field_path(e, src);
    std::string message(what);
    if (!message.empty()) message += ": ";
    const std::string_view bytes = src != nullptr ? src->bytes() : std::string_view();
    const onnxview::schema::message_desc& root = src != nullptr ? *src->root : onnxview::schema::msg_ModelProto;
    char line[1024];
    const std::size_t n = onnxview::format_error(e, src != nullptr && e.offset != 0 ? bytes.data() : nullptr,
                                                 bytes.size(), root, line, sizeof line);
    message.append(line, n < sizeof line ? n : sizeof line - 1);
    if (diagnosed) message += std::string("; ") + what_it_is->line;

    py::object exc = py::reinterpret_borrow<py::object>(error_type)(to_str(message));
    exc.attr("code") = onnxview::errc_name(e.code);
    exc.attr("group") = onnxview::errc_name(onnxview::errc_group(e.code));
    exc.attr("offset") = e.offset;
    exc.attr("path") = to_str(path);
    exc.attr("errno") = e.sys_errno;
    exc.attr("diagnosis") = diagnosed ? py::object(py::str(onnxview::diagnosis_kind_name(what_it_is->kind)))
                                      : py::object(py::none());
    PyErr_SetObject(error_type, exc.ptr());
    throw py::error_already_set();
}

void register_errors(py::module_& m) {
    error_type = PyErr_NewExceptionWithDoc("onnxview.Error", error_doc, PyExc_Exception, nullptr);
    if (error_type == nullptr) throw py::error_already_set();
    m.add_object("Error", py::reinterpret_borrow<py::object>(error_type));
}

}  // namespace onnxview_py
