"""onnxview.hash() and onnxview.diff(): the same digests and reports as the
CLI's `onnxview hash` and `onnxview diff --json` (the binding leaves nothing
out), layout-invariant on copies python3-onnx writes, and value figures that
NumPy computes alike."""
import json
import os
import pathlib
import subprocess

import numpy as np
import pytest

import onnxview
from conftest import require_onnx

CLI = os.environ.get("ONNXVIEW_CLI")


def cli(*args):
    if not CLI:
        pytest.skip("ONNXVIEW_CLI is not set (meson test sets it)")
    return subprocess.run([CLI, *map(str, args)], capture_output=True, text=True)


MODELS = ["small_cnn.onnx", "small_cnn_inline.onnx", "attributes_and_types.onnx", "nested_subgraphs.onnx",
          "sparse.onnx", "tensors_all_types.onnx"]


@pytest.mark.parametrize("name", MODELS)
def test_hash_is_the_cli_digest(testdata, name):
    path = testdata / name
    run = cli("hash", path)
    assert run.returncode == 0, run.stderr
    assert onnxview.hash(path) == run.stdout.split()[0]
    assert onnxview.hash(str(path)) == onnxview.hash(os.fsencode(path))


def test_hash_options_leave_values_and_names_out(testdata, tmp_path):
    onnx = require_onnx()
    from onnx import numpy_helper
    model = onnx.load(str(testdata / "small_cnn_inline.onnx"))
    first = model.graph.initializer[0]
    changed = numpy_helper.to_array(first).copy()
    changed.flat[0] += 1
    first.CopyFrom(numpy_helper.from_array(changed, first.name))
    onnx.save(model, str(tmp_path / "values.onnx"))
    original = testdata / "small_cnn_inline.onnx"
    assert onnxview.hash(tmp_path / "values.onnx") != onnxview.hash(original)
    assert onnxview.hash(tmp_path / "values.onnx", values=False) == onnxview.hash(original, values=False)
    renamed = onnx.load(str(original))
    renamed.graph.node[0].name = "another_name"
    onnx.save(renamed, str(tmp_path / "renamed.onnx"))
    assert onnxview.hash(tmp_path / "renamed.onnx") != onnxview.hash(original)
    assert onnxview.hash(tmp_path / "renamed.onnx", names=False) == onnxview.hash(original, names=False)


def test_a_copy_onnx_writes_hashes_and_diffs_alike(testdata, tmp_path):
    """python3-onnx re-serializes (typed fields stay typed, raw stays raw, its own field
    order): what the model computes is unchanged."""
    onnx = require_onnx()
    for name in ["small_cnn_inline.onnx", "attributes_and_types.onnx", "tensors_all_types.onnx"]:
        copy = tmp_path / name
        onnx.save(onnx.load(str(testdata / name)), str(copy))
        assert onnxview.hash(copy) == onnxview.hash(testdata / name), name
        report = onnxview.diff(testdata / name, copy)
        assert report["same_computation"], name
        assert report["counts"] == {"signature": 0, "graph": 0, "weights": 0}


def test_diff_is_the_cli_report(testdata):
    a, b = testdata / "small_cnn.onnx", testdata / "small_cnn_inline.onnx"
    run = cli("diff", "--json", a, b)
    assert run.returncode == 0, run.stderr
    got = onnxview.diff(a, b)
    assert got == json.loads(run.stdout)
    assert got["result"] == "same computation, layout differs"
    assert got["layout"], "the inline and external copies differ in layout"


