#!/usr/bin/python3
"""Checks `onnxview edit --extract` against python3-onnx's onnx.utils.extract_model.

  extract_oracle.py --onnxview BUILD/tools/onnxview [--corpus DIR] [--limit N]
                    [--ort-dir DIR] [--ort-limit N]

Models: those of testdata/, the corpus's model.onnx files with more than one
node (default /usr/share/libonnx-testdata/data), and some made here with
onnx.helper (a chain, a diamond with initializers, model-local functions
calling each other, an If whose branches read outer values). Each model that
onnx.checker accepts is first given its inferred value_info
(onnx.shape_inference.infer_shapes, as onnx's extractor does before it cuts),
then cut at several points (the whole graph; from the inputs to an early
value; from a middle value to the outputs; middle to middle; two outputs out of
order). For each cut, onnx's Extractor and `onnxview edit --extract` both run
and:
  - where onnx's result passes onnx.checker, the two are the same graph: nodes
    in order, inputs and outputs in the order given, initializers (names and
    values, in order), sparse initializers, the value_info set, the functions;
    opset imports: onnx's, less the domains no kept node (in subgraphs and
    functions too) uses; ir_version, producer, graph name and metadata are
    the input's;
  - where it does not (a subgraph reads an outer value whose producer onnx
    leaves out), ours holds every node onnx kept, in order, and every name our
    subgraphs take from outside is defined in our main graph;
  - onnx.checker accepts ours; `onnxview edit` may refuse a cut only where
    onnx's result fails onnx.checker (an incomplete type of a new input).
With onnxruntime (--ort-dir, as pack_oracle.py), the input model with the cut's
values added as outputs runs on random inputs; both extracted models are fed
those values: ours must give onnx's outputs bit for bit (where onnx's passes
the checker), and the original model's within rtol 1e-3, atol 1e-5.
Exits 77 (skipped) without python onnx, protoc or the corpus.
"""
import argparse
import base64
import glob
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import RANDOM_OPS, ROOT, SKIP, checker_ok, inputs_from, ort_case, setup  # noqa: E402


def escape(name):
    return name.replace("\\", "\\\\").replace(":", "\\:").replace(",", "\\,")


def subgraphs(node):
    for a in node.attribute:
        if a.HasField("g"):
            yield a.g
        yield from a.graphs


def outer_names(g, outer=()):
    """Names graph g reads (nodes, outputs, nested subgraphs) that it does not define."""
    defined = set(outer) | {i.name for i in g.input} | {t.name for t in g.initializer} | \
        {s.values.name for s in g.sparse_initializer} | {o for n in g.node for o in n.output}
    free = set()
    for n in g.node:
        free |= {i for i in n.input if i and i not in defined}
        for sg in subgraphs(n):
            free |= outer_names(sg, defined)
    free |= {o.name for o in g.output if o.name not in defined}
    return free


def domains_used(model):
    """Domains of the nodes of the main graph, its subgraphs and the functions ("" for ai.onnx)."""
    found = set()

    def walk(nodes):
        for n in nodes:
            found.add("" if n.domain == "ai.onnx" else n.domain)
            for sg in subgraphs(n):
                walk(sg.node)
    walk(model.graph.node)
    for f in model.functions:
        walk(f.node)
    return found


def graph_differences(onnx, ours, theirs, src):
    g, h = ours.graph, theirs.graph
    out = []
    if list(g.node) != list(h.node):
        out.append(f"nodes: {[n.name or n.output[0] for n in g.node]} != {[n.name or n.output[0] for n in h.node]}")
    if list(g.input) != list(h.input):
        out.append("inputs differ")
    if list(g.output) != list(h.output):
        out.append("outputs differ")
    if [t.name for t in g.initializer] != [t.name for t in h.initializer] or list(g.initializer) != list(h.initializer):
        out.append(f"initializers: {[t.name for t in g.initializer]} != {[t.name for t in h.initializer]}")
    if list(g.sparse_initializer) != list(h.sparse_initializer):
        out.append("sparse initializers differ")
    if sorted(v.SerializeToString() for v in g.value_info) != sorted(v.SerializeToString() for v in h.value_info):
        out.append(f"value_info: {sorted(v.name for v in g.value_info)} != {sorted(v.name for v in h.value_info)}")
    if {(f.domain, f.name): f for f in ours.functions} != {(f.domain, f.name): f for f in theirs.functions}:
        out.append(f"functions: {[f.name for f in ours.functions]} != {[f.name for f in theirs.functions]}")
    needed = domains_used(ours) | {""}
    want = [o for o in theirs.opset_import if ("" if o.domain == "ai.onnx" else o.domain) in needed]
    if list(ours.opset_import) != want:
        out.append(f"opsets: {[(o.domain, o.version) for o in ours.opset_import]} != {[(o.domain, o.version) for o in want]}")
    return out + carried_differences(ours, src)


