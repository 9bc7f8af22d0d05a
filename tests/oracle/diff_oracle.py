#!/usr/bin/python3
"""Checks `onnxview diff` with changes injected by python3-onnx.

  diff_oracle.py --onnxview BUILD/tools/onnxview [--corpus DIR] [--limit N]

For every model of testdata/ and --limit corpus models with initializers
(default /usr/share/libonnx-testdata/data), one change at a time is made with
python3-onnx, and `onnxview diff ORIGINAL CHANGED` must report that change
and nothing else (the sections present, their line counts, the summary line,
exit 1):
  attribute  an INT attribute of a main-graph node + 1   graph: 1 line
  subgraph attribute, function attribute: the same in the first subgraph
             (depth first) or the first function that has one   graph: 1 line
  function node  the first function's last node removed  graph: 1 line
  weight shape, weight type, weight removed, weight added: a FLOAT initializer
             of 2 or more dims flattened, converted to DOUBLE, removed; a new
             one                                        weights: 1 line
  node       the main graph's last node removed          graph: 1 line
  ulp        one element of a FLOAT initializer + 1 ulp  weights: 1 line
  noise      every element of it + 1e-3 * N(0, 1)        weights: 1 line
  rename     the first graph input renamed, and its uses signature: 2 lines, graph: 1 per user
  dim        the first input's first dim changed         signature: 1 line
For ulp and noise the figures printed (differing count, first index, max
abs, max rel, mean abs, RMS, cosine) are compared with numpy's, --json
(version 2: structured changes) with the text, and --weights=none finds the models identical. Also:
`diff A A` prints `identical` (exit 0); `diff A pack(A)` is layout only
(exit 0, no counted section); a truncated or garbage file on either side
gives one error line on stderr, nothing on stdout, exit 2. The examples of
docs/diff.md, remade as the page says, print what it shows.

Exits 77 (skipped) when python3-onnx or numpy is absent.
"""
import argparse
import copy
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import ROOT, SKIP, doc_block, stride  # noqa: E402

FIGURES = re.compile(r"(\d+) of (\d+) values differ, first at (\d+)(?:, \d+ NaN against a number)?, max abs (\S+), "
                     r"max rel (\S+), mean abs (\S+), RMS (\S+), cosine (\S+)$")


def run_diff(onnxview, a, b):
    r = subprocess.run([onnxview, "diff", a, b], capture_output=True, text=True)
    sections = {}
    current = None
    lines = r.stdout.splitlines()
    for line in lines[:-1]:
        if line.startswith("  "):
            sections[current].append(line.strip())
        else:
            current = line
            sections[current] = []
    return r.returncode, sections, (lines[-1] if lines else ""), r.stderr


def close(x, y, rel=2e-5):
    return abs(x - y) <= rel * max(abs(x), abs(y)) or (x == y)


def reference_figures(np, old, new):
    """The figures of old -> new as values.hpp defines them, computed by numpy:
    NaN equals NaN, a NaN facing a number differs and is left out of the
    numeric figures, an infinity facing another value is an infinite difference."""
    a = old.astype(np.float64).reshape(-1)
    b = new.astype(np.float64).reshape(-1)
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    ok = ~(nan_a | nan_b)
    differ = (ok & (a != b)) | (nan_a ^ nan_b)
    changed = ok & (a != b)
    with np.errstate(all="ignore"):
        d = np.zeros_like(a)
        d[changed] = np.where(np.isinf(a) | np.isinf(b), np.inf, np.abs(a - b))[changed]
        rel = np.where(a[changed] == 0, np.inf, d[changed] / np.abs(a[changed]))
        x, y = a[ok], b[ok]
        cosine = float(x @ y / (np.linalg.norm(x) * np.linalg.norm(y)))
    return {
        "differing": int(differ.sum()), "count": a.size, "first": int(np.nonzero(differ)[0][0]) if differ.any() else 0,
        "max abs": float(d[ok].max()) if ok.any() else 0.0, "max rel": float(rel.max()) if rel.size else 0.0,
        "mean abs": float(d[ok].mean()) if ok.any() else 0.0,
        "RMS": float(np.sqrt((d[ok] * d[ok]).mean())) if ok.any() else 0.0, "cosine": cosine,
    }


