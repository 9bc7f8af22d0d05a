#!/usr/bin/python3
"""Checks `onnxview profile --json` against python3-onnx and closed forms.

  profile_oracle.py --onnxview BUILD/tools/onnxview [--corpus DIR] [--limit N]

  shapes    testdata/, testdata/profile/ and every model of the corpus
            (default /usr/share/libonnx-testdata/data; --limit N: N models
            spread over it): for every node output that
            onnx.shape_inference.infer_shapes gives a complete shape, the
            shape onnxview gives, when it gives one, must be the same. Values
            onnx shapes and onnxview does not, models onnx cannot infer and
            values onnxview shapes and onnx does not are counted and printed.
  costs     a single-op model per covered MAC op and attribute variant (Conv
            groups, dilations, strides, pads, auto_pad; ConvTranspose; Gemm
            transA/transB; MatMul broadcast; LSTM/GRU/RNN directions and
            layouts; Einsum equations, their output shapes against numpy), built with onnx.helper: MACs and params against the
            ONNX spec's formulas written here, output shapes against onnx.
  whole     testdata/profile/'s transformer block and LSTM at several sizes:
            the total MACs equal the sum of the spec's formulas over every
            MatMul, Gemm, Conv and LSTM, on onnx's inferred shapes.
  symbolic  models with dim_params: the symbolic totals, evaluated at several
            values, equal the totals of `--dim` with those values, and the
            shapes of `--dim` equal onnx's on the model with the dims fixed.
  params    totals.params equals the numpy sizes of the distinct initializers
            and Constant tensors the main graph's nodes read.
  docs      the examples of docs/profile.md, run as written.
  hostile   a cycle, dims overflowing int64, a huge symbolic product, missing
            external data: exit 0 with unknowns, never a crash.

Exits 77 (skipped) when python3-onnx or numpy is absent.

Over 600 lines in one file: the checks share the model builders, the spec's
cost formulas and one run of the CLI per model; split, each would repeat them.
"""
import argparse
import glob
import json
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import ROOT, SKIP, spread  # noqa: E402

try:
    import numpy as np
    import onnx
    from onnx import AttributeProto, TensorProto, helper, numpy_helper, shape_inference
except ImportError:
    print("profile_oracle: python3-onnx or numpy missing: skipped")
    sys.exit(SKIP)

FAILURES = []


def fail(msg):
    FAILURES.append(msg)
    print("FAIL:", msg)


def profile(onnxview, path, *extra):
    r = subprocess.run([onnxview, "profile", "--json", path, *extra], capture_output=True, text=True)
    if r.returncode < 0 or r.returncode > 2:
        raise AssertionError(f"onnxview profile {path}: crashed ({r.returncode}): {r.stderr.strip()}")
    if r.returncode != 0:
        return None, r.stderr.strip()
    return json.loads(r.stdout), ""


def onnx_shapes(model):
    """name -> list of ints or dim_param strings (None for an unknown dim) of every value onnx infers."""
    inferred = shape_inference.infer_shapes(model, strict_mode=False, data_prop=True)
    out = {}
    for vi in list(inferred.graph.value_info) + list(inferred.graph.output):
        t = vi.type
        if not t.HasField("tensor_type") or not t.tensor_type.HasField("shape"):
            continue
        dims = []
        for d in t.tensor_type.shape.dim:
            if d.HasField("dim_value"):
                dims.append(d.dim_value)
            elif d.HasField("dim_param") and d.dim_param:
                dims.append(d.dim_param)
            else:
                dims.append(None)
        out[vi.name] = dims
    return out


def onnxview_shapes(report):
    out = {}
    for n in report["nodes"]:
        for name, shape in zip(n["outputs"], n["output_shapes"]):
            if name and shape is not None:
                out[name] = shape
    return out


