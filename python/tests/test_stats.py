"""onnxview.stats() and check(numeric=True): the dict of `onnxview stats
--json` (both written by the same library writer, so they must agree field
for field) and the findings of `onnxview check --numeric --json`, on
testdata/ and on models with injected faults (scripts/make_numeric_models.py);
the values themselves are checked against numpy by tests/oracle/stats_oracle.py."""
import json
import os
import subprocess
import sys

import pytest

import onnxview
from conftest import require_onnx

CLI = os.environ.get("ONNXVIEW_CLI")
ROOT = os.environ.get("ONNXVIEW_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))


def cli(*args, ok=(0,)):
    if not CLI:
        pytest.skip("ONNXVIEW_CLI is not set (meson test sets it)")
    run = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True)
    assert run.returncode in ok, run.stderr
    return json.loads(run.stdout)


MODELS = ["small_cnn.onnx", "small_cnn_inline.onnx", "nested_subgraphs.onnx", "tensors_all_types.onnx",
          "sparse.onnx", "attributes_and_types.onnx"]


@pytest.mark.parametrize("name", MODELS)
def test_stats_is_the_cli_report(testdata, name):
    path = testdata / name
    assert onnxview.stats(str(path)) == cli("stats", "--json", path)
    assert onnxview.stats(str(path), histogram=4) == cli("stats", "--json", "--histogram", "4", path)


def test_stats_of_named_tensors(testdata):
    path = testdata / "small_cnn.onnx"
    report = onnxview.stats(path, names=["fc.bias", "conv1.weight"])
    assert [t["name"] for t in report["tensors"]] == ["conv1.weight", "fc.bias"]
    assert report["totals"]["tensors"] == 2
    assert report["tensors"][0]["values"] == 8 * 3 * 3 * 3


def test_stats_of_a_missing_file_or_a_non_model(tmp_path):
    with pytest.raises(onnxview.Error):
        onnxview.stats(tmp_path / "missing.onnx")
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"\xff" * 64)
    with pytest.raises(onnxview.Error):
        onnxview.stats(junk)


@pytest.fixture(scope="module")
def numeric_models(tmp_path_factory):
    require_onnx()
    out = tmp_path_factory.mktemp("numeric")
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "make_numeric_models.py"), str(out)], check=True,
                   capture_output=True)
    return out


def as_tuples(findings):
    return sorted((f.severity, f.code, f.path, f.message, f.offset, f.tensor, f.count) for f in findings)


def test_check_numeric_is_the_cli_report(numeric_models):
    expected = json.loads((numeric_models / "expected.json").read_text())
    assert expected
    for name in sorted(expected):
        path = numeric_models / name
        report = cli("check", "--numeric", "--json", path, ok=(0, 1))
        theirs = sorted((f["severity"], f["code"], f["path"], f["message"], f["offset"], f.get("tensor", ""),
                         f.get("count")) for f in report["findings"])
        assert as_tuples(onnxview.check(path, numeric=True)) == theirs, name
        with onnxview.open(path) as m:
            assert as_tuples(m.check(numeric=True)) == theirs, name
            # Without numeric=True only the checker's findings.
            assert all(f.tensor == "" and f.count is None for f in m.check())


def test_check_numeric_finds_nan(numeric_models):
    expected = json.loads((numeric_models / "expected.json").read_text())
    name = next(n for n, fs in expected.items() if any(f["code"] == "non_finite" for f in fs))
    found = [f for f in onnxview.check(numeric_models / name, numeric=True) if f.code == "non_finite"]
    assert found and found[0].severity == "error" and found[0].count >= 1
    assert onnxview.check(numeric_models / name, numeric=True, errors_only=True)


def hostile_model(onnx, tmp_path, name, tensor, external_bytes=None):
    """A model whose one initializer is `tensor`, written as it is (no checks)."""
    from onnx import helper
    graph = helper.make_graph([helper.make_node("Identity", ["w"], ["y"])], "g", [],
                              [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)], [tensor])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    path = tmp_path / name
    path.write_bytes(model.SerializeToString())
    if external_bytes is not None:
        (tmp_path / "w.bin").write_bytes(external_bytes)
    return path


def hostile_tensors(onnx):
    """(name, TensorProto, bytes of w.bin or None): payloads that cannot be read."""
    T = onnx.TensorProto
    huge = T(name="w", data_type=T.FLOAT, dims=[1 << 20, 1 << 20], raw_data=b"\0" * 16)  # 2^40 elements
    short = T(name="w", data_type=T.FLOAT, dims=[4], raw_data=b"\0" * 15)                 # a byte short
    external = T(name="w", data_type=T.FLOAT, dims=[1024], data_location=T.EXTERNAL)
    external.external_data.add(key="location", value="w.bin")
    return [("huge.onnx", huge, None), ("short.onnx", short, None),
            ("truncated_external.onnx", external, b"\0" * 100)]  # 4096 bytes expected


def test_unreadable_payloads_are_errors_not_crashes(tmp_path):
    onnx = require_onnx()
    for name, tensor, external in hostile_tensors(onnx):
        path = hostile_model(onnx, tmp_path, name, tensor, external)
        report = onnxview.stats(path)
        [record] = report["tensors"]
        assert "error" in record and "values" not in record, (name, record)
        assert report["totals"]["unreadable"] == 1
        found = onnxview.check(path, numeric=True)
        assert any(f.code == "unreadable" and f.tensor == "w" for f in found), (name, found)
        if CLI:
            run = subprocess.run([CLI, "stats", str(path)], capture_output=True, text=True)
            assert run.returncode == 1 and "could not be read" in run.stderr, (name, run.stderr)
            run = subprocess.run([CLI, "check", "--numeric", "--sarif", str(path)], capture_output=True, text=True)
            assert run.returncode in (0, 1) and json.loads(run.stdout)["version"] == "2.1.0", name
