#!/usr/bin/python3
"""Writes the benchmark models into bench/cache/ (or --out).

    /usr/bin/python3 scripts/make_bench_models.py [--out DIR] [--only NAME ...] [--verify]

Models (deterministic: fixed seeds, so every run writes the same bytes):

  meta.onnx     metadata-heavy: 100,000 nodes with 2-4 attributes each, a value_info
                with a 4-d shape per node output, 100 If nodes with two subgraph
                branches, 4 local functions, 256 small initializers (~30 MB).
  weights.onnx  weight-heavy: 750 layers of MatMul/Add/Relu/Identity (3,000 nodes),
                750 float32 raw_data weights of 2 MiB plus biases (~1.5 GB).
  packed.onnx   ~100 MB of weights in packed float_data (plus a few int64_data,
                int32_data and double_data tensors), 200 nodes.
  huge.onnx     like weights.onnx with 1,200 layers: ~2.4 GiB, over protobuf's 2 GiB
                limit.

The small graphs (nodes, value infos, functions) are built with the onnx package.
The big models are written by a streaming encoder in this file (tags, varints and
lengths by hand, tensor payloads written chunk by chunk): python protobuf cannot
serialize a message over 2 GiB, and building a 1.5 GB message in memory first
would need several copies of it. Field order inside each message is the order
protobuf's serializers use (ascending field numbers), except that a graph's
initializers are written after its other fields, which protobuf parsers accept
(any field order is valid).
"""
import argparse
import os
import struct
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from protobuf_wire import f_bytes, f_varint, len_header, packed_varints, varint

# --------------------------------------------------------------------------
# The wire format, by hand (scripts/protobuf_wire.py).

class StreamedTensor:
    """A TensorProto whose payload field (raw_data, or a packed repeated field) is
    streamed: header() and the payload's chunks are written in turn."""

    def __init__(self, name, data_type, dims, payload_field, payload_len, chunks):
        self.head = (packed_varints(1, dims) if dims else b"") + f_varint(2, data_type) + \
            f_bytes(8, name.encode())
        self.payload_field = payload_field
        self.payload_len = payload_len
        self.chunks = chunks  # a callable yielding the payload bytes in order
        self.body_len = len(self.head) + len(len_header(payload_field, payload_len)) + payload_len

    def field_len(self, number):
        """Bytes of this tensor as field `number` of its parent."""
        return len(len_header(number, self.body_len)) + self.body_len

    def write(self, out, number):
        out.write(len_header(number, self.body_len))
        out.write(self.head)
        out.write(len_header(self.payload_field, self.payload_len))
        written = 0
        for c in self.chunks():
            out.write(c)
            written += len(c)
        assert written == self.payload_len, (written, self.payload_len)


def write_model(path, model_without_graph, graph_without_init, tensors):
    """ModelProto = model fields + graph(7) {graph fields + initializer(5) tensors}."""
    head = model_without_graph.SerializeToString()
    g = graph_without_init.SerializeToString()
    graph_len = len(g) + sum(t.field_len(5) for t in tensors)
    tmp = path + ".tmp"
    with open(tmp, "wb", buffering=1 << 22) as out:
        out.write(head)
        out.write(len_header(7, graph_len))
        out.write(g)
        for t in tensors:
            t.write(out, 5)
    os.replace(tmp, path)
    return os.path.getsize(path)


# --------------------------------------------------------------------------
# Models.

OPSET = [helper.make_opsetid("", 13)]


def float_chunks(seed, count, chunk=1 << 20):
    def gen():
        rng = np.random.default_rng(seed)
        left = count
        while left:
            n = min(left, chunk)
            # Uniform in [-1, 1): finite values, exact in double.
            yield (rng.random(n, dtype=np.float32) * 2 - 1).astype("<f4").tobytes()
            left -= n
    return gen