def check_shapes(onnxview, path, stats):
    try:
        model = onnx.load(path, load_external_data=False)
        expected = onnx_shapes(model)
    except Exception as e:  # onnx cannot load or infer: onnxview still must not fail badly
        stats["onnx_fails"].append(f"{os.path.basename(path)}: {type(e).__name__}")
        profile(onnxview, path)
        return
    report, err = profile(onnxview, path)
    if report is None:
        fail(f"{path}: onnxview profile failed: {err}")
        return
    got = onnxview_shapes(report)
    # Symbolic shapes: where onnx gives every dim as a number or a dim_param
    # of a graph input, onnxview's dims, when all are numbers or names, are the same.
    declared = {d.dim_param for vi in model.graph.input for d in vi.type.tensor_type.shape.dim if d.dim_param}
    for name, dims in expected.items():
        mine = got.get(name)
        if not any(isinstance(d, str) for d in dims) or not all(isinstance(d, int) or d in declared for d in dims):
            continue
        if mine is None or not all(isinstance(d, int) or d in declared for d in mine):
            continue
        stats["symbolic"] += 1
        if mine != dims:
            fail(f"{path}: '{name}': onnxview {mine}, onnx {dims}")
    for name, dims in expected.items():
        if any(not isinstance(d, int) for d in dims):
            continue
        stats["compared"] += 1
        mine = got.get(name)
        if mine is None or any(not isinstance(d, int) for d in mine):
            stats["onnxview_less"] += 1
            continue
        if mine != dims:
            fail(f"{path}: '{name}': onnxview {mine}, onnx {dims}")
        else:
            stats["equal"] += 1
    for name, dims in got.items():
        if name not in expected and all(isinstance(d, int) for d in dims):
            stats["onnxview_more"] += 1
    return report


def size_of(t):
    """numpy's size of a tensor's values; its dims' product where numpy_helper cannot decode it
    (external data, types onnx 1.12 does not know, complex typed fields)."""
    if t.data_location != TensorProto.EXTERNAL:
        try:
            return numpy_helper.to_array(t).size
        except Exception:
            pass
    return int(np.prod(t.dims, dtype=np.int64))


def params_of(model):
    """Numpy sizes of the distinct initializers and Constant tensors read by the main graph's nodes,
    the nodes of the bodies of its If, Loop and Scan nodes (a body sees its enclosing graphs'
    names) and of the model-local functions they call (a function's Constant counted once)."""
    functions = {(f.domain, f.name): f for f in model.functions}
    read = {}

    def visit(nodes, stored, where, depth):
        stored = dict(stored)
        for n in nodes:
            for i in n.input:
                if i in stored:
                    read[stored[i][0]] = stored[i][1]
            if n.op_type == "Constant" and n.domain in ("", "ai.onnx"):
                for a in n.attribute:
                    if a.name == "value":
                        stored[n.output[0]] = ((where, n.output[0]), int(np.prod(a.t.dims)))
            if n.op_type in ("If", "Loop", "Scan") and n.domain in ("", "ai.onnx"):
                for a in n.attribute:
                    if a.type == AttributeProto.GRAPH:
                        visit_graph(a.g, stored, f"{where}/{n.name}/{a.name}", depth)
            f = functions.get((n.domain, n.op_type))
            if f is not None and depth < 16:
                visit(f.node, {}, f"function {f.domain}::{f.name}", depth + 1)

    def visit_graph(g, outer, where, depth):
        stored = dict(outer)
        for t in g.initializer:
            stored[t.name] = ((where, t.name), size_of(t))
        for sp in g.sparse_initializer:
            stored[sp.values.name] = ((where, sp.values.name), int(np.prod(sp.values.dims)))
        visit(g.node, stored, where, depth)

    visit_graph(model.graph, {}, "", 0)
    return sum(int(v) for v in read.values())


def corpus_models(corpus, limit):
    return spread(sorted(glob.glob(os.path.join(corpus, "**", "*.onnx"), recursive=True)), limit)


# ---- closed forms from the ONNX operator spec --------------------------------

