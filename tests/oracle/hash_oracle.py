#!/usr/bin/python3
"""Checks `onnxview hash` with layouts and mutations made by python3-onnx.

  hash_oracle.py --onnxview BUILD/tools/onnxview [--corpus DIR] [--limit N]

For every model of testdata/ and --limit models.onnx spread over the corpus
(default /usr/share/libonnx-testdata/data), these layouts of the same model
must give the digest of the original:
  typed      every raw_data payload rewritten into its typed field
             (float_data, int32_data for FLOAT16/INT8/BOOL..., int64_data, ...)
             by numpy from the raw bytes
  raw        every typed payload rewritten as raw_data by numpy_helper
  external   onnx.save(save_as_external_data=True, size_threshold=0)
  shuffled   the main graph's initializers in another order, the attributes
             of each node reversed
  pack, pack --external, pack --keep-typed (onnxview's own writer)
and each of these mutations must change it (where the model has what it mutates):
  ulp        one element of a FLOAT/DOUBLE/FLOAT16 initializer moved by one ulp
  attribute  an INT, FLOAT or INTS attribute changed
  node       the main graph's last node removed
  dim        a dim of a graph input changed (a value + 1, a parameter renamed)
  opset      the first opset import's version + 1
The digests of the original and of its mutations must also all differ. A
truncated or garbage file gives one error line and exit 1, a missing one exit 2.

Exits 77 (skipped) when python3-onnx or numpy is absent.
"""
import argparse
import copy
import glob
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import ROOT, SKIP, stride  # noqa: E402

# data type -> (numpy dtype of the raw_data bytes, typed field)
TYPED = {
    1: ("<f4", "float_data"), 2: ("u1", "int32_data"), 3: ("i1", "int32_data"), 4: ("<u2", "int32_data"),
    5: ("<i2", "int32_data"), 6: ("<i4", "int32_data"), 7: ("<i8", "int64_data"), 9: ("u1", "int32_data"),
    10: ("<u2", "int32_data"), 11: ("<f8", "double_data"), 12: ("<u4", "uint64_data"), 13: ("<u8", "uint64_data"),
    14: ("<f4", "float_data"), 15: ("<f8", "double_data"), 16: ("<u2", "int32_data"),
}


def hash_of(onnxview, path):
    r = subprocess.run([onnxview, "hash", path], capture_output=True, text=True)
    if r.returncode != 0:
        raise AssertionError(f"onnxview hash {path}: exit {r.returncode}: {r.stderr.strip()}")
    return r.stdout.split()[0]


def every_tensor(onnx, model):
    """Every TensorProto of a model: initializers and tensor attributes, in every graph and function."""
    out = []

    def nodes(ns):
        for n in ns:
            for a in n.attribute:
                if a.HasField("t"):
                    out.append(a.t)
                out.extend(a.tensors)
                if a.HasField("g"):
                    graph(a.g)
                for g in a.graphs:
                    graph(g)

    def graph(g):
        out.extend(g.initializer)
        nodes(g.node)

    graph(model.graph)
    for f in model.functions:
        nodes(f.node)
    return out


def to_typed(np, t):
    if not t.HasField("raw_data") or t.data_type not in TYPED:
        return False
    dtype, field = TYPED[t.data_type]
    values = np.frombuffer(t.raw_data, dtype=dtype)
    if t.data_type == 9:
        values = values != 0
    t.ClearField("raw_data")
    getattr(t, field).extend(values.tolist())
    return True


def to_raw(np, numpy_helper, t):
    # numpy_helper of onnx 1.12 cannot read COMPLEX typed fields nor the types after BFLOAT16.
    if t.HasField("raw_data") or t.data_type in (0, 8, 14, 15) or t.data_type >= 16 or t.data_location == 1:
        return False
    array = numpy_helper.to_array(t)
    t.CopyFrom(numpy_helper.from_array(array, t.name))
    return True


def layouts(onnx, np, numpy_helper, model, work):
    """(name, path) of the layouts python3-onnx writes."""
    out = []
    typed = copy.deepcopy(model)
    if any([to_typed(np, t) for t in every_tensor(onnx, typed)]):
        out.append(("typed", typed))
    raw = copy.deepcopy(model)
    if any([to_raw(np, numpy_helper, t) for t in every_tensor(onnx, raw)]):
        out.append(("raw", raw))
    shuffled = copy.deepcopy(model)
    inits = list(shuffled.graph.initializer)
    random.Random(7).shuffle(inits)
    changed = len(inits) > 1
    shuffled.graph.ClearField("initializer")
    shuffled.graph.initializer.extend(inits)
    for n in shuffled.graph.node:
        if len(n.attribute) > 1:
            attrs = list(n.attribute)[::-1]
            n.ClearField("attribute")
            n.attribute.extend(attrs)
            changed = True
    if changed:
        out.append(("shuffled", shuffled))
    paths = []
    for name, m in out:
        p = os.path.join(work, name + ".onnx")
        onnx.save(m, p)
        paths.append((name, p))
    ext_dir = os.path.join(work, "ext")
    os.makedirs(ext_dir, exist_ok=True)
    p = os.path.join(ext_dir, "model.onnx")
    onnx.save(copy.deepcopy(model), p, save_as_external_data=True, all_tensors_to_one_file=True,
              location="weights.bin", size_threshold=0)
    paths.append(("external", p))
    return paths


