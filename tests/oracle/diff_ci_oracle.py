#!/usr/bin/python3
"""Checks the options of `onnxview diff` a CI relies on, with python3-onnx and numpy.

  diff_ci_oracle.py --onnxview BUILD/tools/onnxview [--corpus DIR] [--limit N]

For testdata/ and --limit corpus models with a FLOAT initializer:
  --weights=allclose:rtol=R,atol=A  the first FLOAT initializer with noise
      (N(0, 1) times 1e-6, 1e-4, 1e-2), and in one case a NaN in both and an
      infinity in both; for each of 4 x 3 tolerances, `same computation,
      weights within tolerance` and exit 0 exactly when numpy.allclose(old,
      new, R, A, equal_nan=True) (as doubles) holds, else one weights line
      naming how many values are beyond;
  --fail-on  a weights-only change: exit 1 with weights listed, 0 with graph
      or signature; an attribute change: 1 with graph, 0 with weights;
  --max-changes N  on a model whose every node is renamed (diff by name):
      no section longer than N lines plus `... K more`, K the lines left
      out, and the same last line as without the option;
  --ignore=names  on the same model: no section at all, `same computation,
      names differ`, exit 0 (with --match=auto the names section is there),
      and --json counts every main-graph node renamed;
  --ignore=value_info  a value_info entry added: the same output as without
      the option (value_info is never compared), exit 0, nothing counted.
Exits 77 (skipped) when python3-onnx or numpy is absent.
"""
import argparse
import copy
import glob
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import ROOT, SKIP, stride  # noqa: E402

TOLERANCES = [(r, a) for r in (0.0, 1e-5, 1e-3, 1e-1) for a in (0.0, 1e-8, 1e-3)]


def diff(onnxview, a, b, *extra):
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


def first_float(onnx, numpy_helper, model):
    for i, t in enumerate(model.graph.initializer):
        if t.data_type == onnx.TensorProto.FLOAT and numpy_helper.to_array(t).size >= 4:
            return i
    return None


def with_values(numpy_helper, model, i, values):
    m = copy.deepcopy(model)
    name = m.graph.initializer[i].name
    m.graph.initializer[i].CopyFrom(numpy_helper.from_array(values, name))
    return m


def check_allclose(onnx, np, numpy_helper, onnxview, model, i, work):
    failures = []
    old = numpy_helper.to_array(model.graph.initializer[i]).astype(np.float32)
    rng = np.random.default_rng(7)
    a_path, b_path = os.path.join(work, "a.onnx"), os.path.join(work, "b.onnx")
    for case, scale in enumerate((1e-6, 1e-4, 1e-2)):
        base = old.copy()
        if case == 1:  # NaN facing NaN is close, an infinity facing itself too
            base.reshape(-1)[0] = np.nan
            base.reshape(-1)[1] = np.inf
        new = (base + scale * rng.standard_normal(base.shape)).astype(np.float32)
        if case == 1:
            new.reshape(-1)[0] = np.nan
            new.reshape(-1)[1] = np.inf
        onnx.save(with_values(numpy_helper, model, i, base), a_path)
        onnx.save(with_values(numpy_helper, model, i, new), b_path)
        for rtol, atol in TOLERANCES:
            want = bool(np.allclose(base.astype(np.float64), new.astype(np.float64), rtol=rtol, atol=atol,
                                    equal_nan=True))
            beyond = int((~np.isclose(base.astype(np.float64), new.astype(np.float64), rtol=rtol, atol=atol,
                                      equal_nan=True)).sum())
            code, sections, last, err = diff(onnxview, a_path, b_path, f"--weights=allclose:rtol={rtol!r},atol={atol!r}")
            weights = sections.get("weights", [])
            if want:
                ok = code == 0 and last == "same computation, weights within tolerance" and not sections
            else:
                ok = code == 1 and len(weights) == 1 and weights[0].find(f", {beyond} beyond rtol ") > 0
            if not ok or err:
                failures.append(f"allclose scale {scale} rtol {rtol} atol {atol}: numpy {want} ({beyond} beyond), "
                                f"onnxview exit {code} {weights} '{last}' {err.strip()}")
    return failures


def check_fail_on(onnx, np, numpy_helper, onnxview, model, i, work):
    failures = []
    a_path, b_path = os.path.join(work, "a.onnx"), os.path.join(work, "b.onnx")
    onnx.save(model, a_path)
    values = numpy_helper.to_array(model.graph.initializer[i]).copy()
    values.reshape(-1)[0] += 1
    onnx.save(with_values(numpy_helper, model, i, values), b_path)
    for option, want in (("weights", 1), ("graph", 0), ("signature", 0), ("signature,graph", 0),
                         ("graph,weights", 1)):
        code = diff(onnxview, a_path, b_path, "--fail-on=" + option)[0]
        if code != want:
            failures.append(f"weights change, --fail-on={option}: exit {code}, not {want}")
    changed = copy.deepcopy(model)
    for n in changed.graph.node:
        ints = [x for x in n.attribute if x.type == onnx.AttributeProto.INT]
        if ints:
            ints[0].i += 1
            onnx.save(changed, b_path)
            for option, want in (("graph", 1), ("weights", 0), ("signature,weights", 0)):
                code = diff(onnxview, a_path, b_path, "--fail-on=" + option)[0]
                if code != want:
                    failures.append(f"attribute change, --fail-on={option}: exit {code}, not {want}")
            break
    return failures


