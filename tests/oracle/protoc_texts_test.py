#!/usr/bin/python3
"""protoc_texts.py gives each file the text `protoc --decode` gives it alone.

    protoc_texts_test.py [--corpus DIR]

Over the models of testdata/ and every 7th model.onnx of the corpus (default
/usr/share/libonnx-testdata/data): the batch's texts equal one protoc run per
file, and a valid batch takes one protoc run. A blob protoc refuses gets None
and leaves the others' texts as they were. Exits 77 (skipped) without protoc.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import protoc_texts  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def alone(blob):
    p = subprocess.run(["protoc", "--decode=onnx.ModelProto", "-I", protoc_texts.PROTO_DIR, "onnx.proto"],
                       input=blob, capture_output=True)
    return p.stdout.decode("utf-8", "replace") if p.returncode == 0 else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default="/usr/share/libonnx-testdata/data")
    args = ap.parse_args()
    if not shutil.which("protoc") or not os.path.isfile(os.path.join(protoc_texts.PROTO_DIR, "onnx.proto")):
        print("protoc or onnx.proto missing: skipped")
        return 77
    files = sorted(glob.glob(os.path.join(ROOT, "testdata", "*.onnx")))
    files += sorted(glob.glob(os.path.join(args.corpus, "**", "model.onnx"), recursive=True))[::7]
    blobs = [open(f, "rb").read() for f in files]
    failures = []
    before = protoc_texts.runs
    texts = protoc_texts.protoc_texts(blobs)
    if protoc_texts.runs - before != 1:
        failures.append(f"{len(blobs)} files took {protoc_texts.runs - before} protoc runs, not one")
    for f, b, t in zip(files, blobs, texts):
        if t != alone(b):
            failures.append(f"{f}: the batch's text differs from protoc's on the file alone")
    refused = b"\x0f\x00"  # field number 1, wire type 7: protoc refuses it
    mixed = protoc_texts.protoc_texts([blobs[0], refused, blobs[-1]])
    if mixed != [texts[0], None, texts[-1]]:
        failures.append("a refused blob: not [text, None, text]")
    for why in failures:
        print("FAIL", why)
    print(f"{len(blobs)} files decoded in one batch and alone; {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
