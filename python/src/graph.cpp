// python/src/graph.cpp - graphs, nodes, value infos, types and attribute
// values as Python objects. Each object is a view plus a reference to its
// source; properties decode from the file's bytes when asked.
#include "binding.hpp"

namespace onnxview_py {

using namespace onnxview;

namespace {

struct graph_ref {
    graph_view g;
    source_ptr src;
};
struct node_ref {
    node_view n;
    source_ptr src;
};
struct type_ref {
    type_view t;
    source_ptr src;
};
struct value_info_ref {
    value_info_view v;
    source_ptr src;
};
// A SparseTensorProto: its values and indices as stored, the dense shape,
// and the dense array on request.
struct sparse_ref {
    sparse_tensor_view s;
    source_ptr src;
};

template <class View>
const View& checked(const View& v, const source_ptr& src) {
    check(v.err(), src);
    return v;
}

template <class Range, class Make>
py::list object_list(const Range& r, const source_ptr& src, Make make) {
    py::list out;
    for (const auto& v : r) out.append(make(checked(v, src)));
    return out;
}

template <class Repeated>
py::list scalar_list(const Repeated& r, const source_ptr& src) {
    py::list out;
    for (auto x : r) out.append(x);
    check(r.err(), src);
    return out;
}

py::object make_sparse(const sparse_tensor_view& s, const source_ptr& src) {
    return py::cast(sparse_ref{checked(s, src), src});
}

py::object shape_of(const tensor_shape_view& shape, const source_ptr& src) {
    py::list dims;
    for (const dimension_view& d : shape.dim()) {
        checked(d, src);
        if (d.has_dim_value()) dims.append(d.dim_value());
        else if (d.has_dim_param()) dims.append(to_str(d.dim_param()));
        else dims.append(py::none());
    }
    return py::tuple(dims);
}

// The value onnx.helper.get_attribute_value gives, with tensors as arrays,
// graphs as Graph objects and strings as bytes.
py::object attribute_value(const attribute_view& a, const source_ptr& src) {
    const auto tensor = [&](const tensor_view& t) -> py::object { return tensor_array(checked(t, src), src); };
    const auto graph = [&](const graph_view& g) { return make_graph(checked(g, src), src); };
    const auto type = [&](const type_view& t) { return make_type(checked(t, src), src); };
    const auto sparse = [&](const sparse_tensor_view& s) { return make_sparse(s, src); };
    switch (effective_attribute_type(a)) {
        case attribute_type::float32: return py::float_(a.f());
        case attribute_type::int64: return py::int_(a.i());
        case attribute_type::string: return to_bytes(a.s());
        case attribute_type::tensor: return tensor(a.t());
        case attribute_type::graph: return graph(a.g());
        case attribute_type::sparse_tensor: return sparse(a.sparse_tensor());
        case attribute_type::type_proto: return type(a.tp());
        case attribute_type::floats: return scalar_list(a.floats(), src);
        case attribute_type::ints: return scalar_list(a.ints(), src);
        case attribute_type::strings: {
            py::list out;
            for (std::string_view s : a.strings()) out.append(to_bytes(s));
            return out;
        }
        case attribute_type::tensors: return object_list(a.tensors(), src, tensor);
        case attribute_type::graphs: return object_list(a.graphs(), src, graph);
        case attribute_type::sparse_tensors: return object_list(a.sparse_tensors(), src, sparse);
        case attribute_type::type_protos: return object_list(a.type_protos(), src, type);
        case attribute_type::undefined: break;
    }
    return py::none();  // no value (a ref_attr_name of a function body, or an empty attribute)
}

py::dict attributes_of(const node_view& n, const source_ptr& src) {
    py::dict out;
    for (const attribute_view& a : n.attribute()) out[to_str(checked(a, src).name())] = attribute_value(a, src);
    return out;
}

std::string kind_of(const type_view& t) {
    if (t.has_tensor_type()) return "tensor";
    if (t.has_sparse_tensor_type()) return "sparse_tensor";
    if (t.has_sequence_type()) return "sequence";
    if (t.has_map_type()) return "map";
    if (t.has_optional_type()) return "optional";
    if (t.has_opaque_type()) return "opaque";
    return "";
}

// The element type number of a tensor or sparse tensor type (0 otherwise).
std::int32_t elem_type_of(const type_view& t) {
    if (t.has_tensor_type()) return t.tensor_type().elem_type();
    if (t.has_sparse_tensor_type()) return t.sparse_tensor_type().elem_type();
    return 0;
}

py::object shape_of_type(const type_ref& r) {
    const type_view& t = r.t;
    if (t.has_tensor_type()) {
        const tensor_type_view tt = checked(t.tensor_type(), r.src);
        return tt.has_shape() ? shape_of(checked(tt.shape(), r.src), r.src) : py::none();
    }
    if (t.has_sparse_tensor_type()) {
        const sparse_tensor_type_view st = checked(t.sparse_tensor_type(), r.src);
        return st.has_shape() ? shape_of(checked(st.shape(), r.src), r.src) : py::none();
    }
    return py::none();
}

py::object value_info_type(const value_info_ref& r) {
    return r.v.has_type() ? make_type(checked(r.v.type(), r.src), r.src) : py::none();
}

}  // namespace

py::object make_graph(const graph_view& g, const source_ptr& src) { return py::cast(graph_ref{checked(g, src), src}); }
py::object make_type(const type_view& t, const source_ptr& src) { return py::cast(type_ref{checked(t, src), src}); }

void register_graph(py::module_& m) {
    const auto make_value_info = [](const source_ptr& src) {
        return [src](const value_info_view& v) { return py::cast(value_info_ref{v, src}); };
    };

    py::class_<graph_ref>(m, "Graph", "A GraphProto: nodes in file order, inputs, outputs, value infos, initializers.")
        .def_property_readonly("name", [](const graph_ref& r) { return to_str(r.g.name()); })
        .def_property_readonly("doc_string", [](const graph_ref& r) { return to_str(r.g.doc_string()); })
        .def("_repr_svg_", [](const graph_ref& r) { return svg_picture(r.src->model.model(), r.g); },
             "The graph's picture as SVG (onnxview.graph's default fold), for Jupyter; None when this\n"
             "build lacks Graphviz's library.")
        .def_property_readonly("nodes", [](const graph_ref& r) {
            return object_list(r.g.node(), r.src, [&](const node_view& n) { return py::cast(node_ref{n, r.src}); });
        }, "The nodes, in file order (a list of Node).")
        .def_property_readonly("inputs", [=](const graph_ref& r) { return object_list(r.g.input(), r.src, make_value_info(r.src)); },
                               "The graph inputs (a list of ValueInfo).")
        .def_property_readonly("outputs", [=](const graph_ref& r) { return object_list(r.g.output(), r.src, make_value_info(r.src)); },
                               "The graph outputs (a list of ValueInfo).")
        .def_property_readonly("value_info", [=](const graph_ref& r) { return object_list(r.g.value_info(), r.src, make_value_info(r.src)); })
        .def("keys", [](const graph_ref& r) {
            py::list names = object_list(r.g.initializer(), r.src, [](const tensor_view& t) { return to_str(t.name()); });
            for (const sparse_tensor_view& s : r.g.sparse_initializer()) names.append(to_str(checked(checked(s, r.src).values(), r.src).name()));
            return names;
        }, "This graph's initializer names, dense then sparse, in file order.")
        .def("get_tensor", [](const graph_ref& r, const py::object& key) -> py::array {
            const std::string name = from_name(key);
            auto found = find_initializer(r.g, name);
            check(found.err(), r.src, name);
            if (found->is_sparse) return sparse_dense_array(found->sparse, r.src);
            return tensor_array(found->dense, r.src);
        }, py::arg("name"), "An initializer of this graph as a read-only NumPy array (see Model.get_tensor).")
        .def("__repr__", [](const graph_ref& r) {
            return to_str("<onnxview.Graph '" + std::string(r.g.name()) + "' with " + std::to_string(r.g.node().size()) + " nodes>");
        });

    py::class_<node_ref>(m, "Node", "A NodeProto.")
        .def_property_readonly("name", [](const node_ref& r) { return to_str(r.n.name()); })
        .def_property_readonly("op_type", [](const node_ref& r) { return to_str(r.n.op_type()); })
        .def_property_readonly("domain", [](const node_ref& r) { return to_str(r.n.domain()); })
        .def_property_readonly("overload", [](const node_ref& r) { return to_str(r.n.overload()); })
        .def_property_readonly("doc_string", [](const node_ref& r) { return to_str(r.n.doc_string()); })
        .def_property_readonly("inputs", [](const node_ref& r) { return str_list(r.n.input()); },
                               "Input names ('' for an omitted optional input).")
        .def_property_readonly("outputs", [](const node_ref& r) { return str_list(r.n.output()); })
        .def_property_readonly("attributes", [](const node_ref& r) { return attributes_of(r.n, r.src); },
                               "A dict name -> value in file order: float, int, bytes, a NumPy array (TENSOR),\n"
                               "Graph (GRAPH), SparseTensor, Type (TYPE_PROTO), or a list of those.")
        .def("__repr__", [](const node_ref& r) {
            return to_str("<onnxview.Node " + std::string(r.n.op_type()) + " '" + std::string(r.n.name()) + "'>");
        });

    py::class_<value_info_ref>(m, "ValueInfo", "A ValueInfoProto: a name and its type.")
        .def_property_readonly("name", [](const value_info_ref& r) { return to_str(r.v.name()); })
        .def_property_readonly("doc_string", [](const value_info_ref& r) { return to_str(r.v.doc_string()); })
        .def_property_readonly("type", &value_info_type, "The Type, or None when absent.")
        .def_property_readonly("dtype", [](const value_info_ref& r) {
            return r.v.has_type() ? decoded_dtype(elem_type_of(r.v.type())) : py::none();
        }, "The element dtype of a tensor type (as get_tensor gives it), else None.")
        .def_property_readonly("shape", [](const value_info_ref& r) {
            return r.v.has_type() ? shape_of_type(type_ref{r.v.type(), r.src}) : py::none();
        }, "A tuple of int (known), str (symbolic) and None (unknown) dims; None when the rank is unknown.")
        .def("__repr__", [](const value_info_ref& r) { return to_str("<onnxview.ValueInfo '" + std::string(r.v.name()) + "'>"); });

    py::class_<type_ref>(m, "Type", "A TypeProto: tensor, sparse_tensor, sequence, map, optional or opaque.")
        .def_property_readonly("kind", [](const type_ref& r) { return kind_of(r.t); },
                               "'tensor', 'sparse_tensor', 'sequence', 'map', 'optional', 'opaque', or '' when unset.")
        .def_property_readonly("elem_type", [](const type_ref& r) { return elem_type_of(r.t); },
                               "The DataType number of a tensor or sparse tensor type (0 otherwise).")
        .def_property_readonly("dtype", [](const type_ref& r) { return decoded_dtype(elem_type_of(r.t)); })
        .def_property_readonly("shape", &shape_of_type)
        .def_property_readonly("element", [](const type_ref& r) -> py::object {
            if (r.t.has_sequence_type() && r.t.sequence_type().has_elem_type()) return make_type(r.t.sequence_type().elem_type(), r.src);
            if (r.t.has_optional_type() && r.t.optional_type().has_elem_type()) return make_type(r.t.optional_type().elem_type(), r.src);
            return py::none();
        }, "The element Type of a sequence or optional type, else None.")
        .def_property_readonly("key_type", [](const type_ref& r) { return r.t.has_map_type() ? r.t.map_type().key_type() : 0; })
        .def_property_readonly("value_type", [](const type_ref& r) -> py::object {
            if (r.t.has_map_type() && r.t.map_type().has_value_type()) return make_type(r.t.map_type().value_type(), r.src);
            return py::none();
        }, "The value Type of a map type, else None.")
        .def_property_readonly("denotation", [](const type_ref& r) { return to_str(r.t.denotation()); })
        .def("__repr__", [](const type_ref& r) { return "<onnxview.Type " + kind_of(r.t) + ">"; });

    py::class_<sparse_ref>(m, "SparseTensor", "A SparseTensorProto: values, indices and the dense shape.")
        .def_property_readonly("values", [](const sparse_ref& r) { return tensor_array(checked(r.s.values(), r.src), r.src); })
        .def_property_readonly("indices", [](const sparse_ref& r) { return tensor_array(checked(r.s.indices(), r.src), r.src); })
        .def_property_readonly("dims", [](const sparse_ref& r) { return py::tuple(scalar_list(r.s.dims(), r.src)); })
        .def("to_dense", [](const sparse_ref& r) { return sparse_dense_array(r.s, r.src); }, "The dense array (zeros elsewhere).");
}

}  // namespace onnxview_py
