// python/src/model.cpp - onnxview.open(): a model file mapped once, its
// metadata, its initializers by name (whole, as stored, or some rows), its
// main graph and its checker findings; onnxview.load_tensor() for a
// standalone TensorProto file.
#include <string>

#include "binding.hpp"
#include "onnxview/stats.hpp"
#ifdef ONNXVIEW_PY_REMOTE
#include "onnxview/remote/remote_file.hpp"
#endif

namespace onnxview_py {

using namespace onnxview;

std::string file_path(const py::object& path) {
    return std::string(py::bytes(py::module_::import("os").attr("fsencode")(path)));
}

source_ptr open_model(const std::string& path, bool verify, model_reads reads) {
    options opts{};
    opts.verify = verify;
    opts.reads = reads;
    return open_model(path, opts);
}

#ifdef ONNXVIEW_PY_REMOTE
namespace {
struct remote_opening {
    remote_report report;
    remote_options options;
    file_callbacks external;
};

// The model at a URL: fetched by ranges (its metadata now, each tensor when
// asked), its external data next to it.
source_ptr open_remote_model(const std::string& url, options opts) {
    auto o = std::make_shared<remote_opening>();
    o->options.report = &o->report;
    auto file = open_remote(url.c_str(), o->options);
    auto fail = [&](error e) {
        const std::string why = o->report.last_error.empty() ? url : o->report.last_error;
        raise_error(e, nullptr, "cannot open " + why);
    };
    if (!file) fail(file.err());
    o->external = remote_external_files(&o->options);
    opts.external_files = &o->external;
    opts.model_path = url.c_str();
    auto opened = model_file::adopt(std::move(file.value()), opts);
    if (!opened) fail(opened.err());
    auto src = std::make_shared<source>();
    src->model = std::move(opened.value());
    src->is_model = true;
    src->root = &schema::msg_ModelProto;
    src->path = url;
    src->remote = o;
    return src;
}
}  // namespace
#endif

void source::external_options(options& opts) const {
    opts.model_path = path.c_str();
#ifdef ONNXVIEW_PY_REMOTE
    if (remote) {
        opts.external_files = &static_cast<remote_opening*>(remote.get())->external;
        opts.external_base_dir = nullptr;
    }
#endif
}

source_ptr open_model(const std::string& path, const options& opts) {
    bool url = false;
    for (const char* scheme : {"http://", "https://", "s3://", "hf://"}) url = url || path.rfind(scheme, 0) == 0;
    if (url) {
#ifdef ONNXVIEW_PY_REMOTE
        return open_remote_model(path, opts);
#else
        raise_error(error(errc::unsupported), nullptr,
                    "cannot open '" + path + "': this onnxview was built without remote support (libcurl)");
#endif
    }
    auto opened = model_file::open(path.c_str(), opts);
    if (!opened) {
        // A malformed ModelProto's offset is in the file: map it again (no
        // read) to name the field holding it.
        auto src = std::make_shared<source>();
        src->root = &schema::msg_ModelProto;
        auto bytes = mapped_file::open(path.c_str());
        if (!bytes) raise_error(opened.err(), nullptr, "cannot open '" + path + "'");
        src->file = std::move(bytes.value());
        const diagnosis what_it_is = diagnose(src->file.data(), src->file.size());
        raise_error(opened.err(), src.get(), "cannot open '" + path + "'", &what_it_is);
    }
    auto src = std::make_shared<source>();
    src->model = std::move(opened.value());
    src->is_model = true;
    src->root = &schema::msg_ModelProto;
    src->path = path;
    return src;
}

namespace {

struct model_ref {
    source_ptr src;  // null once closed

