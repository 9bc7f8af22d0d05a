#!/usr/bin/python3
"""Checks `onnxview pack` against python3-onnx, protoc and onnxruntime.

  pack_oracle.py --onnxview BUILD/tools/onnxview [--corpus DIR] [--limit N]
                 [--ort-dir DIR] [--ort-limit N]

For every model.onnx under the corpus (default /usr/share/libonnx-testdata/data,
1,072 models), every model of testdata/ and one made here with repeated
weights, four outputs are made:
  inline    pack IN A.onnx                          (raw_data aligned to 64 B)
  external  pack IN B.onnx --external B.data        (offsets aligned to 4 KiB)
  back      pack B.onnx C.onnx --internalize
  dedupe    pack IN D.onnx --external D.data --dedupe (repeated payloads share a range)
and each must
  1. load with onnx.load (external data included) and pass onnx.checker
     exactly when the input does;
  2. hold the same tensors: numpy_helper.to_array of every tensor (initializers,
     sparse initializers, tensor attributes, in every graph and function)
     equals the input's bit for bit, dtype and shape included;
  3. decode with `protoc --decode=onnx.ModelProto` to the input's text once the
     payload fields (raw_data, the typed fields, data_location, external_data)
     and pack's padding field are left out.
It also counts, with `onnxview doctor --json`, the payloads onnxview hands out
as zero-copy spans before and after (all data types).

With --ort-dir (a directory holding node_modules/onnxruntime-node; default
$ONNXRUNTIME_NODE_DIR, else /opt/onnxruntime-node, where scripts/install-deps.sh
puts it) the models
of testdata/ and the corpus's node tests that onnxruntime runs are run before
and after each pack (tests/oracle/ort_run.js); the outputs must be identical
bit for bit, and within onnx's backend-test tolerance (rtol 1e-3, atol 1e-7)
of the test's reference outputs where it ships them.

Exits 77 (skipped, with a message) when python onnx, protoc or the corpus is absent.
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import RANDOM_OPS, ROOT, SKIP, arrays, checker_ok, inputs_from, ort_case, setup  # noqa: E402
from protoc_texts import protoc_file_texts  # noqa: E402

PAYLOAD_LINE = re.compile(r"^\s*(raw_data|float_data|int32_data|int64_data|double_data|uint64_data|data_location|536870911):")


def normalised(text):
    """protoc's text without tensor payloads and external_data entries."""
    if text is None:
        return None
    lines, skip_depth = [], None
    for line in text.splitlines():
        depth = len(line) - len(line.lstrip())
        if skip_depth is not None:
            if depth == skip_depth and line.strip() == "}":
                skip_depth = None
            continue
        if line.strip() == "external_data {":
            skip_depth = depth
            continue
        if PAYLOAD_LINE.match(line):
            continue
        lines.append(line)
    return "\n".join(lines)


def load(onnx, path):
    try:
        return onnx.load(path), None
    except Exception as e:  # noqa: BLE001
        return None, str(e).splitlines()[0] if str(e) else type(e).__name__


def float_zero_copy(path, threshold=1024):
    """FLOAT initializers of the main graph with at least `threshold` payload bytes,
    and how many of them start at a file offset that is a multiple of 4 (the
    alignment tensor_data::as_span<float> needs; files are mapped page-aligned)."""
    sys.path.insert(0, os.path.join(ROOT, "tests", "cli"))
    from doctor_fixtures import fields  # the wire reader the doctor tests use: payloads as (start, end)
    with open(path, "rb") as f:
        b = f.read()
    total = aligned = 0
    for n, t, v in fields(b, 0, len(b)):
        if n != 7 or t != 2:
            continue
        for gn, gt, gv in fields(b, v[0], v[1]):
            if gn != 5 or gt != 2:
                continue
            dtype, raw, offset, length, external = 0, None, 0, None, False
            for tn, tt, tv in fields(b, gv[0], gv[1]):
                if tn == 2 and tt == 0:
                    dtype = tv
                elif tn == 9 and tt == 2:
                    raw = tv
                elif tn == 14 and tt == 0:
                    external = tv == 1
                elif tn == 13 and tt == 2:
                    kv = {kn: b[kv_[0]:kv_[1]] for kn, kt, kv_ in fields(b, tv[0], tv[1]) if kt == 2}
                    if kv.get(1) == b"offset":
                        offset = int(kv.get(2, b"0"))
                    elif kv.get(1) == b"length":
                        length = int(kv.get(2, b"0"))
            if dtype != 1:
                continue
            if external and length is not None and length >= threshold:
                total += 1
                aligned += offset % 4 == 0
            elif not external and raw is not None and raw[1] - raw[0] >= threshold:
                total += 1
                aligned += raw[0] % 4 == 0
    return aligned, total


