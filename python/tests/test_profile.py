"""onnxview.profile(): the dict of `onnxview profile --json` (both come from
the same library writer, so they must agree field for field), its options
against the CLI's, parameters against NumPy's sizes of python3-onnx's
initializers, and its refusals."""
import json
import os
import shutil
import subprocess

import numpy as np
import pytest

import onnxview
from conftest import require_onnx

CLI = os.environ.get("ONNXVIEW_CLI")


def cli_profile(*args):
    if not CLI:
        pytest.skip("ONNXVIEW_CLI is not set (meson test sets it)")
    run = subprocess.run([CLI, "profile", "--json", *map(str, args)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


MODELS = ["small_cnn.onnx", "small_cnn_inline.onnx", "nested_subgraphs.onnx", "attributes_and_types.onnx",
          "profile/lstm.onnx", "profile/transformer_block.onnx"]


@pytest.mark.parametrize("name", MODELS)
def test_profile_is_the_cli_report(testdata, name):
    path = testdata / name
    assert onnxview.profile(path) == cli_profile(path)
    assert onnxview.profile(str(path), by="op") == cli_profile("--by", "op", path)
    assert onnxview.profile(os.fsencode(path), by="scope:1") == cli_profile("--by", "scope:1", path)


def test_dims_and_inputs_make_counts_concrete(testdata):
    path = testdata / "profile" / "transformer_block.onnx"
    symbolic = onnxview.profile(path)
    assert isinstance(symbolic["totals"]["macs"], str) and "seq" in symbolic["totals"]["macs"]
    concrete = onnxview.profile(path, dims={"batch": 2, "seq": 16})
    assert concrete == cli_profile("--dim", "batch=2", "--dim", "seq=16", path)
    assert isinstance(concrete["totals"]["macs"], int)
    # The symbolic total, evaluated at those values, is the concrete one.
    assert eval(symbolic["totals"]["macs"].replace("^", "**"), {"batch": 2, "seq": 16}) == concrete["totals"]["macs"]
    assert onnxview.profile(path, inputs={"x": [2, 16, 768]}) == concrete


def test_params_are_numpys_sizes_of_the_initializers(testdata):
    onnx = require_onnx()
    from onnx import numpy_helper
    path = testdata / "small_cnn_inline.onnx"
    model = onnx.load(str(path))
    want = sum(numpy_helper.to_array(t).size for t in model.graph.initializer)
    totals = onnxview.profile(path)["totals"]
    assert totals["params"] == want
    assert totals["param_bytes"] == sum(numpy_helper.to_array(t).nbytes for t in model.graph.initializer)


def test_weights_are_never_read(testdata, tmp_path):
    # small_cnn.onnx keeps its weights in an external file: profiled without it.
    shutil.copy(testdata / "small_cnn.onnx", tmp_path / "alone.onnx")
    assert onnxview.profile(tmp_path / "alone.onnx") == onnxview.profile(testdata / "small_cnn.onnx")


def test_refusals(testdata, tmp_path):
    path = testdata / "profile" / "transformer_block.onnx"
    for by in ["nodes", "scope:0", "scope:", ""]:
        with pytest.raises(ValueError, match="by must be"):
            onnxview.profile(path, by=by)
    with pytest.raises(ValueError, match="dims"):
        onnxview.profile(path, dims={"batch": -1})
    with pytest.raises(ValueError, match="negative"):
        onnxview.profile(path, inputs={"x": [1, -2, 768]})
    with pytest.raises(ValueError, match="no graph input"):
        onnxview.profile(path, inputs={"nope": [1]})
    with pytest.raises(ValueError, match="contradicts"):
        onnxview.profile(path, inputs={"x": [1, 2]})  # rank 2 for a rank-3 input
    with pytest.raises(ValueError, match="contradicts"):
        onnxview.profile(path, inputs={"x": [1, 2, 7]})  # 7 for a dim_value of 768
    truncated = tmp_path / "truncated.onnx"
    truncated.write_bytes(path.read_bytes()[:-9])
    with pytest.raises(onnxview.Error):
        onnxview.profile(truncated)
    with pytest.raises(onnxview.Error):
        onnxview.profile(tmp_path / "missing.onnx")
    not_a_model = tmp_path / "text.onnx"
    not_a_model.write_text("hello")
    with pytest.raises(onnxview.Error):
        onnxview.profile(not_a_model)
