"""onnxview.edit(): the same bytes as `onnxview edit` for the same edits, nodes
put in topological order (checked against python3-onnx's checker), and its
refusals. --toposort itself is checked on shuffled corpus models, against a
Kahn sort and onnxruntime, by tests/oracle/toposort_oracle.py."""
import os
import random
import subprocess

import pytest

import onnxview

CLI = os.environ.get("ONNXVIEW_CLI")
onnx = pytest.importorskip("onnx")
helper = onnx.helper


def cli_edit(src, dst, *args):
    if not CLI:
        pytest.skip("ONNXVIEW_CLI is not set (meson test sets it)")
    run = subprocess.run([CLI, "edit", str(src), str(dst), *args], capture_output=True)
    assert run.returncode == 0, run.stderr
    return dst.read_bytes()


def shuffled(testdata, tmp_path, seed=3):
    m = onnx.load(str(testdata / "small_cnn_inline.onnx"))
    nodes = list(m.graph.node)
    random.Random(seed).shuffle(nodes)
    del m.graph.node[:]
    m.graph.node.extend(nodes)
    path = tmp_path / "shuffled.onnx"
    onnx.save(m, str(path))
    return path


def test_toposort_is_the_cli_edit_and_passes_the_checker(testdata, tmp_path):
    src = shuffled(testdata, tmp_path)
    with pytest.raises(onnx.checker.ValidationError):
        onnx.checker.check_model(onnx.load(str(src)))  # out of order
    report = onnxview.edit(src, tmp_path / "py.onnx", toposort=True)
    assert report["nodes_moved"] > 0
    assert (tmp_path / "py.onnx").read_bytes() == cli_edit(src, tmp_path / "cli.onnx", "--toposort")
    onnx.checker.check_model(onnx.load(str(tmp_path / "py.onnx")), full_check=True)


def test_a_sorted_model_is_written_unchanged(testdata, tmp_path):
    src = testdata / "small_cnn_inline.onnx"
    assert onnxview.edit(src, tmp_path / "same.onnx", toposort=True)["nodes_moved"] == 0
    assert (tmp_path / "same.onnx").read_bytes() == src.read_bytes()


def test_metadata_producer_renames_as_the_cli(testdata, tmp_path):
    src = testdata / "small_cnn_inline.onnx"
    first_input = onnx.load(str(src)).graph.input[0].name
    got = onnxview.edit(src, tmp_path / "py.onnx", metadata={"team": "vision"}, producer=("me", "2"),
                        renames={first_input: "pixels"}, strip_doc_strings=True)
    assert got["names_renamed"] > 0
    want = cli_edit(src, tmp_path / "cli.onnx", "--metadata", "team=vision", "--producer", "me:2",
                    "--rename", f"{first_input}=pixels", "--strip-doc-strings")
    assert (tmp_path / "py.onnx").read_bytes() == want
    m = onnx.load(str(tmp_path / "py.onnx"))
    assert (m.producer_name, m.producer_version) == ("me", "2")
    assert m.graph.input[0].name == "pixels"


def test_a_cycle_is_refused_and_nothing_written(tmp_path):
    t = onnx.TensorProto.FLOAT
    g = helper.make_graph(
        [helper.make_node("Add", ["x", "b"], ["a"], name="first"), helper.make_node("Relu", ["a"], ["b"], name="second"),
         helper.make_node("Identity", ["a"], ["y"], name="third")],
        "g", [helper.make_tensor_value_info("x", t, [1])], [helper.make_tensor_value_info("y", t, [1])])
    onnx.save(helper.make_model(g), str(tmp_path / "cycle.onnx"))
    with pytest.raises(onnxview.Error, match="cycle through node '(first|second)'"):
        onnxview.edit(tmp_path / "cycle.onnx", tmp_path / "out.onnx", toposort=True)
    assert not (tmp_path / "out.onnx").exists()
    assert os.listdir(tmp_path) == ["cycle.onnx"]  # no temporary file left behind


def test_refusals(testdata, tmp_path):
    src = testdata / "small_cnn_inline.onnx"
    with pytest.raises(ValueError, match="is the input"):
        onnxview.edit(src, src, toposort=True)
    with pytest.raises(ValueError, match="renames: no_such_value -> y"):
        onnxview.edit(src, tmp_path / "out.onnx", renames={"no_such_value": "y"})
    with pytest.raises(ValueError, match="producer"):
        onnxview.edit(src, tmp_path / "out.onnx", producer=("a", "b", "c"))
    with pytest.raises(onnxview.Error):
        onnxview.edit(testdata / "README.md", tmp_path / "out.onnx")
    assert not (tmp_path / "out.onnx").exists()
