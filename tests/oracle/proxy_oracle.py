#!/usr/bin/python3
"""Checks `onnxview pack --reference` (weight-less proxies) and the weights put
back against python3-onnx and onnxruntime.

  proxy_oracle.py --onnxview BUILD/tools/onnxview [--corpus DIR] [--limit N]
                  [--ort-dir DIR] [--ort-limit N]

Models: those of testdata/, two made here (an MLP of 8 MiB of weights; one
whose weights sit in an If branch, a Constant and a sparse initializer), and N
corpus model.onnx files spread over the corpus (default: all 1,072 of
/usr/share/libonnx-testdata/data; meson runs 150). Each is copied to a scratch directory as
in.onnx (with the external files beside it) and packed three ways:
  proxy     pack in.onnx proxy.onnx --reference --threshold 64
  back      pack proxy.onnx back.onnx                  (the weights put back)
  external  pack proxy.onnx ext.onnx --external ext.data --align 4096
and:
  1. onnx.checker.check_model(path, full_check=True) accepts proxy, back and
     external wherever it accepts in.onnx;
  2. onnx.load of each (external data included) gives numpy arrays equal to
     in.onnx's bit for bit, dtype and shape included, for every tensor;
  3. onnx.shape_inference.infer_shapes_path works on the proxy wherever it
     works on in.onnx, and gives the same value_info;
  4. back and external carry no onnxview.reference_source entry and no
     reference to in.onnx: they are self-contained;
  5. with onnxruntime (--ort-dir, as pack_oracle.py), in.onnx, proxy, back and
     external give identical outputs bit for bit.
The MLP's proxy must be under 1% of its size. The version-converter recipe
is tests/oracle/proxy_recipe.py.
Exits 77 (skipped, with a message) without python onnx, protoc or the corpus.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time

RECORD = "onnxview.reference_source"

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import RANDOM_OPS, ROOT, SKIP, arrays, inputs_from, ort_case, setup  # noqa: E402


def pack(exe, *args):
    p = subprocess.run([exe, "pack", *args], capture_output=True, text=True)
    return p.returncode, (p.stdout + p.stderr).strip()


def full_check(onnx, path):
    try:
        onnx.checker.check_model(path, full_check=True)
        return None
    except Exception as e:  # noqa: BLE001
        return str(e).splitlines()[0] if str(e) else type(e).__name__


def inferred_value_info(onnx, path, work):
    """The value_info shape inference gives the model at `path` (its output beside it), or None when it fails."""
    out = os.path.join(work, "inferred.onnx")
    try:
        onnx.shape_inference.infer_shapes_path(path, out)
        m = onnx.load(out, load_external_data=False)
    except Exception:  # noqa: BLE001
        return None
    finally:
        if os.path.exists(out):
            os.remove(out)
    return sorted(v.SerializeToString() for v in m.graph.value_info)


def references(onnx, path):
    """The external locations of every tensor onnx.load resolves, and the model's metadata keys."""
    from onnx.external_data_helper import _get_all_tensors
    m = onnx.load(path, load_external_data=False)
    locations = {e.value for t in _get_all_tensors(m) if t.data_location == onnx.TensorProto.EXTERNAL
                 for e in t.external_data if e.key == "location"}
    return locations, {p.key for p in m.metadata_props}


