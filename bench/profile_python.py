#!/usr/bin/python3
"""The Python baseline of bench/profile_vs_python.sh: parameters and MACs of
a model as a script with python3-onnx counts them (what onnx-tool and the
like do).

  profile_python.py MODEL [--dim NAME=VALUE ...] [--check ONNXVIEW.json]

onnx.load (external data left out: the file itself is read whole, weights
included), the graph inputs' dim_params given their --dim values,
onnx.shape_inference.infer_shapes (data_prop; where onnx refuses the model,
the shapes it declares), then per main-graph node the
spec's MACs where the shapes are known: MatMul and Gemm (output elements x
the reduced dim), Conv (output elements x the weight's elements per output
channel), LSTM, GRU and RNN (seq x batch x directions x gates x hidden x
(input + hidden)). Parameters: the element count of every initializer some
node reads (main graph, subgraphs, functions; the products of their dims, no
payload decoded). Prints one JSON object:
{"params": P, "macs": {node index: MACs}}.

With --check, the `onnxview profile --json` output of the same model and
dims is compared: the parameters must be equal, and every node both count
must have the same MACs (unless onnx refuses the model's shapes as
contradictory: then the parameters only); exits 1 otherwise, printing the
first differences.
"""
import argparse
import json
import sys

import numpy as np
import onnx
from onnx import helper, shape_inference


def concrete(model, dims):
    for i in model.graph.input:
        for d in i.type.tensor_type.shape.dim:
            if d.HasField("dim_param") and d.dim_param in dims:
                d.dim_value = dims[d.dim_param]


def shapes_of(model, dims):
    try:
        inferred = shape_inference.infer_shapes(model, strict_mode=False, data_prop=True)
    except Exception as e:  # noqa: BLE001 - onnx refuses a model whose value_info contradicts it
        print(f"infer_shapes failed ({str(e).splitlines()[0][:120]}): the declared shapes only", file=sys.stderr)
        inferred = None
    consistent = inferred is not None
    inferred = inferred or model
    out = {}
    for vi in list(inferred.graph.input) + list(inferred.graph.value_info) + list(inferred.graph.output):
        t = vi.type
        if not t.HasField("tensor_type") or not t.tensor_type.HasField("shape"):
            continue
        shape = [d.dim_value if d.HasField("dim_value") else dims.get(d.dim_param) for d in t.tensor_type.shape.dim]
        if all(d is not None for d in shape):
            out[vi.name] = shape
    for t in model.graph.initializer:
        out[t.name] = list(t.dims)
    return out, consistent


def node_macs(n, shapes):
    """The spec's MACs of node n, or None (not a MAC op, or a shape not known)."""
    if n.domain not in ("", "ai.onnx") or not n.output or n.output[0] not in shapes:
        return None
    attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
    out = shapes[n.output[0]]
    if n.op_type in ("MatMul", "Gemm") and n.input[0] in shapes:
        a = shapes[n.input[0]]
        k = a[0] if n.op_type == "Gemm" and attrs.get("transA", 0) else a[-1]
        return int(np.prod(out, dtype=np.int64)) * k
    if n.op_type == "Conv" and len(n.input) > 1 and n.input[1] in shapes:
        return int(np.prod(out, dtype=np.int64)) * int(np.prod(shapes[n.input[1]][1:], dtype=np.int64))
    if n.op_type in ("LSTM", "GRU", "RNN") and n.input[0] in shapes and "hidden_size" in attrs:
        x = shapes[n.input[0]]
        seq, batch, size = (x[1], x[0], x[2]) if attrs.get("layout", 0) else x
        dirs = 2 if attrs.get("direction", b"forward") == b"bidirectional" else 1
        gates = {"LSTM": 4, "GRU": 3, "RNN": 1}[n.op_type]
        return seq * batch * dirs * gates * attrs["hidden_size"] * (size + attrs["hidden_size"])
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--dim", action="append", default=[], help="NAME=VALUE")
    ap.add_argument("--check", help="onnxview profile --json output to compare with")
    args = ap.parse_args()
    dims = {k: int(v) for k, v in (d.split("=", 1) for d in args.dim)}
    model = onnx.load(args.model, load_external_data=False)
    concrete(model, dims)
    shapes, consistent = shapes_of(model, dims)
    macs = {}
    for i, n in enumerate(model.graph.node):
        m = node_macs(n, shapes)
        if m is not None:
            macs[i] = m
    read = set()  # every name a node reads: main graph, subgraphs, functions
    pending = [model.graph.node] + [f.node for f in model.functions]
    while pending:
        for n in pending.pop():
            read.update(n.input)
            for a in n.attribute:
                pending += [a.g.node] if a.HasField("g") else []
                pending += [g.node for g in a.graphs]
    params = sum(int(np.prod(t.dims, dtype=np.int64)) for t in model.graph.initializer if t.name in read)
    if not args.check:
        json.dump({"params": params, "macs": macs}, sys.stdout)
        print()
        return 0
    with open(args.check) as f:
        ours = json.load(f)
    problems = []
    if ours["totals"]["params"] != params:
        problems.append(f"params: onnxview {ours['totals']['params']}, python {params}")
    main_nodes = [n for n in ours["nodes"] if n["parent"] is None]
    both = 0
    # A model whose declared shapes contradict its ops has no one right cost:
    # onnxview may take its rules' shapes where python takes the declared ones.
    for i, m in (macs.items() if consistent else ()):
        theirs = main_nodes[i]["macs"] if i < len(main_nodes) else None
        if isinstance(theirs, int):
            both += 1
            if theirs != m:
                problems.append(f"node {i} ({model.graph.node[i].op_type}): onnxview {theirs} MACs, python {m}")
    for p in problems[:10]:
        print(p)
    print(f"{args.model}: params {params}; MACs of {both} nodes compared ({len(macs)} counted by python); "
          f"{len(problems)} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
