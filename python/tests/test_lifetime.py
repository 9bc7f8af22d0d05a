"""Arrays, slices, graphs and nodes keep the mapping alive after the model is
closed and dropped, also under a garbage-collection stress loop; the file is
unmapped once the last of them is gone. Threads share one model."""
import gc
import os
import random
import threading

import numpy as np

import onnxview
from conftest import require_onnx, same_values

onnx = require_onnx()
from onnx import numpy_helper  # noqa: E402
from oracle import compare_tensor  # noqa: E402


def mapped(path):
    real = os.path.realpath(path)
    with open("/proc/self/maps") as maps:
        return any(line.rstrip().endswith(real) for line in maps)


def expected(path):
    proto = onnx.load(str(path))
    return {t.name: numpy_helper.to_array(t, str(path.parent)) for t in proto.graph.initializer}


def test_array_outlives_the_model(testdata, tmp_path):
    path = tmp_path / "copy.onnx"
    path.write_bytes((testdata / "small_cnn_inline.onnx").read_bytes())
    want = expected(path)
    with onnxview.open(str(path)) as m:
        arrays = {k: m.get_tensor(k) for k in m.keys()}
        rows = m.get_slice("fc.weight")[2:5]
        graph = m.graph
        node = graph.nodes[-1]
    del m
    gc.collect()
    assert mapped(path)
    for name, a in arrays.items():
        assert same_values(a, want[name])
    assert same_values(rows, want["fc.weight"][2:5])
    assert node.op_type == "Softmax" and graph.nodes[0].op_type == "Conv"
    del arrays, rows, graph, node
    gc.collect()
    assert not mapped(path)


def test_gc_stress(testdata, tmp_path):
    path = tmp_path / "copy.onnx"
    path.write_bytes((testdata / "small_cnn_inline.onnx").read_bytes())
    want = expected(path)
    rng = random.Random(1234)
    kept = []
    for i in range(300):
        with onnxview.open(str(path)) as m:
            names = m.keys()
            name = rng.choice(names)
            kept.append((name, m.get_tensor(name)))
            if i % 3 == 0:
                kept.append(("fc.weight", m.get_slice("fc.weight")[:]))
            body = m.graph.nodes[9].attributes["body"]  # the Loop body: a subgraph object
        if i % 7 == 0:
            m.close()
        del m
        if rng.random() < 0.5:
            gc.collect()
        rng.shuffle(kept)
        del kept[: rng.randrange(0, max(1, len(kept) // 2))]
        for k, a in kept:
            assert same_values(a, want[k])
        assert body.nodes and body.nodes[0].op_type
        np.add(kept[0][1], 0) if kept else None
    del kept, body
    gc.collect()
    assert not mapped(path)


def test_threads_reading_copies_at_once(testdata):
    """Copies run without the GIL: four threads reading every tensor of
    tensors_all_types.onnx (typed and unaligned ones are copies) through one
    handle agree with onnx."""
    path = testdata / "tensors_all_types.onnx"
    want = {t.name: t for t in onnx.load(str(path)).graph.initializer}
    problems = []
    with onnxview.open(str(path)) as m:
        def work():
            for _ in range(20):
                for name in m.keys():
                    problems.extend(compare_tensor(m.get_tensor(name), want[name], None, name))
        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert problems == []