def carried_differences(ours, src):
    out = []
    for field in ("ir_version", "producer_name", "producer_version", "domain", "model_version", "doc_string"):
        if getattr(ours, field) != getattr(src, field):
            out.append(f"{field} changed")
    if ours.graph.name != src.graph.name or list(ours.metadata_props) != list(src.metadata_props):
        out.append("graph name or metadata changed")
    return out


def outer_values_kept(ours, theirs):
    """Where onnx's extractor is wrong: ours keeps its nodes and defines what our subgraphs read."""
    out = []
    names = [n.SerializeToString() for n in ours.graph.node]
    it = iter(names)
    if not all(n.SerializeToString() in it for n in theirs.graph.node):
        out.append("ours lacks a node onnx kept, or reorders them")
    g = ours.graph
    defined = {i.name for i in g.input} | {t.name for t in g.initializer} | {o for n in g.node for o in n.output}
    for n in g.node:
        for sg in subgraphs(n):
            missing = outer_names(sg) - defined
            if missing:
                out.append(f"subgraph of {n.name or n.output[0]} reads {sorted(missing)}, not defined")
    return out


def cuts(model):
    """(inputs, outputs) pairs at several points of the main graph."""
    g = model.graph
    inits = {t.name for t in g.initializer} | {s.values.name for s in g.sparse_initializer}
    graph_inputs = [i.name for i in g.input if i.name not in inits]
    graph_outputs = [o.name for o in g.output]
    typed = {v.name for v in g.value_info if v.type.WhichOneof("value")} | set(graph_outputs)
    # Values with a type that are their node's only output (no cut through a node).
    values = [n.output[0] for n in g.node if len(n.output) == 1 and n.output[0] in typed]
    out = [(graph_inputs, graph_outputs)]
    if values:
        out.append((graph_inputs, [values[0]]))
        third, two_thirds = values[len(values) // 3], values[(2 * len(values)) // 3]
        if third not in graph_outputs:
            out.append((graph_inputs + [third], graph_outputs))
        if two_thirds != third:
            out.append(([third] + graph_inputs, [two_thirds]))
        if len(values) >= 2 and values[-1] != values[len(values) // 2]:
            out.append((graph_inputs, [values[-1], values[len(values) // 2]]))
    unique = []
    for c in out:
        if c not in unique and c[1]:
            unique.append(c)
    return unique


def helper_models(onnx):
    from onnx import TensorProto, helper
    import numpy as np
    from onnx import numpy_helper

    def vi(name, shape=(2, 3)):
        return helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape))

    def init(name, value):
        return numpy_helper.from_array(np.full((2, 3), value, dtype=np.float32), name)

    opset = [helper.make_opsetid("", 13)]
    models = {}
    chain = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["a"], name="relu"), helper.make_node("Neg", ["a"], ["b"], name="neg"),
         helper.make_node("Abs", ["b"], ["c"], name="abs"), helper.make_node("Exp", ["c"], ["d"], name="exp")],
        "chain", [vi("x")], [vi("d")])
    models["chain"] = helper.make_model(chain, opset_imports=opset)
    diamond = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["a"], name="add"), helper.make_node("Mul", ["a", "m"], ["b"], name="mul"),
         helper.make_node("Sub", ["a", "s"], ["c"], name="sub"), helper.make_node("Neg", ["x"], ["e"], name="neg"),
         helper.make_node("Add", ["b", "c"], ["d"], name="join"), helper.make_node("Mul", ["d", "e"], ["f"], name="out")],
        "diamond", [vi("x")], [vi("f"), vi("e")],
        initializer=[init("w", 1.5), init("m", 2.0), init("s", 0.25), init("unused", 9.0)])
    models["diamond"] = helper.make_model(diamond, opset_imports=opset)
    local = "onnxview.test"
    inner = helper.make_function(local, "Inner", ["x"], ["y"], [helper.make_node("Relu", ["x"], ["y"])], opset)
    outer = helper.make_function(local, "Outer", ["x"], ["y"],
                                 [helper.make_node("Inner", ["x"], ["t"], domain=local),
                                  helper.make_node("Neg", ["t"], ["y"])], opset + [helper.make_opsetid(local, 1)])
    unused = helper.make_function(local, "Unused", ["x"], ["y"], [helper.make_node("Abs", ["x"], ["y"])], opset)
    functions = helper.make_graph(
        [helper.make_node("Abs", ["x"], ["a"], name="abs"),
         helper.make_node("Outer", ["a"], ["b"], domain=local, name="call"),
         helper.make_node("Exp", ["b"], ["c"], name="exp")],
        "functions", [vi("x")], [vi("c")], value_info=[vi("a"), vi("b")])
    models["functions"] = helper.make_model(
        functions, functions=[unused, inner, outer],
        opset_imports=opset + [helper.make_opsetid(local, 1), helper.make_opsetid("com.unused", 1)])
    then_branch = helper.make_graph([helper.make_node("Add", ["o", "x"], ["t"])], "then", [], [vi("t")])
    else_branch = helper.make_graph([helper.make_node("Neg", ["o"], ["u"])], "else", [], [vi("u")])
    branches = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["o"], name="outer_value"),
         helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0, name="sum"),
         helper.make_node("Greater", ["s", "zero"], ["cond"], name="greater"),
         helper.make_node("If", ["cond"], ["r"], then_branch=then_branch, else_branch=else_branch, name="if"),
         helper.make_node("Exp", ["r"], ["y"], name="exp")],
        "branches", [vi("x")], [vi("y")],
        initializer=[numpy_helper.from_array(np.array(0.0, dtype=np.float32), "zero")])
    models["if_outer_value"] = helper.make_model(branches, opset_imports=opset)
    for m in models.values():
        m.ir_version = 8
    return models