def conv_out(size, k, s, d, pb, pe, auto_pad):
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        return -(-size // s)
    if auto_pad == "VALID":
        return -(-(size - d * (k - 1)) // s)
    return (size + pb + pe - d * (k - 1) - 1) // s + 1


def save(model, directory, name):
    path = os.path.join(directory, name + ".onnx")
    onnx.save(model, path)
    return path


def weight(name, shape):
    return numpy_helper.from_array(np.zeros(shape, dtype=np.float32), name)


def single_op(op, inputs, inits, out_names, attrs, opset=17):
    node = helper.make_node(op, [i[0] for i in inputs] + [t.name for t in inits], out_names, **attrs)
    # Optional inputs left out in the middle are written as "" by the callers through inits order.
    graph = helper.make_graph(
        [node], op.lower(),
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in out_names], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def check_cost(onnxview, directory, name, model, macs, params):
    path = save(model, directory, name)
    report, err = profile(onnxview, path)
    if report is None:
        fail(f"{name}: onnxview profile failed: {err}")
        return
    node = report["nodes"][0]
    if node["macs"] != macs:
        fail(f"{name}: MACs {node['macs']}, formula {macs} ({node.get('reason', '')})")
    if report["totals"]["params"] != params:
        fail(f"{name}: params {report['totals']['params']}, numpy {params}")
    expected = onnx_shapes(model)
    for out, shape in zip(node["outputs"], node["output_shapes"]):
        if out in expected and all(isinstance(d, int) for d in expected[out]) and shape != expected[out]:
            fail(f"{name}: shape of {out}: onnxview {shape}, onnx {expected[out]}")


def cost_cases(onnxview, directory):
    count = 0
    # Conv: MACs = N * M * prod(out) * (C/group) * prod(kernel)
    for (n, c, h, w, m, k, group, stride, dil, pads, auto_pad, bias) in [
            (1, 3, 32, 32, 8, 3, 1, 1, 1, [1, 1, 1, 1], "NOTSET", True),
            (2, 8, 17, 19, 8, 3, 8, 2, 1, [0, 0, 0, 0], "NOTSET", False),   # depthwise, stride 2
            (1, 4, 20, 20, 6, 3, 2, 1, 2, [2, 1, 2, 1], "NOTSET", True),    # groups, dilation, asymmetric pads
            (1, 3, 15, 15, 4, 5, 1, 2, 1, None, "SAME_UPPER", False),
            (1, 3, 15, 16, 4, 4, 1, 3, 1, None, "SAME_LOWER", False),
            (3, 2, 9, 11, 5, 2, 1, 2, 3, None, "VALID", True)]:
        oh = conv_out(h, k, stride, dil, pads[0] if pads else 0, pads[2] if pads else 0, auto_pad)
        ow = conv_out(w, k, stride, dil, pads[1] if pads else 0, pads[3] if pads else 0, auto_pad)
        inits = [weight("W", (m, c // group, k, k))] + ([weight("B", (m,))] if bias else [])
        attrs = dict(group=group, strides=[stride, stride], dilations=[dil, dil], auto_pad=auto_pad)
        if pads:
            attrs["pads"] = pads
        model = single_op("Conv", [("X", [n, c, h, w])], inits, ["Y"], attrs)
        macs = n * m * oh * ow * (c // group) * k * k
        check_cost(onnxview, directory, f"conv_{count}", model, macs, sum(int(np.prod(t.dims)) for t in inits))
        count += 1
    # ConvTranspose: every input element meets (M/group) * prod(kernel) weights.
    for (n, c, h, m, k, group, stride, pads) in [(1, 4, 7, 6, 3, 1, 2, [1, 1, 1, 1]), (2, 4, 5, 4, 2, 2, 1, [0, 0, 0, 0])]:
        inits = [weight("W", (c, m // group, k, k))]
        model = single_op("ConvTranspose", [("X", [n, c, h, h])], inits, ["Y"],
                          dict(group=group, strides=[stride, stride], pads=pads))
        macs = n * c * h * h * (m // group) * k * k
        check_cost(onnxview, directory, f"convtranspose_{count}", model, macs, int(np.prod(inits[0].dims)))
        count += 1
    # Gemm: M * N * K
    for trans_a, trans_b in [(0, 0), (1, 0), (0, 1), (1, 1)]:
        mm, kk, nn = 5, 7, 3
        a_shape = [kk, mm] if trans_a else [mm, kk]
        inits = [weight("B", [nn, kk] if trans_b else [kk, nn]), weight("C", [nn])]
        model = single_op("Gemm", [("A", a_shape)], inits, ["Y"], dict(transA=trans_a, transB=trans_b))
        check_cost(onnxview, directory, f"gemm_{trans_a}{trans_b}", model, mm * nn * kk, kk * nn + nn)
    # MatMul with numpy broadcasting: prod(batch) * M * N * K
    for a_shape, b_shape in [([2, 3, 4, 5], [5, 6]), ([3, 1, 4, 5], [2, 5, 7]), ([5], [5, 3]), ([2, 4, 5], [5])]:
        model = single_op("MatMul", [("A", a_shape)], [weight("B", b_shape)], ["Y"], {})
        out = np.matmul(np.zeros(a_shape), np.zeros(b_shape)).shape
        check_cost(onnxview, directory, f"matmul_{len(a_shape)}{len(b_shape)}_{count}", model,
                   int(np.prod(out)) * a_shape[-1], int(np.prod(b_shape)))
        count += 1
    # LSTM, GRU, RNN: per step and direction, gates * H * (I + H) multiply-adds per batch row.
    for op, gates in [("LSTM", 4), ("GRU", 3), ("RNN", 1)]:
        for direction, layout in [("forward", 0), ("bidirectional", 0), ("reverse", 1)]:
            seq, batch, size, hidden = 7, 3, 10, 16
            dirs = 2 if direction == "bidirectional" else 1
            inits = [weight("W", (dirs, gates * hidden, size)), weight("R", (dirs, gates * hidden, hidden)),
                     weight("B", (dirs, 2 * gates * hidden))]
            x_shape = [batch, seq, size] if layout else [seq, batch, size]
            outs = ["Y", "Y_h"] + (["Y_c"] if op == "LSTM" else [])
            model = single_op(op, [("X", x_shape)], inits, outs,
                              dict(hidden_size=hidden, direction=direction, layout=layout), opset=14)
            macs = seq * batch * dirs * gates * hidden * (size + hidden)
            check_cost(onnxview, directory, f"{op.lower()}_{direction}_{layout}", model, macs,
                       sum(int(np.prod(t.dims)) for t in inits))
            count += 1
    # Einsum as written: every combination of index values, n - 1 multiply-adds per combination.
    for equation, shapes in [("bij,bjk->bik", [[2, 3, 4], [2, 4, 5]]), ("ij,jk", [[3, 4], [4, 6]]),
                             ("bhqd,bhkd->bhqk", [[2, 3, 5, 8], [2, 3, 7, 8]]), ("i,i->", [[9], [9]]),
                             ("ij,jk,kl->il", [[2, 3], [3, 4], [4, 5]])]:
        names = [f"x{i}" for i in range(len(shapes))]
        model = helper.make_model(helper.make_graph(
            [helper.make_node("Einsum", names, ["y"], equation=equation)], "einsum",
            [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in zip(names, shapes)],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]),
            opset_imports=[helper.make_opsetid("", 17)])
        sizes = {}
        for term, shape in zip(equation.split("->")[0].split(","), shapes):
            sizes.update(zip(term, shape))
        check_cost(onnxview, directory, f"einsum_{count}", model, int(np.prod(list(sizes.values()))) * (len(shapes) - 1), 0)
        out = np.einsum(equation, *[np.zeros(s) for s in shapes]).shape
        report, _ = profile(onnxview, os.path.join(directory, f"einsum_{count}.onnx"))
        if report["nodes"][0]["output_shapes"][0] != list(out):
            fail(f"einsum {equation}: shape {report['nodes'][0]['output_shapes'][0]}, numpy {list(out)}")
        count += 1
    # A weight read by two nodes (tied weights): counted once, listed as shared.
    w = weight("W", (6, 6))
    model = helper.make_model(helper.make_graph(
        [helper.make_node("MatMul", ["x", "W"], ["h"]), helper.make_node("MatMul", ["h", "W"], ["y"])], "tied",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [w]))
    report, err = profile(onnxview, save(model, directory, "tied"))
    if report is None or report["totals"]["params"] != 36 or report["totals"]["macs"] != 2 * 4 * 6 * 6 or \
            report["shared"] != [{"name": "W", "params": 36, "nodes": [0, 1]}]:
        fail(f"tied weights: {err or (report['totals'], report['shared'])}")
    return count + 1


def evaluate(text, values):
    if isinstance(text, int):
        return text
    return eval(text.replace("^", "**"), {"__builtins__": {}, "max": max}, dict(values))


def symbolic_model():
    """A transformer-like block over [N, seq, 32]: MatMul, Add, Softmax of Q x K^T, Reshape through Shape."""
    d = 32
    nodes = [
        helper.make_node("MatMul", ["x", "wq"], ["q"]),
        helper.make_node("MatMul", ["x", "wk"], ["k"]),
        helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 2, 1]),
        helper.make_node("MatMul", ["q", "kt"], ["scores"]),
        helper.make_node("Softmax", ["scores"], ["probs"], axis=-1),
        helper.make_node("MatMul", ["probs", "q"], ["ctx"]),
        helper.make_node("Shape", ["ctx"], ["shape"]),
        helper.make_node("Gather", ["shape", "zero"], ["batch"], axis=0),
        helper.make_node("Unsqueeze", ["batch", "axes0"], ["batch1"]),
        helper.make_node("Concat", ["batch1", "minus1"], ["flat_shape"], axis=0),
        helper.make_node("Reshape", ["ctx", "flat_shape"], ["flat"]),
        helper.make_node("Add", ["ctx", "bias"], ["y"]),
    ]
    inits = [weight("wq", (d, d)), weight("wk", (d, d)), weight("bias", (d,)),
             numpy_helper.from_array(np.array(0, dtype=np.int64), "zero"),
             numpy_helper.from_array(np.array([0], dtype=np.int64), "axes0"),
             numpy_helper.from_array(np.array([-1], dtype=np.int64), "minus1")]
    graph = helper.make_graph(nodes, "block", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", "seq", d])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
                               helper.make_tensor_value_info("flat", TensorProto.FLOAT, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def symbolic_cases(onnxview, directory):
    model = symbolic_model()
    path = save(model, directory, "symbolic_block")
    report, err = profile(onnxview, path)
    if report is None:
        fail(f"symbolic: {err}")
        return 0
    totals = report["totals"]
    if not isinstance(totals["macs"], str):
        fail(f"symbolic: MACs not symbolic: {totals['macs']}")
    for n_value, seq_value in [(1, 1), (2, 7), (3, 16), (5, 128)]:
        values = {"N": n_value, "seq": seq_value}
        concrete, err = profile(onnxview, path, "--dim", f"N={n_value}", "--dim", f"seq={seq_value}")
        if concrete is None:
            fail(f"symbolic --dim: {err}")
            continue
        for key in ("macs", "flops", "peak_activation_bytes"):
            if evaluate(totals[key], values) != concrete["totals"][key]:
                fail(f"symbolic {key} at {values}: {totals[key]} gives {evaluate(totals[key], values)}, "
                     f"--dim gives {concrete['totals'][key]}")
        fixed = onnx.load(path)
        dims = fixed.graph.input[0].type.tensor_type.shape.dim
        dims[0].dim_value, dims[1].dim_value = n_value, seq_value
        expected = onnx_shapes(fixed)
        got = onnxview_shapes(concrete)
        for name, shape in expected.items():
            if all(isinstance(d, int) for d in shape) and got.get(name) != shape:
                fail(f"symbolic at {values}: '{name}': onnxview {got.get(name)}, onnx {shape}")
    return 4


def closed_form_macs(model):
    """MACs of a model with concrete input shapes: the spec's formulas per node over onnx's inferred shapes."""
    # data_prop: onnx follows the Shape -> Gather -> Concat chains to the Reshapes too.
    inferred = shape_inference.infer_shapes(model, strict_mode=True, data_prop=True)
    shapes = {}
    for vi in list(inferred.graph.input) + list(inferred.graph.value_info) + list(inferred.graph.output):
        shapes[vi.name] = [d.dim_value for d in vi.type.tensor_type.shape.dim]
    for t in model.graph.initializer:
        shapes[t.name] = list(t.dims)
    total = 0
    for n in model.graph.node:
        attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
        out = shapes.get(n.output[0], [])
        if n.op_type in ("MatMul", "Gemm", "Conv") and (not out or 0 in out):
            return None  # onnx cannot shape it (a Resize to computed sizes): no closed form to compare
        if n.op_type in ("MatMul", "Gemm"):
            a = shapes[n.input[0]]
            k = a[0] if n.op_type == "Gemm" and attrs.get("transA", 0) else a[-1]
            total += int(np.prod(out)) * k
        elif n.op_type == "Conv":
            total += int(np.prod(out)) * int(np.prod(shapes[n.input[1]][1:]))
        elif n.op_type in ("LSTM", "GRU", "RNN"):
            seq, batch, size = shapes[n.input[0]] if not attrs.get("layout", 0) else [shapes[n.input[0]][i] for i in (1, 0, 2)]
            hidden = attrs["hidden_size"]
            dirs = 2 if attrs.get("direction", b"forward") == b"bidirectional" else 1
            gates = {"LSTM": 4, "GRU": 3, "RNN": 1}[n.op_type]
            total += seq * batch * dirs * gates * hidden * (size + hidden)
    return total


def whole_model_cases(onnxview):
    """testdata/profile/'s transformer block, LSTM and text detector at several sizes: the total MACs is the sum
    of the closed forms."""
    count = 0
    for path in sorted(glob.glob(os.path.join(ROOT, "testdata", "profile", "*.onnx"))):
        for batch, seq in [(1, 1), (2, 16), (3, 77)]:
            model = onnx.load(path, load_external_data=False)
            # The detector's height and width: odd and even sizes through its two stride-2 convolutions.
            names = {"batch": batch, "seq": seq, "p2o.DynamicDimension.0": batch,
                     "p2o.DynamicDimension.1": 8 * seq + 5, "p2o.DynamicDimension.2": 4 * seq + 10}
            used = []
            for d in model.graph.input[0].type.tensor_type.shape.dim:
                if d.HasField("dim_param"):
                    used.append(d.dim_param)
                    d.dim_value = names[d.dim_param]
            expected = closed_form_macs(model)
            if expected is None:
                print(f"NOTE {os.path.basename(path)}: onnx.shape_inference does not shape every MAC node "
                      f"at {names[used[0]]}; its shapes are checked against onnxruntime (profile_ort_oracle)")
                break
            report, err = profile(onnxview, path, *[a for n in used for a in ("--dim", f"{n}={names[n]}")])
            if report is None or report["totals"]["macs"] != expected:
                fail(f"{os.path.basename(path)} at batch={batch} seq={seq}: MACs "
                     f"{report['totals']['macs'] if report else err}, closed forms {expected}")
            count += 1
    return count


def doc_examples(onnxview):
    """docs/profile.md's `$ onnxview profile ...` blocks, run as written from the repository root: each
    line shown is the next line of the output, `...` standing for any number of lines (the --json
    block, shortened by hand, is left out)."""
    count = 0
    lines = open(os.path.join(ROOT, "docs", "profile.md"), encoding="utf-8").read().split("\n")
    for i, line in enumerate(lines):
        if not line.startswith("$ onnxview profile ") or "--json" in line:
            continue
        shown = []
        for follow in lines[i + 1:]:
            if follow.startswith("```"):
                break
            shown.append(follow)
        r = subprocess.run([onnxview] + line.split()[2:], capture_output=True, text=True, cwd=ROOT)
        output = r.stdout.split("\n")
        at, skipping = 0, False
        for expected in shown:
            if expected == "...":
                skipping = True
                continue
            while skipping and at < len(output) and output[at] != expected:
                at += 1
            if at >= len(output) or output[at] != expected:
                fail(f"docs/profile.md: '{line}': line '{expected}' not in the output where shown")
                break
            at += 1
            skipping = False
        count += 1
    return count


# ---- control flow and model-local functions ----------------------------------

def inferred_shapes_everywhere(model):
    """name -> dims of every value onnx infers, in the main graph and, recursively, in the bodies
    of its nodes (their value_info and outputs) and in the model-local functions' calls."""
    inferred = shape_inference.infer_shapes(model, strict_mode=False, data_prop=True)
    out = {}

    def dims_of(t):
        if not t.HasField("tensor_type") or not t.tensor_type.HasField("shape"):
            return None
        return [d.dim_value if d.HasField("dim_value") else (d.dim_param or None) for d in t.tensor_type.shape.dim]

    def visit(g):
        for vi in list(g.value_info) + list(g.output):
            dims = dims_of(vi.type)
            if dims is not None:
                out[vi.name] = dims
        for n in g.node:
            for a in n.attribute:
                if a.type == AttributeProto.GRAPH:
                    visit(a.g)

    visit(inferred.graph)
    return out


def control_flow_models():
    """(name, model, {"dims": --dim values, "node": index, "macs"/"flops": the spec's formulas}) of
    If, Loop, Scan and a model-local function call, built with onnx.helper."""
    f = TensorProto.FLOAT
    cases = []
    # If: then MatMul + Relu with a weight of its own, else MatMul with the outer weight.
    then_g = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w_then"], ["t"]), helper.make_node("Relu", ["t"], ["t_out"])],
        "then", [], [helper.make_tensor_value_info("t_out", f, None)], [weight("w_then", (4, 8))])
    else_g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["e_out"])], "else", [],
                               [helper.make_tensor_value_info("e_out", f, None)])
    g = helper.make_graph(
        [helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)], "if",
        [helper.make_tensor_value_info("x", f, ["N", 4]), helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("y", f, None)], [weight("w", (4, 8))])
    n = 3
    cases.append(("cf_if", helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]),
                  {"dims": {"N": n}, "macs": n * 8 * 4, "flops": 2 * n * 8 * 4 + n * 8, "params": 64}))
    # Loop: M = 3 stored, h carried through MatMul with an outer weight, Relu(h) a scan output.
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]), helper.make_node("MatMul", ["h_in", "w"], ["h_out"]),
         helper.make_node("Relu", ["h_out"], ["y"])], "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("h_in", f, None)],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("h_out", f, None), helper.make_tensor_value_info("y", f, None)])
    trips = 3
    g = helper.make_graph(
        [helper.make_node("Loop", ["M", "cond", "h0"], ["h_final", "ys"], body=body)], "loop",
        [helper.make_tensor_value_info("h0", f, [2, 4])],
        [helper.make_tensor_value_info("h_final", f, None), helper.make_tensor_value_info("ys", f, None)],
        [weight("w", (4, 4)), helper.make_tensor("M", TensorProto.INT64, [], [trips]),
         helper.make_tensor("cond", TensorProto.BOOL, [], [True])])
    cases.append(("cf_loop", helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]),
                  {"dims": {}, "macs": trips * 2 * 4 * 4, "flops": trips * (2 * 2 * 4 * 4 + 8), "params": 16 + 1 + 1}))
    # Scan over axis 0 of xs [5, 4]: s += x; y = x * x.
    body = helper.make_graph(
        [helper.make_node("Add", ["s_in", "x_in"], ["s_out"]), helper.make_node("Mul", ["x_in", "x_in"], ["y"])], "body",
        [helper.make_tensor_value_info("s_in", f, [4]), helper.make_tensor_value_info("x_in", f, [4])],
        [helper.make_tensor_value_info("s_out", f, [4]), helper.make_tensor_value_info("y", f, [4])])
    g = helper.make_graph(
        [helper.make_node("Scan", ["s0", "xs"], ["s_final", "ys"], body=body, num_scan_inputs=1)], "scan",
        [helper.make_tensor_value_info("s0", f, [4]), helper.make_tensor_value_info("xs", f, [5, 4])],
        [helper.make_tensor_value_info("s_final", f, None), helper.make_tensor_value_info("ys", f, None)])
    cases.append(("cf_scan", helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]),
                  {"dims": {}, "macs": 0, "flops": 5 * (4 + 4), "params": 0}))
    # A model-local function: Flatten(Relu(X)) with the call's axis (default 1), called with axis 2.
    flatten = helper.make_node("Flatten", ["R"], ["Y"])
    ref = flatten.attribute.add()  # onnx 1.12's helper has no make_attribute_ref
    ref.name, ref.ref_attr_name, ref.type = "axis", "axis", AttributeProto.INT
    fn = helper.make_function("local", "Flat", ["X"], ["Y"], [helper.make_node("Relu", ["X"], ["R"]), flatten],
                              [helper.make_opsetid("", 17)], ["axis"])
    g = helper.make_graph(
        [helper.make_node("Flat", ["x"], ["a"], domain="local", axis=2), helper.make_node("MatMul", ["a", "w"], ["b"])],
        "fn", [helper.make_tensor_value_info("x", f, [2, 3, 4, 5])], [helper.make_tensor_value_info("b", f, None)],
        [weight("w", (20, 7))])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)],
                          functions=[fn])
    cases.append(("cf_function", m, {"dims": {}, "macs": 6 * 7 * 20, "flops": 120 + 2 * 6 * 7 * 20, "params": 140}))
    return cases