def check_figures(np, line, old, new):
    """Failure messages for a weights line against numpy's figures of old -> new."""
    m = FIGURES.search(line)
    if not m:
        return [f"no figures in '{line}'"]
    want = reference_figures(np, old, new)
    got = dict(zip(["differing", "count", "first", "max abs", "max rel", "mean abs", "RMS", "cosine"],
                   [int(m.group(1)), int(m.group(2)), int(m.group(3))] + [float(m.group(i)) for i in range(4, 9)]))
    return [f"{k}: onnxview {got[k]}, numpy {want[k]}" for k in want
            if not (close(got[k], want[k]) or (np.isnan(got[k]) and np.isnan(want[k])))]


def bump_int(onnx, nodes):
    """Adds 1 to the first INT attribute of `nodes`; whether there was one."""
    for n in nodes:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.INT:
                a.i += 1
                return True
    return False


def bump_nested_int(onnx, graphs):
    """bump_int on the first of `graphs` (depth first) that has an INT attribute."""
    for g in graphs:
        if bump_int(onnx, g.node):
            return True
        if bump_nested_int(onnx, [a.g for n in g.node for a in n.attribute if a.HasField("g")] +
                           [x for n in g.node for a in n.attribute for x in a.graphs]):
            return True
    return False


def mutations(onnx, np, numpy_helper, model):
    """(name, changed model, expected {section: line count}, check(lines) or None)."""
    out = []
    g = model.graph
    for ni, n in enumerate(g.node):
        attrs = [a for a in n.attribute if a.type == onnx.AttributeProto.INT]
        if attrs:
            m = copy.deepcopy(model)
            a = [x for x in m.graph.node[ni].attribute if x.name == attrs[0].name][0]
            a.i += 1
            out.append(("attribute", m, {"graph": 1}, None))
            break
    if len(g.node) > 1:
        m = copy.deepcopy(model)
        del m.graph.node[-1]
        out.append(("node", m, {"graph": 1}, None))
    for i, t in enumerate(g.initializer):
        if t.data_type == onnx.TensorProto.FLOAT and np.prod(t.dims) >= 2 and t.data_location != 1:
            old = numpy_helper.to_array(t)
            new = old.copy()
            new.reshape(-1)[1] = np.nextafter(new.reshape(-1)[1], np.float32(np.inf))
            m = copy.deepcopy(model)
            m.graph.initializer[i].CopyFrom(numpy_helper.from_array(new, t.name))
            out.append(("ulp", m, {"weights": 1}, (lambda o, n: lambda lines: check_figures(np, lines[0], o, n))(old, new)))
            noisy = (old + np.float32(1e-3) * np.random.default_rng(5).standard_normal(old.shape).astype(np.float32))
            m = copy.deepcopy(model)
            m.graph.initializer[i].CopyFrom(numpy_helper.from_array(noisy, t.name))
            out.append(("noise", m, {"weights": 1}, (lambda o, n: lambda lines: check_figures(np, lines[0], o, n))(old, noisy)))
            break
    # A node attribute inside a subgraph, and inside a model-local function.
    m = copy.deepcopy(model)
    if bump_nested_int(onnx, [a.g for n in m.graph.node for a in n.attribute if a.HasField("g")] +
                       [x for n in m.graph.node for a in n.attribute for x in a.graphs]):
        out.append(("subgraph attribute", m, {"graph": 1}, None))
    m = copy.deepcopy(model)
    if any(bump_int(onnx, f.node) for f in m.functions[:1]):
        out.append(("function attribute", m, {"graph": 1}, None))
    if model.functions and len(model.functions[0].node) > 1:
        m = copy.deepcopy(model)
        del m.functions[0].node[-1]
        out.append(("function node", m, {"graph": 1}, None))
    # An initializer reshaped, converted to DOUBLE, removed; one added.
    for i, t in enumerate(g.initializer):
        if t.data_type == onnx.TensorProto.FLOAT and len(t.dims) >= 2 and t.data_location != 1:
            a = numpy_helper.to_array(t)
            m = copy.deepcopy(model)
            m.graph.initializer[i].CopyFrom(numpy_helper.from_array(a.reshape(-1), t.name))
            out.append(("weight shape", m, {"weights": 1}, None))
            m = copy.deepcopy(model)
            m.graph.initializer[i].CopyFrom(numpy_helper.from_array(a.astype(np.float64), t.name))
            out.append(("weight type", m, {"weights": 1}, None))
            m = copy.deepcopy(model)
            del m.graph.initializer[i]
            out.append(("weight removed", m, {"weights": 1}, None))
            break
    m = copy.deepcopy(model)
    m.graph.initializer.append(numpy_helper.from_array(np.arange(3, dtype=np.int64), "diff_oracle_added"))
    out.append(("weight added", m, {"weights": 1}, None))
    inits = {t.name for t in g.initializer}
    inputs = [v for v in g.input if v.name not in inits]
    subgraph_users = any(a.HasField("g") or len(a.graphs) for n in g.node for a in n.attribute)
    if inputs and not subgraph_users:
        name = inputs[0].name
        m = copy.deepcopy(model)
        users = 0
        for v in m.graph.input:
            if v.name == name:
                v.name = name + "_renamed"
        for n in m.graph.node:
            if name in n.input:
                users += 1
                for k, x in enumerate(n.input):
                    if x == name:
                        n.input[k] = name + "_renamed"
        expected = {"signature": 2}
        if users:
            expected["graph"] = users
        out.append(("rename", m, expected, None))
    if inputs and inputs[0].type.HasField("tensor_type") and len(inputs[0].type.tensor_type.shape.dim) > 0:
        m = copy.deepcopy(model)
        v = [x for x in m.graph.input if x.name == inputs[0].name][0]
        d = v.type.tensor_type.shape.dim[0]
        if d.HasField("dim_param"):
            d.dim_value = 1  # dim_param -> dim_value
        else:
            d.dim_value += 1
        out.append(("dim", m, {"signature": 1}, None))
    return out