    const source_ptr& live() const {
        if (!src) throw py::value_error("I/O operation on a closed onnxview model");
        return src;
    }
    model_view model() const { return live()->model.model(); }
    const graph_view& graph() const {
        const graph_view& g = live()->main_graph();
        check(g.err(), src);
        return g;
    }
};

initializer_ref find(const model_ref& m, std::string_view name) {
    auto found = find_initializer(m.graph(), name);
    if (found.err().code == errc::not_found) {
        PyErr_SetObject(PyExc_KeyError, to_str(name).ptr());
        throw py::error_already_set();
    }
    check(found.err(), m.src, name);
    return found.value();
}

// get_slice(name): the shape and dtype without reading, rows on indexing.
struct slice_ref {
    source_ptr src;
    tensor_view t;
    std::vector<py::ssize_t> shape;
};

// Names inside path and message may be any bytes: held as str already.
struct finding {
    std::string severity, code;
    py::object path, message;
    std::uint64_t offset;
    py::object tensor = py::str("");  // numeric findings: the tensor's name
    py::object count = py::none();    // numeric findings: the values concerned, when counted
};

py::dict metadata_of(const model_ref& m) {
    py::dict out;
    for (const string_entry_view& e : m.model().metadata_props()) {
        check(e.err(), m.src);
        out[to_str(e.key())] = to_str(e.value());
    }
    return out;
}

py::dict opsets_of(const model_ref& m) {
    py::dict out;
    for (const opset_id_view& o : m.model().opset_import()) {
        check(o.err(), m.src);
        out[to_str(o.domain())] = o.version();
    }
    return out;
}

py::list keys_of(const model_ref& m) {
    py::list out;
    const graph_view& g = m.graph();
    for (const tensor_view& t : g.initializer()) {
        check(t.err(), m.src);
        out.append(to_str(t.name()));
    }
    for (const sparse_tensor_view& s : g.sparse_initializer()) {
        check(s.err(), m.src);
        const tensor_view v = s.values();
        check(v.err(), m.src);
        out.append(to_str(v.name()));
    }
    return out;
}

py::object get_tensor(const model_ref& m, const py::object& key, bool raw) {
    const initializer_ref init = find(m, from_name(key));
    if (init.is_sparse) {
        if (raw) return tensor_raw(init.sparse.values(), m.src);
        return sparse_dense_array(init.sparse, m.src);
    }
    if (raw) return tensor_raw(init.dense, m.src);
    return tensor_array(init.dense, m.src);
}

py::list check_of(const model_ref& m, bool errors_only, bool numeric) {
    const source_ptr& src = m.live();
    options opts{};
    opts.errors_only = errors_only;
    struct collected {
        std::string severity, code, path, message;
        std::uint64_t offset;
        std::string tensor;
        std::uint64_t count;
        bool has_count, numeric;
    };
    std::vector<collected> found;
    src->external_options(opts);  // external data is checked next to the model
    check_model(src->bytes(), opts, [](void* user, const check_finding& f) {
        static_cast<std::vector<collected>*>(user)->push_back(
            {f.severity == check_severity::error ? "error" : "warning", finding_code_name(f.code),
             std::string(f.path), std::string(f.message), f.offset, std::string(), 0, false, false});
    }, &found);
    bool wire_error = false;
    for (const collected& f : found) wire_error = wire_error || f.code == "wire_format";
    // As `onnxview check --numeric`: the values of a model that parses.
    if (numeric && !wire_error && src->is_model) {
        numeric_check_options no;
        no.errors_only = errors_only;
        const result<numeric_result> n = [&] {
            py::gil_scoped_release unlocked;
            return numeric_check(src->model, no, [](void* user, const numeric_finding& f) {
                static_cast<std::vector<collected>*>(user)->push_back(
                    {numeric_severity_name(f.severity), numeric_code_name(f.code), std::string(f.path),
                     std::string(f.message), f.offset, std::string(f.tensor), f.count, f.has_count, true});
            }, &found);
        }();
        if (!n) raise_error(n.err(), src.get(), "cannot check the values of '" + src->path + "'");
    }
    py::list out;
    for (const collected& f : found) {
        finding x{f.severity, f.code, to_str(f.path), to_str(f.message), f.offset};
        if (f.numeric) {
            x.tensor = to_str(f.tensor);
            if (f.has_count) x.count = py::int_(f.count);
        }
        out.append(py::cast(x));
    }
    return out;
}

// Rows [start, stop) asked for by a slice or an index of dim 0; the other
// indices apply to those rows.
py::object slice_rows(const slice_ref& s, const py::object& key) {
    if (s.shape.empty()) throw py::index_error("a scalar tensor has no rows");
    const py::ssize_t rows = s.shape[0];
    py::object first = key, rest = py::none();
    if (py::isinstance<py::tuple>(key)) {
        py::tuple k = key;
        if (k.size() == 0) return tensor_array(s.t, s.src);
        first = k[0];
        rest = k[py::slice(1, static_cast<py::ssize_t>(k.size()), 1)];
    }
    py::ssize_t start, stop, step, length;
    bool single = false;
    if (py::isinstance<py::slice>(first)) {
        if (!py::reinterpret_borrow<py::slice>(first).compute(rows, &start, &stop, &step, &length))
            throw py::error_already_set();
    } else {
        py::ssize_t i = first.cast<py::ssize_t>();
        if (i < 0) i += rows;
        if (i < 0 || i >= rows) throw py::index_error("row index out of range");
        start = i, stop = i + 1, step = 1, length = 1, single = true;
    }
    // The rows between the first and the last asked for are read once; a
    // step or a reversed slice is applied to them afterwards.
    const py::ssize_t lo = length == 0 ? 0 : (step > 0 ? start : start + (length - 1) * step);
    const py::ssize_t hi = length == 0 ? 0 : (step > 0 ? start + (length - 1) * step + 1 : start + 1);
    py::object block = tensor_rows(s.t, s.src, static_cast<std::uint64_t>(lo), static_cast<std::uint64_t>(hi));
    py::object picked;
    if (single) {
        picked = block[py::int_(0)];
    } else {
        // The same slice relative to the block (a stop before its first row: None).
        const py::object rel_stop = stop - lo >= 0 ? py::object(py::int_(stop - lo)) : py::object(py::none());
        const py::object rel = py::reinterpret_steal<py::object>(
            PySlice_New(py::int_(start - lo).ptr(), rel_stop.ptr(), py::int_(step).ptr()));
        picked = length == 0 ? block : block[rel];
    }
    if (rest.is_none()) return picked;
    py::tuple r = rest;
    if (single) return r.size() ? picked[r] : picked;
    py::list k;
    k.append(py::slice(py::none(), py::none(), py::none()));
    for (auto item : r) k.append(item);
    return picked[py::tuple(k)];
}

// One TensorProto the model stores, wherever it is (Model.tensors()).
struct stored_ref {
    tensor_view t;
    source_ptr src;
    std::string path;
    const char* origin;
    const char* part;  // "values", "indices", or null: a dense tensor
    bool in_node;      // constant and attribute: held by `node`'s `attribute`
    std::string_view node, attribute;
};

py::list tensors_of(const model_ref& m) {
    const source_ptr& src = m.live();
    py::list out;
    const error e = for_each_tensor(m.model(), [&](const stored_tensor& st) {
        stored_ref r{st.tensor, src, {}, tensor_origin_name(st.origin), nullptr, false, {}, {}};
        append_tensor_path(st, r.path);
        if (st.sparse_part) r.part = st.sparse_indices ? "indices" : "values";
        if (st.origin == tensor_origin::constant || st.origin == tensor_origin::attribute) {
            r.in_node = true;
            r.node = st.holder.node.output().size() > 0 ? *st.holder.node.output().begin() : st.holder.node.name();
            r.attribute = st.holder.attribute.name();
        }
        out.append(py::cast(std::move(r)));
    });
    check(e, src);
    return out;
}

}  // namespace

void register_model(py::module_& m) {
    py::class_<stored_ref>(m, "StoredTensor",
                           "A TensorProto the model stores, wherever it is: an initializer, a sparse\n"
                           "initializer's values or indices, a Constant's value or another node's tensor\n"
                           "attribute, in any graph or function (Model.tensors()).")
        .def_readonly("path", &stored_ref::path, "where: e.g. 'graph.node[3].attribute[0].t'")
        .def_readonly("origin", &stored_ref::origin,
                      "'initializer', 'sparse_initializer', 'constant' or 'attribute'")
        .def_property_readonly("name", [](const stored_ref& r) { return to_str(r.t.name()); })
        .def_property_readonly("part", [](const stored_ref& r) -> py::object {
            return r.part ? py::object(py::str(r.part)) : py::object(py::none());
        }, "'values' or 'indices' for the parts of a sparse tensor, else None")
        .def_property_readonly("node", [](const stored_ref& r) -> py::object {
            return r.in_node ? py::object(to_str(r.node)) : py::object(py::none());
        }, "constant and attribute: the holding node's first output (or its name), else None")
        .def_property_readonly("attribute", [](const stored_ref& r) -> py::object {
            return r.in_node ? py::object(to_str(r.attribute)) : py::object(py::none());
        }, "constant and attribute: the attribute's name, else None")
        .def_property_readonly("dtype", [](const stored_ref& r) { return decoded_dtype(r.t.data_type()); })
        .def_property_readonly("shape", [](const stored_ref& r) { return py::tuple(py::cast(tensor_shape(r.t, r.src))); })
        .def("array", [](const stored_ref& r) { return tensor_array(r.t, r.src); },
             "The values, as Model.get_tensor gives them (read-only; zero-copy when aligned).")
        .def("__repr__", [](const stored_ref& r) {
            return to_str("<onnxview.StoredTensor " + std::string(r.origin) + " at " + r.path + ">");
        });

    py::class_<finding>(m, "Finding", "One finding of Model.check().")
        .def_readonly("severity", &finding::severity, "'error', 'warning' or (numeric findings) 'info'")
        .def_readonly("code", &finding::code, "the finding's stable identifier, e.g. 'undefined_input'")
        .def_readonly("path", &finding::path, "where: e.g. \"graph.node[12] 'conv1'.input[2]\"")
        .def_readonly("message", &finding::message)
        .def_readonly("offset", &finding::offset, "byte offset of the message concerned (0: the model)")
        .def_readonly("tensor", &finding::tensor, "numeric findings: the tensor's name ('' otherwise)")
        .def_readonly("count", &finding::count, "numeric findings: how many values are concerned (None: not counted)")
        .def("__repr__", [](const finding& f) {
            return py::str("<onnxview.Finding {} {} at {}>").format(f.severity, f.code, f.path);
        });

    py::class_<slice_ref>(m, "TensorSlice",
                          "Lazy access to an initializer: get_shape(), get_dtype(), and indexing, which reads\n"
                          "only the rows of dim 0 it needs (raw and external data of 1-byte or wider types).")
        .def("get_shape", [](const slice_ref& s) { return py::tuple(py::cast(s.shape)); })
        .def("get_dtype", [](const slice_ref& s) { return decoded_dtype(s.t.data_type()); })
        .def_property_readonly("shape", [](const slice_ref& s) { return py::tuple(py::cast(s.shape)); })
        .def("__len__", [](const slice_ref& s) { return s.shape.empty() ? 0 : s.shape[0]; })
        .def("__getitem__", &slice_rows);

    py::class_<model_ref>(m, "Model",
                          "An ONNX model mapped in place (onnxview.open). Use it as a context manager;\n"
                          "arrays, graphs and nodes taken from it stay valid after close().")
        .def_property_readonly("ir_version", [](const model_ref& r) { return r.model().ir_version(); })
        .def_property_readonly("producer", [](const model_ref& r) { return to_str(r.model().producer_name()); })
        .def_property_readonly("producer_version", [](const model_ref& r) { return to_str(r.model().producer_version()); })
        .def_property_readonly("domain", [](const model_ref& r) { return to_str(r.model().domain()); })
        .def_property_readonly("model_version", [](const model_ref& r) { return r.model().model_version(); })
        .def_property_readonly("doc_string", [](const model_ref& r) { return to_str(r.model().doc_string()); })
        .def_property_readonly("opsets", &opsets_of, "dict: domain ('' is the default) -> opset version")
        .def_property_readonly("metadata", &metadata_of, "dict: metadata_props key -> value")
        .def_property_readonly("graph", [](const model_ref& r) { return make_graph(r.graph(), r.src); },
                               "The main Graph.")
        .def_property_readonly("closed", [](const model_ref& r) { return !r.src; })
        .def("_repr_svg_", [](const model_ref& r) { return r.src && r.model().has_graph() ? svg_picture(r.model(), r.graph()) : py::none(); },
             "The main graph's picture as SVG (onnxview.graph's default fold), for Jupyter; None when\n"
             "this build lacks Graphviz's library.")
        .def("keys", &keys_of, "The main graph's initializer names, dense then sparse, in file order.")
        .def("tensors", &tensors_of,
             "Every TensorProto the model stores, as StoredTensor: in each graph (main, subgraphs\n"
             "at any depth, training graphs) its initializers, sparse initializers and node tensor\n"
             "attributes, then those of model-local functions. Reads metadata only.")
        .def("get_tensor", &get_tensor, py::arg("name"), py::kw_only(), py::arg("raw") = false,
             "An initializer of the main graph as a read-only NumPy array: over the file's (or the\n"
             "external file's) bytes when aligned and little-endian, else one copy. Narrow floats\n"
             "decode to float32, 4- and 2-bit integers to int8/uint8, STRING to an object array of\n"
             "bytes; a sparse initializer comes back dense. raw=True gives (uint8 array of the stored\n"
             "bytes in raw_data layout, type name). KeyError when no initializer has that name.")
        .def("get_slice", [](const model_ref& r, const py::object& name) {
            const initializer_ref init = find(r, from_name(name));
            if (init.is_sparse) throw py::type_error("get_slice of a sparse initializer: use get_tensor");
            return slice_ref{r.src, init.dense, tensor_shape(init.dense, r.src)};
        }, py::arg("name"), "A TensorSlice: m.get_slice('embed')[0:1000] reads only those rows.")
        .def("check", &check_of, py::kw_only(), py::arg("errors_only") = false, py::arg("numeric") = false,
             "The checker's findings (onnx.checker's rules, payload sizes, external-data safety):\n"
             "a list of Finding, empty for a valid model. numeric=True also reads every weight and\n"
             "reports what `onnxview check --numeric` does (NaN, fp16 overflow, subnormals,\n"
             "quantization scales ...; docs/stats.md), the GIL released while it reads.")
        .def("close", [](model_ref& r) { r.src.reset(); }, "Drops this handle's reference to the mapping.")
        .def("__enter__", [](py::object self) { return self; })
        .def("__exit__", [](model_ref& r, py::args) { r.src.reset(); return false; })
        .def("__contains__", [](const model_ref& r, const py::object& name) {
            return find_initializer(r.graph(), from_name(name)).ok();
        })
        .def("__repr__", [](const model_ref& r) {
            return r.src ? "<onnxview.Model ir_version " + std::to_string(r.model().ir_version()) + ">"
                         : std::string("<onnxview.Model closed>");  // no names: always UTF-8
        });

    m.def("open", [](const py::object& path, bool verify) { return model_ref{open_model(file_path(path), verify, model_reads::metadata)}; },
          py::arg("path"), py::kw_only(), py::arg("verify") = false,
          "Maps the ONNX model at `path` and reads its top-level fields only; tensors are read\n"
          "when asked for. verify=True checks the wire format of the whole model first.\n"
          "Raises onnxview.Error (code, offset, path) for unreadable or malformed files.\n\n"
          "    with onnxview.open('model.onnx') as m:\n"
          "        w = m.get_tensor(m.keys()[0])");

    m.def("load_tensor", [](const py::object& path_like) {
        const std::string path = file_path(path_like);
        auto f = mapped_file::open(path.c_str());
        if (!f) raise_error(f.err(), nullptr, "cannot open '" + path + "'");
        auto src = std::make_shared<source>();
        src->file = std::move(f.value());
        const std::string_view bytes = src->file.bytes();
        const tensor_view t = parse_tensor(bytes.data(), bytes.size());
        check(t.err(), src, path);
        return tensor_array(t, src);
    }, py::arg("path"), "The values of a standalone TensorProto file (e.g. a test's input_0.pb), as get_tensor gives them.");
}

}  // namespace onnxview_py