def control_flow_cases(onnxview, directory):
    """Shapes of the holders' outputs and of their bodies' values against onnx's inference; the
    totals against the spec's formulas (a Loop: its body x M; a Scan: x the scan length)."""
    checked = 0
    for name, model, expect in control_flow_models():
        path = save(model, directory, name)
        extra = [f"--dim={k}={v}" for k, v in expect["dims"].items()]
        report, err = profile(onnxview, path, *extra)
        if report is None:
            fail(f"{name}: onnxview profile failed: {err}")
            continue
        totals = report["totals"]
        for key in ("macs", "flops", "params"):
            if totals[key] != expect[key]:
                fail(f"{name}: {key} {totals[key]}, formula {expect[key]}")
        if report["coverage"]["covered"] != report["coverage"]["nodes"]:
            fail(f"{name}: not covered: {report['unknown']}")
        try:
            expected = inferred_shapes_everywhere(model)
        except Exception as e:
            fail(f"{name}: onnx shape inference failed: {e}")
            continue
        got = onnxview_shapes(report)
        for value, dims in expected.items():
            dims = [expect["dims"].get(d, d) for d in dims]
            if any(not isinstance(d, int) for d in dims):
                continue
            checked += 1
            if got.get(value) != dims:
                fail(f"{name}: '{value}': onnxview {got.get(value)}, onnx {dims}")
    return checked