def zero_copy(exe, path):
    p = subprocess.run([exe, "doctor", "--json", path], capture_output=True, text=True)
    try:
        z = json.loads(p.stdout)["zero_copy"]
    except (ValueError, KeyError):
        return 0, 0
    groups = [z["embedded"]] + list(z["external"])
    return (sum(g["zero_copy"]["tensors"] for g in groups) + z["typed"]["zero_copy"]["tensors"],
            sum(g["all"]["tensors"] for g in groups) + z["typed"]["all"]["tensors"])


def pack(exe, *args):
    p = subprocess.run([exe, "pack", *args], capture_output=True, text=True)
    return p.returncode, (p.stdout + p.stderr).strip()


def check_model(onnx, exe, src, work, counts, failures):
    model, why = load(onnx, src)
    if model is None:
        counts["unloadable"] += 1
        return None
    want = arrays(onnx, model)
    want_checker = checker_ok(onnx, model)
    # The input's external files, next to the packed copies that keep references.
    for f in os.listdir(os.path.dirname(src)):
        full = os.path.join(os.path.dirname(src), f)
        if os.path.isfile(full) and not f.endswith(".onnx"):
            shutil.copy(full, os.path.join(work, f))
    # Packed next to a copy of the input: external references stay valid.
    local = os.path.join(work, "in.onnx")
    shutil.copy(src, local)
    outs = {"inline": os.path.join(work, "a.onnx"), "external": os.path.join(work, "b.onnx"),
            "back": os.path.join(work, "c.onnx"), "dedupe": os.path.join(work, "d.onnx")}
    steps = [("inline", [local, outs["inline"]]),
             ("external", [local, outs["external"], "--external", "b.data"]),
             ("back", [outs["external"], outs["back"], "--internalize"]),
             ("dedupe", [local, outs["dedupe"], "--external", "d.data", "--dedupe"])]
    decoded = []  # steps whose output protoc decodes beside the input, in one run
    for name, args in steps:
        rc, out = pack(exe, *args)
        if rc != 0:
            failures.append((src, f"{name}: pack exit {rc}: {out}"))
            return None
        got_model, why = load(onnx, outs[name])
        if got_model is None:
            failures.append((src, f"{name}: onnx.load refuses the output: {why}"))
            continue
        if checker_ok(onnx, got_model) != want_checker:
            failures.append((src, f"{name}: onnx.checker {'rejects' if want_checker else 'accepts'} the output"))
        got = arrays(onnx, got_model)
        if set(got) != set(want):
            failures.append((src, f"{name}: tensors differ: {sorted(set(got) ^ set(want))[:3]}"))
            continue
        for k, v in want.items():
            if v is None:
                counts["not_compared"] += 1
                continue
            if got[k] != v:
                failures.append((src, f"{name}: {k} differs (dtype/shape/bytes)"))
            else:
                counts["tensors"] += 1
        decoded.append(name)
    texts = [normalised(t) for t in protoc_file_texts([src] + [outs[name] for name in decoded])]
    for name, text in zip(decoded, texts[1:]):
        if texts[0] is not None and text != texts[0]:
            failures.append((src, f"{name}: protoc --decode differs beyond tensor payloads"))
    before = zero_copy(exe, src)
    for key, idx in (("before", before), ("inline", zero_copy(exe, outs["inline"])),
                     ("external", zero_copy(exe, outs["external"]))):
        counts["zero_copy_" + key] += idx[0]
    counts["payloads"] += before[1]
    float_before = float_zero_copy(src)
    counts["float_large"] += float_before[1]
    counts["float_before"] += float_before[0]
    counts["float_inline"] += float_zero_copy(outs["inline"])[0]
    counts["float_external"] += float_zero_copy(outs["external"])[0]
    counts["models"] += 1
    return outs


def reference_outputs(onnx, test_dir):
    from onnx import numpy_helper
    refs = []
    for pb in sorted(glob.glob(os.path.join(test_dir, "test_data_set_0", "output_*.pb"))):
        t = onnx.TensorProto()
        with open(pb, "rb") as f:
            t.ParseFromString(f.read())
        refs.append(numpy_helper.to_array(t))
    return refs


