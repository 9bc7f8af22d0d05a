"""What python3-onnx (the oracle) reads from a model, compared with what
onnxview gives: each compare_* returns a list of differences ('' paths
name where), empty when both agree."""
import math

import numpy as np
from onnx import AttributeProto, TensorProto, helper, mapping, numpy_helper

from conftest import same_values

COMPLEX = {TensorProto.COMPLEX64: np.complex64, TensorProto.COMPLEX128: np.complex128}


def expected_array(t, base_dir):
    """numpy_helper.to_array(t), except for typed complex data, which onnx
    1.12 cannot convert: its float_data/double_data hold (real, imaginary)
    pairs, as onnx.proto says."""
    dims = tuple(t.dims)
    if t.data_type in COMPLEX and not t.HasField("raw_data") and \
            t.data_location != TensorProto.EXTERNAL:
        parts = t.float_data if t.data_type == TensorProto.COMPLEX64 else t.double_data
        real = np.float32 if t.data_type == TensorProto.COMPLEX64 else np.float64
        return np.asarray(list(parts), dtype=real).view(COMPLEX[t.data_type]).reshape(dims)
    if t.data_type == TensorProto.STRING:  # bytes as stored (to_array decodes UTF-8)
        out = np.empty(len(t.string_data), dtype=object)
        out[:] = list(t.string_data)
        return out.reshape(dims)
    copy = TensorProto()
    copy.CopyFrom(t)
    return numpy_helper.to_array(copy, base_dir)


def compare_tensor(mine, t, base_dir, where):
    want = expected_array(t, base_dir)
    if not same_values(np.asarray(mine), want):
        return ["%s: %s %s differs from onnx's %s %s" % (where, mine.dtype, mine.shape, want.dtype, want.shape)]
    if mine.flags.writeable:
        return ["%s: writeable" % where]
    return []


def _dims(shape_proto):
    out = []
    for d in shape_proto.dim:
        which = d.WhichOneof("value")
        out.append(d.dim_value if which == "dim_value" else d.dim_param if which == "dim_param" else None)
    return tuple(out)


KINDS = {"tensor_type": "tensor", "sparse_tensor_type": "sparse_tensor", "sequence_type": "sequence",
         "map_type": "map", "optional_type": "optional", "opaque_type": "opaque", None: ""}


def compare_type(mine, tp, where):
    which = tp.WhichOneof("value")
    problems = []
    if mine.kind != KINDS[which]:
        return ["%s: kind %r, onnx %r" % (where, mine.kind, KINDS[which])]
    if mine.denotation != tp.denotation:
        problems.append("%s: denotation" % where)
    if which in ("tensor_type", "sparse_tensor_type"):
        tt = getattr(tp, which)
        if mine.elem_type != tt.elem_type:
            problems.append("%s: elem_type %d, onnx %d" % (where, mine.elem_type, tt.elem_type))
        if mine.dtype != mapping.TENSOR_TYPE_TO_NP_TYPE.get(tt.elem_type):
            problems.append("%s: dtype %r, onnx %r" % (where, mine.dtype, mapping.TENSOR_TYPE_TO_NP_TYPE.get(tt.elem_type)))
        want = _dims(tt.shape) if tt.HasField("shape") else None
        if mine.shape != want:
            problems.append("%s: shape %r, onnx %r" % (where, mine.shape, want))
    elif which in ("sequence_type", "optional_type"):
        inner = getattr(tp, which)
        if inner.HasField("elem_type"):
            problems += compare_type(mine.element, inner.elem_type, where + ".elem_type")
        elif mine.element is not None:
            problems.append("%s: element present" % where)
    elif which == "map_type":
        if mine.key_type != tp.map_type.key_type:
            problems.append("%s: key_type" % where)
        if tp.map_type.HasField("value_type"):
            problems += compare_type(mine.value_type, tp.map_type.value_type, where + ".value_type")
    return problems


def compare_value_infos(mine, protos, where):
    if len(mine) != len(protos):
        return ["%s: %d values, onnx %d" % (where, len(mine), len(protos))]
    problems = []
    for i, (v, p) in enumerate(zip(mine, protos)):
        w = "%s[%d]" % (where, i)
        if v.name != p.name or v.doc_string != p.doc_string:
            problems.append("%s: name %r, onnx %r (or the doc_string)" % (w, v.name, p.name))
        if p.HasField("type"):
            problems += compare_type(v.type, p.type, w + ".type")
            if p.type.HasField("tensor_type"):
                tt = p.type.tensor_type
                shape = _dims(tt.shape) if tt.HasField("shape") else None
                if v.dtype != mapping.TENSOR_TYPE_TO_NP_TYPE.get(tt.elem_type) or v.shape != shape:
                    problems.append("%s: dtype %r shape %r, onnx %r %r" % (w, v.dtype, v.shape, tt.elem_type, shape))
        elif v.type is not None:
            problems.append("%s: type present" % w)
    return problems


def _same_float(a, b):
    return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))