def run_onnxview(exe, src, dst, inputs, outputs):
    spec = ",".join(map(escape, inputs)) + ":" + ",".join(map(escape, outputs))
    return subprocess.run([exe, "edit", src, dst, "--extract", spec], capture_output=True, text=True)


def decoded(result):
    import numpy as np
    types = {"float32": np.float32, "float64": np.float64, "int64": np.int64, "int32": np.int32, "int8": np.int8,
             "uint8": np.uint8, "bool": np.bool_, "int16": np.int16, "uint16": np.uint16, "float16": np.float16}
    if result.get("type") not in types:
        return None
    return np.frombuffer(base64.b64decode(result["data"]), dtype=types[result["type"]]).reshape(result["dims"])


def ort_compare(onnx, ort_dir, model, inputs, outputs, ours, theirs, onnx_right, work):
    """Problems found running the cut under onnxruntime, or None when it cannot run it."""
    import numpy as np
    feeds = inputs_from(onnx, model, None)
    if feeds is None or any(f is None for f in feeds):
        return None
    extended = onnx.ModelProto()
    extended.CopyFrom(model)
    present = {o.name for o in extended.graph.output} | {i.name for i in extended.graph.input}
    typed = {v.name: v for v in extended.graph.value_info}
    for name in inputs + outputs:
        if name not in present:
            if name not in typed:
                return None
            extended.graph.output.append(typed[name])
            present.add(name)
    path = os.path.join(work, "extended.onnx")
    onnx.save(extended, path)
    r = ort_case(ort_dir, [path], feeds, work)
    if "results" not in r or "outputs" not in r["results"][0]:
        return None
    values = {f["name"]: f for f in feeds}
    values.update({o["name"]: o for o in r["results"][0]["outputs"]})
    if any(n not in values for n in inputs + outputs):
        return None
    cut_feeds = [values[n] for n in inputs]
    models = [ours] + ([theirs] if onnx_right else [])
    r = ort_case(ort_dir, models, cut_feeds, work)
    if "results" not in r:
        return [f"onnxruntime: {r.get('error')}"]
    got = r["results"]
    if "outputs" not in got[0]:
        return [f"onnxruntime cannot run ours: {got[0].get('error')}"]
    problems = []
    if onnx_right and "outputs" in got[1] and got[0]["outputs"] != got[1]["outputs"]:
        problems.append("onnxruntime: outputs differ from onnx's extracted model's")
    for o in got[0]["outputs"]:
        a, b = decoded(o), decoded(values[o["name"]])
        if a is None or b is None:
            continue
        if a.shape != b.shape or not np.allclose(a, b, rtol=1e-3, atol=1e-5, equal_nan=True):
            problems.append(f"onnxruntime: output {o['name']} differs from the original model's")
    return problems


