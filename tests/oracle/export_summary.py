#!/usr/bin/python3
"""Canonical text summary of ONNX files, as read by python3-onnx (the oracle).

    export_summary.py FILE [FILE...]
    export_summary.py --out-dir OUTDIR --root ROOT FILE [FILE...]
    export_summary.py --out-dir OUTDIR --root ROOT --list LISTFILE

FILE is a ModelProto (*.onnx) or a test data file (*.pb: TensorProto,
SequenceProto, MapProto or OptionalProto).  The format is specified in
README.md next to this script; a C++ test reproduces it from onnxview's
views and compares the text.

With one FILE the summary goes to stdout.  With several, each summary is
preceded by a line "== PATH".  With --out-dir, the summary of ROOT/a/b.pb
is written to OUTDIR/a/b.pb.summary and nothing is printed except a count.
"""

import math
import os
import sys
import warnings
import zlib

import numpy as np
import onnx
from onnx import (AttributeProto, MapProto, ModelProto, OptionalProto,
                  SequenceProto, TensorProto, numpy_helper)

FIRST_N = 8

# numpy warns when it wraps out-of-range typed values; wrapping is the rule.
warnings.simplefilter("ignore")

DATA_TYPE_NAMES = {v: k for k, v in TensorProto.DataType.items()}
ATTR_TYPE_NAMES = {v: k for k, v in AttributeProto.AttributeType.items()}
DATA_LOCATION_NAMES = {v: k for k, v in TensorProto.DataLocation.items()}
SEQ_ELEM_NAMES = {v: k for k, v in SequenceProto.DataType.items()}
OPT_ELEM_NAMES = {v: k for k, v in OptionalProto.DataType.items()}

FLOAT_TYPES = {TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.BFLOAT16, TensorProto.DOUBLE}
COMPLEX_TYPES = {TensorProto.COMPLEX64, TensorProto.COMPLEX128}
INT_TYPES = {TensorProto.UINT8, TensorProto.INT8, TensorProto.UINT16, TensorProto.INT16,
             TensorProto.INT32, TensorProto.INT64, TensorProto.UINT32, TensorProto.UINT64,
             TensorProto.BOOL}

# canonical little-endian element encodings used for crc32
CANON_DTYPE = {
    TensorProto.FLOAT: "<f4", TensorProto.UINT8: "<u1", TensorProto.INT8: "<i1",
    TensorProto.UINT16: "<u2", TensorProto.INT16: "<i2", TensorProto.INT32: "<i4",
    TensorProto.INT64: "<i8", TensorProto.BOOL: "<u1", TensorProto.FLOAT16: "<f2",
    TensorProto.DOUBLE: "<f8", TensorProto.UINT32: "<u4", TensorProto.UINT64: "<u8",
    TensorProto.COMPLEX64: "<f4", TensorProto.COMPLEX128: "<f8",
    TensorProto.BFLOAT16: "<u2",
}


# ---------------------------------------------------------------------------
# scalars
# ---------------------------------------------------------------------------

def esc(value):
    """Quoted string: printable ASCII as is except \" and \\, the rest \\xHH."""
    if isinstance(value, str):
        value = value.encode("utf-8", "surrogateescape")
    out = ['"']
    for b in value:
        if b == 0x22:
            out.append('\\"')
        elif b == 0x5C:
            out.append("\\\\")
        elif 0x20 <= b <= 0x7E:
            out.append(chr(b))
        else:
            out.append("\\x%02x" % b)
    out.append('"')
    return "".join(out)


def f32(x):
    """A value of a 32-bit-or-narrower float type."""
    x = float(x)
    return "nan" if math.isnan(x) else "%.9g" % x


def f64(x):
    """A value of a 64-bit float type, and every sum."""
    x = float(x)
    return "nan" if math.isnan(x) else "%.17g" % x


def enum(value, names):
    return "%d %s" % (value, names.get(value, "UNKNOWN"))