def pack_layouts(onnxview, src, has_external, work):
    out = []
    # A model with external data is packed to another directory: its
    # payloads come in (--internalize) or go to the new external file.
    inline = ["--internalize"] if has_external else []
    for name, args in (("pack", inline), ("pack --external", ["--external", "packed.bin"]),
                       ("pack --keep-typed", ["--keep-typed"] + inline)):
        p = os.path.join(work, name.replace(" ", "_").replace("-", "") + ".onnx")
        r = subprocess.run([onnxview, "pack", src, p] + args, capture_output=True, text=True)
        if r.returncode != 0:
            raise AssertionError(f"onnxview pack {src} {' '.join(args)}: {r.stderr.strip()}")
        out.append((name, p))
    return out


def mutations(onnx, np, numpy_helper, model):
    """(name, mutated model) for each mutation that applies."""
    out = []
    m = copy.deepcopy(model)
    for i, t in enumerate(m.graph.initializer):
        if t.data_type in (1, 10, 11) and np.prod(t.dims) > 0 and t.data_location != 1:
            a = numpy_helper.to_array(t).copy()
            flat = a.reshape(-1)
            flat[0] = np.nextafter(flat[0], np.inf, dtype=a.dtype)
            m.graph.initializer[i].CopyFrom(numpy_helper.from_array(a, t.name))
            out.append(("ulp", m))
            break
    m = copy.deepcopy(model)
    done = False
    for n in m.graph.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.INT:
                a.i += 1
            elif a.type == onnx.AttributeProto.FLOAT:
                a.f = float(a.f) + 1.0
            elif a.type == onnx.AttributeProto.INTS and len(a.ints) > 0:
                a.ints[0] += 1
            else:
                continue
            done = True
            break
        if done:
            out.append(("attribute", m))
            break
    if len(model.graph.node) > 0:
        m = copy.deepcopy(model)
        del m.graph.node[-1]
        out.append(("node", m))
    m = copy.deepcopy(model)
    for v in m.graph.input:
        if v.type.HasField("tensor_type") and len(v.type.tensor_type.shape.dim) > 0:
            d = v.type.tensor_type.shape.dim[0]
            if d.HasField("dim_param"):
                d.dim_param += "_changed"
            else:
                d.dim_value += 1
            out.append(("dim", m))
            break
    if len(model.opset_import) > 0:
        m = copy.deepcopy(model)
        m.opset_import[0].version += 1
        out.append(("opset", m))
    return out


def check_model(onnx, np, numpy_helper, onnxview, path, work):
    """A list of failure messages for one model."""
    failures = []
    model = onnx.load(path)
    want = hash_of(onnxview, path)
    base = os.path.join(work, "base.onnx")
    onnx.save(model, base)
    stored = onnx.load(path, load_external_data=False)
    has_external = any(t.data_location == 1 for t in every_tensor(onnx, stored))
    variants = [("onnx.save", base)] + layouts(onnx, np, numpy_helper, model, work)
    variants += pack_layouts(onnxview, path, has_external, work)
    for name, p in variants:
        got = hash_of(onnxview, p)
        if got != want:
            failures.append(f"{path}: layout {name} changes the digest ({want} -> {got})")
    seen = {want: "original"}
    for name, m in mutations(onnx, np, numpy_helper, model):
        p = os.path.join(work, "mutated_" + name + ".onnx")
        onnx.save(m, p)
        got = hash_of(onnxview, p)
        if got in seen:
            failures.append(f"{path}: mutation {name} gives the digest of {seen[got]} ({got})")
        seen[got] = name
    return failures, len(variants), len(seen) - 1


def check_errors(onnxview, path, work):
    """A truncated or garbage model: one error line, exit 1; a missing one: exit 2."""
    failures = []
    data = open(path, "rb").read()
    cases = []
    for name, content in (("truncated.onnx", data[: len(data) // 2]), ("garbage.onnx", bytes(range(256)) * 4)):
        p = os.path.join(work, name)
        open(p, "wb").write(content)
        cases.append((p, 1))
    cases.append((os.path.join(work, "missing.onnx"), 2))
    for p, want in cases:
        r = subprocess.run([onnxview, "hash", p], capture_output=True, text=True)
        if r.returncode != want or r.stdout or len(r.stderr.strip().splitlines()) != 1:
            failures.append(f"hash {os.path.basename(p)}: exit {r.returncode} (want {want}), "
                            f"stdout {r.stdout!r}, stderr {r.stderr!r}")
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxview", required=True)
    ap.add_argument("--corpus", default="/usr/share/libonnx-testdata/data")
    ap.add_argument("--limit", type=int, default=150)
    args = ap.parse_args()
    try:
        import numpy as np
        import onnx
        from onnx import numpy_helper
    except ImportError as e:
        print(f"hash_oracle: skipped: {e}")
        return SKIP
    models = sorted(glob.glob(os.path.join(ROOT, "testdata", "*.onnx")))
    corpus = sorted(glob.glob(os.path.join(args.corpus, "**", "model.onnx"), recursive=True))
    if corpus and args.limit > 0:
        models += stride(corpus, args.limit)
    failures = []
    layouts_checked = mutations_checked = 0
    for path in models:
        with tempfile.TemporaryDirectory() as work:
            try:
                f, nl, nm = check_model(onnx, np, numpy_helper, args.onnxview, path, work)
            except AssertionError as e:
                f, nl, nm = [str(e)], 0, 0
            failures += f
            layouts_checked += nl
            mutations_checked += nm
    with tempfile.TemporaryDirectory() as work:
        failures += check_errors(args.onnxview, os.path.join(ROOT, "testdata", "small_cnn_inline.onnx"), work)
    for f in failures:
        print("FAIL", f)
    print(f"hash_oracle: {len(models)} models, {layouts_checked} layouts, {mutations_checked} mutations, "
          f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
