"""onnxview against python3-onnx on every model and test-data file of
Debian's libonnx-testdata and of testdata/: metadata, initializer names and
values (dtype and values, NaN-aware), nodes, attributes, inputs, outputs and
value infos, recursively through subgraphs; load_tensor on every .pb file."""
import importlib.util
import os

import numpy as np
import pytest

import onnxview
from conftest import CORPUS, SOURCE_ROOT, TESTDATA, require_onnx, same_values

onnx = require_onnx()
from oracle import compare_model, compare_tensor, expected_array  # noqa: E402

CATEGORIES = ["node", "pytorch-converted", "pytorch-operator", "simple"]  # data/real holds no models in Debian 12
# ONNXVIEW_ORACLE_LIMIT=N: only the first N files of each category (a quick run).
LIMIT = int(os.environ.get("ONNXVIEW_ORACLE_LIMIT", "0")) or None


def corpus_files(category, pattern):
    root = CORPUS / category
    if not root.is_dir():
        pytest.skip("libonnx-testdata is not installed (%s)" % root)
    return sorted(root.rglob(pattern))[:LIMIT]


def check_model_file(path):
    proto = onnx.load(str(path))  # with its external data, next to it
    with onnxview.open(str(path)) as m:
        return ["%s: %s" % (path, p) for p in compare_model(m, proto, str(path.parent))]


def pb_kind(path):
    """'tensor' unless the test's model says the value is a sequence, map or optional
    (the oracle summary exporter's rule)."""
    spec = importlib.util.spec_from_file_location("export_summary", SOURCE_ROOT / "tests/oracle/export_summary.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.pb_kind(str(path))


@pytest.mark.parametrize("name", sorted(p.name for p in TESTDATA.glob("*.onnx")))
def test_testdata_model(name):
    assert check_model_file(TESTDATA / name) == []


def test_testdata_sparse_initializers_dense():
    proto = onnx.load(str(TESTDATA / "sparse.onnx"))
    with onnxview.open(str(TESTDATA / "sparse.onnx")) as m:
        assert proto.graph.sparse_initializer
        for sp in proto.graph.sparse_initializer:
            values = expected_array(sp.values, None)
            indices = expected_array(sp.indices, None)
            dense = np.zeros(tuple(sp.dims), dtype=values.dtype)
            if indices.ndim == 1:
                dense.reshape(-1)[indices] = values
            else:
                dense[tuple(indices.T)] = values
            assert same_values(m.get_tensor(sp.values.name), dense)


@pytest.mark.parametrize("category", CATEGORIES)
def test_corpus_models(category):
    files = corpus_files(category, "model.onnx")
    assert files
    problems = []
    for path in files:
        problems += check_model_file(path)
    assert problems == []


@pytest.mark.parametrize("category", CATEGORIES)
def test_corpus_tensor_files(category):
    files = corpus_files(category, "*.pb")
    assert files
    problems, tensors = [], 0
    for path in files:
        if pb_kind(path) != "tensor":
            continue
        t = onnx.TensorProto()
        t.ParseFromString(path.read_bytes())
        tensors += 1
        problems += compare_tensor(onnxview.load_tensor(str(path)), t, str(path.parent), str(path))
    assert tensors > 0
    assert problems == []