def repeated_weights(onnx, directory):
    """A model whose initializers repeat (same type, dims and bytes, and the same
    bytes under other dims), for --dedupe: shared external ranges must load,
    check and run like separate ones."""
    import numpy as np
    from onnx import helper, numpy_helper
    w = (np.arange(1024, dtype=np.float32) / 1024).reshape(32, 32)
    inits = [numpy_helper.from_array(w, "a"), numpy_helper.from_array(w.copy(), "b"),
             numpy_helper.from_array(w.reshape(1024), "c"), numpy_helper.from_array(w + 1, "d"),
             numpy_helper.from_array(np.array([1024], dtype=np.int64), "shape")]
    nodes = [helper.make_node("MatMul", ["x", "a"], ["y1"]), helper.make_node("MatMul", ["y1", "b"], ["y2"]),
             helper.make_node("MatMul", ["y2", "d"], ["y3"]), helper.make_node("Reshape", ["y3", "shape"], ["y4"]),
             helper.make_node("Add", ["y4", "c"], ["z"])]
    g = helper.make_graph(nodes, "repeated", [helper.make_tensor_value_info("x", 1, [32, 32])],
                          [helper.make_tensor_value_info("z", 1, [1024])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    path = os.path.join(directory, "repeated_weights.onnx")
    onnx.save(m, path)
    return path


def main():
    ready = setup(argparse.ArgumentParser(), ort_limit_help="at most N node tests under onnxruntime (0: all)")
    if ready is None:
        return SKIP
    args, onnx, corpus = ready
    import numpy as np
    synthetic = tempfile.TemporaryDirectory()
    models = sorted(glob.glob(os.path.join(ROOT, "testdata", "*.onnx"))) + [repeated_weights(onnx, synthetic.name)]
    counts = {k: 0 for k in ("models", "tensors", "not_compared", "unloadable", "payloads", "zero_copy_before",
                             "zero_copy_inline", "zero_copy_external", "float_large", "float_before", "float_inline",
                             "float_external", "ort_models", "ort_ref_disagree", "ort_skipped", "ort_ref")}
    failures, notes = [], []
    ort = bool(args.ort_dir) and shutil.which("node") is not None and \
        os.path.isdir(os.path.join(args.ort_dir, "node_modules", "onnxruntime-node"))
    ort_runs = 0
    for src in models + corpus:
        with tempfile.TemporaryDirectory() as work:
            outs = check_model(onnx, args.onnxview, src, work, counts, failures)
            if not ort or outs is None or (args.ort_limit and ort_runs >= args.ort_limit and src in corpus):
                continue
            model, _ = load(onnx, src)
            test_dir = os.path.dirname(src) if src in corpus else None
            try:
                ins = inputs_from(onnx, model, test_dir)
            except Exception:  # noqa: BLE001 - inputs that are not plain tensors (sequences, ...)
                ins = None
            if ins is None or any(i is None for i in ins):
                counts["ort_skipped"] += 1
                continue
            ort_runs += 1
            r = ort_case(args.ort_dir, [src, outs["inline"], outs["external"], outs["back"], outs["dedupe"]], ins, work)
            if "error" in r or r["results"][0].get("error"):
                counts["ort_skipped"] += 1  # onnxruntime does not run the original
                continue
            first = r["results"][0]["outputs"]
            for name, res in zip(("inline", "external", "back", "dedupe"), r["results"][1:]):
                if res.get("error") or res["outputs"] != first:
                    failures.append((src, f"onnxruntime: {name} output differs: {res.get('error', '')[:200]}"))
            counts["ort_models"] += 1
            if test_dir and not any(n.op_type in RANDOM_OPS for n in model.graph.node):
                import base64
                try:
                    refs = reference_outputs(onnx, test_dir)
                except Exception:  # noqa: BLE001 - reference outputs that are not plain tensors
                    refs = []
                for ref, got in zip(refs, first):
                    if got["type"] is None:
                        continue
                    a = np.frombuffer(base64.b64decode(got["data"]), dtype=ref.dtype).reshape(ref.shape) \
                        if ref.dtype != object else None
                    if a is not None and ref.dtype.kind in "fc":
                        # onnxruntime itself may disagree with onnx's reference on the original
                        # model (the packed ones are compared bit for bit with it above).
                        if not np.allclose(a, ref, rtol=1e-3, atol=1e-7, equal_nan=True):
                            notes.append(f"{src}: onnxruntime differs from the reference outputs, before "
                                         "packing too")
                            counts["ort_ref_disagree"] += 1
                            continue
                    counts["ort_ref"] += 1
    for n in notes:
        print(f"note: {n}")
    for m, why in failures:
        print(f"FAIL {m}: {why}")
    print(f"{counts['models']} models packed four ways ({counts['unloadable']} not loadable by onnx, skipped); "
          f"{counts['tensors']} tensor comparisons equal, {counts['not_compared']} not readable by numpy_helper")
    print(f"zero-copy payloads (onnxview doctor, all types): before {counts['zero_copy_before']} of "
          f"{counts['payloads']}, after pack --inline-align 64 {counts['zero_copy_inline']}, after pack --external "
          f"{counts['zero_copy_external']}")
    print(f"FLOAT initializers of at least 1 KiB ({counts['float_large']}) at a 4-byte aligned offset, read "
          f"from the files here: before {counts['float_before']}, after pack --inline-align 64 "
          f"{counts['float_inline']}, after pack --external {counts['float_external']}")
    if ort:
        print(f"onnxruntime: {counts['ort_models']} models identical before and after every pack "
              f"({counts['ort_ref']} outputs within the reference tolerance, {counts['ort_ref_disagree']} where "
              f"onnxruntime disagrees with the reference on the original model); {counts['ort_skipped']} not run")
    else:
        print("onnxruntime: not run (no --ort-dir with node_modules/onnxruntime-node, or no node)")
    print(f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
