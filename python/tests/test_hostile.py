"""Hostile files raise onnxview.Error, never crash: every prefix of a model,
byte mutants, the fuzz corpus, deep nesting, lengths past the end. Each batch
runs in a child process (hostile_walk.py), so a crash fails the test instead
of ending the run."""
import pathlib
import random
import subprocess
import sys

import pytest

from conftest import SOURCE_ROOT, TESTDATA, varint

WALKER = pathlib.Path(__file__).with_name("hostile_walk.py")


def walk_all(paths):
    r = subprocess.run([sys.executable, str(WALKER)] + [str(p) for p in paths],
                       capture_output=True, text=True)
    assert r.returncode == 0, (r.returncode, r.stdout[-3000:], r.stderr[-3000:])
    assert ("walked %d files" % len(paths)) in r.stdout


def write_all(directory, blobs):
    paths = []
    for i, blob in enumerate(blobs):
        p = directory / ("%05d.onnx" % i)
        p.write_bytes(blob)
        paths.append(p)
    return paths


def field(number, payload):
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def test_every_prefix(tmp_path):
    data = (TESTDATA / "small_cnn_inline.onnx").read_bytes()
    walk_all(write_all(tmp_path, [data[:n] for n in range(1, len(data), 5)]))


@pytest.mark.parametrize("model", ["attributes_and_types.onnx", "nested_subgraphs.onnx", "sparse.onnx",
                                   "tensors_all_types.onnx"])
def test_byte_mutants(tmp_path, model):
    data = (TESTDATA / model).read_bytes()
    rng = random.Random(model)
    blobs = []
    for _ in range(400):
        b = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            b[rng.randrange(len(b))] = rng.choice([0, 0xFF, 0x80, 0x7F, rng.randrange(256)])
        blobs.append(bytes(b))
    walk_all(write_all(tmp_path, blobs))


def test_fuzz_corpus():
    files = sorted((SOURCE_ROOT / "fuzz" / "corpus").rglob("*"))
    files = [f for f in files if f.is_file()]
    assert files
    walk_all(files)


def test_structures_that_lie(tmp_path):
    graph_in_attribute = b""
    for _ in range(300):  # graphs nested through GRAPH attributes, past every depth limit
        attr = field(1, b"body") + varint(20 << 3) + varint(5) + field(6, graph_in_attribute)
        graph_in_attribute = field(1, field(5, attr))  # graph { node { attribute } }
    big_dims = field(7, field(5, varint(1 << 3) + varint(1 << 62) + varint(1 << 3) + varint(1 << 62) +
                              varint(2 << 3) + varint(1) + field(8, b"w")))
    blobs = [
        b"",
        b"\x00" * 4096,
        b"\xff" * 64,
        varint(7 << 3 | 2) + varint(1 << 40),            # graph length far past the end
        varint(7 << 3 | 2) + b"\xff" * 11,               # an over-long varint
        varint(8 << 3) + b"\x01" + field(7, graph_in_attribute),
        varint(1 << 3) + b"\x08" + field(7, big_dims),   # dims whose product overflows
        varint(1 << 3) + b"\x08" + field(7, field(5, varint(1 << 3) + varint(3) + varint(2 << 3) + varint(1) +
                                            field(8, b"w") + field(9, b"\x00" * 5))),  # 5 bytes for 3 floats
        (TESTDATA / "small_cnn.onnx").read_bytes()[:-3],
    ]
    walk_all(write_all(tmp_path, blobs))
