#!/usr/bin/python3
"""Checks the shape `onnxview profile` infers for each node output against the
shape onnxruntime really makes.

  profile_ort_oracle.py --onnxview BUILD/tools/onnxview [--ort-dir DIR]
      [--min-equal FRACTION] [--keep] [--verbose]

Models, with symbolic input dims: testdata/small_cnn_inline.onnx and
testdata/profile/{transformer_block,lstm,text_detector}.onnx (their deleted weights made up
for onnxruntime), and models written here: exporter-style shape arithmetic
(Shape -> Gather -> Unsqueeze -> Concat -> Reshape, Resize, Pad inside an If,
Expand, Tile, Range, Slice, TopK, ...), corners (negative axes, strided
windows), and one model per com.microsoft op of exported transformers
(contrib_models() says how each is fed). Each runs in onnxruntime-node
(ort_run.js in --ort-dir, default $ONNXRUNTIME_NODE_DIR or
/opt/onnxruntime-node) at two sizes of its dims, every main-graph node output
made a graph output, and each output's dims are compared with the profile of
the model without its declared node output shapes: with --dim NAME=VALUE
(`dims`), and without, its polynomials evaluated at the run's values
(`symbolic`). An output is `equal`, `differ` (a failure), `data-dependent`
(a dim the profile names `OUTPUT:AXIS`: the values decide it) or `unknown` (no
shape, or a dim that is no number or evaluable polynomial: counted).
onnxruntime failing on a testdata or com.microsoft model skips it (printed),
on another generated one fails, as does a profile crash (signal, timeout, bad
JSON); a refusal with a message counts its outputs unknown. --min-equal F
fails when under F of the `dims` comparisons (data-dependent ones apart) are
equal. Passed: each equal
comparison and each model that ran. Last line: `N passed, M failed`. Exits 77
without python3-onnx, node or onnxruntime-node.
"""
import argparse
import base64
import collections
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
from fractions import Fraction

sys.dont_write_bytecode = True  # the tests directory stays clean
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TIMEOUT = 120  # seconds; a profile never reads weights, so a hang is a bug
sys.path.insert(0, HERE)
from common import SKIP, Checks, data_dependent, shape_text, strip_declared  # noqa: E402

# Two sizes of the generated models' dims, shared so that one onnxruntime call
# per run takes them all (TopK's K is B: B <= S).
GEN_RUNS = ({"B": 2, "S": 5, "L": 3, "P": 2, "H": 6, "W": 7, "T": 4},
            {"B": 3, "S": 9, "L": 11, "P": 6, "H": 9, "W": 12, "T": 10})
# onnxruntime's GQA takes several new tokens over a past only at batch 1:
# a chunk of a prompt at batch 1, then one token at batch 3.
GQA_RUNS = ({"B": 1, "S": 5, "P": 3}, {"B": 3, "S": 1, "P": 6})
HIDDEN, HEADS, KV_HEADS = 32, 4, 2
HEAD = HIDDEN // HEADS

Case = collections.namedtuple("Case", "name path runs optional feeds")


# --- dims as the profile prints them ---------------------------------------

def evaluate(text, values):
    """A printed dim's value at the dims' values: a polynomial ("3*N*seq^2 +
    4*seq - 1") whose symbols may be rounded divisions ("floor((H - 1)/2)"),
    or None for anything else. Parsed, never eval'd."""
    toks, pos = re.findall(r"\d+|[A-Za-z_][\w.]*|\S", text), 0

    def peek():
        return toks[pos] if pos < len(toks) else None

    def take(want=None):
        nonlocal pos
        if peek() is None or want not in (None, peek()):
            raise ValueError(text)
        pos += 1
        return toks[pos - 1]

    def atom():
        tok = take()
        if tok.isdigit():
            return Fraction(int(tok))
        if tok == "(" or tok in ("floor", "ceil") and take("("):
            v = expr()
            take(")")
            return v if tok == "(" else Fraction(math.floor(v) if tok == "floor" else math.ceil(v))
        if tok not in values or peek() == "(":
            raise ValueError(tok)
        return Fraction(values[tok])

    def power():
        v = atom()
        if peek() == "^":
            take()
            v **= int(take())  # a name there is no int: ValueError
        return v

    def term():
        v = power()
        while peek() in ("*", "/"):
            v = v * power() if take() == "*" else v / power()
        return v

    def expr():
        v = -term() if peek() == "-" and take() else term()
        while peek() in ("+", "-"):
            v = v + term() if take() == "+" else v - term()
        return v

    try:
        v = expr()
    except (ValueError, ZeroDivisionError):
        return None
    return int(v) if pos == len(toks) and v.denominator == 1 else None


