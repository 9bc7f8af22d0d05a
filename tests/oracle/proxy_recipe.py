#!/usr/bin/python3
"""The proxy recipe of docs/writer.md ("Proxies"), run end to end on a model
of 4 MiB of weights made here (a real use is a model over 2 GiB, which
python3-onnx cannot load; the steps are the same and too slow for a test):

  1. onnxview pack net.onnx net.proxy.onnx --reference
  2. onnx.version_converter.convert_version(onnx.load(net.proxy.onnx,
     load_external_data=False), 17), saved next to net.onnx as
     net.v17.proxy.onnx. No code of the user's: onnx 1.12's converter drops
     the tensors' external_data entries (its IR keeps no such field), and the
     put-back binds each such tensor to the original's of its name;
  3. onnxview pack net.v17.proxy.onnx net.v17.onnx (the weights put back),
     saying how many tensors it bound again by name;
  4. net.v17.onnx passes onnx.checker (full_check), its opset is 17, its
     weights equal net.onnx's (numpy, bit for bit), and onnxruntime gives the
     outputs of net.onnx (identical bits expected: the converted operators
     compute the same thing).

  proxy_recipe.py --onnxview BUILD/tools/onnxview [--ort-dir DIR]
Exits 77 (skipped) without python onnx.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import SKIP, encode, ort_case  # noqa: E402


def make_model(onnx, path):
    """Opset 11: Unsqueeze takes its axes as an attribute (an input from opset 13 on), so the
    converter rewrites the graph; 4 MiB of FLOAT weights, an INT64 shape."""
    import numpy as np
    from onnx import helper, numpy_helper
    rng = np.random.default_rng(11)
    inits = [numpy_helper.from_array(rng.standard_normal((1024, 1024)).astype(np.float32) / 32, "w"),
             numpy_helper.from_array(rng.standard_normal(1024).astype(np.float32), "b"),
             numpy_helper.from_array(np.array([8, 512], dtype=np.int64), "shape")]
    nodes = [helper.make_node("MatMul", ["x", "w"], ["h"]), helper.make_node("Add", ["h", "b"], ["a"]),
             helper.make_node("Relu", ["a"], ["r"]), helper.make_node("Reshape", ["r", "shape"], ["s"]),
             helper.make_node("Softmax", ["s"], ["p"], axis=1),
             helper.make_node("Unsqueeze", ["p"], ["y"], axes=[0])]
    g = helper.make_graph(nodes, "net", [helper.make_tensor_value_info("x", 1, [4, 1024])],
                          [helper.make_tensor_value_info("y", 1, [1, 8, 512])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 11)])
    m.ir_version = 6
    onnx.save(m, path)


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, (p.stdout + p.stderr).strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxview", required=True)
    ap.add_argument("--ort-dir", default=os.environ.get("ONNXRUNTIME_NODE_DIR", "/opt/onnxruntime-node"))
    args = ap.parse_args()
    try:
        import numpy as np
        import onnx
        from onnx import numpy_helper, version_converter
    except ImportError as e:
        print(f"SKIP: python3-onnx is not installed ({e})")
        return SKIP
    failures = []
    work = tempfile.mkdtemp()
    try:
        net, proxy_path = os.path.join(work, "net.onnx"), os.path.join(work, "net.proxy.onnx")
        converted_path, final = os.path.join(work, "net.v17.proxy.onnx"), os.path.join(work, "net.v17.onnx")
        make_model(onnx, net)
        rc, out = run([args.onnxview, "pack", net, proxy_path, "--reference"])
        print(out)
        if rc != 0:
            print(f"FAIL step 1: exit {rc}")
            return 1
        print(f"net.onnx {os.path.getsize(net)} bytes, net.proxy.onnx {os.path.getsize(proxy_path)} bytes")

        proxy = onnx.load(proxy_path, load_external_data=False)
        converted = version_converter.convert_version(proxy, 17)
        emptied = sum(1 for t in converted.graph.initializer
                      if not t.external_data and not t.raw_data and not t.float_data and not t.int64_data)
        print(f"step 2: convert_version (onnx {onnx.__version__}) left {emptied} tensors without a payload")
        onnx.save(converted, converted_path)

        rc, out = run([args.onnxview, "pack", converted_path, final])
        print(out)
        if rc != 0:
            print(f"FAIL step 3: exit {rc}")
            return 1
        said = f"rebound {emptied} tensors by name to those of '{net}'"
        if emptied and said not in out.splitlines():
            failures.append(f"step 3: no line '{said}'")
        try:
            onnx.checker.check_model(final, full_check=True)
        except Exception as e:  # noqa: BLE001
            failures.append(f"step 4: onnx.checker refuses {final}: {e}")
        got, want = onnx.load(final), onnx.load(net)
        if [o.version for o in got.opset_import if o.domain in ("", "ai.onnx")] != [17]:
            failures.append(f"step 4: opset {got.opset_import}")
        if any(p.key == "onnxview.reference_source" for p in got.metadata_props):
            failures.append("step 4: the put-back model keeps the reference-source record")
        weights = {t.name: numpy_helper.to_array(t) for t in want.graph.initializer}
        for t in got.graph.initializer:
            if t.name in weights:
                a, b = numpy_helper.to_array(t), weights.pop(t.name)
                if a.dtype != b.dtype or a.shape != b.shape or a.tobytes() != b.tobytes():
                    failures.append(f"step 4: weight {t.name} differs")
        if weights:
            failures.append(f"step 4: weights missing: {sorted(weights)}")

        ort = bool(args.ort_dir) and shutil.which("node") is not None and \
            os.path.isdir(os.path.join(args.ort_dir, "node_modules", "onnxruntime-node"))
        if ort:
            x = np.random.default_rng(5).standard_normal((4, 1024)).astype(np.float32)
            r = ort_case(args.ort_dir, [net, final], [encode("x", x)], work)
            if "error" in r or any(res.get("error") for res in r["results"]):
                failures.append(f"onnxruntime: {r.get('error') or [res.get('error') for res in r['results']]}")
            elif r["results"][0]["outputs"] != r["results"][1]["outputs"]:
                failures.append("onnxruntime: net.v17.onnx's outputs differ from net.onnx's")
            else:
                print("onnxruntime: net.onnx and net.v17.onnx give identical outputs")
        else:
            print("onnxruntime: not run (no --ort-dir with node_modules/onnxruntime-node, or no node)")
    finally:
        shutil.rmtree(work)
    for f in failures:
        print(f"FAIL {f}")
    print(f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
