"""Shared fixtures of the onnxview Python tests.

The tests import the package built in the Meson build tree (PYTHONPATH set by
python/tests/meson.build) and compare it with python3-onnx, the oracle, on
Debian's /usr/bin/python3. ONNXVIEW_SOURCE_ROOT names the source tree.
"""
import os
import pathlib

import numpy as np
import pytest

SOURCE_ROOT = pathlib.Path(os.environ.get("ONNXVIEW_SOURCE_ROOT",
                                          pathlib.Path(__file__).resolve().parents[2]))
TESTDATA = SOURCE_ROOT / "testdata"
CORPUS = pathlib.Path("/usr/share/libonnx-testdata/data")


@pytest.fixture
def testdata():
    return TESTDATA


def require_onnx():
    """python3-onnx, or a skip saying why (CI installs it: scripts/install-deps.sh)."""
    return pytest.importorskip("onnx", reason="python3-onnx (the oracle) is not installed")


def mapping_of(address):
    """(start, end, path) of the mapping of this process holding `address`, or None."""
    with open("/proc/self/maps") as maps:
        for line in maps:
            parts = line.split(maxsplit=5)
            start, end = (int(x, 16) for x in parts[0].split("-"))
            if start <= address < end:
                return start, end, parts[5].strip() if len(parts) > 5 else ""
    return None


def file_offset_of(address, path):
    """The offset in `path` that `address` maps, from /proc/self/maps, or None."""
    with open("/proc/self/maps") as maps:
        for line in maps:
            parts = line.split(maxsplit=5)
            start, end = (int(x, 16) for x in parts[0].split("-"))
            if start <= address < end and len(parts) > 5 and parts[5].strip() == os.path.realpath(path):
                return address - start + int(parts[2], 16)
    return None


def address_of(array):
    return array.__array_interface__["data"][0]


def same_values(a, b):
    """True when arrays a and b have the same dtype, shape and values, NaN
    equal to NaN (whatever its sign) and -0.0 distinct from 0.0."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind == "c":
        return same_values(a.real.copy(), b.real.copy()) and same_values(a.imag.copy(), b.imag.copy())
    if a.dtype.kind == "f":
        numbers = ~np.isnan(a)
        return bool(np.array_equal(a, b, equal_nan=True) and
                    np.array_equal(np.signbit(a[numbers]), np.signbit(b[numbers])))
    if a.dtype.kind == "O":
        return list(a.ravel()) == list(b.ravel())
    return bool(np.array_equal(a, b))


def varint(v):
    """The protobuf varint of v >= 0, for files written by hand."""
    out = bytearray()
    while True:
        out.append((v & 0x7F) | (0x80 if v > 0x7F else 0))
        v >>= 7
        if not v:
            return bytes(out)