def hostile_cases(onnxview, directory):
    cases = {}
    # A cycle: a node reads its own output.
    cases["cycle"] = helper.make_model(helper.make_graph(
        [helper.make_node("Add", ["x", "b"], ["a"]), helper.make_node("Relu", ["a"], ["b"])], "cycle",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("b", TensorProto.FLOAT, None)]))
    # Dims whose product overflows int64.
    big = 2 ** 62
    cases["overflow"] = helper.make_model(helper.make_graph(
        [helper.make_node("MatMul", ["x", "y"], ["z"])], "overflow",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [big, big]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, [big, big])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)]))
    # A symbolic product growing past the polynomial's limits.
    names = [f"d{i}" for i in range(40)]
    cases["symbolic_product"] = helper.make_model(helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])], "wide",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, names)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]))
    ok = 0
    for name, model in cases.items():
        path = save(model, directory, "hostile_" + name)
        report, err = profile(onnxview, path)
        if report is None:
            fail(f"hostile {name}: {err}")
            continue
        if report["coverage"]["covered"] == report["coverage"]["nodes"] and name != "symbolic_product":
            fail(f"hostile {name}: every node covered")
        ok += 1
    # External data that is not there: shapes and costs still come from the metadata.
    model = single_op("Conv", [("X", [1, 3, 8, 8])], [weight("W", (4, 3, 3, 3))], ["Y"], {})
    ext = os.path.join(directory, "external.onnx")
    onnx.save(model, ext, save_as_external_data=True, all_tensors_to_one_file=True, location="weights.bin",
              size_threshold=0)
    os.remove(os.path.join(directory, "weights.bin"))
    report, err = profile(onnxview, ext)
    if report is None or report["totals"]["macs"] != 4 * 36 * 27 or report["totals"]["params"] != 108:
        fail(f"missing external data: {err or report['totals']}")
    return ok + 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxview", required=True)
    ap.add_argument("--corpus", default="/usr/share/libonnx-testdata/data")
    ap.add_argument("--limit", type=int, default=0, help="models spread over the corpus; 0: all")
    args = ap.parse_args()
    # meson passes the path relative to the build directory; the doc examples run from the root.
    args.onnxview = os.path.abspath(args.onnxview)

    stats = {"compared": 0, "equal": 0, "onnxview_less": 0, "onnxview_more": 0, "onnx_fails": [], "symbolic": 0}
    # testdata/profile/: the models of docs/profile.md, their weights absent.
    models = sorted(glob.glob(os.path.join(ROOT, "testdata", "*.onnx")) +
                    glob.glob(os.path.join(ROOT, "testdata", "profile", "*.onnx")))
    if os.path.isdir(args.corpus):
        models += corpus_models(args.corpus, args.limit)
    params_checked = 0
    for path in models:
        check_shapes(args.onnxview, path, stats)
        try:
            model = onnx.load(path, load_external_data=False)
        except Exception:
            continue
        report, _ = profile(args.onnxview, path)
        if report is not None:
            if report["totals"]["params"] != params_of(model):
                fail(f"{path}: params {report['totals']['params']}, numpy {params_of(model)}")
            params_checked += 1
    print(f"shapes: {len(models)} models, {stats['compared']} values onnx shapes completely: "
          f"{stats['equal']} equal, {stats['onnxview_less']} not shaped by onnxview; "
          f"{stats['onnxview_more']} values shaped by onnxview only; onnx failed on {len(stats['onnx_fails'])}; "
          f"{stats['symbolic']} symbolic shapes equal")
    for line in stats["onnx_fails"][:10]:
        print("  onnx failed:", line)
    print(f"params: {params_checked} models")
    with tempfile.TemporaryDirectory() as directory:
        print(f"costs: {cost_cases(args.onnxview, directory)} single-op models")
        print(f"symbolic: {symbolic_cases(args.onnxview, directory)} substitutions")
        print(f"whole models: {whole_model_cases(args.onnxview)} sizes of testdata/profile/ models")
        print(f"hostile: {hostile_cases(args.onnxview, directory)} models")
        print(f"control flow and functions: {control_flow_cases(args.onnxview, directory)} values shaped alike")
    print(f"docs/profile.md: {doc_examples(args.onnxview)} examples as shown")
    if FAILURES:
        print(f"{len(FAILURES)} failures")
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
