"""onnxview.graph(): the picture `onnxview graph` draws (the same library
writers), its options against the CLI's, and its refusals. The picture itself
is checked against python3-onnx and Graphviz by tests/oracle/graph_oracle.py."""
import json
import os
import subprocess

import pytest

import onnxview

CLI = os.environ.get("ONNXVIEW_CLI")


def cli(*args):
    if not CLI:
        pytest.skip("ONNXVIEW_CLI is not set (meson test sets it)")
    run = subprocess.run([CLI, "graph", *map(str, args)], capture_output=True)
    assert run.returncode == 0, run.stderr
    return run.stdout.decode()


@pytest.mark.parametrize("name", ["small_cnn.onnx", "nested_subgraphs.onnx", "attributes_and_types.onnx"])
def test_graph_is_the_cli_picture(testdata, name):
    path = testdata / name
    assert onnxview.graph(path) == cli(path)
    assert onnxview.graph(str(path), format="mermaid") == cli("--format", "mermaid", path)
    assert onnxview.graph(path, format="json", fold="none", initializers=True) == json.loads(
        cli("--format", "json", "--fold", "none", "--initializers", path))


def test_graph_around_a_node(testdata):
    path = testdata / "small_cnn.onnx"
    near = onnxview.graph(path, format="json", around="relu1", radius=1)
    assert near == json.loads(cli("--format", "json", "--around", "relu1", "--radius", "1", path))
    names = sorted(b["name"] for b in near["boxes"])
    assert names == ["conv1", "pool1", "relu1"]
    assert len(near["edges"]) == 2
    with pytest.raises(KeyError):
        onnxview.graph(path, around="no such node")


def test_graph_refusals(testdata, tmp_path):
    with pytest.raises(ValueError):
        onnxview.graph(testdata / "small_cnn.onnx", format="svg")
    with pytest.raises(ValueError):
        onnxview.graph(testdata / "small_cnn.onnx", fold="sideways")
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"\xff" * 32)
    with pytest.raises(onnxview.Error):
        onnxview.graph(junk)
