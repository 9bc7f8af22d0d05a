#!/usr/bin/python3
"""The Python baseline of bench/diff_vs_cat.sh: what differs between two models
as a script with python3-onnx and numpy would find it.

  diff_python.py A B

onnx.load both (external data too), compare the models without their
initializers as protobufs, then each initializer by name as numpy arrays
(NaN equal to NaN). Prints one line per differing initializer, `graph differs`
when the rest does, and `identical` when nothing does.
"""
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def main():
    a, b = onnx.load(sys.argv[1]), onnx.load(sys.argv[2])
    wa = {t.name: t for t in a.graph.initializer}
    wb = {t.name: t for t in b.graph.initializer}
    lines = []
    for name in sorted(wa.keys() | wb.keys()):
        if name not in wa or name not in wb:
            lines.append(f"initializer '{name}': {'added' if name not in wa else 'removed'}")
            continue
        x, y = numpy_helper.to_array(wa[name]), numpy_helper.to_array(wb[name])
        if x.dtype != y.dtype or x.shape != y.shape or not np.array_equal(x, y, equal_nan=x.dtype.kind in "fc"):
            lines.append(f"initializer '{name}'")
    for m in (a, b):
        del m.graph.initializer[:]
    if a.SerializeToString(deterministic=True) != b.SerializeToString(deterministic=True):
        lines.append("graph differs")
    print("\n".join(lines) if lines else "identical")


if __name__ == "__main__":
    main()