def lst(items):
    return "[" + ", ".join(items) + "]"


def elem_name(dt):
    return DATA_TYPE_NAMES.get(dt, str(dt))


# ---------------------------------------------------------------------------
# output helper
# ---------------------------------------------------------------------------

class Out:
    def __init__(self):
        self.lines = []

    def __call__(self, level, text):
        self.lines.append("  " * level + text)

    def text(self):
        return "".join(line + "\n" for line in self.lines)


# ---------------------------------------------------------------------------
# tensors
# ---------------------------------------------------------------------------

def _typed_complex(t, count):
    data = list(t.float_data if t.data_type == TensorProto.COMPLEX64 else t.double_data)
    if len(data) != 2 * count:
        raise ValueError("typed complex data has %d values, expected %d" % (len(data), 2 * count))
    np_dt = np.float32 if t.data_type == TensorProto.COMPLEX64 else np.float64
    return np.asarray(data, dtype=np_dt)  # interleaved re, im


def tensor_values(t, base_dir, count):
    """Returns a flat numpy array of the elements in canonical form.

    floats: float16/float32/float64 array (bfloat16: uint16 bit patterns)
    complex: interleaved real/imag float32/float64 array of 2*count
    ints/bool: array of the element type (bool as uint8 0/1)
    """
    dt = t.data_type
    if dt in COMPLEX_TYPES and not t.HasField("raw_data") and \
            t.data_location != TensorProto.EXTERNAL:
        if t.HasField("segment"):
            raise ValueError("segment not supported")
        return _typed_complex(t, count)
    tc = TensorProto()
    tc.CopyFrom(t)
    arr = numpy_helper.to_array(tc, base_dir)
    flat = np.ascontiguousarray(arr).reshape(-1)
    if flat.size != count:
        raise ValueError("element count %d != product of dims %d" % (flat.size, count))
    if dt == TensorProto.BFLOAT16:
        return (flat.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    if dt == TensorProto.BOOL:
        return (flat != 0).astype(np.uint8)
    if dt in COMPLEX_TYPES:
        return flat.view(np.float32 if dt == TensorProto.COMPLEX64 else np.float64)
    return flat


def _bf16_to_f64(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def _seq_sum(x64):
    """Sequential left-to-right float64 sum of the finite values."""
    x64 = x64[np.isfinite(x64)]
    if x64.size == 0:
        return 0.0
    with np.errstate(all="ignore"):
        return float(np.add.accumulate(x64)[-1])


def _nonfinite(out, level, x64):
    out(level, "nan: %d" % int(np.isnan(x64).sum()))
    out(level, "pos_inf: %d" % int(np.isposinf(x64).sum()))
    out(level, "neg_inf: %d" % int(np.isneginf(x64).sum()))


CANON_NAN = {2: ("<u2", 0x7E00), 4: ("<u4", 0x7FC00000), 8: ("<u8", 0x7FF8000000000000)}


def _crc(values, dt):
    """crc32 of the canonical little-endian element bytes, NaNs canonicalized."""
    canon = values.astype(CANON_DTYPE[dt])
    if dt == TensorProto.BFLOAT16:
        nan_mask = ((canon & 0x7F80) == 0x7F80) & ((canon & 0x7F) != 0)
        canon = np.where(nan_mask, np.uint16(0x7FC0), canon).astype("<u2")
    elif dt in FLOAT_TYPES or dt in COMPLEX_TYPES:
        ut, qnan = CANON_NAN[canon.dtype.itemsize]
        bits = canon.view(ut)
        canon = np.where(np.isnan(canon), bits.dtype.type(qnan), bits).astype(ut)
    return "%08x" % (zlib.crc32(canon.tobytes()) & 0xFFFFFFFF)


def emit_values(out, level, t, base_dir, count):
    dt = t.data_type
    if dt == TensorProto.STRING:
        data = list(t.string_data)
        if len(data) != count:
            out(level, "error: %d strings, expected %d" % (len(data), count))
            return
        buf = bytearray()
        for s in data:
            buf += len(s).to_bytes(8, "little") + s
        out(level, "bytes: %d" % sum(len(s) for s in data))
        out(level, "crc32: %08x" % (zlib.crc32(bytes(buf)) & 0xFFFFFFFF))
        out(level, "first: " + lst([esc(s) for s in data[:FIRST_N]]))
        return
    if dt not in FLOAT_TYPES and dt not in COMPLEX_TYPES and dt not in INT_TYPES:
        out(level, "error: unsupported data_type %d" % dt)
        return
    try:
        v = tensor_values(t, base_dir, count)
    except Exception as e:  # noqa: BLE001 - any failure is reported
        out(level, "error: %s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else ""))
        return
    if dt in FLOAT_TYPES:
        x64 = _bf16_to_f64(v) if dt == TensorProto.BFLOAT16 else v.astype(np.float64)
        fmt = f64 if dt == TensorProto.DOUBLE else f32
        _nonfinite(out, level, x64)
        out(level, "sum: " + f64(_seq_sum(x64)))
        out(level, "crc32: " + _crc(v, dt))
        out(level, "first: " + lst([fmt(x) for x in x64[:FIRST_N].tolist()]))
    elif dt in COMPLEX_TYPES:
        x64 = v.astype(np.float64)
        re, im = x64[0::2], x64[1::2]
        fmt = f64 if dt == TensorProto.COMPLEX128 else f32
        _nonfinite(out, level, x64)
        out(level, "sum_re: " + f64(_seq_sum(re)))
        out(level, "sum_im: " + f64(_seq_sum(im)))
        out(level, "crc32: " + _crc(v, dt))
        out(level, "first: " + lst(["(%s, %s)" % (fmt(a), fmt(b))
                                     for a, b in zip(re[:FIRST_N].tolist(), im[:FIRST_N].tolist())]))
    else:
        if dt in (TensorProto.UINT64,):
            u = v.astype(np.uint64)
        else:
            u = v.astype(np.int64).view(np.uint64)
        total = int(u.sum(dtype=np.uint64)) if u.size else 0
        out(level, "sum: %d" % (total % (1 << 64)))
        out(level, "crc32: " + _crc(v, dt))
        out(level, "first: " + lst([str(int(x)) for x in v[:FIRST_N].tolist()]))


def emit_tensor(out, level, t, base_dir):
    out(level, "tensor " + esc(t.name))
    level += 1
    out(level, "data_type: " + enum(t.data_type, DATA_TYPE_NAMES))
    out(level, "dims: " + lst([str(d) for d in t.dims]))
    out(level, "data_location: " + enum(t.data_location, DATA_LOCATION_NAMES))
    for e in t.external_data:
        out(level, "external_data: %s %s" % (esc(e.key), esc(e.value)))
    if t.doc_string:
        out(level, "doc_string: " + esc(t.doc_string))
    if t.data_location == TensorProto.EXTERNAL:
        storage = "external"
    elif t.HasField("raw_data"):
        storage = "raw"
    else:
        storage = "typed"
    out(level, "storage: " + storage)
    count = 1
    for d in t.dims:
        count *= d
    out(level, "count: %d" % count)
    emit_values(out, level, t, base_dir, count)


def emit_sparse(out, level, sp, base_dir):
    out(level, "sparse_tensor")
    out(level + 1, "dims: " + lst([str(d) for d in sp.dims]))
    out(level + 1, "values")
    emit_tensor(out, level + 2, sp.values, base_dir)
    out(level + 1, "indices")
    emit_tensor(out, level + 2, sp.indices, base_dir)


# ---------------------------------------------------------------------------
# types
# ---------------------------------------------------------------------------

def _shape(tt):
    if not tt.HasField("shape"):
        return ""
    dims = []
    for d in tt.shape.dim:
        which = d.WhichOneof("value")
        if which == "dim_value":
            dims.append(str(d.dim_value))
        elif which == "dim_param":
            dims.append(esc(d.dim_param))
        else:
            dims.append("?")
    return ", " + lst(dims)


def type_str(tp):
    which = tp.WhichOneof("value")
    if which == "tensor_type":
        return "tensor(%s%s)" % (elem_name(tp.tensor_type.elem_type), _shape(tp.tensor_type))
    if which == "sparse_tensor_type":
        return "sparse_tensor(%s%s)" % (elem_name(tp.sparse_tensor_type.elem_type),
                                        _shape(tp.sparse_tensor_type))
    if which == "sequence_type":
        return "seq(%s)" % type_str(tp.sequence_type.elem_type)
    if which == "map_type":
        return "map(%s, %s)" % (elem_name(tp.map_type.key_type), type_str(tp.map_type.value_type))
    if which == "optional_type":
        return "optional(%s)" % type_str(tp.optional_type.elem_type)
    if which == "opaque_type":
        return "opaque(%s, %s)" % (esc(tp.opaque_type.domain), esc(tp.opaque_type.name))
    return "none"


def emit_value_info(out, level, kind, vi):
    out(level, "%s %s %s" % (kind, esc(vi.name), type_str(vi.type)))
    if vi.doc_string:
        out(level + 1, "doc_string: " + esc(vi.doc_string))


# ---------------------------------------------------------------------------
# graphs, nodes, attributes, functions, models
# ---------------------------------------------------------------------------

def emit_attribute(out, level, a, base_dir):
    T = AttributeProto
    head = "attribute %s %s" % (esc(a.name), ATTR_TYPE_NAMES.get(a.type, str(a.type)))
    if a.type == T.FLOAT:
        head += " " + f32(a.f)
    elif a.type == T.INT:
        head += " %d" % a.i
    elif a.type == T.STRING:
        head += " " + esc(a.s)
    elif a.type == T.FLOATS:
        head += " " + lst([f32(x) for x in a.floats])
    elif a.type == T.INTS:
        head += " " + lst([str(x) for x in a.ints])
    elif a.type == T.STRINGS:
        head += " " + lst([esc(x) for x in a.strings])
    elif a.type == T.TYPE_PROTO:
        head += " " + type_str(a.tp)
    elif a.type == T.TYPE_PROTOS:
        head += " " + lst([type_str(x) for x in a.type_protos])
    elif a.type == T.TENSORS:
        head += " %d" % len(a.tensors)
    elif a.type == T.GRAPHS:
        head += " %d" % len(a.graphs)
    elif a.type == T.SPARSE_TENSORS:
        head += " %d" % len(a.sparse_tensors)
    out(level, head)
    level += 1
    if a.ref_attr_name:
        out(level, "ref_attr_name: " + esc(a.ref_attr_name))
    if a.doc_string:
        out(level, "doc_string: " + esc(a.doc_string))
    if a.type == T.TENSOR:
        emit_tensor(out, level, a.t, base_dir)
    elif a.type == T.GRAPH:
        emit_graph(out, level, a.g, base_dir)
    elif a.type == T.SPARSE_TENSOR:
        emit_sparse(out, level, a.sparse_tensor, base_dir)
    elif a.type == T.TENSORS:
        for t in a.tensors:
            emit_tensor(out, level, t, base_dir)
    elif a.type == T.GRAPHS:
        for g in a.graphs:
            emit_graph(out, level, g, base_dir)
    elif a.type == T.SPARSE_TENSORS:
        for sp in a.sparse_tensors:
            emit_sparse(out, level, sp, base_dir)


def emit_node(out, level, n, base_dir):
    out(level, "node " + esc(n.name))
    level += 1
    out(level, "op_type: " + esc(n.op_type))
    out(level, "domain: " + esc(n.domain))
    out(level, "input: " + lst([esc(x) for x in n.input]))
    out(level, "output: " + lst([esc(x) for x in n.output]))
    if n.doc_string:
        out(level, "doc_string: " + esc(n.doc_string))
    for a in n.attribute:
        emit_attribute(out, level, a, base_dir)


def emit_graph(out, level, g, base_dir):
    out(level, "graph " + esc(g.name))
    level += 1
    if g.doc_string:
        out(level, "doc_string: " + esc(g.doc_string))
    for vi in g.input:
        emit_value_info(out, level, "input", vi)
    for vi in g.output:
        emit_value_info(out, level, "output", vi)
    for vi in g.value_info:
        emit_value_info(out, level, "value_info", vi)
    for t in g.initializer:
        emit_tensor(out, level, t, base_dir)
    for sp in g.sparse_initializer:
        emit_sparse(out, level, sp, base_dir)
    for n in g.node:
        emit_node(out, level, n, base_dir)


def emit_opsets(out, level, opsets):
    for o in opsets:
        out(level, "opset_import: %s %d" % (esc(o.domain), o.version))


def emit_function(out, level, f, base_dir):
    out(level, "function %s %s" % (esc(f.domain), esc(f.name)))
    level += 1
    if f.doc_string:
        out(level, "doc_string: " + esc(f.doc_string))
    out(level, "input: " + lst([esc(x) for x in f.input]))
    out(level, "output: " + lst([esc(x) for x in f.output]))
    out(level, "attribute: " + lst([esc(x) for x in f.attribute]))
    emit_opsets(out, level, f.opset_import)
    for n in f.node:
        emit_node(out, level, n, base_dir)


def emit_model(out, m, base_dir):
    out(0, "model")
    out(1, "ir_version: %d" % m.ir_version)
    out(1, "producer_name: " + esc(m.producer_name))
    out(1, "producer_version: " + esc(m.producer_version))
    out(1, "domain: " + esc(m.domain))
    out(1, "model_version: %d" % m.model_version)
    if m.doc_string:
        out(1, "doc_string: " + esc(m.doc_string))
    emit_opsets(out, 1, m.opset_import)
    for p in m.metadata_props:
        out(1, "metadata_prop: %s %s" % (esc(p.key), esc(p.value)))
    emit_graph(out, 1, m.graph, base_dir)
    for f in m.functions:
        emit_function(out, 1, f, base_dir)


# ---------------------------------------------------------------------------
# test-data containers
# ---------------------------------------------------------------------------

def emit_sequence(out, level, s, base_dir):
    out(level, "sequence " + esc(s.name))
    level += 1
    out(level, "elem_type: " + enum(s.elem_type, SEQ_ELEM_NAMES))
    for t in s.tensor_values:
        emit_tensor(out, level, t, base_dir)
    for sp in s.sparse_tensor_values:
        emit_sparse(out, level, sp, base_dir)
    for x in s.sequence_values:
        emit_sequence(out, level, x, base_dir)
    for x in s.map_values:
        emit_map(out, level, x, base_dir)
    for x in s.optional_values:
        emit_optional(out, level, x, base_dir)


def emit_map(out, level, m, base_dir):
    out(level, "map " + esc(m.name))
    level += 1
    out(level, "key_type: " + enum(m.key_type, DATA_TYPE_NAMES))
    out(level, "keys: " + lst([str(k) for k in m.keys]))
    out(level, "string_keys: " + lst([esc(k) for k in m.string_keys]))
    emit_sequence(out, level, m.values, base_dir)


def emit_optional(out, level, o, base_dir):
    out(level, "optional " + esc(o.name))
    level += 1
    out(level, "elem_type: " + enum(o.elem_type, OPT_ELEM_NAMES))
    if o.HasField("tensor_value"):
        emit_tensor(out, level, o.tensor_value, base_dir)
    if o.HasField("sparse_tensor_value"):
        emit_sparse(out, level, o.sparse_tensor_value, base_dir)
    if o.HasField("sequence_value"):
        emit_sequence(out, level, o.sequence_value, base_dir)
    if o.HasField("map_value"):
        emit_map(out, level, o.map_value, base_dir)
    if o.HasField("optional_value"):
        emit_optional(out, level, o.optional_value, base_dir)


_model_cache = {}


def _model_for_pb(path):
    """The ModelProto in ../model.onnx of a test_data_set_* dir, or None."""
    mpath = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(path))), "model.onnx")
    if mpath not in _model_cache:
        m = None
        if os.path.isfile(mpath):
            try:
                m = onnx.load(mpath, load_external_data=False)
            except Exception:  # noqa: BLE001
                m = None
        _model_cache.clear()
        _model_cache[mpath] = m
    return _model_cache[mpath]


