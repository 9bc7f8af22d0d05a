#!/usr/bin/python3
"""Checks `onnxview diff --match=auto` against models renamed by python3-onnx.

  match_oracle.py --onnxview BUILD/tools/onnxview [--corpus DIR] [--limit N]

For every model of testdata/ and --limit corpus models (default
/usr/share/libonnx-testdata/data), python3-onnx renames values and nodes:
  inner    every node and every value but the main graph's inputs and
           outputs: no signature, graph or weights section, the names
           section present, `same computation, names differ`, exit 0
  all      every value and node: no graph or weights section, each
           signature line `renamed`, one per main-graph input and output
           renamed, exit 1
  inner + attribute  also an INT attribute of a node + 1: graph 1 line
  inner + weight     also one element of a FLOAT initializer + 1: weights 1 line
And with the nodes' names removed, one node in the middle of a chain taken
out (its readers read its first input): with --match=name and auto, one
`removed` line and at most one `inputs` line per reader, not a line for
every node after it. The examples of docs/diff.md for --match=auto,
--weights=allclose and --max-changes, remade as the page says, print what
it shows.

Exits 77 (skipped) when python3-onnx or numpy is absent.
"""
import argparse
import copy
import glob
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import ROOT, SKIP, doc_block, rename_values, stride  # noqa: E402


def run_diff(onnxview, a, b, *extra):
    r = subprocess.run([onnxview, "diff", *extra, a, b], capture_output=True, text=True)
    sections, current = {}, None
    lines = r.stdout.splitlines()
    for line in lines[:-1]:
        if line.startswith("  "):
            sections[current].append(line.strip())
        else:
            current = line
            sections[current] = []
    return r.returncode, sections, (lines[-1] if lines else ""), r.stderr


def rename(onnx, model, keep_io):
    """Every value (but the main graph's inputs and outputs when keep_io) and
    every named node of every graph renamed; the same name gets the same new
    name everywhere, as subgraphs read outer values by name."""
    m = copy.deepcopy(model)
    new = {}
    keep = {v.name for v in m.graph.input} | {v.name for v in m.graph.output} if keep_io else set()

    def r(n):
        if n == "" or n in keep:
            return n
        return new.setdefault(n, f"renamed_{len(new)}")

    rename_values(m.graph, r, sparse=True, node_name=lambda i: f"node_{i}_{len(new)}")
    return m, len(new)


def first_int_attribute(onnx, g):
    for n in g.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.INT:
                a.i += 1
                return True
    return False


def cut_middle(model):
    """Names removed; the middle node with one output and a first input
    taken out, its readers rewired to that input. None when there is none."""
    m = copy.deepcopy(model)
    g = m.graph
    outputs = {v.name for v in g.output}
    for n in g.node:
        n.name = ""
    order = list(range(len(g.node)))
    middle = len(order) // 2
    for i in order[middle:] + order[:middle]:
        n = g.node[i]
        if len(n.output) != 1 or not n.input or not n.input[0] or n.output[0] in outputs:
            continue
        readers = sum(1 for x in g.node for v in x.input if v == n.output[0])
        if readers == 0:
            continue
        for x in g.node:
            x.input[:] = [n.input[0] if v == n.output[0] else v for v in x.input]
        del g.node[i]
        plain = copy.deepcopy(model)
        for x in plain.graph.node:
            x.name = ""
        return plain, m, readers
    return None


