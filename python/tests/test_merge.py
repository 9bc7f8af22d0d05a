"""onnxview.merge(): the same model as onnx.compose.merge_models for the same
io_map and prefixes (nodes, inputs, outputs, initializer values), the same
bytes as `onnxview merge`, external data beside the output, and refusals as
ValueError; onnxview.edit(prefix=...) against onnx.compose.add_prefix. The
command is checked over corpus models and onnxruntime by
tests/oracle/merge_oracle.py."""
import os
import subprocess

import numpy as np
import pytest

import onnxview

CLI = os.environ.get("ONNXVIEW_CLI")
onnx = pytest.importorskip("onnx")
helper = onnx.helper
from onnx import compose, numpy_helper  # noqa: E402


def layer(path, graph_name, x, y, scale, ir_version=8, metadata=None):
    w = numpy_helper.from_array((np.arange(600, dtype=np.float32) * scale).reshape(20, 30), "W")
    g = helper.make_graph(
        [helper.make_node("MatMul", [x, "W"], ["t"], name="mm"), helper.make_node("Relu", ["t"], [y], name="relu")],
        graph_name, [helper.make_tensor_value_info(x, onnx.TensorProto.FLOAT, [2, 20])],
        [helper.make_tensor_value_info(y, onnx.TensorProto.FLOAT, [2, 30])], [w])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], ir_version=ir_version)
    if metadata:
        helper.set_model_props(m, metadata)
    onnx.save(m, str(path))
    return path


def head(path, x="x"):
    b = numpy_helper.from_array(np.linspace(-1, 1, 30, dtype=np.float32), "b")
    g = helper.make_graph([helper.make_node("Add", [x, "b"], ["z"], name="add")], "head",
                          [helper.make_tensor_value_info(x, onnx.TensorProto.FLOAT, [2, 30])],
                          [helper.make_tensor_value_info("z", onnx.TensorProto.FLOAT, [2, 30])], [b])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], ir_version=8), str(path))
    return path


def same_meaning(got, expected):
    def node(n):
        return (list(n.input), list(n.output), n.name, n.op_type, n.domain,
                [a.SerializeToString() for a in n.attribute])
    assert [node(n) for n in got.graph.node] == [node(n) for n in expected.graph.node]
    for field in ("input", "output", "value_info"):
        assert [v.SerializeToString() for v in getattr(got.graph, field)] == \
               [v.SerializeToString() for v in getattr(expected.graph, field)]
    assert [(t.name, numpy_helper.to_array(t).tobytes()) for t in got.graph.initializer] == \
           [(t.name, numpy_helper.to_array(t).tobytes()) for t in expected.graph.initializer]
    # compose 1.12's merge_graphs names the graph after the last input of B's
    # nodes (a loop variable shadows its `name`): the name meant is A's "_" B's.
    assert got.graph.doc_string == expected.graph.doc_string
    assert {(o.domain, o.version) for o in got.opset_import} == {(o.domain, o.version) for o in expected.opset_import}
    assert got.ir_version == expected.ir_version
    assert {p.key: p.value for p in got.metadata_props} == {p.key: p.value for p in expected.metadata_props}


def test_a_chain_is_compose_merge_models(tmp_path):
    a = layer(tmp_path / "a.onnx", "body", "x", "y", 1.0, metadata={"k": "v"})
    b = head(tmp_path / "b.onnx")
    out = tmp_path / "ab.onnx"
    r = onnxview.merge(a, b, out, io_map=[("y", "x")], prefix_a="a/", prefix_b="b/")
    assert r["nodes"] == 3 and r["initializers"] == 2
    expected = compose.merge_models(onnx.load(str(a)), onnx.load(str(b)), io_map=[("y", "x")], prefix1="a/",
                                    prefix2="b/")
    got = onnx.load(str(out))
    onnx.checker.check_model(got, full_check=True)
    same_meaning(got, expected)
    assert got.graph.name == "body_head"


def test_the_cli_writes_the_same_bytes(tmp_path):
    if not CLI:
        pytest.skip("ONNXVIEW_CLI is not set (meson test sets it)")
    a = layer(tmp_path / "a.onnx", "body", "x", "y", 1.0)
    b = head(tmp_path / "b.onnx")
    onnxview.merge(a, b, tmp_path / "py.onnx", io_map=[("y", "x")], prefix_b="b/")
    run = subprocess.run([CLI, "merge", str(a), str(b), str(tmp_path / "cli.onnx"), "--io-map", "y:x",
                          "--prefix-b", "b/"], capture_output=True)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "py.onnx").read_bytes() == (tmp_path / "cli.onnx").read_bytes()


def test_external_data_beside_the_output(tmp_path):
    a = layer(tmp_path / "a.onnx", "body", "x", "y", 3.0)
    b = head(tmp_path / "b.onnx")
    (tmp_path / "out").mkdir()
    out = tmp_path / "out" / "ab.onnx"
    r = onnxview.merge(a, b, out, io_map=[("y", "x")], prefix_a="a/", prefix_b="b/", external="ab.bin")
    assert r["external_bytes"] >= 2400 and (tmp_path / "out" / "ab.bin").exists()
    got = onnx.load(str(out))
    w = next(t for t in got.graph.initializer if t.name == "a/W")
    assert np.array_equal(numpy_helper.to_array(w), (np.arange(600, dtype=np.float32) * 3.0).reshape(20, 30))


@pytest.mark.parametrize("case", ["ir_version", "clash", "not_an_output", "not_an_input", "metadata"])
def test_refusals_raise_value_error(tmp_path, case):
    a = layer(tmp_path / "a.onnx", "body", "x", "y", 1.0, metadata={"k": "v"})
    b = layer(tmp_path / "b.onnx", "other", "x2", "y2", 2.0,
              ir_version=7 if case == "ir_version" else 8, metadata={"k": "w" if case == "metadata" else "v"})
    io = {"not_an_output": [("nope", "x2")], "not_an_input": [("y", "nope")]}.get(case, [("y", "x2")])
    out = tmp_path / "ab.onnx"
    with pytest.raises(ValueError):
        onnxview.merge(a, b, out, io_map=io, prefix_b=None if case == "clash" else "b/")
    assert not out.exists()
    # compose refuses the same
    with pytest.raises(ValueError):
        compose.merge_models(onnx.load(str(a)), onnx.load(str(b)), io_map=io,
                             prefix2=None if case == "clash" else "b/")


def test_edit_prefix_is_compose_add_prefix(tmp_path):
    a = layer(tmp_path / "a.onnx", "body", "x", "y", 1.0)
    out = tmp_path / "p.onnx"
    onnxview.edit(a, out, prefix="p/")
    same_meaning(onnx.load(str(out)), compose.add_prefix(onnx.load(str(a)), "p/"))
    with pytest.raises(ValueError):
        onnxview.edit(a, tmp_path / "q.onnx", prefix="p/", renames={"x": "x0"})