# --- the generated models --------------------------------------------------

class Builder:
    def __init__(self, onnx, np, prefix):
        self.onnx, self.np, self.h, self.p = onnx, np, onnx.helper, prefix
        self.nodes, self.inits, self.inputs, self.n = [], [], [], 0

    def const(self, values, dtype="int64"):
        name = f"{self.p}c{len(self.inits)}"
        self.inits.append(self.onnx.numpy_helper.from_array(self.np.asarray(values, dtype=dtype), name))
        return name

    def input(self, name, elem, dims):
        if all(v.name != self.p + name for v in self.inputs):
            self.inputs.append(self.h.make_tensor_value_info(self.p + name, elem, dims))
        return self.p + name

    def op(self, op_type, inputs, outputs=1, domain=None, **attrs):
        self.n += 1
        names = [f"{self.p}{op_type.lower()}{self.n}_{i}" for i in range(outputs)]
        self.nodes.append(self.h.make_node(op_type, inputs, names, name=f"/{self.p}{op_type}_{self.n}",
                                           domain=domain, **attrs))
        return names[0] if outputs == 1 else names

    def save(self, path, outputs, contrib=False):
        h = self.h
        outs = [self.onnx.ValueInfoProto(name=o) for o in outputs]
        g = h.make_graph(self.nodes, self.p + "graph", self.inputs, outs, self.inits)
        ops = [h.make_opsetid("", 17)] + ([h.make_opsetid("com.microsoft", 1)] if contrib else [])
        m = h.make_model(g, opset_imports=ops, producer_name="profile_ort_oracle")
        # Outputs typed as onnx infers them; the com.microsoft ops' (unknown to onnx) are all float.
        inferred = {v.name: v.type.tensor_type.elem_type for v in
                    self.onnx.shape_inference.infer_shapes(m).graph.output}
        for v in m.graph.output:
            v.type.tensor_type.elem_type = inferred.get(v.name) or self.onnx.TensorProto.FLOAT
        self.onnx.save(m, path)
        return path


def shape_dims(b, x, *idx):
    """Exporter style: Shape -> Gather -> Unsqueeze, one 1-D tensor per index."""
    s = b.op("Shape", [x])
    return s, [b.op("Unsqueeze", [b.op("Gather", [s, b.const(i)]), b.const([0])]) for i in idx]


def reshape_chain(b, F):
    x = b.input("x", F, ["B", "S", 12])
    s, (bb, ss) = shape_dims(b, x, 0, 1)
    r4 = b.op("Reshape", [x, b.op("Concat", [bb, ss, b.const([3]), b.const([4])], axis=0)])
    t = b.op("Transpose", [r4], perm=[0, 2, 1, 3])
    flat = b.op("Reshape", [t, b.op("Concat", [bb, b.const([-1])], axis=0)])
    zero = b.op("Reshape", [x, b.op("Concat", [bb, b.const([0]), b.const([2]), b.const([6])], axis=0)])
    s2 = b.op("Mul", [ss, b.const([2])])
    b.op("Reshape", [x, b.op("Concat", [bb, s2, b.const([6])], axis=0)])
    b.op("Reshape", [x, b.op("Concat", [b.const([-1]), b.const([4])], axis=0)])
    back = b.op("Reshape", [flat, b.op("Concat", [bb, b.op("Div", [s2, b.const([2])]), b.const([-1])], axis=0)])
    bs = b.op("Gather", [s, b.const([0, 1])])
    b.op("Reshape", [zero, b.op("Concat", [bs, b.const([-1])], axis=0)])
    b.op("Flatten", [r4], axis=2)
    return [back]