def pb_kind(path):
    """'tensor', 'sequence', 'optional' or 'map', from the model's value type."""
    base = os.path.basename(path)
    stem, _ = os.path.splitext(base)
    kind = "tensor"
    for prefix, field in (("input_", "input"), ("output_", "output")):
        if stem.startswith(prefix) and stem[len(prefix):].isdigit():
            m = _model_for_pb(path)
            idx = int(stem[len(prefix):])
            if m is not None:
                values = getattr(m.graph, field)
                if idx < len(values):
                    which = values[idx].type.WhichOneof("value")
                    kind = {"sequence_type": "sequence", "optional_type": "optional",
                            "map_type": "map"}.get(which, "tensor")
    return kind


def summarize(path):
    out = Out()
    base_dir = os.path.dirname(os.path.abspath(path))
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        out(0, "error: cannot read: %s" % e.strerror)
        return out.text()
    if path.endswith(".pb"):
        kind = pb_kind(path)
        cls = {"tensor": TensorProto, "sequence": SequenceProto,
               "optional": OptionalProto, "map": MapProto}[kind]
        msg = cls()
        try:
            msg.ParseFromString(data)
        except Exception as e:  # noqa: BLE001
            out(0, "error: cannot parse as %s: %s" % (cls.__name__, e))
            return out.text()
        try:
            {"tensor": emit_tensor, "sequence": emit_sequence, "optional": emit_optional,
             "map": emit_map}[kind](out, 0, msg, base_dir)
        except Exception as e:  # noqa: BLE001 - never crash on one file
            out(0, "error: internal: %s: %s" % (type(e).__name__, e))
    else:
        m = ModelProto()
        try:
            m.ParseFromString(data)
        except Exception as e:  # noqa: BLE001
            out(0, "error: cannot parse as ModelProto: %s" % e)
            return out.text()
        try:
            emit_model(out, m, base_dir)
        except Exception as e:  # noqa: BLE001 - never crash on one file
            out(0, "error: internal: %s: %s" % (type(e).__name__, e))
    return out.text()


def main(argv):
    out_dir = root = list_file = None
    files = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--out-dir", "--root", "--list"):
            if i + 1 >= len(argv):
                sys.exit("missing value for " + a)
            val = argv[i + 1]
            if a == "--out-dir":
                out_dir = val
            elif a == "--root":
                root = val
            else:
                list_file = val
            i += 2
            continue
        if a in ("-h", "--help"):
            print(__doc__)
            return 0
        files.append(a)
        i += 1
    if list_file:
        with open(list_file) as f:
            files.extend(line.rstrip("\n") for line in f if line.strip())
    if not files:
        sys.exit(__doc__)
    if out_dir:
        root = os.path.abspath(root or ".")
        n = 0
        for path in files:
            rel = os.path.relpath(os.path.abspath(path), root)
            dest = os.path.join(out_dir, rel + ".summary")
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with open(dest, "w", encoding="ascii", newline="\n") as f:
                f.write(summarize(path))
            n += 1
        print("wrote %d summaries to %s" % (n, out_dir))
        return 0
    write = sys.stdout.write
    for path in files:
        if len(files) > 1:
            write("== %s\n" % path)
        write(summarize(path))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
