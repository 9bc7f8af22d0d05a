#!/usr/bin/python3
"""Checks `onnxview edit IN OUT --toposort` against a topological sort written
here, python3-onnx and onnxruntime.

  toposort_oracle.py --onnxview BUILD/tools/onnxview [--corpus DIR] [--limit N]
      [--ort-limit N] [--ort-dir DIR] [--keep]

The order expected of every graph (main graph, If/Loop/Scan bodies at any
depth, training graphs) and of every function: Kahn's algorithm, of the nodes
ready the earliest in the input first; node j waits for the FIRST node making
each value j reads: its inputs, and the outer values of its subgraphs (names
read in a body, or named as its output, that neither it nor a body around it
defines by an input, initializer or node output). Other names impose nothing.

For every model of testdata/, a few made here (a function, training graphs,
two makers of one value, bodies reading outer values; under eight seeds) and
the corpus's `**/model.onnx` (default /usr/share/libonnx-testdata/data, 1,072
models, about a minute; --limit N: N spread over it), the node lists of every
graph and function are shuffled (random.Random(model name)) and the shuffled
model sorted. OUT must load; each graph's nodes be in the order expected,
nodes compared by their bytes (bodies compared graph by graph); the model,
every node list sorted by bytes, equal the shuffled one; the `K nodes moved`
printed be the number of positions whose node changed; onnx.checker pass OUT
when it passes the original. The original sorted is byte-identical, `0 nodes
moved`, when it is in that order already (models that are not are counted and
checked like shuffled ones). A shuffle that makes a cycle (a value made twice)
must be refused (exit 1, nothing written).

--ort-limit N (default 40) corpus models spread over those checked, run in
onnxruntime-node (--ort-dir, default $ONNXRUNTIME_NODE_DIR or
/opt/onnxruntime-node; tests/oracle/ort_run.js) with their test_data_set_0
inputs, original and sorted shuffle: the outputs must be identical bytes.
Models onnxruntime cannot run, or with random ops, are counted, not compared.

Made by hand: a cycle in the main graph, in an If branch, through an outer
value of a branch, and a node reading its own output are refused (exit 1, one
line naming a node of the cycle, no OUT); --toposort with --extract exits 2;
a body reading a value a LATER node makes (one or two bodies deep, or only
naming it as its output) puts that maker first; a body defining the name
itself (a node output, a Loop body input) does not.
Last line: `N passed, M failed`. Exits 77 when python3-onnx is absent.
"""
import argparse
import base64
import collections
import glob
import heapq
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

ORT_TYPES = {"float32", "float64", "int64", "int32", "int8", "uint8", "bool", "int16", "uint16", "float16"}

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import RANDOM_OPS, ROOT, SKIP, Checks, spread  # noqa: E402

onnx = None  # python3-onnx, imported in main() so that its absence can skip


def run(*args):
    return subprocess.run([*map(str, args)], capture_output=True, text=True, timeout=300)


def subgraphs(node):
    """(attribute label, graph) of every graph a node holds."""
    for a in node.attribute:
        if a.type == onnx.AttributeProto.GRAPH:
            yield a.name, a.g
        elif a.type == onnx.AttributeProto.GRAPHS:
            for i, g in enumerate(a.graphs):
                yield f"{a.name}[{i}]", g


def tops(model):
    """Every graph or function whose node list is sorted, bodies aside."""
    out = [("graph", model.graph)]
    out += [(f"function {f.domain}:{f.name}", f) for f in model.functions]
    for i, t in enumerate(model.training_info):
        out += [(f"training_info[{i}].{k}", getattr(t, k)) for k in ("initialization", "algorithm") if t.HasField(k)]
    return out


def walk(model, fn):
    """fn(label, container) on every graph and function, bodies before the graph holding them."""
    def rec(label, c):
        for k, n in enumerate(c.node):
            for attr, g in subgraphs(n):
                rec(f"{label} > node {k} {n.op_type} '{n.name}' .{attr}", g)
        fn(label, c)
    for label, c in tops(model):
        rec(label, c)


def reorder(nodes, order):
    """Puts nodes[order[0]], nodes[order[1]], ... in place; copies, since clearing a
    repeated field invalidates the messages it held."""
    copies = []
    for j in order:
        c = onnx.NodeProto()
        c.CopyFrom(nodes[j])
        copies.append(c)
    del nodes[:]
    nodes.extend(copies)