def resize(b, F):
    x = b.input("x", F, ["B", 3, "H", "W"])
    s = b.op("Shape", [x])
    nc = b.op("Slice", [s, b.const([0]), b.const([2])])
    fixed = b.op("Resize", [x, "", "", b.op("Concat", [nc, b.const([10, 12])], axis=0)], mode="nearest")
    hw2 = b.op("Mul", [b.op("Slice", [s, b.const([2]), b.const([4])]), b.const([2])])
    double = b.op("Resize", [x, "", "", b.op("Concat", [nc, hw2], axis=0)], mode="linear")
    up = b.op("Resize", [x, "", b.const([1, 1, 2, 3], "float32")], mode="nearest")
    odd = b.op("Resize", [x, "", b.const([1, 1, 0.5, 1.5], "float32")], mode="nearest")
    return [fixed, double, up, odd]


def if_pad(b, F):
    """Voice-activity-detector style: the branch pads by sizes read off the input."""
    h, T = b.h, b.onnx.TensorProto
    x = b.input("x", F, ["B", "T"])
    cond = b.input("cond", T.BOOL, [])

    def branch(tag, pads_head, other_pads):
        inner = Builder(b.onnx, b.np, f"{b.p}{tag}_")
        _, (t,) = shape_dims(inner, x, 1)
        padded = inner.op("Pad", [x, inner.op("Concat", [inner.const(pads_head), t] if tag == "then" else
                                              [inner.const([0]), t, inner.const(pads_head)], axis=0)])
        other = inner.op("Pad", [x, inner.const(other_pads)])
        return h.make_graph(inner.nodes, tag, [], [h.make_tensor_value_info(padded, F, None),
                                                   h.make_tensor_value_info(other, F, None)], inner.inits)

    # Pads (begins | ends): then [0,0 | 0,T], else [0,T | 0,0]: both [B, 2T].
    # The second outputs differ between the branches: [B+2, T] and [B, T+3].
    out, other = b.op("If", [cond], outputs=2, then_branch=branch("then", [0, 0, 0], [1, 0, 1, 0]),
                      else_branch=branch("else", [0, 0], [0, 3, 0, 0]))
    return [b.op("Add", [out, out]), other]


def shape_ops(b, F):
    T = b.onnx.TensorProto
    x = b.input("x", F, ["B", "S", 8])
    ids = b.input("ids", T.INT64, ["B", "S"])
    s, (bb, ss) = shape_dims(b, x, 0, 1)
    row = b.const([[0.5] * 8], "float32")
    outs = [b.op("Expand", [row, b.op("Concat", [bb, b.const([1]), b.const([8])], axis=0)])]
    t = b.op("Concat", [bb, b.const([-1]), b.const([8])], axis=0)
    outs.append(b.op("Expand", [row, b.op("Where", [b.op("Equal", [t, b.const(-1)]), s, t])]))
    outs.append(b.op("Tile", [x, b.op("Concat", [b.const([1]), bb, b.const([1])], axis=0)]))
    outs.append(b.op("ConstantOfShape", [s]))
    rng = b.op("Range", [b.const(0), b.op("Gather", [s, b.const(1)]), b.const(1)])
    outs.append(b.op("Gather", [x, rng], axis=1))
    outs.append(b.op("Slice", [x, b.const([1]), b.op("Slice", [s, b.const([1]), b.const([2])]), b.const([1])]))
    outs.append(b.op("Slice", [x, b.const([0]), b.const([2 ** 62]), b.const([1]), b.const([2])]))
    outs.append(b.op("Slice", [x, b.const([-3]), b.const([-1]), b.const([2])]))
    outs += b.op("TopK", [x, bb], outputs=2, axis=1)
    outs += b.op("Split", [x, b.const([3, 5])], outputs=2, axis=2)
    outs.append(b.op("OneHot", [ids, b.const(10), b.const([0, 1], "float32")], axis=-1))
    outs.append(b.op("Squeeze", [b.op("Unsqueeze", [x, b.const([1])]), b.const([1])]))
    outs.append(b.op("ConstantOfShape", [b.op("Min", [s, b.const([4, 4, 4])])]))
    outs.append(b.op("ConstantOfShape", [b.op("Max", [s, b.const([1, 1, 1])])]))
    as_float = b.op("Cast", [s], to=T.FLOAT)
    outs.append(b.op("ConstantOfShape", [b.op("Cast", [as_float], to=T.INT64)]))
    outs.append(b.op("Reshape", [x, b.op("ReduceProd", [s], keepdims=1)]))
    outs.append(b.op("Reshape", [x, b.op("Unsqueeze", [b.op("Size", [x]), b.const([0])])]))
    return outs


