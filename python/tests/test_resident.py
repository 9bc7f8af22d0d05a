"""Opening a weights-heavy model whose pages are in the page cache, listing
its initializers and reading one maps the headers, not the weights: Linux
6.18 maps the whole cached folio (up to 2 MiB) around each byte a read fault
touches, so reading every tensor's header used to map the whole file. The
model (80 MiB) is written and read once so that it is cached, then opened in
a fresh process whose peak resident set is measured."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import varint

TENSORS = 40
ELEMS = 512 * 1024  # float32: 2 MiB each, 80 MiB in all (over the 64 MiB copy threshold)


def key(number, wire_type):
    return varint(number << 3 | wire_type)


def lendelim(number, payload_len):
    return key(number, 2) + varint(payload_len)


@pytest.fixture(scope="module")
def cached_model(tmp_path_factory):
    path = tmp_path_factory.mktemp("resident") / "weights.onnx"
    heads = []
    for i in range(TENSORS):
        name = b"w%02d" % i
        head = key(1, 0) + varint(ELEMS) + key(2, 0) + varint(1) + lendelim(8, len(name)) + name
        heads.append(head + lendelim(9, ELEMS * 4))
    graph_len = sum(len(lendelim(5, len(h) + ELEMS * 4)) + len(h) + ELEMS * 4 for h in heads)
    with open(path, "wb") as f:
        f.write(key(1, 0) + varint(8) + lendelim(7, graph_len))
        for i, h in enumerate(heads):
            f.write(lendelim(5, len(h) + ELEMS * 4) + h)
            values = np.zeros(ELEMS, dtype=np.float32)  # written, not a hole: holes are cached in small pages
            values[:5] = [0, 1, 2, 3, i]
            f.write(values.tobytes())
    # Out of the page cache and back in by read-ahead, which caches the file
    # in large folios (the pages of a write may stay small).
    with open(path, "rb") as f:
        os.fsync(f.fileno())
        os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
        while f.read(1 << 20):
            pass
    return path


CHILD = r"""
import json, sys
import numpy
import onnxview
def status(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # the peak (VmHWM) back to the current resident set
base = status("VmRSS")
with onnxview.open(sys.argv[1]) as m:
    names = m.keys()
    head = m.get_tensor(names[7])[:5].tolist()
print(json.dumps({"names": names, "head": head, "growth": status("VmHWM") - base}))
"""


@pytest.mark.skipif(not os.path.exists("/proc/self/clear_refs"), reason="needs Linux's /proc/self/clear_refs")
def test_headers_of_a_cached_model_map_no_weights(cached_model):
    r = subprocess.run([sys.executable, "-c", CHILD, str(cached_model)], capture_output=True, text=True,
                       env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["names"] == ["w%02d" % i for i in range(TENSORS)]
    assert out["head"] == [0.0, 1.0, 2.0, 3.0, 7.0]
    # The tensor read maps its own 2 MiB; the 40 headers a page each.
    assert out["growth"] < 24 << 20, out["growth"]