def check_json(onnxview, a, b, expected, text_sections, changed_weights):
    """--json (version 2): the counts; every change an object whose fields
    give back the text's line (its section, its `text`); each weights change
    of kind values with figures equal to those of the text within its 6
    printed digits, naming the initializer python3-onnx changed
    (`changed_weights`) in the main graph."""
    r = subprocess.run([onnxview, "diff", "--json", a, b], capture_output=True, text=True)
    j = json.loads(r.stdout)
    problems = []
    if r.returncode != 1 or j.get("version") != 2 or j.get("result") != "differ" or j.get("same_computation"):
        problems.append(f"--json: exit {r.returncode}, {r.stdout[:200]}")
    counts = {k: v for k, v in j.get("counts", {}).items() if v}
    if counts != expected:
        problems.append(f"--json counts {counts}, expected {expected}")
    for section in ("model", "signature", "graph", "weights"):
        texts = [c.get("text") for c in j.get(section, [])]
        if texts != text_sections.get(section, []):
            problems.append(f"--json {section} {texts} against the text's {text_sections.get(section, [])}")
        if section in ("signature", "graph", "weights") and not all(c.get("counted") for c in j.get(section, [])):
            problems.append(f"--json {section}: a change not counted")
    values = [c for c in j.get("weights", []) if c.get("kind") == "values" and "figures" in c]
    if len(values) != expected.get("weights", 0):
        problems.append(f"--json values {values}")
    for c in values:
        v = c["figures"]
        m = FIGURES.search(c["text"])
        if (c.get("what") != "initializer" or c.get("subject") not in changed_weights or c.get("scope") or c.get("part")
                or not c["text"].startswith(f"initializer '{c.get('subject')}'")):
            problems.append(f"--json subject {c.get('what')} {c.get('subject')!r} against '{c['text']}'")
        if not m or int(m.group(1)) != v["differing"] or int(m.group(3)) != v["first_index"]:
            problems.append(f"--json figures {v} against '{c['text']}'")
            continue
        for k, g in (("max_abs", 4), ("mean_abs", 6), ("rms", 7)):
            if v[k] is not None and not close(v[k], float(m.group(g)), 1e-5):
                problems.append(f"--json {k} {v[k]} against '{c['text']}'")
    return problems


