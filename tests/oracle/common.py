"""What the oracles share: the skip exit code, the pass/fail tally, the
writer oracles' options and corpus, inputs and runs under onnxruntime, the
tensors of a model, a spread of a corpus, a rename of every value name, the
blocks docs/diff.md shows, and the profile's shape helpers. Not a test itself.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from protoc_texts import PROTO_DIR  # noqa: E402

SKIP = 77  # the exit code meson counts as skipped
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Operators whose outputs differ from run to run.
RANDOM_OPS = {"Bernoulli", "RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial",
              "Dropout"}


class Checks:
    def __init__(self):
        self.passed = 0
        self.failures = []

    def check(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failures.append(what)
        return ok

    def finish(self):
        """Prints every failure and the last line; the exit code."""
        for f in self.failures:
            print("FAIL", f)
        print(f"{self.passed} passed, {len(self.failures)} failed")
        return 1 if self.failures else 0


# --- the writer oracles' options and corpus ----------------------------------

def prerequisites():
    """python3-onnx, or None after printing why the oracle is skipped (it, protoc or onnx.proto missing)."""
    try:
        import onnx
    except ImportError as e:
        print(f"SKIP: python3-onnx is not installed ({e})")
        return None
    if shutil.which("protoc") is None or not os.path.exists(os.path.join(PROTO_DIR, "onnx.proto")):
        print("SKIP: protoc or /usr/include/onnx/onnx.proto is absent")
        return None
    return onnx


def setup(ap, ort_limit=0, ort_limit_help="at most N runs under onnxruntime (0: all)"):
    """The writer oracles' options parsed (--onnxview, --corpus, --limit, --ort-dir, --ort-limit) with python3-onnx
    and the corpus's models: (args, onnx, corpus), or None after printing why the oracle is skipped."""
    ap.add_argument("--onnxview", required=True)
    ap.add_argument("--corpus", default="/usr/share/libonnx-testdata/data")
    ap.add_argument("--limit", type=int, default=0, help="at most N corpus models (0: all)")
    ap.add_argument("--ort-dir", default=os.environ.get("ONNXRUNTIME_NODE_DIR", "/opt/onnxruntime-node"))
    ap.add_argument("--ort-limit", type=int, default=ort_limit, help=ort_limit_help)
    args = ap.parse_args()
    onnx = prerequisites()
    if onnx is None:
        return None
    corpus = corpus_models(args.corpus, args.limit)
    if not corpus:
        print(f"SKIP: no model.onnx under {args.corpus}")
        return None
    return args, onnx, corpus


def corpus_models(root, limit):
    """The corpus's model.onnx files, sorted; with a limit, that many spread over it."""
    models = sorted(glob.glob(os.path.join(root, "**", "model.onnx"), recursive=True))
    if limit:
        models = stride(models, limit)
    return models


