#!/usr/bin/python3
"""Checks `onnxview edit` against python3-onnx making the same edit.

  edit_oracle.py --onnxview BUILD/tools/onnxview [--corpus DIR] [--limit N]

For every model of testdata/ and every model.onnx of the corpus (default
/usr/share/libonnx-testdata/data) that python3-onnx loads, each edit below is
made twice, by `onnxview edit` and by python3-onnx on the loaded model (then
onnx.save), and `protoc --decode=onnx.ModelProto` of the two files must be the
same text; onnx.checker must give onnxview's output the input's verdict.
  metadata   --metadata onnxview.test=1 --metadata KEY=new --metadata GONE
             (KEY: the model's first metadata key, replaced; GONE removed)
  producer   --producer edited:2.5
  strip      --strip-doc-strings (every doc_string of every message cleared)
  set-dim    --set-dim X:0=batch --set-dim X:LAST=7 (X: the first main-graph
             input whose shape has at least two dims; dim_param, dim_value)
  rename     --rename OLD=NEW for the first graph input, output, initializer
             and sparse initializer and the first main-graph value a subgraph
             refers to, all at once; python3-onnx renames them in the loaded
             protobuf with the same scope rules (rename_in_place below)
The rename case also runs on models made here with onnx.helper (If and Loop
bodies using outer values, a body input shadowing one, a nested subgraph,
training info, a quantization annotation, sparse initializers). With
onnxruntime-node (--ort-dir, as pack_oracle.py), the runnable models of
testdata/ and those made here run before and after each edit but set-dim
(renamed inputs for rename): outputs must be identical bit for bit, under
their new names.
Exits 77 (skipped) without python onnx, protoc or the corpus.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import ROOT, SKIP, checker_ok, setup  # noqa: E402
from protoc_texts import protoc_texts  # noqa: E402
from rename_oracle import ort_same_outputs, rename_case, rename_models  # noqa: E402


def strip(msg):
    for fd, value in msg.ListFields():
        if fd.name == "doc_string":
            msg.ClearField("doc_string")
        elif fd.message_type is not None:
            if fd.label == fd.LABEL_REPEATED:
                for v in value:
                    strip(v)
            else:
                strip(value)


def set_metadata(model, changes):
    for key, value in changes:
        kept = [(e.key, e.value) for e in model.metadata_props if e.key != key]
        del model.metadata_props[:]
        for k, v in kept:
            e = model.metadata_props.add()
            e.key, e.value = k, v
        if value is not None:
            e = model.metadata_props.add()
            e.key, e.value = key, value


def main():
    ready = setup(argparse.ArgumentParser())
    if ready is None:
        return SKIP
    args, onnx, corpus = ready
    synthetic = tempfile.TemporaryDirectory()
    made = rename_models(onnx, synthetic.name)
    models = sorted(glob.glob(os.path.join(ROOT, "testdata", "*.onnx"))) + made + corpus
    failures, done, renamed, ort_runs = [], 0, 0, 0
    for src in models:
        try:
            base = onnx.load(src, load_external_data=False)
        except Exception:  # noqa: BLE001 - not loadable by onnx: nothing to compare with
            continue
        first_key = base.metadata_props[0].key if base.metadata_props else "absent.key"
        edits = {
            "metadata": (["--metadata", "onnxview.test=1", "--metadata", f"{first_key}=new", "--metadata", "GONE"],
                         lambda m: set_metadata(m, [("onnxview.test", "1"), (first_key, "new"), ("GONE", None)])),
            "producer": (["--producer", "edited:2.5"],
                         lambda m: (setattr(m, "producer_name", "edited"), setattr(m, "producer_version", "2.5"))),
            "strip": (["--strip-doc-strings"], strip),
        }
        # The first main-graph input with a tensor shape of at least two dims:
        # dim 0 becomes a name, the last a number.
        shaped = [i for i in base.graph.input
                  if i.type.HasField("tensor_type") and i.type.tensor_type.HasField("shape")
                  and len(i.type.tensor_type.shape.dim) >= 2]
        if shaped:
            target = shaped[0].name
            last = len(shaped[0].type.tensor_type.shape.dim) - 1

            def set_dims(m, target=target, last=last):
                for i in list(m.graph.input) + list(m.graph.output):
                    if i.name == target:
                        i.type.tensor_type.shape.dim[0].dim_param = "batch"
                        i.type.tensor_type.shape.dim[last].dim_value = 7
            edits["set-dim"] = (["--set-dim", f"{target}:0=batch", "--set-dim", f"{target}:{last}=7"], set_dims)
        rename = rename_case(base)
        if rename:
            edits["rename"] = rename
            renamed += 1
        if src in made:  # made for the rename case alone
            edits = {"rename": rename}
        want_checker = checker_ok(onnx, src)
        with tempfile.TemporaryDirectory() as work:
            # External files stay referenced: they go next to the outputs.
            for f in os.listdir(os.path.dirname(src)):
                full = os.path.join(os.path.dirname(src), f)
                if os.path.isfile(full) and not f.endswith(".onnx"):
                    shutil.copy(full, os.path.join(work, f))
            shutil.copy(src, os.path.join(work, "in.onnx"))  # edited next to its external files
            local = os.path.join(work, "in.onnx")
            compared = []  # (edit, our bytes, python3-onnx's bytes): protoc decodes them together
            for name, (flags, python_edit) in edits.items():
                ours = os.path.join(work, "ours.onnx")
                p = subprocess.run([args.onnxview, "edit", local, ours, *flags], capture_output=True, text=True)
                if p.returncode != 0:
                    failures.append((src, f"{name}: exit {p.returncode}: {p.stderr.strip()}"))
                    continue
                m = onnx.load(src, load_external_data=False)
                python_edit(m)
                with open(ours, "rb") as f:
                    compared.append((name, f.read(), m.SerializeToString()))
                if checker_ok(onnx, ours) != want_checker:
                    failures.append((src, f"{name}: onnx.checker changed its verdict"))
                # set-dim changes the shapes the inputs must have: not run.
                if name != "set-dim" and (src in made or src not in corpus) and args.ort_dir:
                    renames = dict(f.split("=", 1) for f in flags[1::2]) if name == "rename" else {}
                    ran, why = ort_same_outputs(onnx, args.ort_dir, src, ours, renames, work)
                    ort_runs += ran
                    if why:
                        failures.append((src, f"{name} under onnxruntime: {why}"))
            texts = protoc_texts(blob for _, a, b in compared for blob in (a, b))
            for i, (name, _, _) in enumerate(compared):
                a, b = texts[2 * i], texts[2 * i + 1]
                if a is None or a != b:
                    failures.append((src, f"{name}: protoc --decode differs from python3-onnx's edit"))
        done += 1
    for m, why in failures:
        print(f"FAIL {m}: {why}")
    print(f"{done} models edited up to five ways ({renamed} with renames; {ort_runs} edits run under onnxruntime "
          f"before and after), each compared with python3-onnx's edit; {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