def summary_of(expected):
    return (f"{expected.get('signature', 0)} signature, {expected.get('graph', 0)} graph, "
            f"{expected.get('weights', 0)} weight changes")


def check_model(onnx, np, numpy_helper, onnxview, path, work):
    failures = []
    model = onnx.load(path)
    base = os.path.join(work, "a.onnx")
    onnx.save(model, base)
    code, sections, last, err = run_diff(onnxview, base, base)
    if code != 0 or last != "identical" or sections:
        failures.append(f"{path}: diff A A: exit {code}, '{last}', {sections} {err.strip()}")
    packed = os.path.join(work, "packed.onnx")
    subprocess.run([onnxview, "pack", base, packed, "--external", "packed.bin", "--threshold", "1"], check=True, capture_output=True)
    code, sections, last, err = run_diff(onnxview, base, packed)
    counted = [s for s in sections if s in ("signature", "graph", "weights")]
    # pack leaves a model it has nothing to do for as it is.
    same_bytes = open(base, "rb").read() == open(packed, "rb").read()
    if code != 0 or last != ("identical" if same_bytes else "same computation, layout differs") or counted:
        failures.append(f"{path}: diff A pack(A): exit {code}, '{last}', {sections} {err.strip()}")
    n = {}
    for name, changed, expected, check in mutations(onnx, np, numpy_helper, model):
        p = os.path.join(work, name + ".onnx")
        onnx.save(changed, p)
        code, sections, last, err = run_diff(onnxview, base, p)
        n[name] = n.get(name, 0) + 1
        got = {s: len(lines) for s, lines in sections.items() if s in ("signature", "graph", "weights")}
        problems = []
        if code != 1:
            problems.append(f"exit {code} {err.strip()}")
        if got != expected:
            problems.append(f"sections {got}, expected {expected}")
        if last != summary_of(expected):
            problems.append(f"last line '{last}'")
        extra = [s for s in sections if s not in ("signature", "graph", "weights", "model")]
        if extra:
            problems.append(f"unexpected sections {extra}")
        if not problems and check:
            problems += check(sections["weights"])
            changed_weights = [t.name for t, u in zip(model.graph.initializer, changed.graph.initializer) if t != u]
            problems += check_json(onnxview, base, p, expected, sections, changed_weights)
            # Without values, a weight change is no change at all.
            r = subprocess.run([onnxview, "diff", "--weights=none", base, p], capture_output=True, text=True)
            if r.returncode != 0 or r.stdout.splitlines()[-1:] != ["identical"]:
                problems.append(f"--weights=none: exit {r.returncode}, {r.stdout!r}")
        if problems:
            failures.append(f"{path}: {name}: " + "; ".join(problems) + f"\n    output: {sections}")
    return failures, n


