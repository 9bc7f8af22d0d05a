#!/usr/bin/python3
"""Checks that `onnxview pack TOOL_OUT FINAL` puts the weights back into a weight-less
proxy that a Python tool rewrote (docs/writer.md, "Proxies": what a tool dropped, bound
again by name or by place in the graph). Over 600 lines: eight tools, the refusals,
--source and --big each need their own runs and checks over one set of models.

  rebind_oracle.py --onnxview BUILD/tools/onnxview [--ort-dir DIR] [--corpus DIR]
                   [--limit N] [--big] [--keep]

Models: six made here with onnx.helper, proxies at the default --threshold (1 KiB): an
MLP (three MatMul weights, two of one type and dims, a bias read by two Adds) and a conv
net (two Convs, BatchNormalization, Gemm), opset 13; an If whose branches hold an
initializer each, both named 'bw' (the scope tells them apart), and the then-branch an
unnamed Constant, beside a main-graph Constant of 4 KiB and an INT32 tensor in
int32_data; two opset-11 models whose Unsqueeze, Squeeze, ReduceSum and ReduceMean take
axes as attributes (the converter rewrites them); two Constants whose value tensors are
both named 'value'. Then testdata/*.onnx and --limit N corpus model.onnx files (--corpus,
default /usr/share/libonnx-testdata/data; default 16, spread evenly over those holding a
tensor of 64 bytes or more other than INT64; 0: all), proxies at --threshold 1. Each model is copied to a fresh directory as in.onnx, made into
proxy.onnx (`pack in.onnx proxy.onnx --reference`), and each TOOL runs on the proxy,
TOOL_OUT saved beside in.onnx, and on the full in.onnx (the reference):
  convert          onnx.version_converter through each of opsets 11, 13, 15, 17 above
                   the model's (onnx 1.12 knows none past 17), infer_shapes first
                   where it refuses without; it drops every external_data entry
  rename-drop      each initializer (subgraphs too) renamed r_NAME, an Identity of it
                   put before each node input that reads it; every external_data dropped
  rename-keep      the same, the references kept
  prefix           onnx.compose.add_prefix(proxy, "p_"): it keeps external_data, and
                   leaves subgraphs and tensor attribute names alone
  prefix-drop      the same, every external_data dropped
  everything-drop  every value name of every graph (subgraphs too) prefixed q_, so an
                   unnamed Constant value's node output changes; references dropped
  extract          onnx.utils.extract_model(proxy.onnx, TOOL_OUT, ...): made models at
                   a middle cut, others at the first cut onnx takes of (a node output a
                   third in, one two thirds in), (inputs, middle node's output), (inputs,
                   outputs); it loads the weights through the references, so TOOL_OUT
                   holds them, equal to the original's
  infer            onnx.shape_inference.infer_shapes_path(proxy.onnx, TOOL_OUT)
`pack TOOL_OUT FINAL` must then
  1. exit 0 and say it rebound exactly the tensors the tool left without a payload (no
     raw_data, typed data or external_data; not STRING, not empty): `rebound N tensors
     by name to those of 'ORIGINAL'` counts those whose name the original has, one
     `rebound 'NEW' to 'ORIG' of 'ORIGINAL' (by place in the graph)` line each the
     others, ORIG the tensor the tool renamed (the tools keep the tensors' order, which
     gives the rename map), ORIGINAL in.onnx (a one-a-line `(by name)` form is counted
     as by name);
  2. write FINAL with no external reference, no onnxview.reference_source record and no
     tensor without a payload, each tensor equal bit for bit (dtype, shape, bytes) to the
     original's it stands for (by name, or through the rename map), or, where the tool
     wrote a payload itself (the converter's new axes constants, extract's weights), to
     that payload; every tensor the proxy referenced is in FINAL (extract aside);
  3. FINAL pass onnx.checker.check_model(path, full_check=True) wherever in.onnx and the
     reference do (checked on a copy: onnx 1.12's full check rewrites the file);
  4. with onnxruntime-node (--ort-dir, default $ONNXRUNTIME_NODE_DIR or
     /opt/onnxruntime-node; tests/oracle/ort_run.js), FINAL give the reference's outputs
     byte for byte: made models on seeded inputs (the If model also on their negation,
     its other branch), corpus models on test_data_set_0, testdata/ and extract's cuts on
     generated inputs. References onnxruntime does not run (old opsets, add_prefix's
     models with subgraphs, which read names it did not prefix) are counted, not compared.
Models a tool refuses (the converter: functions, sparse tensors; extract_model: IR 3
initializers, unsorted subgraph models) are counted, not failures.

Refusals, on the MLP's proxy (the If model's for int32_data): exit 1, for exactly the
tensors expected `onnxview pack: tensor 'X' of 'TOOL_OUT' has no payload and cannot be
put back: REASON (DETAIL)`, then `onnxview pack: N of the M tensors without a payload in
'TOOL_OUT' refused; nothing written` (ending there when onnxview has the diff command,
which matches by place), nothing on stdout, no file written: a dropped weight's dims
changed (alone; among 4 dropped: 1 of the 4; renamed too, found by place), its data
type changed, two weights of one type and dims deduplicated (both dropped and
renamed, the second removed, both MatMuls reading the first: several match), a dropped
weight renamed that nothing reads (no match), the int32_data of an INT32 tensor cleared
(not in raw_data layout).

--source: a tool that dropped the references and the record too (the converter's way,
and the rename rewrite): without --source the pack is a plain pack, exit 0, no `rebound`
line, the tensors stay without a payload (onnx.checker refuses FINAL); with --source
in.onnx they are bound as in 1 and 2, and FINAL passes onnx.checker.

--big (off by default; about 40 s more and 6.2 GiB of disk in the temporary directory): 33
weights of 64 MiB written by numpy to big.bin, a small opset-11 model referencing them
(a MatMul chain, Unsqueeze and Squeeze with axes attributes), `pack model.onnx big.onnx
--internalize --allow-over-2gib` (2.06 GiB, never loaded in Python), then the recipe:
`pack big.onnx big.proxy.onnx --reference`, the converter 11 -> 13 -> 15 -> 17 on the
proxy, `pack big.v17.proxy.onnx big.v17.onnx --external big.v17.data --verify`: 33
tensors rebound, onnx.checker (full_check, on the path) accepts big.v17.onnx at opset 17,
each weight in big.v17.data equals (numpy memmap) its bytes in big.bin and where the proxy
references it in big.onnx. Prints each step's time and the peak disk use; removes it all.
--keep keeps the scratch directory.

Last line: `N passed, M failed`; exit 0 when none failed, else 1; 77 (skipped) without
python3-onnx.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

RECORD = "onnxview.reference_source"
CONVERT_STEPS = (11, 13, 15, 17)  # the opsets the converter goes through (onnx 1.12 knows up to 17)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import RANDOM_OPS, ROOT, SKIP, Checks, encode, inputs_from, ort_case, rename_values  # noqa: E402

onnx = None  # python3-onnx, imported in main() so that its absence can skip

BY_NAME = re.compile(r"^rebound (\d+) tensors by name to those of '(.*)'$")
ONE = re.compile(r"^rebound '(.*)' to '(.*)' of '(.*)' \(by (name|place in the graph)\)$")
REFUSED = re.compile(r"^onnxview pack: tensor '(.*)' of '(.*)' has no payload and cannot be put back: (.*) \((.*)\)$")
SUMMARY = re.compile(r"^onnxview pack: (\d+) of the (\d+) tensors without a payload in '(.*)' refused; nothing written"
                     r"( \(.*\))?$")
PAYLOAD_FIELDS = ("float_data", "int32_data", "string_data", "int64_data", "double_data", "uint64_data",
                  "external_data")


def run(*args, timeout=600):
    p = subprocess.run([*map(str, args)], capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def one_line(text, limit=400):
    return " | ".join(text.strip().splitlines())[:limit]


def first_line(e):
    s = str(e).strip()
    return s.splitlines()[0][:200] if s else type(e).__name__


# --- tensors as onnx.load resolves them (and as the put-back considers them) ----------------

def loaded_tensors(model):
    """(label, TensorProto) of every dense tensor of the main graph and its subgraphs at any
    depth: initializers and node tensor attributes, in walk order. The label is the
    tensor's name; an unnamed attribute tensor is `(attribute SLOT of the node making
    OUTPUT)`, as onnxview's messages call it."""
    out = []

    def graph(g):
        for t in g.initializer:
            out.append((t.name, t))
        for n in g.node:
            maker = n.output[0] if n.output else ""
            for a in n.attribute:
                if a.HasField("t"):
                    out.append((a.t.name or f"(attribute {a.name} of the node making {maker})", a.t))
                for i, t in enumerate(a.tensors):
                    out.append((t.name or f"(attribute {a.name}#{i} of the node making {maker})", t))
                if a.HasField("g"):
                    graph(a.g)
                for sg in a.graphs:
                    graph(sg)
    graph(model.graph)
    return out


def has_payload(t):
    return t.HasField("raw_data") or any(len(getattr(t, f)) for f in PAYLOAD_FIELDS)


def elements(t):
    n = 1
    for d in t.dims:
        n *= d
    return n


def emptied(model):
    """Labels of the tensors a tool left without any payload (what the put-back binds again):
    no raw_data, typed data or external_data, not STRING, holding at least one element."""
    return [label for label, t in loaded_tensors(model)
            if not has_payload(t) and elements(t) != 0 and t.data_type != onnx.TensorProto.STRING]


def referenced(model):
    return [label for label, t in loaded_tensors(model) if len(t.external_data)]


def drop_references(model):
    """What onnx 1.12's version converter does to a proxy: every external_data entry gone."""
    n = 0
    for _, t in loaded_tensors(model):
        if len(t.external_data):
            del t.external_data[:]
            t.data_location = onnx.TensorProto.DEFAULT
            n += 1
    return n


def arrays_by_label(model):
    """label -> [(dtype, shape, bytes)], several when a name repeats in subgraphs."""
    import numpy as np
    from onnx import numpy_helper
    complex_typed = {onnx.TensorProto.COMPLEX64: ("float_data", np.float32, np.complex64),
                     onnx.TensorProto.COMPLEX128: ("double_data", np.float64, np.complex128)}
    out = {}
    for label, t in loaded_tensors(model):
        if len(t.external_data):  # a reference: compared where it is read back
            out.setdefault(label, []).append(None)
            continue
        try:
            if t.data_type in complex_typed and not t.HasField("raw_data") and not len(t.external_data):
                field, part, whole = complex_typed[t.data_type]  # numpy_helper cannot read these
                a = np.array(getattr(t, field), dtype=part).view(whole).reshape(tuple(t.dims))
            else:
                a = numpy_helper.to_array(t)
            v = (str(a.dtype), a.shape, repr(a.tolist()) if a.dtype == object else a.tobytes())
        except Exception:  # noqa: BLE001 - numpy_helper cannot read it
            v = None
        out.setdefault(label, []).append(v)
    return out


def full_check(path):
    """onnx.checker.check_model(path, full_check=True)'s complaint, or None. On a copy beside
    the file: onnx 1.12's full check writes the inferred model over the file it checks."""
    copy = path + ".checked.onnx"
    shutil.copy(path, copy)
    try:
        onnx.checker.check_model(copy, full_check=True)
        return None
    except Exception as e:  # noqa: BLE001
        return first_line(e)
    finally:
        os.remove(copy)


def parse_rebound(stdout):
    """(count by name, [(new, original, path, how)] of the one-a-line form, [summary paths])."""
    by_name, each, paths = 0, [], []
    for line in stdout.splitlines():
        m = BY_NAME.match(line)
        if m:
            by_name += int(m.group(1))
            paths.append(m.group(2))
            continue
        m = ONE.match(line)
        if m:
            each.append((m.group(1), m.group(2), m.group(3), m.group(4)))
    return by_name, each, paths


# --- models made here ---------------------------------------------------------------------

def save_only(model, opset, ir):
    model.opset_import[0].version = opset
    model.ir_version = ir
    return model


def save(model, path, opset, ir):
    onnx.save(save_only(model, opset, ir), path)
    return path


def mlp(directory):
    """Opset 13: three MatMul weights, two of the same type and dims (w1, w2), a bias read
    by two Adds (b), one under 1 KiB (b3, kept in the proxy), an INT64 shape."""
    import numpy as np
    from onnx import helper, numpy_helper
    rng = np.random.default_rng(1)
    f = np.float32
    inits = [numpy_helper.from_array((rng.standard_normal((256, 256)) / 16).astype(f), "w1"),
             numpy_helper.from_array((rng.standard_normal((256, 256)) / 16).astype(f), "w2"),
             numpy_helper.from_array(rng.standard_normal(256).astype(f), "b"),
             numpy_helper.from_array((rng.standard_normal((256, 64)) / 16).astype(f), "w3"),
             numpy_helper.from_array(rng.standard_normal(64).astype(f), "b3"),
             numpy_helper.from_array(np.array([2, 128], dtype=np.int64), "shape")]
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h1"]), helper.make_node("Add", ["h1", "b"], ["a1"]),
             helper.make_node("Relu", ["a1"], ["r1"]), helper.make_node("MatMul", ["r1", "w2"], ["h2"]),
             helper.make_node("Add", ["h2", "b"], ["a2"]), helper.make_node("Relu", ["a2"], ["r2"]),
             helper.make_node("MatMul", ["r2", "w3"], ["h3"]), helper.make_node("Add", ["h3", "b3"], ["y0"]),
             helper.make_node("Reshape", ["y0", "shape"], ["y"])]
    g = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", 1, [4, 256])],
                          [helper.make_tensor_value_info("y", 1, [2, 128])], inits)
    return save(helper.make_model(g), os.path.join(directory, "mlp.onnx"), 13, 8)


def convnet(directory):
    """Opset 13: two Convs, a BatchNormalization, a Gemm; weights of 1.7, 9 and 8 KiB."""
    import numpy as np
    from onnx import helper, numpy_helper
    rng = np.random.default_rng(2)
    f = np.float32
    inits = [numpy_helper.from_array((rng.standard_normal((16, 3, 3, 3)) / 4).astype(f), "cw1"),
             numpy_helper.from_array(rng.standard_normal(16).astype(f), "cb1"),
             numpy_helper.from_array((rng.standard_normal((16, 16, 3, 3)) / 8).astype(f), "cw2"),
             numpy_helper.from_array(rng.standard_normal(16).astype(f), "cb2"),
             numpy_helper.from_array((rng.random(16) + 0.5).astype(f), "scale"),
             numpy_helper.from_array(rng.standard_normal(16).astype(f), "bias"),
             numpy_helper.from_array(rng.standard_normal(16).astype(f), "mean"),
             numpy_helper.from_array((rng.random(16) + 0.5).astype(f), "var"),
             numpy_helper.from_array((rng.standard_normal((128, 16)) / 4).astype(f), "fw"),
             numpy_helper.from_array(rng.standard_normal(128).astype(f), "fb")]
    nodes = [helper.make_node("Conv", ["x", "cw1", "cb1"], ["c1"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("Conv", ["r1", "cw2", "cb2"], ["c2"], pads=[1, 1, 1, 1]),
             helper.make_node("BatchNormalization", ["c2", "scale", "bias", "mean", "var"], ["bn"]),
             helper.make_node("Relu", ["bn"], ["r2"]), helper.make_node("GlobalAveragePool", ["r2"], ["gp"]),
             helper.make_node("Flatten", ["gp"], ["fl"]),
             helper.make_node("Gemm", ["fl", "fw", "fb"], ["y"], transB=1)]
    g = helper.make_graph(nodes, "convnet", [helper.make_tensor_value_info("x", 1, [1, 3, 16, 16])],
                          [helper.make_tensor_value_info("y", 1, [1, 128])], inits)
    return save(helper.make_model(g), os.path.join(directory, "convnet.onnx"), 13, 8)


def branches(directory):
    """Opset 13: an If whose branches hold an initializer each, both named 'bw' (same type
    and dims, other payloads: the scope tells them apart), and the then-branch an unnamed
    Constant; a main-graph Constant 'kv' of 4 KiB; an
    INT32 tensor in int32_data (varints: never referenced, kept as it is)."""
    import numpy as np
    from onnx import helper, numpy_helper
    rng = np.random.default_rng(3)
    f = np.float32
    then_g = helper.make_graph(
        [helper.make_node("Constant", [], ["c"],
                          value=numpy_helper.from_array(rng.standard_normal((32, 32)).astype(f))),
         helper.make_node("MatMul", ["x", "bw"], ["t0"]), helper.make_node("Add", ["t0", "c"], ["t"])],
        "then", [], [helper.make_tensor_value_info("t", 1, [32, 32])],
        [numpy_helper.from_array((rng.standard_normal((32, 32)) / 8).astype(f), "bw")])
    else_g = helper.make_graph([helper.make_node("MatMul", ["x", "bw"], ["e"])], "else", [],
                               [helper.make_tensor_value_info("e", 1, [32, 32])],
                               [numpy_helper.from_array((rng.standard_normal((32, 32)) / 8).astype(f), "bw")])
    idx = helper.make_tensor("idx", onnx.TensorProto.INT32, [32, 32],
                             rng.integers(-100, 100, 1024).astype(np.int32).tolist())
    nodes = [helper.make_node("ReduceSum", ["x"], ["sum"], keepdims=0),
             helper.make_node("Greater", ["sum", "zero"], ["cond"]),
             helper.make_node("Constant", [], ["k"], value=numpy_helper.from_array(
                 rng.standard_normal((32, 32)).astype(f), "kv")),
             helper.make_node("If", ["cond"], ["i"], then_branch=then_g, else_branch=else_g),
             helper.make_node("Add", ["i", "k"], ["a"]), helper.make_node("Cast", ["idx"], ["fi"], to=1),
             helper.make_node("Add", ["a", "fi"], ["y"])]
    g = helper.make_graph(nodes, "branches", [helper.make_tensor_value_info("x", 1, [32, 32])],
                          [helper.make_tensor_value_info("y", 1, [32, 32])],
                          [numpy_helper.from_array(np.array(0, dtype=f), "zero"), idx])
    return save(helper.make_model(g), os.path.join(directory, "branches.onnx"), 13, 8)


def squeeze11(directory):
    """Opset 11: Unsqueeze, Squeeze and ReduceSum take axes as attributes (inputs from
    opset 13 on), so the converter rewrites the graph around the weights."""
    import numpy as np
    from onnx import helper, numpy_helper
    rng = np.random.default_rng(4)
    f = np.float32
    inits = [numpy_helper.from_array((rng.standard_normal((256, 256)) / 16).astype(f), "w"),
             numpy_helper.from_array(rng.standard_normal(256).astype(f), "b"),
             numpy_helper.from_array((rng.standard_normal((256, 128)) / 16).astype(f), "w2")]
    nodes = [helper.make_node("MatMul", ["x", "w"], ["h"]), helper.make_node("Add", ["h", "b"], ["a"]),
             helper.make_node("Unsqueeze", ["a"], ["u"], axes=[0]), helper.make_node("Relu", ["u"], ["r"]),
             helper.make_node("Squeeze", ["r"], ["s"], axes=[0]), helper.make_node("MatMul", ["s", "w2"], ["m"]),
             helper.make_node("ReduceSum", ["m"], ["y"], axes=[1], keepdims=1)]
    g = helper.make_graph(nodes, "squeeze11", [helper.make_tensor_value_info("x", 1, [4, 256])],
                          [helper.make_tensor_value_info("y", 1, [4, 1]),
                           helper.make_tensor_value_info("m", 1, [4, 128])], inits)
    return save(helper.make_model(g), os.path.join(directory, "squeeze11.onnx"), 11, 6)


def conv11(directory):
    """Opset 11: a Conv, ReduceMean over axes, Unsqueeze/Squeeze with axes attributes, MatMul."""
    import numpy as np
    from onnx import helper, numpy_helper
    rng = np.random.default_rng(5)
    f = np.float32
    inits = [numpy_helper.from_array((rng.standard_normal((32, 4, 3, 3)) / 4).astype(f), "cw"),
             numpy_helper.from_array(rng.standard_normal(32).astype(f), "cb"),
             numpy_helper.from_array((rng.standard_normal((32, 64)) / 4).astype(f), "fw")]
    nodes = [helper.make_node("Conv", ["x", "cw", "cb"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("ReduceMean", ["r"], ["p"], axes=[2, 3], keepdims=0),
             helper.make_node("Unsqueeze", ["p"], ["u"], axes=[0]),
             helper.make_node("MatMul", ["u", "fw"], ["m"]),
             helper.make_node("Squeeze", ["m"], ["y"], axes=[0, 1])]
    g = helper.make_graph(nodes, "conv11", [helper.make_tensor_value_info("x", 1, [1, 4, 8, 8])],
                          [helper.make_tensor_value_info("y", 1, [64])], inits)
    return save(helper.make_model(g), os.path.join(directory, "conv11.onnx"), 11, 6)


def named_constants(directory):
    """Opset 13: two Constant nodes whose value tensors have the same name ('value'; names
    of tensor attributes need not be unique) and other payloads, of 1 KiB each: the nodes
    making c1 and c2 tell them apart."""
    import numpy as np
    from onnx import helper, numpy_helper
    rng = np.random.default_rng(6)
    f = np.float32
    nodes = [helper.make_node("Constant", [], ["c1"], value=numpy_helper.from_array(
                 (rng.standard_normal((16, 16)) / 4).astype(f), "value")),
             helper.make_node("Constant", [], ["c2"], value=numpy_helper.from_array(
                 (rng.standard_normal((16, 16)) / 4).astype(f), "value")),
             helper.make_node("MatMul", ["x", "c1"], ["h"]), helper.make_node("MatMul", ["h", "c2"], ["y"])]
    g = helper.make_graph(nodes, "named_constants", [helper.make_tensor_value_info("x", 1, [4, 16])],
                          [helper.make_tensor_value_info("y", 1, [4, 16])])
    return save(helper.make_model(g), os.path.join(directory, "named_constants.onnx"), 13, 8)


# --- the tools ------------------------------------------------------------------------------

def copy_model(model):
    m = onnx.ModelProto()
    m.CopyFrom(model)
    return m


def convert(model, targets):
    """onnx.version_converter through each opset of `targets` in turn; shape inference
    first where the converter refuses the model without it. Raises when it refuses."""
    from onnx import shape_inference, version_converter
    m = model
    for v in targets:
        try:
            m = version_converter.convert_version(m, v)
        except Exception:  # noqa: BLE001 - some adapters need the inferred shapes
            m = version_converter.convert_version(shape_inference.infer_shapes(m), v)
    return m


def rename_rewrite(model, prefix="r_"):
    """A graph-surgeon style clean-up: every initializer (main graph and subgraphs, graph
    inputs naming one too) renamed PREFIX+NAME, and an Identity of it put before each node
    input that reads it (its own copy per consumer); subgraphs reading a renamed outer
    initializer read the new name. Tensors keep their payloads (external_data included)."""
    from onnx import helper
    m = copy_model(model)
    count = [0]

    def graph(g, outer):
        local = {}
        for t in g.initializer:
            local[t.name] = prefix + t.name
            t.name = prefix + t.name
        for i in g.input:
            if i.name in local:
                i.name = local[i.name]
        declared = {i.name for i in g.input} | {o for n in g.node for o in n.output}
        visible = {k: v for k, v in outer.items() if k not in declared}
        inner = {**visible, **local}
        nodes = []
        for n in g.node:
            for k, name in enumerate(n.input):
                if name in local:
                    out = f"{name}__copy{count[0]}"
                    count[0] += 1
                    nodes.append(helper.make_node("Identity", [local[name]], [out], name=out))
                    n.input[k] = out
                elif name in visible:
                    n.input[k] = visible[name]
            for a in n.attribute:
                if a.HasField("g"):
                    graph(a.g, inner)
                for sg in a.graphs:
                    graph(sg, inner)
            c = onnx.NodeProto()  # a copy: clearing g.node invalidates the messages it held
            c.CopyFrom(n)
            nodes.append(c)
        for o in g.output:
            if o.name in local:
                nodes.append(helper.make_node("Identity", [local[o.name]], [o.name]))
        g.ClearField("node")
        g.node.extend(nodes)
    graph(m.graph, {})
    return m


def rename_everything(model, prefix="q_"):
    """Every name of every graph prefixed, subgraphs included (what add_prefix leaves out):
    node inputs and outputs, graph inputs, outputs, value_info and initializers; tensor
    attributes keep their names, so an unnamed Constant value's node output changes."""
    m = copy_model(model)

    def q(name):
        return prefix + name if name else name

    rename_values(m.graph, q)
    return m


def add_prefix(model):
    from onnx import compose
    return compose.add_prefix(model, "p_")


def cuts(model):
    """Cuts to try for onnx.utils.extract_model, the first that it accepts is used: from the
    first output of a node a third of the way in to that of a node two thirds in (a middle
    cut), from the graph's inputs to the middle node's output, the whole graph."""
    g = model.graph
    inits = {t.name for t in g.initializer}
    real_inputs = [i.name for i in g.input if i.name not in inits]
    nodes = [n for n in g.node if n.output and n.output[0]]
    out = []
    if len(nodes) >= 3:
        lo, hi = nodes[len(nodes) // 3], nodes[(2 * len(nodes)) // 3]
        if lo is not hi:
            out.append(([lo.output[0]], [hi.output[0]]))
    if len(nodes) >= 2:
        out.append((real_inputs, [nodes[len(nodes) // 2].output[0]]))
    out.append((real_inputs, [o.name for o in g.output]))
    return out


def tool_names():
    return ["convert", "rename-drop", "rename-keep", "prefix", "prefix-drop", "everything-drop", "extract", "infer"]


INPUT_PREFIX = {"prefix": "p_", "prefix-drop": "p_", "everything-drop": "q_"}  # how the tools rename graph inputs


def make_tool_output(tool, proxy_path, proxy, orig_path, full, cut, out_path, ref_path):
    """Runs TOOL on the proxy (written to out_path) and on the full original (ref_path, the
    model FINAL must behave like). Returns (ran on the proxy, ran on the original,
    why the proxy's run failed)."""
    from onnx import shape_inference, utils
    if tool == "convert":
        opset = next((o.version for o in proxy.opset_import if o.domain in ("", "ai.onnx")), 0)
        targets = [v for v in CONVERT_STEPS if v > opset]
        if not targets:
            return False, False, f"already at opset {opset}"
        run_one = lambda m: convert(m, targets)  # noqa: E731
    elif tool.startswith("rename"):
        run_one = rename_rewrite
    elif tool.startswith("prefix"):
        run_one = add_prefix
    elif tool == "everything-drop":
        run_one = rename_everything
    if tool == "extract":
        # The cut: the first that onnx's extractor takes on the original, then the same on the proxy.
        chosen, ref_ok = None, False
        for ins, outs in ([cut] if cut else cuts(full)):
            try:
                utils.extract_model(orig_path, ref_path, ins, outs)
                chosen, ref_ok = (ins, outs), True
                break
            except Exception:  # noqa: BLE001
                continue
        why = None
        for ins, outs in ([chosen] if chosen else ([cut] if cut else cuts(full))):
            try:
                utils.extract_model(proxy_path, out_path, ins, outs)
                why = None
                break
            except Exception as e:  # noqa: BLE001
                why = f"extract_model({ins}, {outs}): {first_line(e)}"
        return why is None, ref_ok, why
    if tool == "infer":
        why = None
        try:
            shape_inference.infer_shapes_path(proxy_path, out_path)
        except Exception as e:  # noqa: BLE001
            why = first_line(e)
        try:
            shape_inference.infer_shapes_path(orig_path, ref_path)
            ref_ok = True
        except Exception:  # noqa: BLE001
            ref_ok = False
        return why is None, ref_ok, why
    why = None
    try:
        t = run_one(copy_model(proxy))
        if tool.endswith("-drop"):
            drop_references(t)
        onnx.save(t, out_path)
    except Exception as e:  # noqa: BLE001
        why = first_line(e)
    try:
        onnx.save(run_one(copy_model(full)), ref_path)
        ref_ok = True
    except Exception:  # noqa: BLE001
        ref_ok = False
    return why is None, ref_ok, why


def label_map(before, after):
    """Each tensor label of `after` -> the label it had in `before`, for a tool that keeps
    the tensors in their order (renames, add_prefix); {} when the lists do not line up."""
    a, b = loaded_tensors(before), loaded_tensors(after)
    if len(a) != len(b) or any(x[1].dims != y[1].dims or x[1].data_type != y[1].data_type for x, y in zip(a, b)):
        return {}
    return {new: old for (old, _), (new, _) in zip(a, b)}


def check_put_back(exe, ck, counts, name, tool, orig_path, proxy, orig_arrays, tool_out, final, extra=()):
    """`onnxview pack TOOL_OUT FINAL` and the checks on what it says and writes. Returns
    whether FINAL was written."""
    what = f"{name} {tool}"
    t = onnx.load(tool_out, load_external_data=False)
    empty = emptied(t)
    names = label_map(proxy, t) if tool.startswith(("rename", "prefix", "everything")) else {}
    by_name_expected = [lab for lab in empty if lab in orig_arrays]
    by_place_expected = sorted((lab, names.get(lab)) for lab in empty if lab not in orig_arrays)
    start = time.perf_counter()
    rc, out, err = run(exe, "pack", tool_out, final, *extra)
    counts["pack_seconds"] += time.perf_counter() - start
    if not ck.check(rc == 0 and os.path.exists(final),
                    f"{what}: `pack {os.path.basename(tool_out)} {os.path.basename(final)}` exit {rc}: "
                    f"{one_line(out + err, 600)}"):
        return False
    by_name, each, paths = parse_rebound(out)
    by_name += sum(1 for e in each if e[3] == "name")
    by_place = sorted((new, old) for new, old, _, how in each if how != "name")
    paths += [e[2] for e in each]
    ck.check(by_name + len(by_place) == len(empty),
             f"{what}: {by_name + len(by_place)} tensors said rebound, the tool left {len(empty)} without a "
             f"payload ({empty[:6]}): {one_line(out)}")
    ck.check(by_name == len(by_name_expected),
             f"{what}: {by_name} rebound by name, expected {len(by_name_expected)} ({by_name_expected[:6]})")
    if names:
        ck.check(by_place == by_place_expected,
                 f"{what}: rebound by place {by_place[:4]}, expected {by_place_expected[:4]}")
    else:
        ck.check([n for n, _ in by_place] == [n for n, _ in by_place_expected],
                 f"{what}: rebound by place {by_place[:4]}, expected {by_place_expected[:4]}")
    ck.check(all(p == orig_path for p in paths), f"{what}: rebound lines name {sorted(set(paths))}, not {orig_path}")
    counts["rebound_by_name"] += by_name
    counts["rebound_by_place"] += len(by_place)
    if tool in counts["per_tool"]:
        counts["per_tool"][tool][2] += by_name
        counts["per_tool"][tool][3] += len(by_place)
    counts["put_backs"] += 1

    f = onnx.load(final, load_external_data=False)
    ck.check(not referenced(f) and RECORD not in {p.key for p in f.metadata_props},
             f"{what}: FINAL still has references {referenced(f)[:4]} or the record")
    ck.check(not emptied(f), f"{what}: FINAL has tensors without a payload: {emptied(f)[:6]}")
    got = arrays_by_label(f)
    inline = arrays_by_label(t)  # what the tool wrote itself
    tool_payload = {lab for lab, x in loaded_tensors(t) if has_payload(x) and not len(x.external_data)}
    bad, compared, kept = [], 0, 0
    for lab, values in got.items():
        orig = names.get(lab, lab)
        for v in values:
            if lab in tool_payload:  # the tool's own bytes: kept as they are
                ok = v in inline.get(lab, [])
                kept += orig not in orig_arrays
            elif orig in orig_arrays:
                ok = v in orig_arrays[orig]
            else:
                ok = False
            compared += 1
            if not ok:
                bad.append(lab if orig == lab else f"{lab} (for {orig})")
    ck.check(not bad, f"{what}: FINAL's tensors differ from the original's they stand for: {bad[:6]}")
    counts["tensors_equal"] += compared - len(bad)
    counts["new_tensors_kept"] += kept
    if tool != "extract":
        have = {names.get(lab, lab) for lab in got}
        missing = [lab for lab in referenced(proxy) if lab not in have]
        ck.check(not missing, f"{what}: tensors of the proxy missing from FINAL: {missing[:6]}")
    return True


def copy_in(src, work):
    """src copied to WORK/in.onnx with the external files it names beside it."""
    m = onnx.load(src, load_external_data=False)
    for _, t in loaded_tensors(m):
        for e in t.external_data:
            if e.key == "location" and not os.path.exists(os.path.join(work, e.value)):
                shutil.copy(os.path.join(os.path.dirname(src), e.value), os.path.join(work, e.value))
    dst = os.path.join(work, "in.onnx")
    shutil.copy(src, dst)
    return dst


def ort_available(ort_dir):
    return bool(ort_dir) and shutil.which("node") is not None and \
        os.path.isdir(os.path.join(ort_dir, "node_modules", "onnxruntime-node"))


def made_inputs(name, model):
    """Input sets for a made model: seeded normal values; for branches also their negation,
    which takes the If's other branch."""
    import numpy as np
    rng = np.random.default_rng(11)
    first = {i.name: rng.standard_normal([d.dim_value for d in i.type.tensor_type.shape.dim]).astype(np.float32)
             for i in model.graph.input}
    sets = [first] + ([{k: -v for k, v in first.items()}] if name == "branches" else [])
    return [[encode(k, v) for k, v in s.items()] for s in sets]


def compare_in_ort(ck, counts, ort_dir, name, pairs, input_sets, work, prefix=""):
    """pairs: [(tool, reference path, FINAL path)], each run on every input set (graph input
    names given PREFIX); FINAL's outputs must be the reference's, byte for byte, wherever
    onnxruntime runs the reference."""
    if not pairs:
        return
    if not input_sets or any(s is None or any(i is None for i in s) for s in input_sets):
        counts["ort_not_run"] += len(pairs)
        return
    for inputs in input_sets:
        inputs = [{**i, "name": prefix + i["name"]} for i in inputs]
        r = ort_case(ort_dir, [p for _, ref, fin in pairs for p in (ref, fin)], inputs, work)
        if "error" in r:
            ck.check(False, f"{name}: onnxruntime: {r['error']}")
            return
        res = r["results"]
        for k, (tool, _, _) in enumerate(pairs):
            want, got = res[2 * k], res[2 * k + 1]
            if want.get("error"):
                counts["ort_not_run"] += 1  # onnxruntime does not run what the tool made of the original
                continue
            ck.check(not got.get("error") and got["outputs"] == want["outputs"],
                     f"{name} {tool}: onnxruntime: FINAL's outputs differ from the tool's output on the original "
                     f"{(got.get('error') or '')[:200]}")
            counts["ort_compared"] += 1
            counts["per_tool"][tool][4] += 1


def check_case(exe, ck, counts, case, work, ort_dir, ort):
    """One model: its proxy, each tool on it, the put-back, and onnxruntime."""
    name = case["name"]
    orig = copy_in(case["src"], work)
    proxy_path = os.path.join(work, "proxy.onnx")
    rc, out, err = run(exe, "pack", orig, proxy_path, "--reference", "--threshold", case["threshold"])
    if not ck.check(rc == 0, f"{name}: pack --reference exit {rc}: {one_line(out + err, 300)}"):
        return
    try:
        full = onnx.load(orig)
    except Exception:  # noqa: BLE001 - onnx cannot load it: nothing to compare with
        counts["unloadable"] += 1
        return
    counts["models"] += 1
    proxy = onnx.load(proxy_path, load_external_data=False)
    counts["referenced"] += len(referenced(proxy))
    orig_arrays = arrays_by_label(full)
    orig_ok = full_check(orig) is None
    runnable = not any(n.op_type in RANDOM_OPS for n in full.graph.node)
    pairs = {"": [], "p_": [], "q_": [], "extract": []}
    for tool in tool_names():
        tool_out = os.path.join(work, f"{tool}.onnx")
        ref = os.path.join(work, f"{tool}.ref.onnx")
        final = os.path.join(work, f"{tool}.final.onnx")
        ok, ref_ok, why = make_tool_output(tool, proxy_path, proxy, orig, full, case.get("cut"), tool_out, ref)
        per = counts["per_tool"][tool]
        if not ok:
            per[1] += 1
            counts["tool_refused"] += 1
            counts.setdefault("refused_by", {}).setdefault(tool, []).append(f"{name}: {why}")
            continue
        counts["tool_runs"] += 1
        per[0] += 1
        if tool == "extract":  # onnx.load of the proxy read the weights through its references
            t = onnx.load(tool_out, load_external_data=False)
            differ = [lab for lab, v in arrays_by_label(t).items()
                      if lab in orig_arrays and any(x is not None and x not in orig_arrays[lab] for x in v)]
            ck.check(not differ and not referenced(t),
                     f"{name} extract: the weights onnx.load read from the proxy differ: {differ[:4]}")
        if not check_put_back(exe, ck, counts, name, tool, orig, proxy, orig_arrays, tool_out, final):
            continue
        if orig_ok and ref_ok and full_check(ref) is None:
            why = full_check(final)
            ck.check(why is None, f"{name} {tool}: onnx.checker (full_check) refuses FINAL: {why}")
            counts["checker_passed"] += why is None
        if ref_ok and ort and runnable:
            pairs["extract" if tool == "extract" else INPUT_PREFIX.get(tool, "")].append((tool, ref, final))
    if not (ort and runnable):
        return
    try:
        input_sets = made_inputs(name, full) if case.get("made") else [inputs_from(onnx, full, case.get("test_dir"))]
    except Exception:  # noqa: BLE001 - inputs that are not plain tensors
        input_sets = None
    for prefix in ("", "p_", "q_"):
        compare_in_ort(ck, counts, ort_dir, name, pairs[prefix], input_sets, work, prefix)
    if pairs["extract"]:
        try:
            cut_inputs = [inputs_from(onnx, onnx.load(pairs["extract"][0][1]), None)]
        except Exception:  # noqa: BLE001
            cut_inputs = None
        compare_in_ort(ck, counts, ort_dir, name, pairs["extract"], cut_inputs, work)


# --- refusals and --source ------------------------------------------------------------------

def tensor(model, name):
    return next(t for lab, t in loaded_tensors(model) if lab == name)


def consumers_read(model, old, new):
    for n in model.graph.node:
        n.input[:] = [new if i == old else i for i in n.input]


def edit_dims(m):
    t = tensor(m, "w1")
    del t.external_data[:]
    t.data_location = onnx.TensorProto.DEFAULT
    t.dims[:] = [128, 512]


def edit_dims_among_others(m):
    drop_references(m)
    tensor(m, "w3").dims[:] = [128, 128]


def edit_type(m):
    t = tensor(m, "w2")
    del t.external_data[:]
    t.data_location = onnx.TensorProto.DEFAULT
    t.data_type = onnx.TensorProto.DOUBLE


def edit_dedupe(m):
    """Both same-shaped weights renamed and dropped, the second removed, both MatMuls reading
    the first: by place it stands for w1 and for w2."""
    drop_references(m)
    g = m.graph
    tensor(m, "w1").name = "shared_w"
    del g.initializer[[t.name for t in g.initializer].index("w2")]
    consumers_read(m, "w1", "shared_w")
    consumers_read(m, "w2", "shared_w")


def edit_orphan(m):
    t = tensor(m, "w3")
    del t.external_data[:]
    t.data_location = onnx.TensorProto.DEFAULT
    t.name = "orphan"  # its consumer still reads w3: nothing reads 'orphan'


def edit_renamed_reshaped(m):
    t = tensor(m, "w3")
    del t.external_data[:]
    t.data_location = onnx.TensorProto.DEFAULT
    t.name = "w3_moved"
    t.dims[:] = [64, 256]
    consumers_read(m, "w3", "w3_moved")


def edit_typed_emptied(m):
    """The int32_data of 'idx' (a proxy never references typed varints) cleared."""
    tensor(m, "idx").ClearField("int32_data")


REFUSALS = [
    # (name, model, edit, [(tensor, reason, detail)], tensors without a payload)
    ("dims changed", "mlp", edit_dims,
     [("w1", "its dims differ from the original's", "FLOAT [128, 512] here, FLOAT [256, 256] in the original's 'w1'")],
     1),
    ("dims changed, other weights dropped", "mlp", edit_dims_among_others,
     [("w3", "its dims differ from the original's", "FLOAT [128, 128] here, FLOAT [256, 64] in the original's 'w3'")],
     4),
    ("data type changed", "mlp", edit_type,
     [("w2", "its data type differs from the original's",
       "DOUBLE [256, 256] here, FLOAT [256, 256] in the original's 'w2'")], 1),
    ("two weights deduplicated", "mlp", edit_dedupe,
     [("shared_w", "several tensors of the original match it", "'w1' and 'w2'")], 3),
    ("renamed, no consumer", "mlp", edit_orphan,
     [("orphan", "no tensor of the original matches it by name or place", "FLOAT [256, 64]")], 1),
    ("renamed and dims changed", "mlp", edit_renamed_reshaped,
     [("w3_moved", "its dims differ from the original's",
       "FLOAT [64, 256] here, FLOAT [256, 64] in the original's 'w3'")], 1),
    ("typed payload emptied", "branches", edit_typed_emptied,
     [("idx", "the original's payload is not in raw_data layout", "INT32 [32, 32] in the original's 'idx'")], 1),
]


def check_refusals(exe, ck, counts, made, work):
    # Built with the diff command (tensors matched by place), the summary has no hint that it is not.
    with_diff = run(exe, "diff", "--help")[0] == 0
    for what, model, edit, expected, missing in REFUSALS:
        d = os.path.join(work, "refusal")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        orig = copy_in(made[model], d)
        proxy_path = os.path.join(d, "proxy.onnx")
        run(exe, "pack", orig, proxy_path, "--reference")
        m = onnx.load(proxy_path, load_external_data=False)
        edit(m)
        tool_out = os.path.join(d, "tool.onnx")
        onnx.save(m, tool_out)
        before = sorted(os.listdir(d))
        final = os.path.join(d, "final.onnx")
        rc, out, err = run(exe, "pack", tool_out, final)
        lines = err.splitlines()
        ck.check(rc == 1, f"refusal '{what}': exit {rc}, expected 1: {one_line(out + err)}")
        for name, reason, detail in expected:
            line = (f"onnxview pack: tensor '{name}' of '{tool_out}' has no payload and cannot be put back: "
                    f"{reason} ({detail})")
            ck.check(line in lines, f"refusal '{what}': no line '{line}' in: {one_line(err, 600)}")
        summary = [SUMMARY.match(x) for x in lines if SUMMARY.match(x)]
        ck.check(len(summary) == 1 and summary[0].group(1) == str(len(expected)) and
                 summary[0].group(2) == str(missing) and summary[0].group(3) == tool_out and
                 not (with_diff and summary[0].group(4)),
                 f"refusal '{what}': summary expected 'onnxview pack: {len(expected)} of the {missing} tensors "
                 f"without a payload in '{tool_out}' refused; nothing written'"
                 f"{' (onnxview has the diff command)' if with_diff else ''}: {one_line(err, 500)}")
        ck.check(len([x for x in lines if REFUSED.match(x)]) == len(expected),
                 f"refusal '{what}': {len([x for x in lines if REFUSED.match(x)])} refusal lines, "
                 f"expected {len(expected)}")
        ck.check(not os.path.exists(final) and sorted(os.listdir(d)) == before,
                 f"refusal '{what}': something was written: {sorted(set(os.listdir(d)) - set(before))}")
        ck.check("rebound" not in out and "packed" not in out, f"refusal '{what}': stdout says {one_line(out, 200)}")
        counts["refusals"] += 1


def check_source(exe, ck, counts, made, work):
    """A tool that dropped the references and the record too: without --source the pack
    is a plain pack (the tensors stay without a payload); with --source they are bound."""
    d = os.path.join(work, "source")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    orig = copy_in(made["mlp"], d)
    proxy_path = os.path.join(d, "proxy.onnx")
    run(exe, "pack", orig, proxy_path, "--reference")
    proxy = onnx.load(proxy_path, load_external_data=False)
    full = onnx.load(orig)
    orig_arrays = arrays_by_label(full)
    for tool in ("converter-like", "rename-drop"):
        m = rename_rewrite(proxy) if tool == "rename-drop" else copy_model(proxy)
        dropped = drop_references(m)
        del m.metadata_props[:]
        tool_out = os.path.join(d, f"{tool}.onnx")
        onnx.save(m, tool_out)
        final = os.path.join(d, f"{tool}.plain.onnx")
        rc, out, err = run(exe, "pack", tool_out, final)
        ck.check(rc == 0 and "rebound" not in out,
                 f"--source ({tool}): without --source and without the record, exit {rc}: {one_line(out + err, 300)}")
        if rc == 0:
            f = onnx.load(final, load_external_data=False)
            ck.check(len(emptied(f)) == dropped,
                     f"--source ({tool}): without --source, {len(emptied(f))} tensors without a payload, "
                     f"expected the {dropped} the tool emptied, left as they are")
            ck.check(full_check(final) is not None,
                     f"--source ({tool}): without --source, onnx.checker accepts a model without weights")
        final = os.path.join(d, f"{tool}.final.onnx")
        if check_put_back(exe, ck, counts, "--source mlp", tool, orig, proxy, orig_arrays, tool_out, final,
                          extra=("--source", orig)):
            why = full_check(final)
            ck.check(why is None, f"--source ({tool}): onnx.checker refuses FINAL: {why}")
        counts["source_cases"] += 1


# --- --big: the recipe on a model over 2 GiB ---------------------------------------------------

BIG_TENSORS, BIG_SIDE = 33, 4096  # 33 weights of 4096 x 4096 floats, 64 MiB each: 2.06 GiB


def disk_use(directory):
    return sum(os.path.getsize(os.path.join(directory, f)) for f in os.listdir(directory))


def check_big(exe, ck, scratch, keep=False):
    """A model over 2 GiB that python3-onnx never loads: its weights written by numpy to
    big.bin, a small model referencing them (external data), packed into one file of
    2.06 GiB with --internalize --allow-over-2gib; then the recipe: proxy, the converter
    from opset 11 to 17 on the proxy, the weights put back with --external."""
    import numpy as np
    from onnx import helper
    d = os.path.join(scratch, "big")
    os.makedirs(d)
    times, peak = [], [0]

    def step(what, fn):
        start = time.perf_counter()
        result = fn()
        times.append((what, time.perf_counter() - start))
        peak[0] = max(peak[0], disk_use(d))
        print(f"--big: {what}: {times[-1][1]:.2f} s", flush=True)
        return result

    size = BIG_SIDE * BIG_SIDE * 4
    names = [f"w{k}" for k in range(BIG_TENSORS)]

    def weights():
        with open(os.path.join(d, "big.bin"), "wb") as f:
            for k in range(BIG_TENSORS):
                a = np.random.default_rng(k).random(BIG_SIDE * BIG_SIDE, dtype=np.float32) - np.float32(0.5)
                f.write(a.tobytes())

    def small_model():
        inits = []
        for k, n in enumerate(names):
            t = onnx.TensorProto(name=n, data_type=onnx.TensorProto.FLOAT, dims=[BIG_SIDE, BIG_SIDE])
            for key, value in (("location", "big.bin"), ("offset", str(k * size)), ("length", str(size))):
                entry = t.external_data.add()
                entry.key, entry.value = key, value
            t.data_location = onnx.TensorProto.EXTERNAL
            inits.append(t)
        nodes, h = [], "x"
        for k, n in enumerate(names):
            nodes.append(helper.make_node("MatMul", [h, n], [f"h{k}"]))
            h = f"h{k}"
        nodes += [helper.make_node("Unsqueeze", [h], ["u"], axes=[0]),
                  helper.make_node("Squeeze", ["u"], ["y"], axes=[0])]
        g = helper.make_graph(nodes, "big", [helper.make_tensor_value_info("x", 1, [1, BIG_SIDE])],
                              [helper.make_tensor_value_info("y", 1, [1, BIG_SIDE])], inits)
        onnx.save(save_only(helper.make_model(g), 11, 6), os.path.join(d, "model.onnx"))

    step(f"numpy writes big.bin ({BIG_TENSORS} x 64 MiB)", weights)
    step("onnx.helper writes model.onnx (references into big.bin)", small_model)
    paths = {k: os.path.join(d, k) for k in ("model.onnx", "big.onnx", "big.proxy.onnx", "big.v17.proxy.onnx",
                                             "big.v17.onnx", "big.v17.data", "big.bin")}
    rc, out, err = step("pack model.onnx big.onnx --internalize --allow-over-2gib", lambda: run(
        exe, "pack", paths["model.onnx"], paths["big.onnx"], "--internalize", "--allow-over-2gib"))
    if not ck.check(rc == 0 and os.path.getsize(paths["big.onnx"]) > 2 ** 31,
                    f"--big: pack --internalize exit {rc}: {one_line(out + err, 300)}"):
        return
    rc, out, err = step("pack big.onnx big.proxy.onnx --reference",
                        lambda: run(exe, "pack", paths["big.onnx"], paths["big.proxy.onnx"], "--reference"))
    if not ck.check(rc == 0, f"--big: pack --reference exit {rc}: {one_line(out + err, 300)}"):
        return
    print(f"--big: big.onnx {os.path.getsize(paths['big.onnx'])} bytes, proxy "
          f"{os.path.getsize(paths['big.proxy.onnx'])} bytes")

    def converted():
        proxy = onnx.load(paths["big.proxy.onnx"], load_external_data=False)
        c = convert(proxy, [13, 15, 17])
        onnx.save(c, paths["big.v17.proxy.onnx"])
        return proxy, c
    proxy, c = step("version_converter 11 -> 13 -> 15 -> 17 on the proxy", converted)
    ck.check(len(emptied(c)) == BIG_TENSORS, f"--big: the converter left {len(emptied(c))} tensors without a payload")
    rc, out, err = step("pack big.v17.proxy.onnx big.v17.onnx --external big.v17.data --verify", lambda: run(
        exe, "pack", paths["big.v17.proxy.onnx"], paths["big.v17.onnx"], "--external", "big.v17.data", "--verify"))
    print("\n".join("--big: " + x for x in (out + err).strip().splitlines()))
    if not ck.check(rc == 0, f"--big: put back exit {rc}: {one_line(out + err, 300)}"):
        return
    by_name, each, _ = parse_rebound(out)
    ck.check(by_name + len(each) == BIG_TENSORS, f"--big: {by_name + len(each)} tensors rebound, not {BIG_TENSORS}")
    why = step("onnx.checker.check_model(big.v17.onnx, full_check=True)", lambda: full_check(paths["big.v17.onnx"]))
    ck.check(why is None, f"--big: onnx.checker refuses big.v17.onnx: {why}")

    def compare():
        final = onnx.load(paths["big.v17.onnx"], load_external_data=False)
        ck.check([o.version for o in final.opset_import if o.domain in ("", "ai.onnx")] == [17],
                 f"--big: big.v17.onnx's opsets {final.opset_import}")

        def piece(path, at):  # one tensor's bytes, mapped alone so that the pages go with it
            return np.memmap(path, dtype=np.uint8, mode="r", offset=at, shape=(size,))
        refs = {t.name: {e.key: e.value for e in t.external_data} for t in proxy.graph.initializer}
        bad, seen = [], set()
        for t in final.graph.initializer:
            e = {x.key: x.value for x in t.external_data}
            if t.name not in names:
                continue
            seen.add(t.name)
            k = names.index(t.name)
            at, n = int(e.get("offset", 0)), int(e.get("length", 0))
            there = int(refs[t.name]["offset"])
            source = piece(paths["big.bin"], k * size)
            if e.get("location") != "big.v17.data" or n != size or \
                    not np.array_equal(piece(paths["big.v17.data"], at), source) or \
                    not np.array_equal(piece(paths["big.onnx"], there), source):
                bad.append(t.name)
        ck.check(not bad and seen == set(names), f"--big: weights differ {bad[:4]} or missing "
                 f"{sorted(set(names) - seen)[:4]}")
    step("numpy memmap: every weight of big.v17.data equals big.bin's and big.onnx's bytes", compare)
    print(f"--big: peak disk use {peak[0] / 2 ** 30:.2f} GiB in {d}; total "
          f"{sum(t for _, t in times):.1f} s")
    if not keep:
        shutil.rmtree(d)


# --- the models -----------------------------------------------------------------------------

def corpus_cases(root, limit, threshold):
    """Corpus model.onnx files with a tensor of at least `threshold` bytes in raw_data layout
    (INT64 aside, which a proxy keeps), `limit` of them spread evenly (0: all)."""
    chosen = []
    for path in sorted(glob.glob(os.path.join(root, "**", "model.onnx"), recursive=True)):
        try:
            m = onnx.load(path)
        except Exception:  # noqa: BLE001
            continue
        if any(t.data_type != onnx.TensorProto.INT64 and
               max(len(t.raw_data), 4 * len(t.float_data), 8 * len(t.double_data)) >= threshold
               for _, t in loaded_tensors(m)):
            chosen.append(path)
    eligible = len(chosen)
    if limit and len(chosen) > limit:
        step = len(chosen) / limit
        chosen = [chosen[int(k * step)] for k in range(limit)]
    return chosen, eligible


def made_models(directory):
    return {"mlp": mlp(directory), "convnet": convnet(directory), "branches": branches(directory),
            "squeeze11": squeeze11(directory), "conv11": conv11(directory),
            "named_constants": named_constants(directory)}


MADE_CUTS = {"mlp": (["r1"], ["y0"]), "convnet": (["r1"], ["gp"]), "branches": (["i"], ["y"]),
             "squeeze11": (["a"], ["m"]), "conv11": (["c"], ["y"]), "named_constants": (["h"], ["y"])}


def main():
    global onnx
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--onnxview", required=True)
    ap.add_argument("--ort-dir", default=os.environ.get("ONNXRUNTIME_NODE_DIR", "/opt/onnxruntime-node"))
    ap.add_argument("--corpus", default="/usr/share/libonnx-testdata/data")
    ap.add_argument("--limit", type=int, default=16, help="corpus models, spread over those with weights (0: all)")
    ap.add_argument("--big", action="store_true", help="also the recipe on a model over 2 GiB (~40 s, 6.2 GiB of disk)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory")
    args = ap.parse_args()
    try:
        import onnx as onnx_module  # numpy comes with it
        onnx = onnx_module
    except ImportError as e:
        print(f"SKIP: python3-onnx is not installed ({e})")
        return SKIP
    exe = os.path.abspath(args.onnxview)
    started = time.perf_counter()
    ck = Checks()
    counts = {k: 0 for k in ("models", "unloadable", "referenced", "tool_runs", "tool_refused", "put_backs",
                             "rebound_by_name", "rebound_by_place", "tensors_equal", "new_tensors_kept",
                             "checker_passed", "ort_compared", "ort_not_run", "refusals", "source_cases")}
    counts["pack_seconds"] = 0.0
    counts["per_tool"] = {tool: [0, 0, 0, 0, 0] for tool in tool_names()}  # runs, refused, by name, by place, ORT
    ort = ort_available(args.ort_dir)
    scratch = tempfile.mkdtemp(prefix="rebind_oracle.")
    try:
        made_dir = os.path.join(scratch, "made")
        os.makedirs(made_dir)
        made = made_models(made_dir)
        cases = [{"name": name, "src": path, "threshold": 1024, "cut": MADE_CUTS[name], "made": True}
                 for name, path in made.items()]
        cases += [{"name": "testdata/" + os.path.basename(p), "src": p, "threshold": 1}
                  for p in sorted(glob.glob(os.path.join(ROOT, "testdata", "*.onnx")))]
        corpus, eligible = corpus_cases(args.corpus, args.limit, 64) if os.path.isdir(args.corpus) else ([], 0)
        cases += [{"name": os.path.relpath(os.path.dirname(p), args.corpus), "src": p, "threshold": 1,
                   "test_dir": os.path.dirname(p)} for p in corpus]
        for k, case in enumerate(cases):
            work = os.path.join(scratch, f"m{k}")
            os.makedirs(work)
            check_case(exe, ck, counts, case, work, args.ort_dir, ort)
            if not args.keep:
                shutil.rmtree(work)
        check_refusals(exe, ck, counts, made, scratch)
        check_source(exe, ck, counts, made, scratch)
        if args.big:
            try:
                check_big(exe, ck, scratch, args.keep)
            except Exception as e:  # noqa: BLE001 - a step that failed outright
                ck.check(False, f"--big: {type(e).__name__}: {first_line(e)}")
    finally:
        if args.keep:
            print(f"kept {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    for tool, (runs, refused, by_name, by_place, in_ort) in counts["per_tool"].items():
        print(f"{tool:>15}: {runs} runs ({refused} models the tool refuses), {by_name} tensors rebound by name, "
              f"{by_place} by place, {in_ort} outputs compared in onnxruntime")
    for tool, whys in sorted(counts.get("refused_by", {}).items()):
        print(f"{tool}: the tool refused {len(whys)} models: " + "; ".join(whys[:3]) +
              (" ..." if len(whys) > 3 else ""))
    print(f"{counts['models']} models ({len(made)} made, {len(cases) - len(made) - len(corpus)} of testdata/, "
          f"{len(corpus)} of the {eligible} corpus models with a tensor of 64 bytes or more), "
          f"{counts['referenced']} tensors referenced by their proxies; "
          f"{counts['tool_runs']} tool runs ({counts['tool_refused']} refused by the tool), {counts['put_backs']} "
          f"put back ({counts['pack_seconds']:.1f} s in pack): {counts['rebound_by_name']} tensors rebound by name, "
          f"{counts['rebound_by_place']} by place, {counts['tensors_equal']} tensors equal, "
          f"{counts['new_tensors_kept']} new tensors of the tools kept; onnx.checker accepted "
          f"{counts['checker_passed']} outputs")
    if ort:
        print(f"onnxruntime: {counts['ort_compared']} outputs identical to the tool's on the original, "
              f"{counts['ort_not_run']} not run")
    else:
        print("onnxruntime: not run (no --ort-dir with node_modules/onnxruntime-node, or no node)")
    print(f"{counts['refusals']} refusals, {counts['source_cases']} --source cases; "
          f"{time.perf_counter() - started:.1f} s")
    return ck.finish()


if __name__ == "__main__":
    sys.exit(main())