def outer_reads(g):
    """Names a body reads that it does not define: what its holder waits for."""
    defined = {v.name for v in g.input} | {t.name for t in g.initializer} | \
        {s.values.name for s in g.sparse_initializer} | {o for n in g.node for o in n.output}
    used = {v.name for v in g.output}
    for n in g.node:
        used.update(n.input)
        for _, s in subgraphs(n):
            used |= outer_reads(s)
    return used - defined - {""}


def kahn(nodes):
    """The expected order as positions in `nodes`, or None on a cycle."""
    maker = {}
    for j, n in enumerate(nodes):
        for o in n.output:
            if o:
                maker.setdefault(o, j)
    waits, users = [0] * len(nodes), [[] for _ in nodes]
    for j, n in enumerate(nodes):
        reads = set(n.input)
        for _, s in subgraphs(n):
            reads |= outer_reads(s)
        # A node reading its own output waits for itself: never ready, a cycle.
        for d in {maker[r] for r in reads if r in maker}:
            waits[j] += 1
            users[d].append(j)
    ready = [j for j, w in enumerate(waits) if w == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        j = heapq.heappop(ready)
        order.append(j)
        for u in users[j]:
            waits[u] -= 1
            if waits[u] == 0:
                heapq.heappush(ready, u)
    return order if len(order) == len(nodes) else None


def expected_sort(model):
    """(sorted copy, nodes moved, label of a graph with a cycle or None)."""
    exp = onnx.ModelProto()
    exp.CopyFrom(model)
    moved, cycles = [0], []

    def fn(label, c):
        order = kahn(c.node)
        if order is None:
            cycles.append(label)
        else:
            moved[0] += sum(1 for k, j in enumerate(order) if k != j)
            reorder(c.node, order)
    walk(exp, fn)
    return exp, moved[0], (cycles[0] if cycles else None)


def by_bytes(label, c):
    reorder(c.node, sorted(range(len(c.node)), key=lambda j: c.node[j].SerializeToString()))


def node_key(n):
    """A node's bytes with the node lists of its bodies sorted, so that each graph's
    order is compared on its own level."""
    c = onnx.NodeProto()
    c.CopyFrom(n)
    holder = onnx.ModelProto()
    for _, g in subgraphs(c):
        holder.graph.CopyFrom(g)
        walk(holder, by_bytes)
        g.CopyFrom(holder.graph)
    return c.SerializeToString()


def canonical(model):
    c = onnx.ModelProto()
    c.CopyFrom(model)
    walk(c, by_bytes)
    return c


def describe(n):
    return f"{n.op_type} '{n.name}' -> {','.join(n.output)}"


def compare_orders(ck, name, label, got, exp):
    """Checks got's nodes are exp's, in exp's order, level by level."""
    gk, ek = [node_key(n) for n in got.node], [node_key(n) for n in exp.node]
    if gk != ek:
        k = next((i for i, (a, b) in enumerate(zip(gk, ek)) if a != b), min(len(gk), len(ek)))
        ck.check(False, f"{name}: {label}: node {k} of {len(ek)} is "
                 f"{describe(got.node[k]) if k < len(gk) else 'missing'}, expected "
                 f"{describe(exp.node[k]) if k < len(ek) else 'none'}; got order "
                 f"{[n.name or n.op_type for n in got.node][:12]}, expected {[n.name or n.op_type for n in exp.node][:12]}")
        return
    ck.check(True, "")
    for k, (g, e) in enumerate(zip(got.node, exp.node)):
        for (attr, gs), (_, es) in zip(subgraphs(g), subgraphs(e)):
            compare_orders(ck, name, f"{label} > node {k} {g.op_type} '{g.name}' .{attr}", gs, es)


def sort_and_check(ck, tally, exe, name, src, model, out):
    """Runs --toposort on src (model, as loaded) into out; checks (a), (b), (c), (f).
    Returns (sorted model or None, stdout, expected moved)."""
    exp, moved, cycle = expected_sort(model)
    r = run(exe, "edit", src, out, "--toposort")
    if cycle:
        tally["cycle made by the shuffle"] += 1
        ck.check(r.returncode == 1 and not os.path.exists(out),
                 f"{name}: {cycle} has a cycle (a value with several makers): exits {r.returncode}, "
                 f"OUT {'written' if os.path.exists(out) else 'not written'}")
        return None, r.stdout, moved
    if not ck.check(r.returncode == 0, f"{name}: --toposort exits {r.returncode}: {r.stderr.strip()[:300]}"):
        return None, r.stdout, moved
    try:
        got = onnx.load(out, load_external_data=False)
    except Exception as e:  # noqa: BLE001 - an unreadable OUT is the failure itself
        ck.check(False, f"{name}: OUT does not load with onnx: {e}")
        return None, r.stdout, moved
    ck.check(True, "")
    for (label, g), (_, e) in zip(tops(got), tops(exp)):
        compare_orders(ck, name, label, g, e)
    # Bytes, not ==: a NaN in a tensor is unequal to itself.
    a, b = canonical(got), canonical(model)
    if not ck.check(a.SerializeToString() == b.SerializeToString(), f"{name}: OUT differs from IN beyond node order"):
        diff = [f.name for f in onnx.ModelProto.DESCRIPTOR.fields if str(getattr(a, f.name)) != str(getattr(b, f.name))]
        ck.failures[-1] += f" (ModelProto fields {diff})"
    m = re.search(r"(\d+) nodes? moved", r.stdout)
    ck.check(m is not None and int(m.group(1)) == moved,
             f"{name}: prints {r.stdout.strip()!r}, expected {moved} nodes moved")
    return got, r.stdout, moved


def checker_passes(path):
    try:
        onnx.checker.check_model(path)
        return True
    except Exception:  # noqa: BLE001 - any refusal of the checker
        return False


def check_model(ck, tally, exe, name, src, work, ort):
    try:
        original = onnx.load(src, load_external_data=False)
    except Exception:  # noqa: BLE001 - python3-onnx cannot read it: nothing to compare with
        tally["not loadable by onnx"] += 1
        return
    tally["models"] += 1
    d = tempfile.mkdtemp(dir=work)
    # External data stays beside the files the checker reads.
    for t in onnx.external_data_helper._get_all_tensors(original):
        if t.data_location == onnx.TensorProto.EXTERNAL:
            loc = next((e.value for e in t.external_data if e.key == "location"), "")
            if loc and os.path.isfile(os.path.join(os.path.dirname(src), loc)):
                shutil.copy(os.path.join(os.path.dirname(src), loc), os.path.join(d, loc))
    shuffled = onnx.ModelProto()
    shuffled.CopyFrom(original)
    rng = random.Random(name)
    walk(shuffled, lambda label, c: reorder(c.node, rng.sample(range(len(c.node)), len(c.node))))
    shuffled_path, out = os.path.join(d, "shuffled.onnx"), os.path.join(d, "sorted.onnx")
    onnx.save(shuffled, shuffled_path)
    got, _, _ = sort_and_check(ck, tally, exe, name, shuffled_path, shuffled, out)
    if got is not None and checker_passes(src):
        tally["checker passes the original"] += 1
        ck.check(checker_passes(out), f"{name}: onnx.checker passes the original, not the sorted shuffle")
    # A copy beside the external data: onnxview refuses to move relative locations.
    copy, again = os.path.join(d, "original.onnx"), os.path.join(d, "original_sorted.onnx")
    shutil.copy(src, copy)
    got2, stdout, moved = sort_and_check(ck, tally, exe, name + " (original)", copy, original, again)
    if got2 is not None and moved == 0:
        with open(src, "rb") as f, open(again, "rb") as g:
            ck.check(f.read() == g.read(), f"{name}: sorting the original, in order already, changes its bytes")
        ck.check(" 0 nodes moved" in stdout, f"{name}: original in order: prints {stdout.strip()!r}")
    elif got2 is not None:
        tally["originals not in order (checked as shuffled)"] += 1
        print(f"note: {name}: the original is not in topological order ({moved} nodes move)")
    if ort and got is not None:
        check_ort(ck, tally, name, src, original, out, d, ort)


def numbered(directory, prefix):
    files = glob.glob(os.path.join(directory, prefix + "_*.pb"))
    return sorted(files, key=lambda f: int(re.search(r"_(\d+)\.pb$", f).group(1)))


def ort_inputs(model, src):
    """ort_run.js's inputs from test_data_set_0, or None when they are not plain tensors it takes."""
    from onnx import numpy_helper
    inits = {t.name for t in model.graph.initializer}
    graph_inputs = [v for v in model.graph.input if v.name not in inits]
    pbs = numbered(os.path.join(os.path.dirname(src), "test_data_set_0"), "input")
    if len(pbs) != len(graph_inputs) or any(not v.type.HasField("tensor_type") for v in graph_inputs):
        return None
    out = []
    for v, pb in zip(graph_inputs, pbs):
        t = onnx.TensorProto()
        with open(pb, "rb") as f:
            t.ParseFromString(f.read())
        a = numpy_helper.to_array(t)
        if str(a.dtype) not in ORT_TYPES:
            return None
        out.append({"name": v.name, "type": str(a.dtype), "dims": list(a.shape),
                    "data": base64.b64encode(a.tobytes()).decode()})
    return out


def all_ops(model):
    ops = set()
    walk(model, lambda label, c: ops.update(n.op_type for n in c.node))
    return ops


def check_ort(ck, tally, name, src, original, out, work, ort_dir):
    if all_ops(original) & RANDOM_OPS:
        tally["ort: random ops, not compared"] += 1
        return
    inputs = ort_inputs(original, src)
    if inputs is None:
        tally["ort: inputs not plain tensors, not compared"] += 1
        return
    spec = os.path.join(work, "ort.json")
    with open(spec, "w") as f:
        json.dump({"models": [src, out], "inputs": inputs}, f)
    p = subprocess.run(["node", os.path.join(ROOT, "tests", "oracle", "ort_run.js"), spec],
                       capture_output=True, text=True, cwd=ort_dir, timeout=300)
    try:
        before, after = json.loads(p.stdout)["results"]
    except (ValueError, KeyError):
        ck.check(False, f"{name}: ort_run.js fails: {(p.stdout + p.stderr).strip()[:300]}")
        return
    if before.get("error"):
        tally["ort: onnxruntime cannot run the original"] += 1
        return
    tally["ort: outputs compared"] += 1
    ck.check(not after.get("error") and after["outputs"] == before["outputs"],
             f"{name}: onnxruntime: sorted shuffle " +
             (f"fails: {after['error'][:300]}" if after.get("error") else "gives other outputs than the original"))


# Models made here -------------------------------------------------------------------------------------------

def vi(name, elem=1, shape=(2,)):
    return onnx.helper.make_tensor_value_info(name, elem, list(shape))


def model_of(nodes, inputs, outputs, **kw):
    g = onnx.helper.make_graph(nodes, "g", [vi(i, 9 if i == "c" else 1, () if i == "c" else (2,)) for i in inputs],
                               [vi(o) for o in outputs])
    m = onnx.helper.make_model(g, opset_imports=[onnx.helper.make_opsetid("", 13)], **kw)
    m.ir_version = 8
    return m


def node(op, ins, outs, name="", **attrs):
    return onnx.helper.make_node(op, ins, outs, name=name, **attrs)


def branch(nodes, out, inputs=()):
    return onnx.helper.make_graph(nodes, "body", list(inputs), [vi(out)])


def synthetic():
    """Every container kind: a function, training graphs, bodies at two depths
    reading outer values, a Loop body, and a value with two makers."""
    h = onnx.helper
    f = h.make_function("local", "chain", ["i"], ["o"], [
        node("Relu", ["i"], ["p"]), node("Neg", ["p"], ["q"]), node("Abs", ["q"], ["r"]), node("Add", ["r", "p"], ["o"])],
        [h.make_opsetid("", 13)])
    inner = node("If", ["c"], ["t"], "inner", then_branch=branch([node("Add", ["b", "a"], ["tt"])], "tt"),
                 else_branch=branch([node("Neg", ["x"], ["te"])], "te"))
    body = branch([node("Identity", ["ci"], ["co"]), node("Add", ["vi", "b"], ["vo"])], "vo",
                  [vi("it", 7, ()), vi("ci", 9, ()), vi("vi")])
    body.output.insert(0, vi("co", 9, ()))
    nodes = [node("Relu", ["x"], ["a"], "n1"), node("Add", ["a", "x"], ["b"], "n2"),
             node("If", ["c"], ["i1"], "outer_if", then_branch=branch([inner, node("Neg", ["t"], ["u"])], "u"),
                  else_branch=branch([node("Abs", ["a"], ["w"])], "w")),
             node("Loop", ["", "c", "a"], ["l1"], "loop", body=body),
             node("Neg", ["a"], ["dup"], "dup1"), node("Abs", ["b"], ["dup"], "dup2"),
             node("Identity", ["dup"], ["y2"], "n7"), node("chain", ["i1"], ["y1"], "call", domain="local"),
             node("Sum", ["y1", "l1", "y2"], ["y"], "n9")]
    m = model_of(nodes, ["x", "c"], ["y"], functions=[f])
    m.opset_import.append(h.make_opsetid("local", 1))
    init = h.make_graph([node("Constant", [], ["k"], value=h.make_tensor("kv", 1, [2], [1, 2])),
                         node("Neg", ["k"], ["k2"]), node("Abs", ["k2"], ["k3"])], "init", [], [vi("k3")])
    algo = h.make_graph([node("Add", ["x", "y"], ["s"]), node("Neg", ["s"], ["s2"]),
                         node("If", ["c"], ["s3"], then_branch=branch([node("Abs", ["s2"], ["z1"])], "z1"),
                              else_branch=branch([node("Neg", ["s"], ["z2"])], "z2"))], "algo", [], [vi("s3")])
    m.training_info.append(h.make_training_info(algo, [], init, []))
    return m


def cycle_models():
    """name -> (model, names of which the message must give one)."""
    cyc = [node("Add", ["x", "b"], ["a"], "first"), node("Relu", ["a"], ["b"], "second"),
           node("Identity", ["a"], ["y"], "third")]
    then = branch([node("Add", ["x", "b"], ["a"], "first"), node("Relu", ["a"], ["b"], "second"),
                   node("Identity", ["a"], ["t"], "third")], "t")
    return {
        "cycle in the main graph": (model_of(cyc, ["x"], ["y"]), ("first", "second")),
        "cycle in an If branch": (model_of([node("If", ["c"], ["y"], "holder", then_branch=then,
                                                 else_branch=branch([node("Neg", ["x"], ["e"])], "e"))],
                                           ["x", "c"], ["y"]), ("first", "second")),
        "self-loop": (model_of([node("Add", ["x", "s"], ["s"], "self"), node("Identity", ["s"], ["y"], "last")],
                               ["x"], ["y"]), ("self",)),
        "cycle through a branch's outer value": (model_of(
            [node("If", ["c"], ["t"], "holder", then_branch=branch([node("Neg", ["u"], ["tt"])], "tt"),
                  else_branch=branch([node("Neg", ["x"], ["te"])], "te")),
             node("Relu", ["t"], ["u"], "user"), node("Identity", ["u"], ["y"], "last")], ["x", "c"], ["y"]),
            ("holder", "user")),
    }


def outer_models():
    """name -> (model, main graph's node names expected in OUT): a holder first, then the maker of 'v'."""
    maker = node("Add", ["x", "x"], ["v"], "maker")
    els = branch([node("Neg", ["x"], ["e"])], "e")

    def holder(then):
        return node("If", ["c"], ["o"], "holder", then_branch=then, else_branch=els)
    deep = node("If", ["c"], ["t"], then_branch=branch([node("Neg", ["v"], ["tt"])], "tt"),
                else_branch=branch([node("Neg", ["x"], ["te"])], "te"))
    loop_body = branch([node("Identity", ["ci"], ["co"]), node("Neg", ["v"], ["vo"])], "vo",
                       [vi("it", 7, ()), vi("ci", 9, ()), vi("v")])
    loop_body.output.insert(0, vi("co", 9, ()))
    cases = {
        "a branch reads 'v'": ([holder(branch([node("Neg", ["v"], ["t"])], "t"))], ["maker", "holder"]),
        "a branch's branch reads 'v'": ([holder(branch([deep], "t"))], ["maker", "holder"]),
        "a branch names 'v' as its output": ([holder(branch([], "v"))], ["maker", "holder"]),
        "a branch makes 'v' itself": ([holder(branch([node("Neg", ["x"], ["v"]), node("Neg", ["v"], ["t"])], "t"))],
                                      ["holder", "maker"]),
        "a Loop body's input is 'v'": ([node("Loop", ["", "c", "x"], ["o"], "holder", body=loop_body)],
                                       ["holder", "maker"]),
    }
    return {k: (model_of(ns + [maker, node("Sum", ["o", "v"], ["y"], "last")], ["x", "c"], ["y"]), want + ["last"])
            for k, (ns, want) in cases.items()}


def check_made(ck, tally, exe, work):
    for i, (name, (m, names)) in enumerate(cycle_models().items()):
        src, out = os.path.join(work, "cycle.onnx"), os.path.join(work, f"cycle_out{i}.onnx")
        onnx.save(m, src)
        r = run(exe, "edit", src, out, "--toposort")
        msg = r.stderr.strip()
        ck.check(r.returncode == 1 and len(msg.splitlines()) == 1 and "cycle" in msg and
                 any(f"'{n}'" in msg for n in names) and not os.path.exists(out),
                 f"{name}: exits {r.returncode}, stderr {msg!r}, OUT {'written' if os.path.exists(out) else 'absent'}; "
                 f"expected exit 1, one line naming {' or '.join(names)}, no OUT")
    src, out = os.path.join(work, "cycle.onnx"), os.path.join(work, "extract_out.onnx")
    r = run(exe, "edit", src, out, "--toposort", "--extract", "x:y")
    ck.check(r.returncode == 2 and not os.path.exists(out),
             f"--toposort --extract x:y exits {r.returncode} (expected 2): {r.stderr.strip()[:200]}")
    for i, (name, (m, want)) in enumerate(outer_models().items()):
        src, out = os.path.join(work, "outer.onnx"), os.path.join(work, f"outer_out{i}.onnx")
        onnx.save(m, src)
        got, _, _ = sort_and_check(ck, tally, exe, name, src, m, out)
        if got is not None:
            order = [n.name for n in got.graph.node]
            ck.check(order == want, f"{name}: main graph order {order}, expected {want}")
    m = synthetic()
    src = os.path.join(work, "synthetic.onnx")
    onnx.save(m, src)
    for seed in range(8):
        check_model(ck, tally, exe, f"synthetic#{seed}", src, work, None)


def main():
    global onnx
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--onnxview", required=True)
    ap.add_argument("--corpus", default="/usr/share/libonnx-testdata/data")
    ap.add_argument("--limit", type=int, default=0, help="N corpus models spread over it (0: all)")
    ap.add_argument("--ort-limit", type=int, default=40, help="N corpus models run in onnxruntime (0: none)")
    ap.add_argument("--ort-dir", default=os.environ.get("ONNXRUNTIME_NODE_DIR", "/opt/onnxruntime-node"))
    ap.add_argument("--keep", action="store_true", help="keep the temporary files, and say where")
    args = ap.parse_args()
    try:
        import onnx as onnx_module
        import onnx.checker  # noqa: F401
        import onnx.external_data_helper  # noqa: F401
        onnx = onnx_module
    except ImportError as e:
        print(f"toposort_oracle: skipped: {e}")
        return SKIP
    start = time.monotonic()
    exe = os.path.abspath(args.onnxview)
    testdata = sorted(glob.glob(os.path.join(ROOT, "testdata", "*.onnx")))
    corpus = spread(sorted(glob.glob(os.path.join(args.corpus, "**", "model.onnx"), recursive=True)), args.limit)
    ort = args.ort_dir if args.ort_limit and shutil.which("node") and \
        os.path.isdir(os.path.join(args.ort_dir, "node_modules", "onnxruntime-node")) else None
    ort_sample = set(spread([m for m in corpus if os.path.isdir(os.path.join(os.path.dirname(m), "test_data_set_0"))],
                            args.ort_limit)) if ort else set()
    ck, tally = Checks(), collections.Counter()
    work = tempfile.mkdtemp(prefix="toposort_oracle.")
    try:
        check_made(ck, tally, exe, work)
        for path in testdata:
            check_model(ck, tally, exe, os.path.relpath(path, ROOT), path, work, None)
        for path in corpus:
            check_model(ck, tally, exe, os.path.relpath(path, args.corpus), path, work,
                        ort if path in ort_sample else None)
    finally:
        if args.keep:
            print(f"kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(f"toposort_oracle: {len(testdata)} testdata and {len(corpus)} corpus models, {tally['models']} checked "
          f"(made ones included), {time.monotonic() - start:.1f} s")
    for k, n in sorted(tally.items()):
        if k != "models":
            print(f"  {k}: {n}")
    if not ort:
        print("  onnxruntime: not run (no node, or no node_modules/onnxruntime-node in --ort-dir, or --ort-limit 0)")
    return ck.finish()


if __name__ == "__main__":
    sys.exit(main())