def check_errors(onnxview, path, work):
    failures = []
    data = open(path, "rb").read()
    truncated = os.path.join(work, "truncated.onnx")
    open(truncated, "wb").write(data[: len(data) // 2])
    garbage = os.path.join(work, "garbage.onnx")
    open(garbage, "wb").write(bytes(range(256)) * 4)
    for a, b in ((truncated, path), (path, truncated), (garbage, path), (path, garbage)):
        r = subprocess.run([onnxview, "diff", a, b], capture_output=True, text=True)
        if r.returncode != 2 or r.stdout or len(r.stderr.strip().splitlines()) != 1:
            failures.append(f"diff {os.path.basename(a)} {os.path.basename(b)}: exit {r.returncode}, "
                            f"stdout {r.stdout!r}, stderr {r.stderr!r}")
    return failures


def check_doc_examples(onnx, np, numpy_helper, onnxview, work):
    """docs/diff.md's examples, remade as the page says, print what it shows."""
    text = open(os.path.join(ROOT, "docs", "diff.md")).read()
    failures = []
    m = onnx.load(os.path.join(ROOT, "testdata", "small_cnn_inline.onnx"))
    onnx.save(m, os.path.join(work, "before.onnx"))
    m.producer_version = "2.0"
    for n in m.graph.node:
        if n.name == "pool1":
            for a in n.attribute:
                if a.name == "strides":
                    a.ints[:] = [1, 1]
    m.graph.input[0].type.tensor_type.shape.dim[0].dim_value = 1
    for i, t in enumerate(m.graph.initializer):
        if t.name == "fc.bias":
            a = numpy_helper.to_array(t).copy()
            a[3] += 1e-3
            m.graph.initializer[i].CopyFrom(numpy_helper.from_array(a, t.name))
    onnx.save(m, os.path.join(work, "after.onnx"))
    nested = onnx.load(os.path.join(ROOT, "testdata", "nested_subgraphs.onnx"))
    bump_nested_int(onnx, [a.g for n in nested.graph.node for a in n.attribute if a.HasField("g")])
    onnx.save(nested, os.path.join(work, "nested_changed.onnx"))
    subprocess.run([onnxview, "pack", "before.onnx", "packed.onnx", "--external", "packed.bin"], cwd=work,
                   check=True, capture_output=True)
    os.symlink(os.path.join(ROOT, "testdata"), os.path.join(work, "testdata"))
    for command in ("onnxview hash testdata/small_cnn.onnx", "onnxview diff before.onnx after.onnx",
                    "onnxview diff before.onnx packed.onnx", "onnxview diff before.onnx after.onnx --json",
                    "onnxview diff testdata/nested_subgraphs.onnx nested_changed.onnx"):
        r = subprocess.run([onnxview] + command.split()[1:], cwd=work, capture_output=True, text=True)
        if r.stdout.splitlines() != doc_block(text, command):
            failures.append(f"docs/diff.md: `{command}` prints\n{r.stdout}")
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxview", required=True)
    ap.add_argument("--corpus", default="/usr/share/libonnx-testdata/data")
    ap.add_argument("--limit", type=int, default=40)
    args = ap.parse_args()
    try:
        import numpy as np
        import onnx
        from onnx import numpy_helper
    except ImportError as e:
        print(f"diff_oracle: skipped: {e}")
        return SKIP
    models = sorted(glob.glob(os.path.join(ROOT, "testdata", "*.onnx")))
    corpus = sorted(glob.glob(os.path.join(args.corpus, "**", "model.onnx"), recursive=True))
    with_weights = [p for p in corpus if "pytorch-converted" in p or "simple" in p]
    if with_weights and args.limit > 0:
        models += stride(with_weights, args.limit)
    failures = []
    changes = {}
    for path in models:
        with tempfile.TemporaryDirectory() as work:
            f, n = check_model(onnx, np, numpy_helper, args.onnxview, path, work)
            failures += f
            for k, v in n.items():
                changes[k] = changes.get(k, 0) + v
    with tempfile.TemporaryDirectory() as work:
        failures += check_errors(args.onnxview, os.path.join(ROOT, "testdata", "small_cnn_inline.onnx"), work)
    with tempfile.TemporaryDirectory() as work:
        failures += check_doc_examples(onnx, np, numpy_helper, os.path.abspath(args.onnxview), work)
    for f in failures:
        print("FAIL", f)
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(changes.items()))
    print(f"diff_oracle: {len(models)} models, changes: {kinds}; {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
