#!/usr/bin/python3
"""Checks `onnxview profile`'s output shapes against what the models really
output: the expected outputs stored in Debian's libonnx-testdata.

  profile_outputs_oracle.py --onnxview BUILD/tools/onnxview [--corpus DIR]
      [--limit N] [--min-covered FRACTION] [--report FILE] [--op-table FILE]
      [--keep-declared]

For every `model.onnx` of the corpus (default /usr/share/libonnx-testdata/data;
--limit N: N models spread over it) with a `test_data_set_0/`: the shapes of
its `input_*.pb` are given as `--input NAME=SHAPE` to
`onnxview profile MODEL --json`, and each graph output's shape in the profile
is compared with the dims of its `output_*.pb`. MODEL is a copy without the
shapes declared for node outputs (graph outputs, value_info, in bodies too),
which the profile would otherwise repeat; --keep-declared profiles the model
as stored. Skipped: models with a sequence, optional or map input, or whose
stored inputs contradict their declared shapes. An output is `equal`, `differ`
(a failure), `data-dependent` (a dim the profile names after its output,
`OUTPUT:AXIS`: values decide it, as NonZero's count) or `unknown` (no shape,
or one with other symbolic dims left: counted, not a failure). A model the
profile refuses (exit 1 or 2) counts its outputs unknown; a crash or a hang is
a failure. `--min-covered F` adds one check that the fraction of the outputs
not data-dependent found equal is at least F. `--report FILE`
writes a Markdown list of every model not fully covered, with the reason;
`--op-table FILE` a table of the outcomes by the op making each output.
Last line: `N passed, M failed`. Exits 77 when python3-onnx is absent.
"""
import argparse
import collections
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time

TIMEOUT = 120  # seconds; a profile never reads weights, so a hang is a bug


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import SKIP, Checks, data_dependent, shape_text, strip_declared  # noqa: E402


class Tally:
    def __init__(self):
        self.tried = 0
        self.skipped = collections.Counter()  # reason -> models
        self.outcomes = collections.Counter()  # equal / differ / unknown -> outputs
        self.unknown_ops = collections.Counter()  # op_type making an unknown shape -> outputs
        self.report = []  # (model, [lines]) of every model not fully covered
        self.by_op = collections.defaultdict(collections.Counter)  # op making an output -> outcome -> outputs


def numbered(directory, prefix):
    """`input_0.pb` ... in numeric order: input_10 comes after input_9."""
    files = glob.glob(os.path.join(directory, prefix + "_*.pb"))
    return sorted(files, key=lambda f: int(re.search(r"_(\d+)\.pb$", f).group(1)))