def edge_ops(b, F):
    """Corners of the rules: negative axes and indices, reversed and clamped
    slices, broadcasting Expand, negative pads, inexact division, windows."""
    np = b.np
    x = b.input("x", F, ["B", "S", 8])
    img = b.input("img", F, ["B", 3, "H", "W"])
    s = b.op("Shape", [x])
    last = b.op("Unsqueeze", [b.op("Gather", [s, b.const(-1)]), b.const([0])])
    outs = [b.op("Reshape", [x, b.op("Concat", [b.const([-1]), last], axis=0)]),
            b.op("Expand", [x, b.const([1, 1, 1])]), b.op("Expand", [x, b.const([2, 1, 1, 1])]),
            b.op("Slice", [x, b.const([-1]), b.const([-2 ** 62]), b.const([1]), b.const([-1])]),
            b.op("Slice", [x, b.const([-100]), b.const([100]), b.const([-1])]),
            b.op("Range", [b.const(0), b.op("Div", [b.op("Gather", [s, b.const(1)]), b.const(2)]), b.const(1)]),
            b.op("Pad", [x, b.const([0, -1, 0, 0, 1, 2])]),
            b.op("Squeeze", [b.op("Unsqueeze", [x, b.const([-1])]), b.const([-1])]),
            b.op("Flatten", [x], axis=0), b.op("Shape", [x], start=1), b.op("Shape", [x], start=-1, end=5),
            b.op("Transpose", [x]), b.op("ReduceMean", [x], axes=[-2], keepdims=0),
            b.op("ArgMax", [x], axis=-1, keepdims=0), b.op("MatMul", [x, b.const(np.ones(8), "float32")]),
            b.op("ConstantOfShape", [b.const([], "int64")])]
    outs += b.op("Split", [x], outputs=2, axis=-1)
    w = b.const(np.ones((4, 3, 3, 3)), "float32")
    outs += [b.op("Conv", [img, w], strides=[2, 2], pads=[1, 1, 1, 1]), b.op("Conv", [img, w], dilations=[2, 2]),
             b.op("MaxPool", [img], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1),
             b.op("AveragePool", [img], kernel_shape=[3, 3], strides=[2, 2], auto_pad="SAME_UPPER"),
             b.op("ConvTranspose", [img, b.const(np.ones((3, 2, 3, 3)), "float32")], strides=[2, 2],
                  output_padding=[1, 1])]
    return outs