def weights_model(path, layers, rows=512, cols=1024):
    nodes, tensors = [], []
    x = "x"
    for i in range(layers):
        w, b = f"w{i}", f"b{i}"
        nodes.append(helper.make_node("MatMul", [x, w], [f"mm{i}"], name=f"matmul{i}"))
        nodes.append(helper.make_node("Add", [f"mm{i}", b], [f"add{i}"], name=f"add{i}"))
        nodes.append(helper.make_node("Relu", [f"add{i}"], [f"relu{i}"], name=f"relu{i}"))
        nodes.append(helper.make_node("Identity", [f"relu{i}"], [f"y{i}"], name=f"id{i}"))
        tensors.append(StreamedTensor(w, TensorProto.FLOAT, [rows, cols], 9, rows * cols * 4,
                                      float_chunks(1000 + i, rows * cols)))
        tensors.append(StreamedTensor(b, TensorProto.FLOAT, [cols], 9, cols * 4,
                                      float_chunks(500000 + i, cols)))
        x = f"y{i}"
    # Square the chain: every layer maps [N, 512] -> [N, 1024]; shapes are not
    # checked by any reader here, only the structure matters.
    graph = helper.make_graph(
        nodes, "weights",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", rows])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, ["N", cols])])
    model = helper.make_model(helper.make_graph([], "", [], []), opset_imports=OPSET,
                              producer_name="make_bench_models")
    model.ClearField("graph")
    return write_model(path, model, graph, tensors)


def packed_model(path, tensors_count=48, elems=524288):
    nodes, tensors = [], []
    for i in range(tensors_count):
        tensors.append(StreamedTensor(f"p{i}", TensorProto.FLOAT, [elems // 512, 512], 4, elems * 4,
                                      float_chunks(7000 + i, elems)))
        nodes.append(helper.make_node("Mul", ["x", f"p{i}"], [f"m{i}"], name=f"mul{i}"))
    rng = np.random.default_rng(42)
    for i in range(2):  # typed fields other than float_data, small
        n = 65536
        v = rng.integers(-(1 << 40), 1 << 40, n)
        body = b"".join(varint(int(a) if a >= 0 else int(a) + (1 << 64)) for a in v)
        tensors.append(StreamedTensor(f"i64_{i}", TensorProto.INT64, [n], 7, len(body), lambda b=body: [b]))
        d = rng.standard_normal(n).astype("<f8").tobytes()
        tensors.append(StreamedTensor(f"f64_{i}", TensorProto.DOUBLE, [n], 10, len(d), lambda b=d: [b]))
        h = rng.integers(0, 0x7BFF, n)  # float16 bit patterns in int32_data, finite
        body = b"".join(varint(int(a)) for a in h)
        tensors.append(StreamedTensor(f"f16_{i}", TensorProto.FLOAT16, [n], 5, len(body), lambda b=body: [b]))
    for i in range(tensors_count, 200):
        nodes.append(helper.make_node("Relu", [f"m{i % tensors_count}"], [f"r{i}"], name=f"relu{i}"))
    graph = helper.make_graph(nodes, "packed",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1024, 512])],
                              [helper.make_tensor_value_info("m0", TensorProto.FLOAT, [1024, 512])])
    model = helper.make_model(helper.make_graph([], "", [], []), opset_imports=OPSET,
                              producer_name="make_bench_models")
    model.ClearField("graph")
    return write_model(path, model, graph, tensors)


OPS = ["Conv", "Relu", "Add", "Mul", "Gemm", "Transpose", "Reshape", "Concat", "Softmax", "LayerNormalization"]


def branch(k, tag_):
    n = [helper.make_node("Identity", [f"c{k}"], [f"{tag_}a{k}"], name=f"{tag_}id{k}"),
         helper.make_node("Neg", [f"{tag_}a{k}"], [f"{tag_}o{k}"], name=f"{tag_}neg{k}",
                          alpha=0.5, mode="edge")]
    return helper.make_graph(n, f"{tag_}branch{k}", [],
                             [helper.make_tensor_value_info(f"{tag_}o{k}", TensorProto.FLOAT, ["N", 64])],
                             value_info=[helper.make_tensor_value_info(f"{tag_}a{k}", TensorProto.FLOAT, ["N", 64])])