def read_dims(onnx, path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return list(t.dims)


def contradicts(v, dims, named):
    """Whether the stored input's dims contradict the graph input's declared
    shape: the profile rightly refuses those (exit 2), a fault of the data."""
    if not v.type.tensor_type.HasField("shape"):
        return False
    declared = v.type.tensor_type.shape.dim
    if len(declared) != len(dims):
        return True
    for d, size in zip(declared, dims):
        if (d.HasField("dim_value") and d.dim_value != size or
                d.HasField("dim_param") and named.setdefault(d.dim_param, size) != size):
            return True
    return False


def plan(onnx, path):
    """(model, --input arguments, [(output name, stored dims)]), or a reason to skip."""
    try:
        model = onnx.load(path, load_external_data=False)
    except Exception:  # noqa: BLE001 - python3-onnx cannot read it: nothing to hold the profile to
        return "python3-onnx cannot load the model"
    g = model.graph
    stored = {t.name for t in g.initializer} | {s.values.name for s in g.sparse_initializer}
    inputs = [v for v in g.input if v.name not in stored]
    data = os.path.join(os.path.dirname(path), "test_data_set_0")
    in_pbs = numbered(data, "input")
    if len(in_pbs) != len(inputs):
        return "input_*.pb and graph inputs differ in number"
    # Type by the graph's declaration: a SequenceProto would parse as a
    # TensorProto without complaint, its fields read as garbage.
    if any(not v.type.HasField("tensor_type") for v in inputs):
        return "a sequence, optional or map input"
    if any("=" in v.name for v in inputs):
        return "an input name with `=`"
    args, named = [], {}
    for v, pb in zip(inputs, in_pbs):
        dims = read_dims(onnx, pb)
        if contradicts(v, dims, named):
            return "an input_*.pb contradicts the declared input shape"
        args += ["--input", f"{v.name}=" + ("x".join(map(str, dims)) if dims else "scalar")]
    # A graph output that is a graph input or a stored tensor has no node
    # making it: the profile has nothing to say about it.
    direct = stored | {v.name for v in g.input}
    expected = [(v.name, read_dims(onnx, pb)) for v, pb in zip(g.output, numbered(data, "output"))
                if v.type.HasField("tensor_type") and v.name not in direct]
    if not expected:
        return "no tensor output made by a node"
    return model, args, expected


def check_model(ck, tally, exe, onnx, path, work):
    p = plan(onnx, path)
    if isinstance(p, str):
        tally.skipped[p] += 1
        tally.report.append((path, [f"skipped: {p}"]))
        return
    model, args, expected = p
    tally.tried += 1
    profiled = path
    if work:
        strip_declared(onnx, model.graph)
        profiled = os.path.join(work, "model.onnx")
        onnx.save(model, profiled)
    try:
        r = subprocess.run([exe, "profile", profiled, *args, "--json"], capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        ck.check(False, f"{path}: profile takes over {TIMEOUT} s")
        return
    if not ck.check(r.returncode >= 0, f"{path}: profile killed by signal {-r.returncode}: "
                    f"{r.stderr.decode(errors='replace')[-300:]}"):
        return
    if r.returncode != 0:
        # A refusal that says why is a gap, not a wrong answer; a silent one is a bug.
        message = r.stderr.decode(errors="replace").strip().replace(profiled, path)
        if not ck.check(message, f"{path}: profile exits {r.returncode} without a message"):
            return
        tally.outcomes["unknown"] += len(expected)
        tally.unknown_ops[f"(profile exits {r.returncode})"] += len(expected)
        tally.report.append((path, [f"profile exits {r.returncode}: {message.splitlines()[-1]}"]))
        return
    try:
        prof = json.loads(r.stdout)
    except ValueError as e:
        ck.check(False, f"{path}: profile --json does not load: {e}")
        return
    made = {}  # value -> (node, position); main-graph nodes only: a body may reuse an outer name
    outputs = {o for n in prof["nodes"] for o in n["outputs"]}
    for n in prof["nodes"]:
        if n["parent"] is None:
            for i, o in enumerate(n["outputs"]):
                made[o] = (n, i)
    lines = []
    for name, dims in expected:
        if name not in made:
            ck.check(False, f"{path}: output '{name}': no node of the profile makes it")
            lines.append(f"output `{name}`: no node of the profile makes it")
            continue
        node, i = made[name]
        shape = node["output_shapes"][i]
        op = node["op_type"] if node.get("domain", "") in ("", "ai.onnx") else f"{node['domain']}::{node['op_type']}"
        if data_dependent(shape, outputs):
            tally.outcomes["data-dependent"] += 1
            tally.by_op[op]["data-dependent"] += 1
            lines.append(f"output `{name}` of {node['op_type']} '{node['name']}': {shape_text(shape)}, "
                         f"stored {shape_text(dims)} (data-dependent)")
        elif shape is None or not all(isinstance(d, int) for d in shape):
            tally.outcomes["unknown"] += 1
            tally.by_op[op]["unknown"] += 1
            tally.unknown_ops[node["op_type"]] += 1
            why = node.get("reason") or "no reason given"
            lines.append(f"output `{name}` of {node['op_type']} '{node['name']}': "
                         f"{shape_text(shape)}, stored {shape_text(dims)} ({why})")
        elif ck.check(shape == dims, f"{path}: output '{name}' ({node['op_type']} '{node['name']}'): "
                      f"profile {shape_text(shape)}, stored {shape_text(dims)}"):
            tally.outcomes["equal"] += 1
            tally.by_op[op]["equal"] += 1
        else:
            tally.outcomes["differ"] += 1
            tally.by_op[op]["differ"] += 1
            lines.append(f"**differ**: output `{name}` of {node['op_type']} '{node['name']}': "
                         f"profile {shape_text(shape)}, stored {shape_text(dims)}")
    if lines:
        tally.report.append((path, lines))


def write_report(tally, path, corpus):
    with open(path, "w", encoding="utf-8") as f:
        f.write("# Models whose outputs `onnxview profile` does not fully shape\n\n")
        for model, lines in tally.report:
            f.write(f"- `{os.path.relpath(os.path.dirname(model), corpus)}`\n" + "".join(f"  - {l}\n" for l in lines))


def write_op_table(tally, path, onnx):
    """A Markdown table: per op making a compared output, its outcomes; then the default-domain ops
    of python3-onnx's schemas that made none (no model of the corpus tests them with stored outputs)."""
    seen = set(tally.by_op)
    with open(path, "w", encoding="utf-8") as f:
        f.write("| op | equal | data-dependent | unknown | differ |\n| --- | --- | --- | --- | --- |\n")
        for op in sorted(tally.by_op, key=str.lower):
            c = tally.by_op[op]
            f.write(f"| {op} | {c['equal']} | {c['data-dependent']} | {c['unknown']} | {c['differ']} |\n")
        untested = sorted({s.name for s in onnx.defs.get_all_schemas_with_history()
                           if s.domain in ("", "ai.onnx") and not s.deprecated} - seen, key=str.lower)
        f.write(f"\nDefault-domain ops making no compared output ({len(untested)}): "
                + ", ".join(untested) + ".\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--onnxview", required=True)
    ap.add_argument("--corpus", default="/usr/share/libonnx-testdata/data")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--min-covered", type=float, default=None, metavar="FRACTION")
    ap.add_argument("--report", metavar="FILE")
    ap.add_argument("--op-table", metavar="FILE", help="a Markdown table of the outcomes by the op making the output")
    ap.add_argument("--keep-declared", action="store_true",
                    help="profile the models as stored, output shapes and value_info declared")
    args = ap.parse_args()
    try:
        import onnx
    except ImportError as e:
        print(f"profile_outputs_oracle: skipped: {e}")
        return SKIP
    start = time.monotonic()
    corpus = sorted(m for m in glob.glob(os.path.join(args.corpus, "**", "model.onnx"), recursive=True)
                    if os.path.isdir(os.path.join(os.path.dirname(m), "test_data_set_0")))
    if args.limit and corpus:
        step = len(corpus) / min(args.limit, len(corpus))
        corpus = [corpus[int(i * step)] for i in range(min(args.limit, len(corpus)))]
    ck, tally = Checks(), Tally()
    with tempfile.TemporaryDirectory() as work:
        for path in corpus:
            check_model(ck, tally, args.onnxview, onnx, path, None if args.keep_declared else work)
    o = tally.outcomes
    compared = o["equal"] + o["differ"] + o["unknown"] + o["data-dependent"]
    # Nothing compared covers nothing: a guard must not pass on an empty run. Data-dependent
    # outputs are named, not inferred: the fraction is of the others.
    inferable = compared - o["data-dependent"]
    fraction = o["equal"] / inferable if inferable else 0.0
    if args.min_covered is not None:
        ck.check(fraction >= args.min_covered, f"covered {fraction:.4f} < --min-covered {args.min_covered}")
    if args.report:
        write_report(tally, args.report, args.corpus)
    if args.op_table:
        write_op_table(tally, args.op_table, onnx)
    print(f"profile_outputs_oracle: {len(corpus)} models, {tally.tried} tried, "
          f"{sum(tally.skipped.values())} skipped, {time.monotonic() - start:.1f} s")
    for reason, n in tally.skipped.most_common():
        print(f"  skipped {n}: {reason}")
    print(f"outputs: {compared} compared, {o['equal']} equal, {o['differ']} differ, {o['unknown']} unknown, "
          f"{o['data-dependent']} data-dependent; covered {fraction:.4f} of the others")
    if tally.unknown_ops:
        print("unknown shapes by op: " + ", ".join(f"{op} {n}" for op, n in tally.unknown_ops.most_common(20)))
    return ck.finish()


if __name__ == "__main__":
    sys.exit(main())