def contrib_models(onnx, np, work):
    """(name, path, runs) of one model per com.microsoft op, fed as exporters
    of transformers feed them (the conventions the profile's rules must match)."""
    T = onnx.TensorProto
    F, I32, I64 = T.FLOAT, T.INT32, T.INT64
    rng = np.random.default_rng(3)
    w = lambda *shape: (rng.standard_normal(shape) * 0.1).astype(np.float32)  # noqa: E731
    x, kv = ("x", F, ["B", "S", HIDDEN]), KV_HEADS * HEAD
    pos, cos, sin = ("position_ids", I64, ["B", "S"]), np.cos(w(64, HEAD // 2)), np.sin(w(64, HEAD // 2))
    qkv = [("q", F, ["B", "S", HIDDEN]), ("k", F, ["B", "S", kv]), ("v", F, ["B", "S", kv])]
    lengths = [("seqlens_k", I32, ["B"]), ("total_sequence_length", I32, [])]
    K, N, BLOCK = 64, 16, 32  # MatMulNBits: 4 bits, B as [N, K/BLOCK, BLOCK/2 bytes], a scale per block
    xk = ("x", F, ["B", "S", 16])
    past = lambda heads, kv="k": (f"past_{kv}", F, ["B", heads, "P", HEAD])  # noqa: E731
    table = [  # name (op type before any `_`), inputs, outputs, attributes, runs
        ("Attention", [x, w(HIDDEN, 3 * HIDDEN), w(3 * HIDDEN)], 1, {"num_heads": HEADS}, GEN_RUNS),
        ("Attention_past", [x, w(HIDDEN, 3 * HIDDEN), w(3 * HIDDEN), "", ("past", F, [2, "B", HEADS, "P", HEAD])],
         2, {"num_heads": HEADS}, GEN_RUNS),
        ("MultiHeadAttention", [x, ("k", F, ["B", "L", HIDDEN]), ("v", F, ["B", "L", HIDDEN])],
         3, {"num_heads": HEADS}, GEN_RUNS),
        ("MultiHeadAttention_past", [x, x, x, "", "", "", past(HEADS), past(HEADS, "v")],
         3, {"num_heads": HEADS}, GEN_RUNS),
        ("GroupQueryAttention", qkv + [past(KV_HEADS), past(KV_HEADS, "v")] + lengths,
         3, {"num_heads": HEADS, "kv_num_heads": KV_HEADS}, GQA_RUNS),
        ("GroupQueryAttention_prompt", qkv + ["", ""] + lengths, 3,
         {"num_heads": HEADS, "kv_num_heads": KV_HEADS}, tuple(dict(r, P=0) for r in GEN_RUNS)),
        ("SkipLayerNormalization", [x, ("skip", F, ["B", "S", HIDDEN]), w(HIDDEN) + 1, w(HIDDEN), w(HIDDEN)],
         4, {"epsilon": 1e-5}, GEN_RUNS),
        ("RotaryEmbedding", [x, pos, cos, sin], 1, {"num_heads": HEADS}, GEN_RUNS),
        ("RotaryEmbedding_bnsh", [("x", F, ["B", HEADS, "S", HEAD]), pos, cos, sin], 1, {}, GEN_RUNS),
        ("MatMulNBits", [("a", F, ["B", "S", K]), rng.integers(0, 256, (N, K // BLOCK, BLOCK // 2)).astype(np.uint8),
                         w(N * K // BLOCK) + 1], 1, {"K": K, "N": N, "bits": 4, "block_size": BLOCK}, GEN_RUNS),
        ("FusedMatMul", [xk, w(HIDDEN, 16)], 1, {"transB": 1, "alpha": 0.5}, GEN_RUNS),
        ("FusedMatMul_transA", [xk, xk], 1, {"transA": 1}, GEN_RUNS),
        ("BiasGelu", [x, w(HIDDEN)], 1, {}, GEN_RUNS),
        ("QuickGelu", [x], 1, {"alpha": 1.702}, GEN_RUNS),
        ("FastGelu", [x, w(HIDDEN)], 1, {}, GEN_RUNS),
    ]
    made = []
    for i, (name, inputs, outputs, attrs, runs) in enumerate(table):
        b = Builder(onnx, np, f"ms{i}_")
        ins = [v if isinstance(v, str) else b.const(v, str(v.dtype)) if isinstance(v, np.ndarray) else b.input(*v)
               for v in inputs]
        out = b.op(name.split("_")[0], ins, outputs=outputs, domain="com.microsoft", **attrs)
        path = b.save(os.path.join(work, f"ms_{name}.onnx"), out if outputs > 1 else [out], contrib=True)
        made.append((name, path, runs))
    return made


def feeds(np, name, shape, run, dims):
    """The values an input of a generated model must have, or None: random."""
    if name.endswith("position_ids"):
        return np.broadcast_to(np.arange(dims["S"], dtype=np.int64), shape).copy()
    if name.endswith("seqlens_k"):  # total length - 1 per sequence: past + new
        return np.full(shape, dims["P"] + dims["S"] - 1, dtype=np.int32)
    if name.endswith("total_sequence_length"):
        return np.array(dims["P"] + dims["S"], dtype=np.int32)
    if name.endswith("ids"):
        return np.random.default_rng(run).integers(0, 10, shape).astype(np.int64)
    if name.endswith("cond"):  # both branches of the If, one per run
        return np.array(run == 0)
    return None


def cases(onnx, np, work):
    F = onnx.TensorProto.FLOAT
    out = [Case("small_cnn_inline", os.path.join(ROOT, "testdata", "small_cnn_inline.onnx"),
                ({"N": 1}, {"N": 3}), True, None)]
    for m in ("transformer_block", "lstm"):
        out.append(Case(m, os.path.join(ROOT, "testdata", "profile", m + ".onnx"),
                        ({"batch": 1, "seq": 7}, {"batch": 3, "seq": 16}), True, None))
    # Paddle2ONNX's dim names; odd and even heights and widths through two stride-2 convolutions.
    p2o = "p2o.DynamicDimension."
    out.append(Case("text_detector", os.path.join(ROOT, "testdata", "profile", "text_detector.onnx"),
                    ({p2o + "0": 1, p2o + "1": 13, p2o + "2": 14}, {p2o + "0": 2, p2o + "1": 32, p2o + "2": 41}),
                    True, None))
    for name, tag, build in (("reshape_chain", "rc", reshape_chain), ("resize", "rz", resize), ("if_pad", "ip", if_pad),
                             ("shape_ops", "so", shape_ops), ("edge_ops", "eo", edge_ops)):
        b = Builder(onnx, np, tag + "_")
        out.append(Case(name, b.save(os.path.join(work, name + ".onnx"), build(b, F)), GEN_RUNS, False, feeds))
    for op, path, runs in contrib_models(onnx, np, work):
        out.append(Case("com.microsoft." + op, path, runs, True, feeds))
    return out


# --- onnxruntime and the profile -------------------------------------------

def ort_copy(onnx, np, model, path):
    """Every main-graph node output a graph output; external weights (deleted
    from testdata) filled with random values, since onnxruntime reads them."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    rng = np.random.default_rng(11)
    for t in m.graph.initializer:
        if t.data_location == onnx.TensorProto.EXTERNAL:
            a = (rng.standard_normal(list(t.dims)) * 0.05).astype(np_dtype(onnx, t.data_type))
            del t.external_data[:]
            t.data_location = onnx.TensorProto.DEFAULT
            t.raw_data = a.tobytes()
    try:  # elem types where onnx knows them; onnxruntime infers the others
        inferred = onnx.shape_inference.infer_shapes(m).graph
        types = {v.name: v.type.tensor_type.elem_type for v in list(inferred.value_info) + list(inferred.output)
                 if v.type.HasField("tensor_type")}
    except Exception:  # noqa: BLE001 - typeless outputs are accepted too
        types = {}
    have = {o.name for o in m.graph.output}
    for o in dict.fromkeys(o for n in m.graph.node for o in n.output if o and o not in have):
        v = m.graph.output.add(name=o)
        if types.get(o):
            v.type.tensor_type.elem_type = types[o]
    onnx.save(m, path)


def np_dtype(onnx, elem):
    helper = getattr(onnx.helper, "tensor_dtype_to_np_dtype", None)  # onnx.mapping is deprecated from 1.13
    return helper(elem) if helper else onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[elem]


def feeds_for(onnx, np, model, case, run):
    """The inputs of one run in ort_run.js's form: random floats, zeros, or
    what case.feeds says the input must hold."""
    dims, inits = case.runs[run], {t.name for t in model.graph.initializer}
    rng, out = np.random.default_rng(100 + run), []
    for v in (v for v in model.graph.input if v.name not in inits):
        tt = v.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") else dims.get(d.dim_param, 1) for d in tt.shape.dim]
        dtype = np_dtype(onnx, tt.elem_type)
        a = case.feeds(np, v.name, shape, run, dims) if case.feeds else None
        if a is None:
            a = rng.standard_normal(shape).astype(dtype) if dtype.kind == "f" else np.zeros(shape, dtype=dtype)
        out.append({"name": v.name, "type": str(a.dtype), "dims": list(a.shape),
                    "data": base64.b64encode(np.ascontiguousarray(a).tobytes()).decode()})
    return out


def ort_run(ort_dir, spec_path, models, inputs):
    """Results per model as ort_run.js gives them: {"outputs"} or {"error"}."""
    with open(spec_path, "w") as f:
        json.dump({"models": models, "inputs": inputs}, f)
    try:
        p = subprocess.run(["node", os.path.join(HERE, "ort_run.js"), spec_path],
                           capture_output=True, text=True, cwd=ort_dir, timeout=300)
        return json.loads(p.stdout)["results"]
    except (ValueError, KeyError, subprocess.TimeoutExpired):
        if len(models) == 1:  # node itself died: say so for this model alone
            return [{"error": "onnxruntime-node crashed or hung"}]
        return [ort_run(ort_dir, spec_path, [m], inputs)[0] for m in models]


def profile(ck, exe, path, name, dims):
    """{output: (shape, node)} of the main graph's nodes, a refusal's message,
    or None after a crash (a failure)."""
    args = [a for k, v in sorted(dims.items()) for a in ("--dim", f"{k}={v}")]
    try:
        r = subprocess.run([exe, "profile", path, "--json", *args], capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return ck.failures.append(f"{name}: profile takes over {TIMEOUT} s")
    msg = r.stderr.decode(errors="replace").strip()
    if r.returncode < 0 or r.returncode and not msg:
        return ck.failures.append(f"{name}: profile {' '.join(args)}: exit status {r.returncode}: {msg[-300:]}")
    if r.returncode:  # a refusal that says why is a gap, not a wrong answer
        return f"refused: {msg.splitlines()[-1]}"
    try:
        prof = json.loads(r.stdout)
    except ValueError as e:
        return ck.failures.append(f"{name}: profile --json does not load: {e}")
    return {o: (n["output_shapes"][i], n) for n in prof["nodes"] if n["parent"] is None
            for i, o in enumerate(n["outputs"])}


def compare(ck, tally, case, kind, made, ort_outputs, values, verbose):
    where = ",".join(f"{k}={v}" for k, v in sorted(values.items()))
    for o in ort_outputs:
        if o["name"] not in made:
            continue  # a graph input or stored tensor passed through: no node makes it
        want, (shape, node) = list(o["dims"]), made[o["name"]]
        what = f"output '{o['name']}' of {node['op_type']} '{node['name']}'"
        # Strings are evaluated only in the symbolic profile: with --dim a dim must be a number.
        got = None if shape is None else [d if type(d) is int else evaluate(d, values if kind == "symbolic" else {})
                                          if isinstance(d, str) else None for d in shape]
        if data_dependent(shape, made):
            tally[kind + " data-dependent"] += 1  # named after its output: the values decide it
        elif got is None or None in got:
            tally[kind + " unknown"] += 1
            if verbose:
                print(f"  unknown ({kind}, {where}): {what}: profile {json.dumps(shape)} "
                      f"({node.get('reason') or 'no reason given'}), onnxruntime {shape_text(want)}")
        elif ck.check(got == want, f"{case.name} ({kind}, {where}): {what}: profile {json.dumps(shape)}"
                      + (f" = {shape_text(got)}" if kind == "symbolic" else "") + f", onnxruntime {shape_text(want)}"):
            tally[kind + " equal"] += 1
        else:
            tally[kind + " differ"] += 1


def counts(tally):
    return "; ".join(f"{kind}: {tally[kind + ' equal']} equal, {tally[kind + ' differ']} differ, "
                     f"{tally[kind + ' unknown']} unknown, {tally[kind + ' data-dependent']} data-dependent"
                     for kind in ("dims", "symbolic"))


def check_case(ck, case, results, exe, onnx, work, verbose, totals):
    """Whether the model ran; its counts go to totals."""
    ran = [(run, r) for run, r in enumerate(results) if "outputs" in r]
    for run, r in enumerate(results):
        if "error" in r:
            note = f"{case.name}: onnxruntime cannot run it at {case.runs[run]}: {r['error'][:300]}"
            if case.optional:
                print(f"skipped run: {note}")
            else:
                ck.failures.append(note)
    if not ran:
        print(f"{case.name}: skipped (onnxruntime ran it at no size)")
        return False
    model = onnx.load(case.path, load_external_data=False)
    named = {d.dim_param for v in model.graph.input for d in v.type.tensor_type.shape.dim}
    strip_declared(onnx, model.graph)
    stripped = os.path.join(work, case.name + ".profile.onnx")
    onnx.save(model, stripped)
    tally, refusals = collections.Counter(), set()
    symbolic = profile(ck, exe, stripped, case.name, {})
    crashed = symbolic is None
    for run, r in ran:
        dims = {k: v for k, v in case.runs[run].items() if k in named}
        at_dims = profile(ck, exe, stripped, case.name, dims)
        crashed |= at_dims is None
        for kind, made in (("dims", at_dims), ("symbolic", symbolic)):
            if isinstance(made, str):
                tally[kind + " unknown"] += len(r["outputs"])
                refusals.add(made)
            elif made is not None:
                compare(ck, tally, case, kind, made, r["outputs"], dims, verbose)
    for message in sorted(refusals):
        print(f"{case.name}: profile {message}")
    if not crashed:  # a crash is a failure already
        ck.check(True, "")  # one pass per model that ran
    print(f"{case.name}: {len(ran)} runs; {counts(tally)}")
    totals.update(tally)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--onnxview", required=True)
    ap.add_argument("--ort-dir", default=os.environ.get("ONNXRUNTIME_NODE_DIR") or "/opt/onnxruntime-node")
    ap.add_argument("--min-equal", type=float, default=0.0, metavar="FRACTION")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    try:
        import numpy as np
        import onnx
        import onnx.numpy_helper  # noqa: F401
        import onnx.shape_inference  # noqa: F401
    except ImportError as e:
        print(f"SKIP: python3-onnx is not installed ({e})")
        return SKIP
    if not shutil.which("node") or not os.path.isdir(os.path.join(args.ort_dir, "node_modules", "onnxruntime-node")):
        print(f"SKIP: node or {args.ort_dir}/node_modules/onnxruntime-node is absent")
        return SKIP
    exe = os.path.abspath(args.onnxview)
    work = tempfile.mkdtemp(prefix="profile_ort_oracle.")
    ck, totals = Checks(), collections.Counter()
    try:
        all_cases = [c for c in cases(onnx, np, work) if os.path.exists(c.path)]
        loaded = {c.name: onnx.load(c.path, load_external_data=False) for c in all_cases}
        for c in all_cases:
            ort_copy(onnx, np, loaded[c.name], os.path.join(work, c.name + ".ort.onnx"))
        results = {c.name: [None, None] for c in all_cases}
        for run in (0, 1):
            # Models whose inputs do not clash share one node process: its start is the cost.
            groups = []
            for c in all_cases:
                ins = feeds_for(onnx, np, loaded[c.name], c, run)
                for g in groups:
                    if all(g["inputs"].get(i["name"], i) == i for i in ins):
                        break
                else:
                    g = {"cases": [], "inputs": {}}
                    groups.append(g)
                g["cases"].append(c)
                g["inputs"].update({i["name"]: i for i in ins})
            for i, g in enumerate(groups):
                models = [os.path.join(work, c.name + ".ort.onnx") for c in g["cases"]]
                spec = os.path.join(work, f"ort{run}_{i}.json")
                got = ort_run(args.ort_dir, spec, models, list(g["inputs"].values()))
                for c, r in zip(g["cases"], got):
                    results[c.name][run] = r
        ran = [c.name for c in all_cases if check_case(ck, c, results[c.name], exe, onnx, work, args.verbose, totals)]
        skipped = [c.name for c in all_cases if c.name not in ran]
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    compared = totals["dims equal"] + totals["dims differ"] + totals["dims unknown"]
    fraction = totals["dims equal"] / compared if compared else 0.0
    if fraction < args.min_equal:  # only a failure counts: passes are comparisons and models
        ck.failures.append(f"equal {fraction:.4f} < --min-equal {args.min_equal}")
    print(f"profile_ort_oracle: {len(ran)} models ran, {len(skipped)} skipped ({', '.join(skipped) or 'none'}); "
          f"{counts(totals)}; {fraction:.4f} of the dims comparisons equal")
    return ck.finish()


if __name__ == "__main__":
    sys.exit(main())
