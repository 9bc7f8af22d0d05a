"""Model.tensors() against python3-onnx: every TensorProto a model stores,
wherever it is (initializers, sparse initializers, Constant values, other
tensor attributes; main graph, subgraphs at any depth, training graphs,
functions), in the same order, with the same path, origin, name and values.
The expected list comes from walking onnx's ModelProto here, not from
onnxview."""
import numpy as np
import pytest

import onnxview
from conftest import CORPUS, TESTDATA, require_onnx, same_values

onnx = require_onnx()
from oracle import expected_array  # noqa: E402
from onnx import helper, numpy_helper, TensorProto  # noqa: E402


def expected_tensors(model):
    """(path, origin, name, part, TensorProto) for every stored tensor, in onnxview's documented order."""
    out = []

    def sparse(path, origin, sp):
        if sp.HasField("values"):
            out.append((path + ".values", origin, sp.values.name, "values", sp.values))
        if sp.HasField("indices"):
            out.append((path + ".indices", origin, sp.indices.name, "indices", sp.indices))

    def nodes(path, node_list, depth):
        for i, n in enumerate(node_list):
            constant = n.op_type == "Constant" and n.domain in ("", "ai.onnx")
            origin = "constant" if constant else "attribute"
            for k, a in enumerate(n.attribute):
                ap = "%s.node[%d].attribute[%d]" % (path, i, k)
                if a.HasField("t"):
                    out.append((ap + ".t", origin, a.t.name, None, a.t))
                for j, t in enumerate(a.tensors):
                    out.append((ap + ".tensors[%d]" % j, origin, t.name, None, t))
                if a.HasField("sparse_tensor"):
                    sparse(ap + ".sparse_tensor", origin, a.sparse_tensor)
                for j, s in enumerate(a.sparse_tensors):
                    sparse(ap + ".sparse_tensors[%d]" % j, origin, s)
            for k, a in enumerate(n.attribute):
                ap = "%s.node[%d].attribute[%d]" % (path, i, k)
                if a.HasField("g"):
                    graph(ap + ".g", a.g, depth + 1)
                for j, g in enumerate(a.graphs):
                    graph(ap + ".graphs[%d]" % j, g, depth + 1)

    def graph(path, g, depth):
        for i, t in enumerate(g.initializer):
            out.append(("%s.initializer[%d]" % (path, i), "initializer", t.name, None, t))
        for i, s in enumerate(g.sparse_initializer):
            sparse("%s.sparse_initializer[%d]" % (path, i), "sparse_initializer", s)
        nodes(path, g.node, depth)

    if model.HasField("graph"):
        graph("graph", model.graph, 0)
    for i, t in enumerate(model.training_info):
        if t.HasField("initialization"):
            graph("training_info[%d].initialization" % i, t.initialization, 0)
        if t.HasField("algorithm"):
            graph("training_info[%d].algorithm" % i, t.algorithm, 0)
    for i, f in enumerate(model.functions):
        nodes("functions[%d]" % i, f.node, 0)
    return out


def compare(path, values=True):
    proto = onnx.load(str(path))
    expected = expected_tensors(proto)
    with onnxview.open(str(path)) as m:
        got = m.tensors()
        assert [(s.path, s.origin, s.name, s.part) for s in got] == [e[:4] for e in expected]
        if values:
            for s, e in zip(got, expected):
                if e[4].data_location == TensorProto.EXTERNAL:
                    continue  # python3-onnx loaded those into raw_data
                assert same_values(s.array(), expected_array(e[4], str(path.parent))), s.path
    return len(expected)


@pytest.mark.parametrize("name", sorted(p.name for p in TESTDATA.glob("*.onnx")))
def test_testdata(name):
    compare(TESTDATA / name)


def test_corpus():
    models = sorted(CORPUS.rglob("model.onnx")) if CORPUS.is_dir() else []
    if not models:
        pytest.skip("libonnx-testdata is not installed (%s)" % CORPUS)
    total = sum(compare(p, values=False) for p in models)
    assert total > 0


def test_training_graphs_and_functions(tmp_path):
    """Training graphs and model-local functions, which the corpus lacks."""
    w = numpy_helper.from_array(np.arange(4, dtype=np.float32), "w")
    seed = numpy_helper.from_array(np.ones(2, dtype=np.float32), "seed")
    body = helper.make_graph([helper.make_node("Constant", [], ["c"], value=numpy_helper.from_array(np.array([7], np.int64)))],
                             "body", [], [helper.make_tensor_value_info("c", TensorProto.INT64, [1])])
    main = helper.make_graph(
        [helper.make_node("If", ["cond"], ["y"], then_branch=body, else_branch=body)], "main",
        [helper.make_tensor_value_info("cond", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("y", TensorProto.INT64, [1])], [w])
    init = helper.make_graph([], "init", [], [], [seed])
    training = onnx.TrainingInfoProto(initialization=init)
    f = helper.make_function("local", "f", ["x"], ["z"],
                             [helper.make_node("Constant", [], ["z"], value=numpy_helper.from_array(np.array([3.5], np.float32)))],
                             [helper.make_opsetid("", 13)])
    model = helper.make_model(main, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("local", 1)],
                              functions=[f])
    model.training_info.append(training)
    path = tmp_path / "training.onnx"
    onnx.save(model, str(path))
    assert compare(path) == 5
    with onnxview.open(str(path)) as m:
        t = m.tensors()
        assert [s.origin for s in t] == ["initializer", "constant", "constant", "initializer", "constant"]
        assert t[1].node == "c" and t[1].attribute == "value"
        assert t[0].node is None and t[0].part is None
        assert t[3].path == "training_info[0].initialization.initializer[0]"
        assert t[4].path == "functions[0].node[0].attribute[0].t"
        assert repr(t[0]) == "<onnxview.StoredTensor initializer at graph.initializer[0]>"
        assert t[0].shape == (4,) and t[0].dtype == np.float32