def test_diff_weight_figures_are_numpys(testdata, tmp_path):
    onnx = require_onnx()
    from onnx import numpy_helper
    original = testdata / "small_cnn_inline.onnx"
    model = onnx.load(str(original))
    index = max(range(len(model.graph.initializer)),
                key=lambda i: numpy_helper.to_array(model.graph.initializer[i]).size)
    tensor = model.graph.initializer[index]
    before = numpy_helper.to_array(tensor).astype(np.float64)
    after = before.copy()
    after.flat[3] += 0.25
    after.flat[7] -= 2.0
    tensor.CopyFrom(numpy_helper.from_array(after.astype(np.float32), tensor.name))
    changed = tmp_path / "changed.onnx"
    onnx.save(model, str(changed))

    report = onnxview.diff(original, changed)
    assert report["result"] == "differ" and not report["same_computation"]
    assert report["counts"]["weights"] == 1
    [change] = report["weights"]
    assert change["subject"] == tensor.name and change["kind"] == "values" and change["counted"]
    figures = change["figures"]
    new = numpy_helper.to_array(tensor).astype(np.float64)
    delta = np.abs(new - before).ravel()
    assert figures["count"] == before.size
    assert figures["differing"] == int(np.count_nonzero(delta))
    assert figures["first_index"] == int(np.flatnonzero(delta)[0])
    assert figures["max_abs"] == pytest.approx(delta.max())
    assert figures["mean_abs"] == pytest.approx(delta.mean())
    assert figures["rms"] == pytest.approx(np.sqrt((delta ** 2).mean()))

    # Within a tolerance, by numpy.allclose's rule; not compared at all with weights="none".
    loose = onnxview.diff(original, changed, weights="allclose", atol=3.0)
    assert np.allclose(new, before, atol=3.0) and loose["same_computation"]
    assert loose["result"] == "same computation, weights within tolerance"
    assert loose["counts"]["weights"] == 0 and loose["weights"] == []
    assert onnxview.diff(original, changed, weights="allclose")["counts"]["weights"] == 1
    assert onnxview.diff(original, changed, weights="none")["counts"]["weights"] == 0


def test_diff_renamed_nodes_by_structure(testdata, tmp_path):
    onnx = require_onnx()
    original = testdata / "small_cnn_inline.onnx"
    model = onnx.load(str(original))
    for i, node in enumerate(model.graph.node):
        node.name = f"renamed_{i}"
    renamed = tmp_path / "renamed.onnx"
    onnx.save(model, str(renamed))
    by_name = onnxview.diff(original, renamed)
    assert by_name["counts"]["graph"] > 0
    auto = onnxview.diff(original, renamed, match="auto")
    assert auto["counts"]["graph"] == 0 and auto["same_computation"]
    assert auto["matching"]["renamed"] == len(model.graph.node)
    assert onnxview.diff(original, renamed, ignore=["names"])["names"] == []


def test_bad_arguments_and_bad_files(testdata, tmp_path):
    a = testdata / "small_cnn.onnx"
    # One word per argument: the CLI's forms with ':' and ',' are not taken.
    for weights in ["close", "allclose:rtol=1", ""]:
        with pytest.raises(ValueError, match="weights"):
            onnxview.diff(a, a, weights=weights)
    for ignore in [["everything"], ["doc_string,producer"], [""]]:
        with pytest.raises(ValueError, match="ignore"):
            onnxview.diff(a, a, ignore=ignore)
    with pytest.raises(ValueError, match="match"):
        onnxview.diff(a, a, match="structure")
    truncated = tmp_path / "truncated.onnx"
    truncated.write_bytes(a.read_bytes()[:-7])
    with pytest.raises(onnxview.Error):
        onnxview.hash(truncated)
    with pytest.raises(onnxview.Error):
        onnxview.diff(a, truncated)
    with pytest.raises(onnxview.Error):
        onnxview.hash(tmp_path / "missing.onnx")
    # A payload error surfaces as onnxview.Error too: the external data file is gone.
    (tmp_path / "model.onnx").write_bytes(a.read_bytes())
    with pytest.raises(onnxview.Error) as raised:
        onnxview.hash(tmp_path / "model.onnx")
    assert raised.value.group == "io_error"
    assert onnxview.hash(tmp_path / "model.onnx", values=False) == onnxview.hash(a, values=False)
