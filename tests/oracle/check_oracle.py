#!/usr/bin/python3
"""Compares `onnxview check` with onnx.checker.check_model (python3-onnx).

  check_oracle.py --onnxview BUILD/tools/onnxview [--corpus DIR] [--variants-only]

1. Every model.onnx under the corpus (default /usr/share/libonnx-testdata/data,
   Debian package libonnx-testdata, 1,072 models) that onnx.checker accepts
   must pass `onnxview check` (exit 0). Models it rejects are counted; onnxview
   may accept them (it does not check operator schemas).
2. Broken variants of a small valid model, built here with onnx.helper, must be
   rejected by `onnxview check` (exit 1); where onnx 1.12's checker does not
   reject one too, that is printed, not failed.

Exits 77 (skipped, with a message) when python onnx or the corpus is absent.
"""
import argparse
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import SKIP, spread  # noqa: E402


def run_onnxview(exe, path):
    p = subprocess.run([exe, "check", "--no-warnings", path], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def python_check(onnx, path):
    try:
        onnx.checker.check_model(path)
        return True, ""
    except Exception as e:  # noqa: BLE001 - any rejection counts
        return False, str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__


def corpus(onnx, exe, root, limit):
    models = []
    for d, _, files in os.walk(root):
        if "model.onnx" in files:
            models.append(os.path.join(d, "model.onnx"))
    models = spread(sorted(models), limit)
    if not models:
        print(f"SKIP: no model.onnx under {root}")
        return None
    failures = []
    py_rejects = 0
    both_reject = 0
    for m in models:
        ok, why = python_check(onnx, m)
        rc, out = run_onnxview(exe, m)
        if ok and rc != 0:
            failures.append((m, out.strip()))
        if not ok:
            py_rejects += 1
            if rc == 1:
                both_reject += 1
        if rc not in (0, 1):
            failures.append((m, f"exit {rc}: {out.strip()}"))
    print(f"corpus: {len(models)} models, onnx.checker rejects {py_rejects} "
          f"(onnxview rejects {both_reject} of those), disagreements on accepted models: {len(failures)}")
    for m, out in failures[:30]:
        print(f"  FAIL {m}:\n    " + out.replace("\n", "\n    "))
    return len(failures) == 0


def variants(onnx, exe, tmp):
    from onnx import TensorProto, helper

    def base_graph(nodes=None, inits=None, inputs=None, outputs=None):
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
        if nodes is None:
            nodes = [helper.make_node("Relu", ["x"], ["t"], name="r"),
                     helper.make_node("Neg", ["t"], ["y"], name="n")]
        return helper.make_graph(nodes, "g", inputs or [x], outputs or [y], initializer=inits or [])

    def model(graph, **kw):
        kw.setdefault("opset_imports", [helper.make_opsetid("", 13)])
        m = helper.make_model(graph, **kw)
        m.ir_version = 8
        return m

    cases = {}
    cases["valid"] = model(base_graph())
    cases["undefined_input"] = model(base_graph(nodes=[
        helper.make_node("Relu", ["nope"], ["t"]), helper.make_node("Neg", ["t"], ["y"])]))
    cases["duplicate_output"] = model(base_graph(nodes=[
        helper.make_node("Relu", ["x"], ["t"]), helper.make_node("Neg", ["x"], ["t"]),
        helper.make_node("Neg", ["t"], ["y"])]))
    bad_attr = helper.make_node("LeakyRelu", ["x"], ["y"])
    a = bad_attr.attribute.add()
    a.name = "alpha"
    a.type = onnx.AttributeProto.FLOAT
    a.i = 3
    cases["attribute_wrong_field"] = model(base_graph(nodes=[bad_attr]))
    m = model(base_graph())
    del m.opset_import[:]
    cases["missing_opset"] = m
    f1 = helper.make_function("local", "F1", ["a"], ["b"], [helper.make_node("F2", ["a"], ["b"], domain="local")],
                              [helper.make_opsetid("", 13), helper.make_opsetid("local", 1)])
    f2 = helper.make_function("local", "F2", ["a"], ["b"], [helper.make_node("F1", ["a"], ["b"], domain="local")],
                              [helper.make_opsetid("", 13), helper.make_opsetid("local", 1)])
    cases["recursive_functions"] = model(
        base_graph(nodes=[helper.make_node("F1", ["x"], ["y"], domain="local")]),
        opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("local", 1)], functions=[f1, f2])
    w = helper.make_tensor("w", TensorProto.FLOAT, [4], [1.0, 2.0, 3.0, 4.0])
    w.ClearField("float_data")
    w.raw_data = b"\0" * 12  # 3 floats for dims [4]
    cases["tensor_size_mismatch"] = model(base_graph(
        nodes=[helper.make_node("Add", ["x", "w"], ["y"])], inits=[w]))
    w2 = helper.make_tensor("w", TensorProto.FLOAT, [3], [1.0, 2.0, 3.0])
    w2.dims[0] = 4  # typed field one value short
    cases["tensor_typed_count_mismatch"] = model(base_graph(
        nodes=[helper.make_node("Add", ["x", "w"], ["y"])], inits=[w2]))
    w3 = helper.make_tensor("w", TensorProto.FLOAT, [2], [1.0, 2.0])
    w3b = helper.make_tensor("w", TensorProto.FLOAT, [2], [3.0, 4.0])
    cases["duplicate_initializer"] = model(base_graph(
        nodes=[helper.make_node("Add", ["x", "w"], ["y"])], inits=[w3, w3b]))
    ext = helper.make_tensor("w", TensorProto.FLOAT, [2], [1.0, 2.0])
    ext.ClearField("float_data")
    ext.data_location = TensorProto.EXTERNAL
    e = ext.external_data.add()
    e.key, e.value = "location", "../../etc/passwd"
    cases["external_escape"] = model(base_graph(
        nodes=[helper.make_node("Add", ["x", "w"], ["y"])], inits=[ext]))

    sv = helper.make_tensor("sv", TensorProto.FLOAT, [2], [1.0, 2.0])
    si = helper.make_tensor("si", TensorProto.INT64, [2], [1, 7])  # 7 is outside dims [4]
    sp = helper.make_sparse_tensor(sv, si, [4])
    g = base_graph(nodes=[helper.make_node("Relu", ["x"], ["y"])])
    g.sparse_initializer.append(sp)
    cases["sparse_index_out_of_range"] = model(g)
    wf = helper.make_tensor("w", TensorProto.FLOAT, [2], [1.0, 2.0])
    wf.ClearField("float_data")
    wf.int64_data.extend([1, 2])
    cases["tensor_wrong_typed_field"] = model(base_graph(
        nodes=[helper.make_node("Add", ["x", "w"], ["y"])], inits=[wf]))

    def branch(name, body_in, out):
        o = helper.make_tensor_value_info(out, TensorProto.FLOAT, [2])
        return helper.make_graph([helper.make_node("Neg", [body_in], [out])], name, [], [o])
    c = helper.make_tensor("c", TensorProto.BOOL, [], [True])
    if_ok = helper.make_node("If", ["c"], ["y"], then_branch=branch("t", "x", "ty"),
                             else_branch=branch("e", "x", "ey"))
    cases["valid_subgraph_outer_scope"] = model(base_graph(nodes=[if_ok], inits=[c]))
    if_leak = helper.make_node("If", ["c"], ["z"], then_branch=branch("t", "x", "ty"),
                               else_branch=branch("e", "x", "ey"))
    cases["subgraph_value_leaks_out"] = model(base_graph(
        nodes=[if_leak, helper.make_node("Neg", ["ty"], ["y"])], inits=[c]))
    if_shadow = helper.make_node("If", ["c"], ["y"], then_branch=branch("t", "x", "c"),
                                 else_branch=branch("e", "x", "ey"))
    cases["subgraph_redefines_outer_value"] = model(base_graph(nodes=[if_shadow], inits=[c]))

    ok_all = True
    for name, m in cases.items():
        path = os.path.join(tmp, name + ".onnx")
        with open(path, "wb") as fh:
            fh.write(m.SerializeToString())
        py_ok, why = python_check(onnx, path)
        rc, out = run_onnxview(exe, path)
        want_valid = name.startswith("valid")
        ours_ok = (rc == 0) if want_valid else (rc == 1)
        note = ""
        if py_ok != want_valid:
            note = "  (note: onnx.checker 1.12 " + ("accepts it" if py_ok else "rejects it: " + why) + ")"
        print(f"variant {name}: onnxview exit {rc} -> {'ok' if ours_ok else 'WRONG'}{note}")
        if not ours_ok:
            ok_all = False
            print("    " + out.strip().replace("\n", "\n    "))
    return ok_all


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxview", required=True)
    ap.add_argument("--corpus", default="/usr/share/libonnx-testdata/data")
    ap.add_argument("--variants-only", action="store_true")
    ap.add_argument("--limit", type=int, default=0, help="models spread over the corpus; 0: all")
    args = ap.parse_args()
    try:
        import onnx
        import onnx.checker  # noqa: F401
    except ImportError:
        print(f"SKIP: python onnx is not installed for {sys.executable} (Debian: apt install python3-onnx)")
        return SKIP
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        ok = variants(onnx, args.onnxview, tmp) and ok
    if not args.variants_only:
        if not os.path.isdir(args.corpus):
            print(f"SKIP: corpus {args.corpus} is absent (Debian: apt install libonnx-testdata); variants "
                  f"{'passed' if ok else 'FAILED'}")
            return SKIP if ok else 1
        r = corpus(onnx, args.onnxview, args.corpus, args.limit)
        if r is None:
            return SKIP if ok else 1
        ok = ok and r
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