def mlp(onnx, directory):
    """An MLP with 8 MiB of FLOAT weights and an INT64 shape, which ORT runs."""
    import numpy as np
    from onnx import helper, numpy_helper
    rng = np.random.default_rng(3)
    w1 = rng.standard_normal((256, 4096)).astype(np.float32)
    w2 = rng.standard_normal((4096, 256)).astype(np.float32)
    inits = [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2"),
             numpy_helper.from_array(rng.standard_normal(256).astype(np.float32), "b"),
             numpy_helper.from_array(np.array([2, 512], dtype=np.int64), "shape")]
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h"]), helper.make_node("Relu", ["h"], ["r"]),
             helper.make_node("MatMul", ["r", "w2"], ["y0"]), helper.make_node("Add", ["y0", "b"], ["y1"]),
             helper.make_node("Reshape", ["y1", "shape"], ["y"])]
    g = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", 1, [4, 256])],
                          [helper.make_tensor_value_info("y", 1, [2, 512])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    path = os.path.join(directory, "mlp.onnx")
    onnx.save(m, path)
    return path


def nested(onnx, directory):
    """Weights in an If branch (an initializer and a Constant), a main-graph Constant in float_data
    and a DOUBLE initializer in double_data (typed fields in raw_data's layout), and a sparse
    initializer: all but the sparse one (onnx.load does not resolve sparse tensors) become
    references."""
    import numpy as np
    from onnx import helper, numpy_helper
    w = (np.arange(1024, dtype=np.float32) / 512).reshape(32, 32)
    then_g = helper.make_graph([helper.make_node("Constant", [], ["c"], value=numpy_helper.from_array(w + 1, "cv")),
                                helper.make_node("MatMul", ["x", "bw"], ["t0"]),
                                helper.make_node("Add", ["t0", "c"], ["t"])],
                               "then", [], [helper.make_tensor_value_info("t", 1, [32, 32])],
                               [numpy_helper.from_array(w * 2, "bw")])
    else_g = helper.make_graph([helper.make_node("Identity", ["x"], ["e"])], "else", [],
                               [helper.make_tensor_value_info("e", 1, [32, 32])])
    values = numpy_helper.from_array(np.arange(64, dtype=np.float32), "sv")
    indices = numpy_helper.from_array(np.arange(64, dtype=np.int64) * 16, "si")
    sparse = helper.make_sparse_tensor(values, indices, [32, 32])
    sparse.values.name = "sp"
    typed_k = helper.make_tensor("kv", onnx.TensorProto.FLOAT, [32, 32], (w - 1).ravel().tolist())
    typed_d = helper.make_tensor("dd", onnx.TensorProto.DOUBLE, [32, 32], (w / 3).astype(np.float64).ravel().tolist())
    nodes = [helper.make_node("Constant", [], ["k"], value=typed_k),
             helper.make_node("Cast", ["dd"], ["dk"], to=onnx.TensorProto.FLOAT),
             helper.make_node("Constant", [], ["cond"], value=helper.make_tensor("cv2", 9, [], [True])),
             helper.make_node("If", ["cond"], ["i"], then_branch=then_g, else_branch=else_g),
             helper.make_node("Add", ["i", "k"], ["a0"]), helper.make_node("Add", ["a0", "dk"], ["a"]),
             helper.make_node("Add", ["a", "sp"], ["y"])]
    g = helper.make_graph(nodes, "nested", [helper.make_tensor_value_info("x", 1, [32, 32])],
                          [helper.make_tensor_value_info("y", 1, [32, 32])], [typed_d], sparse_initializer=[sparse])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    path = os.path.join(directory, "nested.onnx")
    onnx.save(m, path)
    return path


def check_one(onnx, exe, src, work, counts, failures, timings):
    """The three packs of one model and checks 1-4; the paths for onnxruntime, or None."""
    for f in os.listdir(os.path.dirname(src)):  # the input's external files, beside the copy
        full = os.path.join(os.path.dirname(src), f)
        if os.path.isfile(full) and not f.endswith(".onnx"):
            shutil.copy(full, os.path.join(work, f))
    local = os.path.join(work, "in.onnx")
    shutil.copy(src, local)
    try:
        want = arrays(onnx, onnx.load(local))
    except Exception:  # noqa: BLE001 - onnx cannot load the input: nothing to compare with
        counts["unloadable"] += 1
        return None
    want_check = full_check(onnx, local)
    want_info = inferred_value_info(onnx, local, work)
    outs = {"proxy": os.path.join(work, "proxy.onnx"), "back": os.path.join(work, "back.onnx"),
            "external": os.path.join(work, "ext.onnx")}
    steps = [("proxy", [local, outs["proxy"], "--reference", "--threshold", "64"]),
             ("back", [outs["proxy"], outs["back"]]),
             ("external", [outs["proxy"], outs["external"], "--external", "ext.data", "--align", "4096"])]
    for name, args in steps:
        start = time.perf_counter()
        rc, out = pack(exe, *args)
        timings.append((src, name, time.perf_counter() - start))
        if rc != 0:
            failures.append((src, f"{name}: pack exit {rc}: {out}"))
            return None
        if name == "proxy":
            counts["referenced"] += int(out.rsplit(", ", 1)[1].split()[0]) if "referencing" in out else 0
        if want_check is None:
            why = full_check(onnx, outs[name])
            if why is not None:
                failures.append((src, f"{name}: onnx.checker (full_check) refuses it: {why}"))
            else:
                counts["checked"] += 1
        try:
            got = arrays(onnx, onnx.load(outs[name]))
        except Exception as e:  # noqa: BLE001
            failures.append((src, f"{name}: onnx.load refuses it: {str(e).splitlines()[0] if str(e) else e}"))
            continue
        # A tensor numpy_helper cannot read in in.onnx (complex typed fields) is not compared:
        # the put-back writes typed fields as raw_data, as every pack does.
        differ = sorted(k for k in set(got) | set(want) if set(got) != set(want) or
                        (want[k] is not None and got[k] != want[k]))
        if differ:
            failures.append((src, f"{name}: tensors differ from in.onnx's: {differ[:3]}"))
        else:
            counts["tensors"] += sum(v is not None for v in want.values())
        locations, keys = references(onnx, outs[name])
        if name == "proxy":
            if want_info is not None:
                got_info = inferred_value_info(onnx, outs[name], work)
                if got_info != want_info:
                    failures.append((src, "proxy: shape inference " +
                                     ("fails" if got_info is None else "gives other value_info")))
                else:
                    counts["inferred"] += 1
            if RECORD not in keys:
                failures.append((src, "proxy: no reference-source record"))
        elif "in.onnx" in locations or RECORD in keys:
            failures.append((src, f"{name}: still references in.onnx ({sorted(locations)}, {sorted(keys)})"))
    counts["models"] += 1
    return [local, outs["proxy"], outs["back"], outs["external"]]


def main():
    ready = setup(argparse.ArgumentParser(), ort_limit=0)
    if ready is None:
        return SKIP
    args, onnx, corpus = ready
    synthetic = tempfile.TemporaryDirectory()
    made = [mlp(onnx, synthetic.name), nested(onnx, synthetic.name)]
    models = sorted(glob.glob(os.path.join(ROOT, "testdata", "*.onnx"))) + made + corpus
    counts = {k: 0 for k in ("models", "unloadable", "referenced", "checked", "tensors", "inferred", "ort_models",
                             "ort_skipped")}
    failures, timings, sizes = [], [], {}
    ort = bool(args.ort_dir) and shutil.which("node") is not None and \
        os.path.isdir(os.path.join(args.ort_dir, "node_modules", "onnxruntime-node"))
    ort_runs = 0
    for src in models:
        with tempfile.TemporaryDirectory() as work:
            outs = check_one(onnx, args.onnxview, src, work, counts, failures, timings)
            if outs is None:
                continue
            if src in made:
                sizes[os.path.basename(src)] = (os.path.getsize(outs[0]), os.path.getsize(outs[1]))
            if not ort or (args.ort_limit and ort_runs >= args.ort_limit and src in corpus):
                continue
            model = onnx.load(outs[0])
            if any(n.op_type in RANDOM_OPS for n in model.graph.node):
                continue
            try:
                ins = inputs_from(onnx, model, os.path.dirname(src) if src in corpus else None)
            except Exception:  # noqa: BLE001 - inputs that are not plain tensors
                ins = None
            if ins is None or any(i is None for i in ins):
                counts["ort_skipped"] += 1
                continue
            ort_runs += 1
            r = ort_case(args.ort_dir, outs, ins, work)
            if "error" in r or r["results"][0].get("error"):
                counts["ort_skipped"] += 1  # onnxruntime does not run the original
                continue
            first = r["results"][0]["outputs"]
            for name, res in zip(("proxy", "back", "external"), r["results"][1:]):
                if res.get("error") or res["outputs"] != first:
                    failures.append((src, f"onnxruntime: {name} output differs: {res.get('error', '')[:200]}"))
            counts["ort_models"] += 1
    for name, (before, after) in sizes.items():
        print(f"{name}: {before} bytes, proxy {after} bytes ({100.0 * after / before:.3f}%)")
    big = sizes.get("mlp.onnx")
    if big is None or big[1] * 100 >= big[0]:
        failures.append(("mlp.onnx", f"the proxy is not under 1% of the model: {big}"))
    slowest = max(timings, key=lambda t: t[2]) if timings else None
    for m, why in failures:
        print(f"FAIL {m}: {why}")
    print(f"{counts['models']} models made into proxies and put back two ways ({counts['unloadable']} not loadable "
          f"by onnx, skipped); {counts['referenced']} tensors referenced; {counts['checked']} outputs passed "
          f"onnx.checker full_check; {counts['tensors']} tensor comparisons equal; shape inference equal on "
          f"{counts['inferred']} proxies")
    if slowest:
        print(f"slowest pack: {slowest[2] * 1000:.0f} ms ({slowest[1]}, {os.path.basename(slowest[0])})")
    if ort:
        print(f"onnxruntime: {counts['ort_models']} models identical in, proxy and both put-backs; "
              f"{counts['ort_skipped']} not run")
    else:
        print("onnxruntime: not run (no --ort-dir with node_modules/onnxruntime-node, or no node)")
    print(f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