def main():
    ready = setup(argparse.ArgumentParser(), ort_limit=40)
    if ready is None:
        return SKIP
    args, onnx, corpus = ready
    from onnx.utils import Extractor
    ort = bool(args.ort_dir) and shutil.which("node") is not None and \
        os.path.isdir(os.path.join(args.ort_dir, "node_modules", "onnxruntime-node"))
    sources = [(p, None) for p in sorted(glob.glob(os.path.join(ROOT, "testdata", "*.onnx")))]
    sources += [(f"generated:{k}", m) for k, m in helper_models(onnx).items()]
    sources += [(p, None) for p in corpus]
    failures = []
    counts = {"models": 0, "cuts": 0, "compared": 0, "onnx wrong": 0, "onnx fails": 0, "refused": 0, "ort": 0}
    corpus_ort = 0
    with tempfile.TemporaryDirectory() as work:
        for name, model in sources:
            try:
                if model is None:
                    model = onnx.load(name)  # external data included: written back inline
                if len(model.graph.node) < 2 or not checker_ok(onnx, model):
                    continue
                model = onnx.shape_inference.infer_shapes(model)
            except Exception:  # noqa: BLE001 - nothing onnx can cut
                continue
            src = os.path.join(work, "in.onnx")
            onnx.save(model, src)
            counts["models"] += 1
            for inputs, outputs in cuts(model):
                where = f"{name} {inputs}:{outputs}"
                counts["cuts"] += 1
                theirs_path, ours_path = os.path.join(work, "theirs.onnx"), os.path.join(work, "ours.onnx")
                p = run_onnxview(args.onnxview, src, ours_path, inputs, outputs)
                try:
                    theirs = Extractor(model).extract_model(inputs, outputs)
                except Exception as e:  # noqa: BLE001 - onnx's extractor cannot make this cut (sparse initializers)
                    counts["onnx fails"] += 1
                    if p.returncode == 0 and not checker_ok(onnx, onnx.load(ours_path)):
                        failures.append((where, "onnx.checker rejects ours (onnx's extractor fails: "
                                                f"{type(e).__name__})"))
                    elif p.returncode != 0:
                        print(f"note: {where}: onnx's extractor fails ({type(e).__name__}), ours refuses: "
                              f"{p.stderr.strip()}")
                    continue
                onnx.save(theirs, theirs_path)
                onnx_right = checker_ok(onnx, theirs)
                if p.returncode != 0:
                    if onnx_right:
                        failures.append((where, f"exit {p.returncode}: {p.stderr.strip()}"))
                    else:  # what onnx writes fails its checker; refusing is right
                        counts["refused"] += 1
                    continue
                ours = onnx.load(ours_path)
                if onnx_right:
                    counts["compared"] += 1
                    problems = graph_differences(onnx, ours, theirs, model)
                else:
                    counts["onnx wrong"] += 1
                    print(f"note: {where}: onnx's result fails onnx.checker; ours: {len(ours.graph.node)} nodes, "
                          f"onnx's {len(theirs.graph.node)}")
                    problems = outer_values_kept(ours, theirs) + carried_differences(ours, model)
                if not checker_ok(onnx, ours):
                    problems.append("onnx.checker rejects ours")
                in_corpus = name in corpus
                random = any(n.op_type in RANDOM_OPS for n in model.graph.node) or \
                    any(n.op_type in RANDOM_OPS for f in model.functions for n in f.node)
                if ort and not problems and not random and (not in_corpus or not args.ort_limit or corpus_ort < args.ort_limit):
                    r = ort_compare(onnx, args.ort_dir, model, inputs, outputs, ours_path, theirs_path, onnx_right,
                                    work)
                    if r is not None:
                        counts["ort"] += 1
                        corpus_ort += in_corpus
                        problems += r
                failures += [(where, why) for why in problems]
                os.remove(ours_path)
    for where, why in failures:
        print(f"FAIL {where}: {why}")
    print(f"{counts['models']} models, {counts['cuts']} cuts: {counts['compared']} compared with onnx's extractor as "
          f"graphs, {counts['onnx wrong']} where onnx's result fails onnx.checker and {counts['onnx fails']} where "
          f"onnx's extractor fails (ours checked on its own), {counts['refused']} refused where onnx writes a model "
          f"its checker rejects, "
          f"{counts['ort']} run under onnxruntime" + ("" if ort else " (onnxruntime absent)") +
          f"; {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