def save_with_renamed_nodes(onnx, model, work):
    """work/a.onnx: the model; work/b.onnx: it with every node renamed. Returns both paths and the renamed model."""
    a_path, b_path = os.path.join(work, "a.onnx"), os.path.join(work, "b.onnx")
    onnx.save(model, a_path)
    renamed = copy.deepcopy(model)
    for k, n in enumerate(renamed.graph.node):
        n.name = f"renamed_{k}"
    onnx.save(renamed, b_path)
    return a_path, b_path, renamed


def check_max_changes(onnx, onnxview, model, work):
    a_path, b_path, renamed = save_with_renamed_nodes(onnx, model, work)
    _, full, full_last, _ = diff(onnxview, a_path, b_path)
    failures = []
    for limit in (0, 1, 3):
        _, short, last, _ = diff(onnxview, a_path, b_path, "--max-changes", str(limit))
        if last != full_last or list(short) != list(full):
            failures.append(f"--max-changes {limit}: sections {list(short)} '{last}', whole {list(full)} '{full_last}'")
            continue
        for title, lines in full.items():
            want = lines if len(lines) <= limit else lines[:limit] + [f"... {len(lines) - limit} more"]
            if short[title] != want:
                failures.append(f"--max-changes {limit}, {title}: {short[title][:limit + 1]}")
    return failures


def check_ignore(onnx, onnxview, model, work):
    a_path, b_path, renamed = save_with_renamed_nodes(onnx, model, work)
    failures = []
    code, sections, last, err = diff(onnxview, a_path, b_path, "--ignore=names")
    if code != 0 or sections or last != "same computation, names differ":
        failures.append(f"--ignore=names: exit {code}, {sections}, '{last}' {err.strip()}")
    code, sections, last, _ = diff(onnxview, a_path, b_path, "--match=auto")
    if code != 0 or list(sections) != ["names (not counted)"] or last != "same computation, names differ":
        failures.append(f"--match=auto: exit {code}, {sections}, '{last}'")
    r = subprocess.run([onnxview, "diff", "--json", "--ignore=names", a_path, b_path], capture_output=True, text=True)
    j = json.loads(r.stdout)
    renamed_nodes = sum(1 for x, y in zip(model.graph.node, renamed.graph.node) if x.name != y.name)
    if j["matching"]["renamed"] != renamed_nodes or j["names"] or j["result"] != "same computation, names differ":
        failures.append(f"--ignore=names --json: matching {j['matching']}, {renamed_nodes} renamed, names {j['names']}")
    annotated = copy.deepcopy(model)
    annotated.graph.value_info.append(onnx.helper.make_tensor_value_info(
        model.graph.node[0].output[0] or "v", onnx.TensorProto.FLOAT, [1]))
    onnx.save(annotated, b_path)
    plain = diff(onnxview, a_path, b_path)
    ignoring = diff(onnxview, a_path, b_path, "--ignore=value_info")
    counted = [t for t in ignoring[1] if t in ("signature", "graph", "weights")]
    if plain[:3] != ignoring[:3] or ignoring[0] != 0 or counted:
        failures.append(f"--ignore=value_info: {ignoring[:3]}, without it {plain[:3]}")
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxview", required=True)
    ap.add_argument("--corpus", default="/usr/share/libonnx-testdata/data")
    ap.add_argument("--limit", type=int, default=20)
    args = ap.parse_args()
    try:
        import numpy as np
        import onnx
        from onnx import numpy_helper
    except ImportError:
        return SKIP
    models = sorted(glob.glob(os.path.join(ROOT, "testdata", "*.onnx")))
    corpus = sorted(glob.glob(os.path.join(args.corpus, "**", "model.onnx"), recursive=True))
    corpus = [p for p in corpus if "pytorch-converted" in p or "simple" in p]
    if corpus and args.limit > 0:
        models += stride(corpus, args.limit)
    bad = checked = 0
    with tempfile.TemporaryDirectory() as work:
        for path in models:
            model = onnx.load(path, load_external_data=True)
            i = first_float(onnx, numpy_helper, model)
            failures = []
            if model.graph.node:
                failures += check_max_changes(onnx, args.onnxview, model, work)
                failures += check_ignore(onnx, args.onnxview, model, work)
            if i is not None:
                checked += 1
                failures += check_allclose(onnx, np, numpy_helper, args.onnxview, model, i, work)
                failures += check_fail_on(onnx, np, numpy_helper, args.onnxview, model, i, work)
            for f in failures:
                print(f"FAIL {os.path.relpath(path, ROOT)}: {f}")
            bad += bool(failures)
    print(f"{len(models) - bad} of {len(models)} models pass ({checked} with a FLOAT initializer)")
    return 1 if bad or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
