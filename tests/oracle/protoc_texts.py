"""`protoc --decode=onnx.ModelProto` of many files in one protoc run.

The oracles compare protoc's reading of several files per model; one protoc
process per file was most of their time. Here the files go, in order, as the
repeated field of a wrapper message (`message Batch { repeated
onnx.ModelProto m = 1; }`), which libprotobuf parses each as a ModelProto
exactly as at the top level, one nesting level deeper. The text of each
entry is cut out of protoc's output and dedented: the same text as decoding
the file alone. When protoc refuses the batch (one file it refuses, or one
nested within a level of the depth limit), each file is decoded alone, so a
refusal is told apart per file as before.
"""
import os
import subprocess
import tempfile

PROTO_DIR = "/usr/include/onnx"
_WRAPPER = 'syntax = "proto2";\noption optimize_for = LITE_RUNTIME;\nimport "onnx.proto";\nmessage Batch { repeated onnx.ModelProto m = 1; }\n'


def _varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


runs = 0  # protoc processes started, for the test that batching happens


def _run(message, data, include):
    global runs
    runs += 1
    p = subprocess.run(["protoc", f"--decode={message}", "-I", include, "-I", PROTO_DIR,
                        "batch.proto" if message == "Batch" else "onnx.proto"],
                       input=data, capture_output=True, cwd=include)
    return p.stdout.decode("utf-8", "replace") if p.returncode == 0 else None


def _split(text, count):
    """The entries of a decoded Batch, dedented, or None if it is not `count` of them."""
    entries, current = [], None
    for line in text.splitlines():
        if current is None:
            if line != "m {":
                return None
            current = []
        elif line == "}":
            entries.append("".join(current))
            current = None
        else:
            current.append(line[2:] + "\n")
    return entries if current is None and len(entries) == count else None


def protoc_texts(blobs):
    """protoc's text of each serialized ModelProto in `blobs` (bytes), None
    for one protoc refuses."""
    blobs = list(blobs)
    with tempfile.TemporaryDirectory() as include:
        with open(os.path.join(include, "batch.proto"), "w") as f:
            f.write(_WRAPPER)
        batch = b"".join(b"\x0a" + _varint(len(b)) + b for b in blobs)
        text = _run("Batch", batch, include)
        entries = _split(text, len(blobs)) if text is not None else None
        if entries is not None:
            return entries
        return [_run("onnx.ModelProto", b, include) for b in blobs]


def protoc_file_texts(paths):
    """protoc_texts of files."""
    blobs = []
    for path in paths:
        with open(path, "rb") as f:
            blobs.append(f.read())
    return protoc_texts(blobs)
