#!/usr/bin/python3
"""The Python baseline of `onnxview stats`: onnx.load, then per initializer
numpy's count, min, max, mean, std, zeros, NaN and +-Inf of the finite
values (what a person writes to check weights today).

  stats_python.py MODEL   prints "TENSORS VALUES NAN" for the agreement check
"""
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def main():
    model = onnx.load(sys.argv[1])
    tensors = values = nan = 0
    for t in model.graph.initializer:
        a = numpy_helper.to_array(t)
        if a.dtype.kind not in "fiub":
            continue
        x = a.astype(np.float64, copy=False).ravel()
        finite = np.isfinite(x)
        nan += int(np.isnan(x).sum())
        f = x[finite] if not finite.all() else x
        if f.size:
            f.min(), f.max(), f.mean(), f.std()
        int((x == 0).sum()), int(np.isposinf(x).sum()), int(np.isneginf(x).sum())
        tensors += 1
        values += x.size
    print(tensors, values, nan)


if __name__ == "__main__":
    main()