def stride(items, limit):
    """Every len(items) // limit-th item (every item where limit reaches their count), at most limit of them; limit > 0."""
    return items[:: max(1, len(items) // limit)][:limit]


def spread(items, limit):
    """limit items evenly spread over items (all of them for 0, or where limit reaches their count)."""
    if not limit or limit >= len(items):
        return list(items)
    step = len(items) / limit
    return [items[int(i * step)] for i in range(limit)]


# --- tensors, inputs and onnxruntime -----------------------------------------

def tensors_of(onnx, model):
    """Every TensorProto of a model, in a fixed order, with a path for messages."""
    out = []

    def attrs(prefix, node):
        for a in node.attribute:
            p = f"{prefix}.{a.name}"
            if a.HasField("t"):
                out.append((p + ".t", a.t))
            for i, t in enumerate(a.tensors):
                out.append((f"{p}.tensors[{i}]", t))
            if a.HasField("sparse_tensor"):
                out.append((p + ".sparse.values", a.sparse_tensor.values))
                out.append((p + ".sparse.indices", a.sparse_tensor.indices))
            if a.HasField("g"):
                graph(p + ".g", a.g)
            for i, g in enumerate(a.graphs):
                graph(f"{p}.graphs[{i}]", g)

    def graph(prefix, g):
        for t in g.initializer:
            out.append((f"{prefix}.initializer.{t.name}", t))
        for i, s in enumerate(g.sparse_initializer):
            out.append((f"{prefix}.sparse[{i}].values", s.values))
            out.append((f"{prefix}.sparse[{i}].indices", s.indices))
        for i, n in enumerate(g.node):
            attrs(f"{prefix}.node[{i}]", n)

    graph("graph", model.graph)
    for f in model.functions:
        for i, n in enumerate(f.node):
            attrs(f"function.{f.name}.node[{i}]", n)
    return out


def arrays(onnx, model):
    from onnx import numpy_helper
    result = {}
    for path, t in tensors_of(onnx, model):
        try:
            a = numpy_helper.to_array(t)
            result[path] = (str(a.dtype), a.shape, repr(a.tolist()) if a.dtype == object else a.tobytes())
        except Exception:  # noqa: BLE001 - numpy_helper cannot read it (e.g. complex typed): not compared
            result[path] = None
    return result


def checker_ok(onnx, model):
    try:
        onnx.checker.check_model(model)
        return True
    except Exception:  # noqa: BLE001
        return False


def ort_case(ort_dir, models, inputs_json, work):
    spec = os.path.join(work, "ort.json")
    with open(spec, "w") as f:
        json.dump({"models": models, "inputs": inputs_json}, f)
    p = subprocess.run(["node", os.path.join(ROOT, "tests", "oracle", "ort_run.js"), spec],
                       capture_output=True, text=True, cwd=ort_dir, timeout=300)
    try:
        return json.loads(p.stdout)
    except ValueError:
        return {"error": (p.stdout + p.stderr).strip()[:300]}


def inputs_from(onnx, model, test_dir):
    """Inputs of a test: its input_*.pb, or generated for the model's graph inputs."""
    import numpy as np
    from onnx import numpy_helper
    inits = {t.name for t in model.graph.initializer}
    names = [i.name for i in model.graph.input if i.name not in inits]
    out = []
    pbs = sorted(glob.glob(os.path.join(test_dir, "test_data_set_0", "input_*.pb"))) if test_dir else []
    if pbs:
        for name, pb in zip(names, pbs):
            t = onnx.TensorProto()
            with open(pb, "rb") as f:
                t.ParseFromString(f.read())
            a = numpy_helper.to_array(t)
            out.append(encode(name, a))
        return out if len(out) == len(names) else None
    rng = np.random.default_rng(7)
    for i in model.graph.input:
        if i.name in inits:
            continue
        tt = i.type.tensor_type
        if not i.type.HasField("tensor_type"):
            return None
        dims = [d.dim_value if d.HasField("dim_value") else 1 for d in tt.shape.dim]
        dtype = onnx.helper.tensor_dtype_to_np_dtype(tt.elem_type) if hasattr(onnx.helper, "tensor_dtype_to_np_dtype") \
            else onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[tt.elem_type]
        a = rng.standard_normal(dims).astype(dtype)
        out.append(encode(i.name, a))
    return out


ORT_TYPES = {"float32": "float32", "float64": "float64", "int64": "int64", "int32": "int32", "int8": "int8",
             "uint8": "uint8", "bool": "bool", "int16": "int16", "uint16": "uint16", "float16": "float16"}


def encode(name, a):
    import base64
    t = ORT_TYPES.get(str(a.dtype))
    if t is None:
        return None
    return {"name": name, "type": t, "dims": list(a.shape), "data": base64.b64encode(a.tobytes()).decode()}


# --- value names ------------------------------------------------------------

def rename_values(g, r, sparse=False, node_name=None):
    """Every value name of graph g and of the graphs its nodes hold, at any
    depth, replaced by r(name): inputs, outputs, value_info, initializers (and
    sparse initializers' values and indices with sparse), node inputs and
    outputs; with node_name, each named node named node_name(its index), asked
    once its outputs are renamed. Tensor attributes keep their names."""
    for v in list(g.input) + list(g.output) + list(g.value_info):
        v.name = r(v.name)
    for t in g.initializer:
        t.name = r(t.name)
    if sparse:
        for s in g.sparse_initializer:
            s.values.name = r(s.values.name)
            s.indices.name = r(s.indices.name)
    for i, n in enumerate(g.node):
        n.input[:] = [r(x) for x in n.input]
        n.output[:] = [r(x) for x in n.output]
        if node_name is not None and n.name:
            n.name = node_name(i)
        for a in n.attribute:
            if a.HasField("g"):
                rename_values(a.g, r, sparse, node_name)
            for sg in a.graphs:
                rename_values(sg, r, sparse, node_name)


# --- docs -------------------------------------------------------------------

def doc_block(text, command):
    """The lines docs/diff.md shows after `$ COMMAND`, up to the next command or the block's end."""
    lines = text.splitlines()
    i = lines.index("$ " + command)
    out = []
    for line in lines[i + 1:]:
        if line.startswith("$ ") or line == "```":
            break
        out.append(line)
    return out


# --- the profile's shapes ---------------------------------------------------

def data_dependent(shape, outputs):
    """Whether a dim of `shape` is one the profile names data-dependent: a symbol
    `OUTPUT:AXIS` after a node output of the profile, or a Loop's `OUTPUT:iterations`
    (docs/profile.md), alone or in an expression. (A Loop named otherwise than its first
    output is missed: counted unknown, never equal.)"""
    return shape is not None and any(
        isinstance(d, str) and any(m.group(1) in outputs for m in re.finditer(r"([^\s*+()/-]+):(?:\d+|iterations)", d))
        for d in shape)


def shape_text(dims):
    return "no shape" if dims is None else "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


def strip_declared(onnx, graph):
    """Drops the shapes the model declares for what its nodes make (outputs,
    value_info, in bodies too): the profile merges declarations into its
    shapes, so with them the check would only echo the file."""
    del graph.value_info[:]
    for v in graph.output:
        if v.type.HasField("tensor_type"):
            v.type.tensor_type.ClearField("shape")
    for n in graph.node:
        for a in n.attribute:
            for g in ([a.g] if a.type == onnx.AttributeProto.GRAPH else a.graphs):
                strip_declared(onnx, g)