def tname(i):
    return f"/encoder/layers.{i // 40}/{OPS[i % len(OPS)]}_{i}_output_0"


def meta_model(path, count=100000):
    rng = np.random.default_rng(1)
    nodes, vis, inits = [], [], []
    prev = "input"
    for i in range(count):
        op = OPS[i % len(OPS)]
        # Names as exporters write them (torch.onnx: /module/path/Op_N_output_0).
        out = tname(i)
        ins = [prev, tname(max(0, i - 7))] if i % 3 else [prev]
        attrs = {"axis": int(i % 4) - 1, "kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}
        if i % 2:
            attrs["alpha"] = float(rng.random())
        if i % 5 == 0:
            attrs["auto_pad"] = "SAME_UPPER"
        if i % 1000 == 999:  # a control-flow node with two subgraphs
            k = i // 1000
            nodes.append(helper.make_node("If", [prev], [out], name=f"if{k}",
                                          then_branch=branch(k, "then"), else_branch=branch(k, "else")))
        elif i % 250 == 125:  # a node calling a local function
            nodes.append(helper.make_node(f"Fused{i % 4}", ins, [out], name=f"n{i}", domain="local.fn"))
        else:
            nodes.append(helper.make_node(op, ins, [out], name=f"/encoder/layers.{i // 40}/{op}_{i}", **attrs))
        vis.append(helper.make_tensor_value_info(out, TensorProto.FLOAT, ["N", 64, 7 + i % 9, 7 + i % 9]))
        prev = out
    for i in range(256):
        a = rng.standard_normal(64).astype(np.float32)
        inits.append(numpy_helper.from_array(a, f"c{i}"))
    funcs = []
    for j in range(4):
        fn = [helper.make_node("Mul", ["A", "B"], ["T"], name="mul"),
              helper.make_node("Add", ["T", "A"], ["C"], name="add"),
              helper.make_node("Constant", [], ["K"], name="k",
                               value=numpy_helper.from_array(np.arange(16, dtype=np.float32), "k"))]
        funcs.append(helper.make_function("local.fn", f"Fused{j}", ["A", "B"], ["C"], fn, OPSET))
    graph = helper.make_graph(nodes, "meta",
                              [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N", 64, 7, 7])],
                              [helper.make_tensor_value_info(prev, TensorProto.FLOAT, None)],
                              initializer=inits, value_info=vis)
    model = helper.make_model(graph, opset_imports=OPSET + [helper.make_opsetid("local.fn", 1)],
                              functions=funcs, producer_name="make_bench_models")
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(model.SerializeToString())
    os.replace(tmp, path)
    return os.path.getsize(path)


MODELS = {
    "meta": lambda d: meta_model(os.path.join(d, "meta.onnx")),
    "weights": lambda d: weights_model(os.path.join(d, "weights.onnx"), 750),
    "packed": lambda d: packed_model(os.path.join(d, "packed.onnx")),
    "huge": lambda d: weights_model(os.path.join(d, "huge.onnx"), 1200),
}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(here, "..", "bench", "cache"))
    ap.add_argument("--only", nargs="*", choices=sorted(MODELS), default=None)
    ap.add_argument("--verify", action="store_true",
                    help="load each model under 2 GiB back with the onnx package and compare counts")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name in args.only or ["meta", "packed", "weights", "huge"]:
        size = MODELS[name](args.out)
        print(f"{name}.onnx: {size:,} bytes", flush=True)
        path = os.path.join(args.out, f"{name}.onnx")
        if args.verify and size < (1 << 31):
            m = onnx.load(path)
            g = m.graph
            print(f"  onnx.load: {len(g.node)} nodes, {len(g.initializer)} initializers, "
                  f"{len(g.value_info)} value_info, {len(m.functions)} functions", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