def check_model(onnx, numpy_helper, onnxview, path, work):
    failures = []
    model = onnx.load(path, load_external_data=True)
    base = os.path.join(work, "base.onnx")
    onnx.save(model, base)  # weights inline: the renamed copies find them too
    inner, renamed = rename(onnx, model, keep_io=True)
    p = os.path.join(work, "inner.onnx")
    onnx.save(inner, p)
    code, sections, last, err = run_diff(onnxview, base, p, "--match=auto")
    counted = [s for s in sections if s.split(" ")[0] in ("signature", "graph", "weights", "model")]
    if counted or code != 0 or (renamed and last != "same computation, names differ") or err:
        failures.append(f"inner: exit {code}, {counted} {sections.get('graph', [])[:3]}, '{last}' {err.strip()}")

    everything, _ = rename(onnx, model, keep_io=False)
    p = os.path.join(work, "all.onnx")
    onnx.save(everything, p)
    code, sections, last, err = run_diff(onnxview, base, p, "--match=auto")
    io = len(model.graph.input) + len(model.graph.output) - len(
        {v.name for v in model.graph.input} & {v.name for v in model.graph.output})
    sig = sections.get("signature", [])
    if "graph" in sections or "weights" in sections or any(": renamed '" not in s for s in sig) \
            or len(sig) != len(model.graph.input) + len(model.graph.output) or code != (1 if io else 0):
        failures.append(f"all: exit {code}, {sections} '{last}'")

    changed = copy.deepcopy(inner)
    if first_int_attribute(onnx, changed.graph):
        onnx.save(changed, p)
        code, sections, last, _ = run_diff(onnxview, base, p, "--match=auto")
        if len(sections.get("graph", [])) != 1 or "signature" in sections or "weights" in sections or code != 1:
            failures.append(f"inner + attribute: exit {code}, {sections}")
    for t in inner.graph.initializer:
        if t.data_type == onnx.TensorProto.FLOAT and int(numpy_helper.to_array(t).size) > 0:
            a = numpy_helper.to_array(t).copy()
            a.reshape(-1)[0] += 1
            changed = copy.deepcopy(inner)
            for x in changed.graph.initializer:
                if x.name == t.name:
                    x.CopyFrom(numpy_helper.from_array(a, t.name))
            onnx.save(changed, p)
            code, sections, last, _ = run_diff(onnxview, base, p, "--match=auto")
            if len(sections.get("weights", [])) != 1 or "graph" in sections or code != 1:
                failures.append(f"inner + weight: exit {code}, {sections}")
            break

    cut = cut_middle(model)
    if cut:
        plain, shorter, readers = cut
        a, b = os.path.join(work, "plain.onnx"), os.path.join(work, "cut.onnx")
        onnx.save(plain, a)
        onnx.save(shorter, b)
        for match in ("name", "auto"):
            code, sections, last, _ = run_diff(onnxview, a, b, "--match=" + match)
            graph = sections.get("graph", [])
            removed = [l for l in graph if l.endswith(": removed")]
            rest = [l for l in graph if not l.endswith(": removed") and ": inputs [" not in l]
            if len(removed) != 1 or rest or len(graph) > 1 + readers or code != 1:
                failures.append(f"cut --match={match}: {len(graph)} graph lines ({readers} readers): {graph[:4]}")
    return failures


def check_doc_examples(onnx, numpy_helper, onnxview, work):
    """docs/diff.md's examples of --match=auto, --weights=allclose and
    --max-changes, remade as the page says, print what it shows."""
    text = open(os.path.join(ROOT, "docs", "diff.md")).read()
    model = onnx.load(os.path.join(ROOT, "testdata", "small_cnn_inline.onnx"))
    onnx.save(model, os.path.join(work, "small_cnn_inline.onnx"))
    onnx.save(rename(onnx, model, keep_io=True)[0], os.path.join(work, "inner_renamed.onnx"))
    onnx.save(rename(onnx, model, keep_io=False)[0], os.path.join(work, "all_renamed.onnx"))
    tiny = copy.deepcopy(model)
    for t in tiny.graph.initializer:
        if t.name == "fc.bias":
            a = numpy_helper.to_array(t).copy()
            a.reshape(-1)[3] += 1e-6
            t.CopyFrom(numpy_helper.from_array(a, t.name))
    onnx.save(tiny, os.path.join(work, "tiny.onnx"))
    failures = []
    for shown in ("onnxview diff --match=auto small_cnn_inline.onnx inner_renamed.onnx",
                  "onnxview diff --match=auto small_cnn_inline.onnx all_renamed.onnx",
                  "onnxview diff --weights=allclose small_cnn_inline.onnx tiny.onnx     # fc.bias[3] + 1e-6",
                  "onnxview diff --weights=allclose:rtol=1e-4 small_cnn_inline.onnx tiny.onnx",
                  "onnxview diff --max-changes 2 small_cnn_inline.onnx inner_renamed.onnx"):
        command = shown.split("#")[0].split()
        r = subprocess.run([onnxview] + command[1:], cwd=work, capture_output=True, text=True)
        if r.stdout.splitlines() != doc_block(text, shown):
            failures.append(f"docs/diff.md: `{shown}` prints\n{r.stdout}")
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxview", required=True)
    ap.add_argument("--corpus", default="/usr/share/libonnx-testdata/data")
    ap.add_argument("--limit", type=int, default=40)
    args = ap.parse_args()
    try:
        import onnx
        from onnx import numpy_helper
    except ImportError:
        return SKIP
    models = sorted(glob.glob(os.path.join(ROOT, "testdata", "*.onnx")))
    corpus = sorted(glob.glob(os.path.join(args.corpus, "**", "model.onnx"), recursive=True))
    if corpus and args.limit > 0:
        models += stride(corpus, args.limit)
    bad = 0
    with tempfile.TemporaryDirectory() as work:
        for f in check_doc_examples(onnx, numpy_helper, os.path.abspath(args.onnxview), work):
            print("FAIL", f)
            bad += 1
        for path in models:
            try:
                failures = check_model(onnx, numpy_helper, args.onnxview, path, work)
            except Exception as e:  # a model python3-onnx cannot load or save
                failures = [f"python3-onnx: {e}"]
            for f in failures:
                print(f"FAIL {os.path.relpath(path, ROOT)}: {f}")
            bad += bool(failures)
    print(f"{len(models) - bad} of {len(models)} models pass")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