def compare_sparse(mine, sp, base_dir, where):
    problems = compare_tensor(mine.values, sp.values, base_dir, where + ".values")
    problems += compare_tensor(mine.indices, sp.indices, base_dir, where + ".indices")
    if mine.dims != tuple(sp.dims):
        problems.append("%s: dims" % where)
    return problems


def compare_attribute(value, a, base_dir, where):
    T = AttributeProto
    if a.type == T.UNDEFINED:
        return []
    want = helper.get_attribute_value(a)
    if a.type == T.FLOAT:
        return [] if _same_float(value, want) else ["%s: %r, onnx %r" % (where, value, want)]
    if a.type == T.FLOATS:
        ok = len(value) == len(want) and all(_same_float(x, y) for x, y in zip(value, want))
        return [] if ok else ["%s: floats differ" % where]
    if a.type in (T.INT, T.STRING):
        return [] if value == want else ["%s: %r, onnx %r" % (where, value, want)]
    if a.type in (T.INTS, T.STRINGS):
        return [] if value == list(want) else ["%s: %r, onnx %r" % (where, value, list(want))]
    single = {T.TENSOR: (compare_tensor, True), T.GRAPH: (compare_graph, True),
              T.SPARSE_TENSOR: (compare_sparse, True), T.TYPE_PROTO: (compare_type, False)}
    plural = {T.TENSORS: T.TENSOR, T.GRAPHS: T.GRAPH, T.SPARSE_TENSORS: T.SPARSE_TENSOR,
              T.TYPE_PROTOS: T.TYPE_PROTO}
    if a.type in single:
        fn, with_base = single[a.type]
        return fn(value, want, base_dir, where) if with_base else fn(value, want, where)
    if a.type in plural:
        fn, with_base = single[plural[a.type]]
        if len(value) != len(want):
            return ["%s: %d items, onnx %d" % (where, len(value), len(want))]
        problems = []
        for i, (v, w) in enumerate(zip(value, want)):
            w_at = "%s[%d]" % (where, i)
            problems += fn(v, w, base_dir, w_at) if with_base else fn(v, w, w_at)
        return problems
    return ["%s: attribute type %d not compared" % (where, a.type)]


def compare_node(mine, n, base_dir, where):
    problems = []
    for field in ("name", "op_type", "domain", "doc_string"):
        if getattr(mine, field) != getattr(n, field):
            problems.append("%s.%s: %r, onnx %r" % (where, field, getattr(mine, field), getattr(n, field)))
    if mine.inputs != list(n.input) or mine.outputs != list(n.output):
        problems.append("%s: inputs/outputs differ" % where)
    attrs = mine.attributes
    if list(attrs) != [a.name for a in n.attribute]:
        return problems + ["%s: attribute names %r, onnx %r" % (where, list(attrs), [a.name for a in n.attribute])]
    for a in n.attribute:
        problems += compare_attribute(attrs[a.name], a, base_dir, "%s.attribute %r" % (where, a.name))
    return problems


def compare_graph(mine, g, base_dir, where="graph"):
    problems = []
    if mine.name != g.name or mine.doc_string != g.doc_string:
        problems.append("%s: name %r, onnx %r (or the doc_string)" % (where, mine.name, g.name))
    nodes = mine.nodes
    if len(nodes) != len(g.node):
        return problems + ["%s: %d nodes, onnx %d" % (where, len(nodes), len(g.node))]
    for i, (n, p) in enumerate(zip(nodes, g.node)):
        problems += compare_node(n, p, base_dir, "%s.node[%d]" % (where, i))
    problems += compare_value_infos(mine.inputs, g.input, where + ".input")
    problems += compare_value_infos(mine.outputs, g.output, where + ".output")
    problems += compare_value_infos(mine.value_info, g.value_info, where + ".value_info")
    names = [t.name for t in g.initializer] + [s.values.name for s in g.sparse_initializer]
    if mine.keys() != names:
        problems.append("%s: initializer names differ" % where)
    for t in g.initializer:
        problems += compare_tensor(mine.get_tensor(t.name), t, base_dir, "%s.initializer %r" % (where, t.name))
    return problems


def compare_model(m, proto, base_dir):
    problems = []
    if m.ir_version != proto.ir_version:
        problems.append("ir_version")
    for mine, theirs in ((m.producer, proto.producer_name), (m.producer_version, proto.producer_version),
                         (m.domain, proto.domain), (m.model_version, proto.model_version),
                         (m.doc_string, proto.doc_string)):
        if mine != theirs:
            problems.append("model field %r, onnx %r" % (mine, theirs))
    if m.opsets != {o.domain: o.version for o in proto.opset_import}:
        problems.append("opsets %r" % m.opsets)
    if m.metadata != {e.key: e.value for e in proto.metadata_props}:
        problems.append("metadata %r" % m.metadata)
    names = [t.name for t in proto.graph.initializer] + [s.values.name for s in proto.graph.sparse_initializer]
    if m.keys() != names:
        problems.append("keys %r, onnx %r" % (m.keys(), names))
    for t in proto.graph.initializer:
        problems += compare_tensor(m.get_tensor(t.name), t, base_dir, "initializer %r" % t.name)
    return problems + compare_graph(m.graph, proto.graph, base_dir)
