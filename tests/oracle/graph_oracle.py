#!/usr/bin/python3
"""Checks `onnxview graph` against python3-onnx and Graphviz.

  graph_oracle.py --onnxview BUILD/tools/onnxview [--corpus DIR] [--limit N]

(a) For every model of testdata/ and --limit (default 0: all) corpus models
    (default DIR /usr/share/libonnx-testdata/data, `**/model.onnx`):
    `graph MODEL --fold none --format json` has exactly python3-onnx's boxes
    and edges: a box per node of the main graph and of every graph attribute
    (If/Loop/Scan bodies, at any depth), per main-graph input that is no
    initializer and per main-graph output; an edge per distinct (producer,
    consumer, value), where a producer is a node that outputs the value (the
    last one in walk order) or a main-graph input, a consumer a node that
    reads it or a main-graph output that names it, and a box never feeds
    itself. The DOT of the same picture is parsed by Graphviz's `dot`
    (`-Tplain`) with the same node and edge counts (skipped without `dot`),
    and the Mermaid text has one line per box and edge.
(b) Folding, on transformers made here (python3-onnx), node names as the
    PyTorch exporter writes them (`/model/layers.3/self_attn/q_proj/MatMul`):
    2, 12 and 32 identical layers fold to one box `layers.0 - layers.N-1 xN`
    (with --fold repeat; with the default auto for 32 layers, whose 500-odd
    nodes pass --max-boxes 400); a model whose layer 7 has another
    activation folds to `layers.0 - layers.6 x7`, `layers.7`, `layers.8 -
    layers.31 x24`; every edge of a folded picture joins two of its boxes.
(c) Hostile names (quotes, backslashes, newlines, `<script>`, DOT and HTML
    metacharacters, bytes that are not UTF-8) and a node that reads its own
    output: the DOT parses, the JSON loads, nothing crashes.
Last line: `N passed, M failed`. Exits 77 when python3-onnx is absent.
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import ROOT, SKIP, Checks  # noqa: E402  (Checks: tests/browser/graph_page_test.py imports it from here)
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from protobuf_wire import f_bytes, f_varint  # noqa: E402  (the wire format by hand)


def run(exe, *args):
    return subprocess.run([exe, *map(str, args)], capture_output=True)


def subgraphs(onnx, node):
    for a in node.attribute:
        if a.type == onnx.AttributeProto.GRAPH:
            yield a.g
        elif a.type == onnx.AttributeProto.GRAPHS:
            yield from a.graphs


def expected_picture(onnx, model):
    """(boxes, edges) as the docstring defines them."""
    g = model.graph
    inits = {t.name for t in g.initializer} | {s.values.name for s in g.sparse_initializer}
    nodes = []  # in walk order: a node, then the graphs it holds

    def walk(graph):
        for t in graph.initializer:
            inits.add(t.name)
        for s in graph.sparse_initializer:
            inits.add(s.values.name)
        for n in graph.node:
            nodes.append(n)
            for sub in subgraphs(onnx, n):
                walk(sub)

    walk(g)
    inputs = [v.name for v in g.input if v.name not in inits]
    producer = {}
    for name in inputs:
        producer[name] = ("in", name)
    for i, n in enumerate(nodes):
        for o in n.output:
            if o:
                producer[o] = ("node", i)
    edges = set()
    for i, n in enumerate(nodes):
        for v in n.input:
            if v and v in producer and producer[v] != ("node", i):
                edges.add((producer[v], ("node", i), v))
    for o in g.output:
        if o.name in producer:
            edges.add((producer[o.name], ("out", o.name), o.name))
    boxes = len(nodes) + len(inputs) + len(g.output)
    return boxes, len(edges)


def dot_counts(dot_exe, dot_text):
    r = subprocess.run([dot_exe, "-Tplain"], input=dot_text, capture_output=True)
    if r.returncode != 0:
        return None, r.stderr.decode(errors="replace")[:300]
    lines = r.stdout.decode(errors="replace").splitlines()
    return (sum(1 for l in lines if l.startswith("node ")), sum(1 for l in lines if l.startswith("edge "))), ""


def check_model(ck, exe, dot_exe, onnx, path):
    try:
        model = onnx.load(path, load_external_data=False)
    except Exception:  # noqa: BLE001 - python3-onnx cannot read it: nothing to compare
        return
    r = run(exe, "graph", path, "--fold", "none", "--format", "json")
    if not ck.check(r.returncode == 0, f"{path}: graph --format json exits {r.returncode}: {r.stderr[:200]!r}"):
        return
    pic = json.loads(r.stdout)
    boxes, edges = expected_picture(onnx, model)
    ck.check(len(pic["boxes"]) == boxes, f"{path}: {len(pic['boxes'])} boxes, python3-onnx {boxes}")
    ck.check(len(pic["edges"]) == edges, f"{path}: {len(pic['edges'])} edges, python3-onnx {edges}")
    ids = {b["id"] for b in pic["boxes"]}
    ck.check(all(e["from"] in ids and e["to"] in ids for e in pic["edges"]), f"{path}: an edge to no box")
    if dot_exe:
        d = run(exe, "graph", path, "--fold", "none")
        counts, err = dot_counts(dot_exe, d.stdout)
        ck.check(counts == (boxes, edges), f"{path}: dot reads {counts} nodes and edges ({err}), expected {(boxes, edges)}")
    m = run(exe, "graph", path, "--fold", "none", "--format", "mermaid")
    text = m.stdout.decode()
    ck.check(m.returncode == 0 and text.count(" -->|") == edges, f"{path}: mermaid edges")
    check_inferred_types(ck, onnx, path, model, pic)


def onnx_type_text(onnx, t):
    """python3-onnx's inferred tensor type as onnxview writes one
    ("FLOAT[N,3,224,224]"), or None when it is not complete."""
    if not t.HasField("tensor_type") or not t.tensor_type.HasField("shape"):
        return None
    dims = []
    for d in t.tensor_type.shape.dim:
        if d.HasField("dim_value"):
            dims.append(str(d.dim_value))
        elif d.HasField("dim_param") and not d.dim_param.startswith("unk__"):
            dims.append(d.dim_param)
        else:
            return None
    return onnx.TensorProto.DataType.Name(t.tensor_type.elem_type) + "[" + ",".join(dims) + "]"


def check_inferred_types(ck, onnx, path, model, pic):
    """The types onnxview infers for values declared nowhere (the profile
    library's shape rules) against onnx.shape_inference's, where that one
    knows every dim."""
    inferred = [e for e in pic["edges"] if e.get("inferred")]
    if not inferred:
        return
    try:
        full = onnx.shape_inference.infer_shapes(model)
    except Exception:  # noqa: BLE001 - onnx cannot infer this model: nothing to compare
        return
    theirs = {v.name: onnx_type_text(onnx, v.type) for v in full.graph.value_info}
    compared = [(e["value"], e["type"], theirs[e["value"]]) for e in inferred if theirs.get(e["value"])]
    wrong = [c for c in compared if c[1] != c[2]]
    ck.check(not wrong, f"{path}: inferred types differ from onnx.shape_inference's: {wrong[:3]}")


# --- (b) generated transformers ---------------------------------------------

def transformer(onnx, layers, odd_layer=None, named=True):
    """A decoder stack as exporters name it: per layer a norm, q/k/v/o
    projections, attention, an MLP with an activation, residual adds."""
    from onnx import TensorProto, helper
    import numpy as np
    d = 8
    nodes, inits = [], []
    x = "input"

    def w(name, shape):
        inits.append(helper.make_tensor(name, TensorProto.FLOAT, shape, np.zeros(shape, np.float32).ravel().tolist()))
        return name

    def node(op, ins, scope, short, **attrs):
        out = f"{scope}/{short}_output_0"
        name = f"{scope}/{short}" if named else f"node_{len(nodes)}"
        nodes.append(helper.make_node(op, ins, [out], name=name, **attrs))
        return out

    x = node("Identity", [x], "/model/embed_tokens", "Identity")
    for i in range(layers):
        s = f"/model/layers.{i}"
        h = node("ReduceMean", [x], f"{s}/input_layernorm", "ReduceMean", keepdims=1, axes=[-1])
        h = node("Sub", [x, h], f"{s}/input_layernorm", "Sub")
        q = node("MatMul", [h, w(f"q{i}", [d, d])], f"{s}/self_attn/q_proj", "MatMul")
        k = node("MatMul", [h, w(f"k{i}", [d, d])], f"{s}/self_attn/k_proj", "MatMul")
        v = node("MatMul", [h, w(f"v{i}", [d, d])], f"{s}/self_attn/v_proj", "MatMul")
        kt = node("Transpose", [k], f"{s}/self_attn", "Transpose", perm=[1, 0])
        a = node("MatMul", [q, kt], f"{s}/self_attn", "MatMul")
        a = node("Softmax", [a], f"{s}/self_attn", "Softmax", axis=-1)
        a = node("MatMul", [a, v], f"{s}/self_attn", "MatMul_1")
        a = node("MatMul", [a, w(f"o{i}", [d, d])], f"{s}/self_attn/o_proj", "MatMul")
        x = node("Add", [x, a], s, "Add")
        m = node("MatMul", [x, w(f"up{i}", [d, d])], f"{s}/mlp/up_proj", "MatMul")
        m = node("Sigmoid" if i == odd_layer else "Relu", [m], f"{s}/mlp/act_fn", "Act")
        m = node("MatMul", [m, w(f"down{i}", [d, d])], f"{s}/mlp/down_proj", "MatMul")
        x = node("Add", [x, m], s, "Add_1")
    x = node("Identity", [x], "/model/norm", "Identity")
    nodes[-1].output[0] = "output"
    graph = helper.make_graph(nodes, "transformer", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [4, d])],
                              [helper.make_tensor_value_info("output", TensorProto.FLOAT, [4, d])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def entry_bytes(field, key, value):
    """A StringStringEntryProto as field `field` of its message, in wire format."""
    return f_bytes(field, f_bytes(1, key) + f_bytes(2, value))


def repeat_boxes(pic):
    return sorted((b["name"], b.get("repeats", 1)) for b in pic["boxes"] if b["kind"] in ("scope", "repeat"))


def check_folding(ck, exe, dot_exe, onnx, work):
    for layers in (2, 12, 32):
        path = os.path.join(work, f"transformer_{layers}.onnx")
        onnx.save(transformer(onnx, layers), path)
        r = run(exe, "graph", path, "--fold", "repeat", "--format", "json")
        pic = json.loads(r.stdout)
        reps = [b for b in pic["boxes"] if b["kind"] == "repeat"]
        ck.check(len(reps) == 1 and reps[0]["repeats"] == layers and reps[0]["name"] == "model/layers.0",
                 f"{layers} layers fold to one box x{layers}: {repeat_boxes(pic)}")
        ck.check(reps and f"\u00d7{layers}" in reps[0]["label"], f"{layers} layers: the box says x{layers}")
        ids = {b["id"] for b in pic["boxes"]}
        ck.check(all(e["from"] in ids and e["to"] in ids for e in pic["edges"]), f"{layers} layers: edges join boxes")
        # The box's MACs: the sum of its nodes' in `onnxview profile`.
        prof = json.loads(run(exe, "profile", path, "--json").stdout)
        macs = sum(n["macs"] for n in prof["nodes"] if n["name"].startswith("/model/layers."))
        ck.check(reps and reps[0].get("macs") == str(macs), f"{layers} layers: the box's MACs {reps[0].get('macs')}, "
                 f"the profile's {macs}")
        if layers == 32:
            auto = json.loads(run(exe, "graph", path, "--format", "json").stdout)
            ck.check(auto["fold"] == "auto" and any(b.get("repeats") == 32 for b in auto["boxes"]),
                     f"32 layers fold by default: {auto['note']}")
            dot = run(exe, "graph", path).stdout.decode()
            ck.check("\u00d732" in dot, "32 layers: the DOT shows x32")
    path = os.path.join(work, "transformer_odd.onnx")
    onnx.save(transformer(onnx, 32, odd_layer=7), path)
    pic = json.loads(run(exe, "graph", path, "--fold", "repeat", "--format", "json").stdout)
    layer_boxes = [(b["name"], b.get("repeats", 1)) for b in pic["boxes"] if b["name"].startswith("model/layers.")]
    ck.check(layer_boxes == [("model/layers.0", 7), ("model/layers.7", 1), ("model/layers.8", 24)],
             f"layer 7 breaks the run: {layer_boxes}")
    # No level small enough: consecutive boxes drawn as ranges, and said so.
    ranged = json.loads(run(exe, "graph", path, "--within", "model", "--max-boxes", "3", "--format", "json").stdout)
    kinds = [b["kind"] for b in ranged["boxes"]]
    ids = {b["id"] for b in ranged["boxes"]}
    ck.check("range" in kinds and kinds.count("range") + kinds.count("repeat") + kinds.count("scope") +
             kinds.count("node") <= 3 and "ranges" in ranged["note"] and
             sum(b["nodes"] for b in ranged["boxes"] if b["kind"] != "input" and b["kind"] != "output") == 482 and
             all(e["from"] in ids and e["to"] in ids for e in ranged["edges"]),
             f"--max-boxes 3 inside model: ranges of consecutive boxes ({ranged['note']}: {kinds})")
    # --around: the boxes within K edges of a node, unfolded.
    near = json.loads(run(exe, "graph", os.path.join(work, "transformer_32.onnx"), "--around",
                          "/model/layers.5/self_attn/Softmax", "--radius", "1", "--format", "json").stdout)
    ck.check(sorted(b["name"] for b in near["boxes"]) ==
             ["/model/layers.5/self_attn/MatMul", "/model/layers.5/self_attn/MatMul_1",
              "/model/layers.5/self_attn/Softmax"], f"--around Softmax --radius 1: {near['boxes']}")
    far = json.loads(run(exe, "graph", os.path.join(work, "transformer_32.onnx"), "--around",
                         "/model/layers.5/self_attn/Softmax", "--radius", "3", "--format", "json").stdout)
    ids = {b["id"] for b in far["boxes"]}
    ck.check(len(far["boxes"]) > 3 and all(e["from"] in ids and e["to"] in ids for e in far["edges"]),
             "--around --radius 3: more boxes, edges among them")
    r = run(exe, "graph", os.path.join(work, "transformer_32.onnx"), "--around", "no such node")
    ck.check(r.returncode == 2 and b"no node or value" in r.stderr, f"--around a missing name: {r.returncode}")
    # No scopes in the names: repeats found by structure alone.
    for layers in (4, 32):
        path = os.path.join(work, f"transformer_unnamed_{layers}.onnx")
        onnx.save(transformer(onnx, layers, named=False), path)
        pic = json.loads(run(exe, "graph", path, "--fold", "repeat", "--format", "json").stdout)
        reps = [(b["name"], b["repeats"], b["nodes"]) for b in pic["boxes"] if b["kind"] == "repeat"]
        ck.check(reps == [(f"nodes 1-{15 * layers}/block.0", layers, 15 * layers)],
                 f"{layers} unnamed layers fold by structure to one box x{layers}: {reps}")
    path = os.path.join(work, "transformer_unnamed_odd.onnx")
    onnx.save(transformer(onnx, 32, odd_layer=7, named=False), path)
    pic = json.loads(run(exe, "graph", path, "--format", "json").stdout)
    reps = sorted(b["repeats"] for b in pic["boxes"] if b["kind"] == "repeat")
    sigmoid = [b for b in pic["boxes"] if b.get("op_type") == "Sigmoid"]
    ck.check(reps == [7, 24] and len(sigmoid) == 1, f"unnamed, layer 7 differs: runs {reps}, its Sigmoid drawn")
    # An unnamed node among named ones is drawn in the scope they share.
    from onnx import helper
    m = transformer(onnx, 2)
    m.graph.node[3].name = ""
    path = os.path.join(work, "transformer_one_unnamed.onnx")
    onnx.save(m, path)
    pic = json.loads(run(exe, "graph", path, "--fold", "scope", "--depth", "2", "--format", "json").stdout)
    ck.check(sorted(b["name"] for b in pic["boxes"] if b["kind"] == "scope") ==
             ["model/layers.0", "model/layers.1"] and
             next(b["nodes"] for b in pic["boxes"] if b["name"] == "model/layers.0") == 15,
             f"an unnamed node among layer 0's joins it: {[(b['name'], b['nodes']) for b in pic['boxes']]}")
    # The torch exporter's metadata names the scopes when the names do not.
    for key in ("pkg.torch.onnx.name_scopes", "namespace"):
        m = transformer(onnx, 12)
        for i, n in enumerate(m.graph.node):
            parts = n.name.strip("/").split("/")[:-1]
            paths = [".".join(parts[:k + 1]) for k in range(len(parts))]
            own = f"node_{n.op_type}_{i}"
            if key == "namespace":
                value = "/".join([": __main__.Model"] + [f"{p}: torch.nn.Module" for p in paths] + [f"{own}: aten.op"])
            else:
                value = repr([""] + paths + [own])
            n.name = own
            # NodeProto.metadata_props (field 9) is newer than Debian's onnx:
            # appended as bytes, which protobuf keeps as an unknown field.
            n.ParseFromString(n.SerializeToString() + entry_bytes(9, key, value))
        path = os.path.join(work, f"transformer_metadata_{key}.onnx")
        onnx.save(m, path)
        pic = json.loads(run(exe, "graph", path, "--fold", "repeat", "--format", "json").stdout)
        reps = [(b["name"], b["repeats"]) for b in pic["boxes"] if b["kind"] == "repeat"]
        ck.check(reps == [("model/layers.0", 12)], f"scopes from {key} metadata: {reps}")
    # --expand-functions: each call drawn as its body, a call inside a call too.
    from onnx import TensorProto
    inner = helper.make_function("local", "Scale", ["X"], ["Y"],
                                 [helper.make_node("Mul", ["X", "X"], ["Y"], name="square")],
                                 [helper.make_opsetid("", 17)])
    outer = helper.make_function("local", "Block", ["A", "B"], ["C"],
                                 [helper.make_node("Add", ["A", "B"], ["T"], name="add"),
                                  helper.make_node("Scale", ["T"], ["U"], name="scale", domain="local"),
                                  helper.make_node("Relu", ["U"], ["C"], name="relu")],
                                 [helper.make_opsetid("", 17), helper.make_opsetid("local", 1)])
    nodes = [helper.make_node("Block", ["x", "y"], ["h1"], name="first", domain="local"),
             helper.make_node("Block", ["h1", "y"], ["h2"], name="second", domain="local"),
             helper.make_node("Neg", ["h2"], ["z"], name="neg")]
    g = helper.make_graph(nodes, "calls", [helper.make_tensor_value_info(v, TensorProto.FLOAT, [2]) for v in "xy"],
                          [helper.make_tensor_value_info("z", TensorProto.FLOAT, [2])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)],
                          functions=[inner, outer])
    path = os.path.join(work, "functions.onnx")
    onnx.save(m, path)
    plain = json.loads(run(exe, "graph", path, "--fold", "none", "--format", "json").stdout)
    ck.check(sorted(b.get("op_type", "") for b in plain["boxes"] if b["kind"] == "node") ==
             ["Neg", "local::Block", "local::Block"], "functions: one box per call by default")
    r = run(exe, "graph", path, "--fold", "none", "--expand-functions", "--format", "json")
    pic = json.loads(r.stdout)
    ops = sorted(b.get("op_type", "") for b in pic["boxes"] if b["kind"] == "node")
    ck.check(ops == ["Add", "Add", "Mul", "Mul", "Neg", "Relu", "Relu"], f"--expand-functions: the bodies' ops: {ops}")
    ck.check(len(pic["clusters"]) == 4, f"--expand-functions: a cluster per call, the inner ones nested: {pic['clusters']}")
    by_id = {b["id"]: b for b in pic["boxes"]}
    pairs = sorted((by_id[e["from"]].get("op_type", by_id[e["from"]]["name"]),
                    by_id[e["to"]].get("op_type", by_id[e["to"]]["name"])) for e in pic["edges"])
    ck.check(pairs == sorted([("x", "Add"), ("y", "Add"), ("Add", "Mul"), ("Mul", "Relu"), ("Relu", "Add"),
                              ("y", "Add"), ("Add", "Mul"), ("Mul", "Relu"), ("Relu", "Neg"), ("Neg", "z")]),
             f"--expand-functions: values flow through the bodies: {pairs}")
    if dot_exe:
        counts, err = dot_counts(dot_exe, run(exe, "graph", path, "--fold", "none", "--expand-functions").stdout)
        ck.check(counts is not None and counts[0] == len(pic["boxes"]), f"--expand-functions: DOT parses: {err}")
    # --within: one scope alone, what crosses its border as inputs and outputs.
    path = os.path.join(work, "transformer_32.onnx")
    inner = json.loads(run(exe, "graph", path, "--within", "model/layers.3", "--format", "json").stdout)
    kinds = [b["kind"] for b in inner["boxes"]]
    names = [b["name"] for b in inner["boxes"] if b["kind"] == "node"]
    ck.check(kinds.count("node") == 15 and all(n.startswith("/model/layers.3/") for n in names) and
             kinds.count("input") == 1 and kinds.count("output") == 1,
             f"--within model/layers.3: its 15 nodes, one value in and one out: {kinds}")
    empty = os.path.join(work, "empty_graph.onnx")
    onnx.save(helper.make_model(helper.make_graph([], "empty", [], [])), empty)
    r = run(exe, "graph", empty, "--format", "json")
    ck.check(r.returncode == 0 and json.loads(r.stdout)["boxes"] == [], f"an empty graph: an empty picture ({r.stderr!r})")
    r = run(exe, "graph", path, "--within", "model/nowhere")
    ck.check(r.returncode == 2 and b"no node in the scope" in r.stderr, f"--within a missing scope: {r.returncode}")


# --- (c) hostile names ------------------------------------------------------

def check_hostile(ck, exe, dot_exe, onnx, work):
    from onnx import TensorProto, helper
    names = ['a"b', "back\\slash", "new\nline", "<script>alert(1)</script>", "x -> y; z [label=\"q\"]", "}{",
             "&amp;", "#lt;", "%% comment"]
    nodes = []
    prev = "input"
    for i, n in enumerate(names):
        out = n + f"_{i}"
        nodes.append(helper.make_node("Identity", [prev], [out], name=n))
        prev = out
    nodes.append(helper.make_node("Add", [prev, "self"], ["self"], name="reads its own output"))
    graph = helper.make_graph(nodes, "hostile", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1])],
                              [helper.make_tensor_value_info("self", TensorProto.FLOAT, [1])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    raw = bytearray(model.SerializeToString())
    # A name with bytes that are not UTF-8: replace the first "}{" name's bytes.
    at = raw.find(b"}{")
    raw[at:at + 2] = b"\xff\xfe"
    path = os.path.join(work, "hostile.onnx")
    with open(path, "wb") as f:
        f.write(raw)
    for fmt in ("dot", "json", "mermaid"):
        r = run(exe, "graph", path, "--fold", "none", "--format", fmt)
        ck.check(r.returncode == 0, f"hostile {fmt}: exit {r.returncode} {r.stderr[:200]!r}")
        if fmt == "json":
            try:
                pic = json.loads(r.stdout)
                ck.check(len(pic["boxes"]) == len(nodes) + 2, f"hostile json: {len(pic['boxes'])} boxes")
            except ValueError as e:
                ck.check(False, f"hostile json does not load: {e}")
        if fmt == "dot" and dot_exe:
            counts, err = dot_counts(dot_exe, r.stdout)
            ck.check(counts is not None and counts[0] == len(nodes) + 2, f"hostile dot: {counts} ({err})")
        if fmt == "mermaid":
            text = r.stdout.decode("utf-8", errors="strict")
            ck.check("<script>" not in text, "hostile mermaid: markup escaped")


def check_many_inputs(ck, exe, work, n=1000000):
    """A graph of 10^6 inputs (written as bytes: python3-onnx would take a
    minute): the default picture folds them to ranges and says so."""
    inputs = b"".join(f_bytes(11, f_bytes(1, b"i%d" % i)) for i in range(n))
    node = f_bytes(1, f_bytes(1, b"i0") + f_bytes(1, b"i1") + f_bytes(2, b"y") + f_bytes(3, b"add") + f_bytes(4, b"Add"))
    graph = node + f_bytes(2, b"many") + inputs + f_bytes(12, f_bytes(1, b"y"))
    opset = f_bytes(8, f_varint(2, 17))
    path = os.path.join(work, "many_inputs.onnx")
    with open(path, "wb") as f:
        f.write(f_varint(1, 8) + f_bytes(7, graph) + opset)
    r = run(exe, "graph", path, "--format", "json")
    pic = json.loads(r.stdout) if r.returncode == 0 else {"boxes": [], "note": r.stderr.decode()[:200]}
    ids = {b["id"] for b in pic["boxes"]}
    ck.check(0 < len(pic["boxes"]) <= 400 and "ranges" in pic["note"] and
             all(e["from"] in ids and e["to"] in ids for e in pic.get("edges", [])),
             f"10^6 inputs: the default picture in ranges ({pic['note']}, {len(pic['boxes'])} boxes)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--onnxview", required=True)
    ap.add_argument("--corpus", default="/usr/share/libonnx-testdata/data")
    ap.add_argument("--limit", type=int, default=0)
    args = ap.parse_args()
    try:
        import onnx  # noqa: F401
        import numpy  # noqa: F401
    except ImportError as e:
        print(f"graph_oracle: skipped: {e}")
        return SKIP
    dot_exe = shutil.which("dot")
    if not dot_exe:
        print("graph_oracle: Graphviz's dot not found: DOT outputs are not parsed")
    models = sorted(glob.glob(os.path.join(ROOT, "testdata", "**", "*.onnx"), recursive=True))
    corpus = sorted(glob.glob(os.path.join(args.corpus, "**", "model.onnx"), recursive=True))
    if args.limit and corpus:
        step = len(corpus) / min(args.limit, len(corpus))
        corpus = [corpus[int(i * step)] for i in range(min(args.limit, len(corpus)))]
    ck = Checks()
    for path in models + corpus:
        check_model(ck, args.onnxview, dot_exe, onnx, path)
    with tempfile.TemporaryDirectory() as work:
        check_folding(ck, args.onnxview, dot_exe, onnx, work)
        check_hostile(ck, args.onnxview, dot_exe, onnx, work)
        check_many_inputs(ck, args.onnxview, work)
    for f in ck.failures[:40]:
        print("FAIL", f)
    if len(ck.failures) > 40:
        print(f"... and {len(ck.failures) - 40} more")
    print(f"graph_oracle: {len(models) + len(corpus)} models")
    print(f"{ck.passed} passed, {len(ck.failures)} failed")
    return 1 if ck.failures else 0


if __name__ == "__main__":
    sys.exit(main())
