"""Every input_N.pb / output_N.pb of Debian's libonnx-testdata node and model
tests is diagnosed as the message its model declares for that input or
output: python3-onnx reads the model and says whether the value is a
tensor, a sequence, an optional or a map; a sequence's element count comes
from onnx parsing the file as an onnx.SequenceProto.

Usage: doctor_corpus.py ONNXVIEW CORPUS_DIR [EVERY]: with EVERY, the
files of every EVERY-th model only. Exit 77 (skipped) without the
corpus or python3-onnx; 1 naming each file diagnosed otherwise.
"""
import concurrent.futures
import glob
import json
import os
import subprocess
import sys

ONNXVIEW, CORPUS = sys.argv[1], sys.argv[2]
EVERY = int(sys.argv[3]) if len(sys.argv) > 3 else 1
if not os.path.isdir(CORPUS):
    print(f"skipped: {CORPUS} absent (Debian package libonnx-testdata)")
    sys.exit(77)
try:
    import onnx
except ImportError:
    print("skipped: python3-onnx absent")
    sys.exit(77)


def declared_values():
    """{pb path: the value's TypeProto case ('tensor_type', ...)}."""
    out = {}
    model_paths = sorted(glob.glob(os.path.join(CORPUS, "**", "model.onnx"), recursive=True))
    for model_path in model_paths[::EVERY]:
        model = onnx.load(model_path, load_external_data=False)
        initializers = {t.name for t in model.graph.initializer}
        inputs = [v for v in model.graph.input if v.name not in initializers]
        for data_set in glob.glob(os.path.join(os.path.dirname(model_path), "test_data_set_*")):
            for prefix, values in (("input", inputs), ("output", model.graph.output)):
                for i, value in enumerate(values):
                    path = os.path.join(data_set, f"{prefix}_{i}.pb")
                    if os.path.exists(path):
                        out[path] = value.type.WhichOneof("value")
    return out


def expected(path, case):
    """The kind onnxview must report and, for sequences, the line."""
    if case == "tensor_type":
        return "tensor_proto", None
    if case == "map_type":
        return "map_proto", None
    if case == "optional_type":
        return "sequence_or_optional_proto", None
    seq = onnx.SequenceProto()
    with open(path, "rb") as f:
        seq.ParseFromString(f.read())
    fields = ["tensor_values", "sparse_tensor_values", "sequence_values", "map_values", "optional_values"]
    count = sum(len(getattr(seq, name)) for name in fields)
    if count < 2:
        return "sequence_or_optional_proto", None
    element = onnx.SequenceProto.DataType.Name(seq.elem_type)
    name = f"'{seq.name}', " if seq.name else ""
    return "sequence_proto", (
        f"a valid onnx.SequenceProto ({name}{count} {element} elements), not a ModelProto: "
        f"read it with `onnxview dump --type onnx.SequenceProto {path}`")


def diagnose(path):
    run = subprocess.run([ONNXVIEW, "doctor", "--json", path], capture_output=True, text=True)
    got = json.loads(run.stdout)["diagnosis"] if run.stdout else {"kind": f"no output ({run.stderr.strip()})"}
    return got, run.returncode


values = declared_values()
paths = sorted(values)
# One process per file, thousands of files: run them on every core.
with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
    diagnoses = list(pool.map(diagnose, paths))
bad = 0
kinds = {}
for path, (got, returncode) in zip(paths, diagnoses):
    case = values[path]
    want_kind, want_line = expected(path, case)
    kinds[case] = kinds.get(case, 0) + 1
    if got["kind"] != want_kind or (want_line and got["line"] != want_line) or returncode != 1:
        bad += 1
        print(f"FAIL: {path}: declared {case}, want {want_kind}, got {got.get('kind')} "
              f"(exit {returncode}): {got.get('line')}")
print(f"{len(values)} files ({', '.join(f'{n} {c}' for c, n in sorted(kinds.items()))}), {bad} diagnosed otherwise")
sys.exit(0 if bad == 0 and len(values) > 3000 // EVERY else 1)
