#!/usr/bin/python3
"""Checks `onnxview merge A B OUT` against onnx.compose.merge_models, onnx.checker and onnxruntime.

  merge_oracle.py --onnxview BUILD/tools/onnxview [--corpus DIR] [--limit N]
      [--ort-limit N] [--ort-dir DIR] [--big] [--keep]

The expected OUT of `merge A B OUT --io-map O:I,... --prefix-a P --prefix-b Q` is
compose.merge_models(A', B', [(P+O, Q+I), ...]) where A' and B' are A and B with
their prefixes applied here as compose.add_prefix applies them, plus what onnxview
does and compose does not:
  - graph inputs and outputs that no node, initializer or value_info names are
    prefixed too (compose leaves them, and its result then fails the checker);
  - names a subgraph (If/Loop/Scan bodies, any depth) reads from the main graph
    without declaring them itself (input, initializer, node output) are renamed
    with the main graph's values, the bodies' own names kept; the same for B's
    bodies reading an io_map input I, which read A's output afterwards;
  - local functions are matched by (domain, name), their calls renamed wherever
    they are (main graph, bodies, functions);
  - the graph is named A's name + "_" + B's (compose 1.12 means to, but names it
    after the last input of B's last node: a variable reused);
  - the opset imports are the union without duplicates (compared as a set, and
    OUT may hold no duplicate);
  - the quantization_annotation of both main graphs is kept: A's then B's, their
    tensor names and quant parameter tensor names prefixed (B's reading an io_map
    input name A's output instead); compose drops them.
compose's checker call is left out, so that what compose refuses is only what its
merge logic refuses; where neither model has a subgraph, a function or a graph
input or output no node uses, the expectation is checked to be compose's own
result byte for byte (a check of this script). Models whose bodies read outer
values are thus compared with compose's merge as onnxview should make it, and
also checked by onnx.checker and onnxruntime.

Pairs (--limit N, default 150, corpus pairs, ~15 s; 0: all 1,072 models with
themselves and all ~18,000 chains, some twenty minutes), testdata/*.onnx aside:
  - parallel: every testdata/*.onnx and a spread of N/3 of the corpus's
    `**/model.onnx` (--corpus, default /usr/share/libonnx-testdata/data; a third
    of them holding a weight of 1 KiB or more, a sixth subgraphs) merged with
    itself, --prefix-a a/ --prefix-b b/, no io_map;
  - chains: the rest of N, pairs of single-node corpus models (node tests) where
    outputs of A have exactly the type (elem_type and dims) of inputs of B, each
    such input of B connected; where their names clash (compose's
    check_overlapping_names) with prefixes (both, only A's, only B's in turn) and
    every fourth also without, which must be refused; where they do not, without
    prefixes. A few pairs of different ir_version or opset versions are among them,
    to be refused. Multi-pair io_maps alternate `--io-map O1:I1,O2:I2` and one
    --io-map per pair.
For each: a merge compose refuses must be refused (exit 1, stderr, no OUT);
otherwise onnxview exits 0 printing a line, and OUT (onnx.load) compared with the
expectation: ir_version, opset set, metadata_props, graph name and doc_string,
nodes in order (bytes, tensors in attributes and bodies compared by value: name,
dims, type, numpy_helper.to_array's bytes), graph inputs, outputs and value_info
(ValueInfoProto bytes; in all of these, a scalar field set to its default, as
compose's `name: ""`, counts as absent, and unknown fields are dropped),
initializers (name, dims, data_type, values), sparse initializers, functions,
quantization_annotation. Every payload of OUT inline (no external data;
initializers in raw_data). onnx.checker.check_model(full_check)
accepts OUT (the loaded model: the check of a path rewrites the file) wherever it
accepts the expectation, or, for bodies reading outer values, A and B. Where a
tensor of 1 KiB or more exists, `--external w.bin` too: w.bin beside OUT, every
main-graph initializer of >= 1024 bytes in it and smaller ones inline, the values
(onnx.load with external data) the expectation's.

onnxruntime-node (--ort-dir, default $ONNXRUNTIME_NODE_DIR or /opt/onnxruntime-node;
tests/oracle/ort_run.js): --ort-limit (default 20) chains whose models have
test_data_set_0 inputs: OUT and the expectation run on A's inputs and B's
unconnected ones, outputs identical bytes; parallel merges whose bodies read
outer values: each half's outputs equal to A alone's (generated inputs for
testdata/). Without node or onnxruntime-node this part is skipped, not failed.

Made here with onnx.helper: refusals (exit 1, one line on stderr naming the
problem, no OUT): ir_version mismatch, opset version conflict, a clashing
initializer name without prefixes (its name and a --prefix hint; merged once
prefixed, either side), an io_map output not among A's outputs, an io_map input
not among B's inputs, one metadata key of two values (one value: merged, once),
one local function in both (merged with prefixes, functions and calls prefixed);
beyond compose (which merges them into wrong models): one input of B connected
twice, and a body that declares the prefixed name of an outer value it reads;
usage: `--io-map x` and a missing OUT exit 2. Merged and compared: two io_map
pairs, one output feeding two inputs, an io_map joining equal names without
prefixes, quantization annotations, the 1024-byte threshold of --external. Bodies: an If whose branches (and a
branch's branch) read main-graph values, merged with itself and with another
model under prefixes: the bodies read the prefixed names, onnx.checker accepts
OUT, onnxruntime gives each half A alone's outputs (both branches); a Loop body
of B reading the io_map input from outer scope reads A's output afterwards
(prefixed or not), and OUT gives B alone's outputs on A alone's; a Loop body
declaring a name of the main graph as its own input keeps it.

--big (meson test merge_oracle_big; ~4.5 GiB of disk, about a minute): two models of 18
float weights of 64 MiB each (1.125 GiB), written by numpy as external data,
chained by --io-map and merged with --external w.bin: each weight's bytes in
w.bin (numpy memmap at the offset OUT records) hash as its source's; the time and
peak RSS of onnxview (/usr/bin/time -v, else getrusage of the children; and
its anonymous and file-backed parts, sampled in /proc) printed; the same merge
with no --external and no --allow-over-2gib is refused as pack refuses it (exit
2, a hint to use --external, no OUT).

Last line: `N passed, M failed`; exit 1 on any failure, 77 (skipped) without
python3-onnx.

Over 600 lines: the expectation (compose plus onnxview's differences, written
out rule by rule) is one piece with the comparison that uses it, and the models
made by hand each carry the check they exist for.
"""
import argparse
import collections
import glob
import hashlib
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

THRESHOLD = 1024  # --external's threshold, in payload bytes

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import RANDOM_OPS, ROOT, SKIP, Checks, encode, inputs_from, ort_case, spread  # noqa: E402

onnx = None  # python3-onnx, imported in main() so that its absence can skip


def run(*args, timeout=600):
    """The finished process; one that cannot start or outlives timeout comes back as exit -1 with the reason
    on stderr, a failure of its check rather than of the script (the executable may be being rebuilt)."""
    cmd = [*map(str, args)]
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        return subprocess.CompletedProcess(cmd, -1, "", f"{type(e).__name__}: {first_line(e)}")


def one_line(text, limit=300):
    return " | ".join(text.strip().splitlines())[:limit]


def first_line(e):
    s = str(e).strip()
    return s.splitlines()[0][:200] if s else type(e).__name__


def merge_args(a, b, out, io_map=(), pa=None, pb=None, external=None, split=False, extra=()):
    """The command line; split: one --io-map per pair instead of one joined by commas."""
    args = ["merge", a, b, out]
    if io_map:
        if split:
            for o, i in io_map:
                args += ["--io-map", f"{o}:{i}"]
        else:
            args += ["--io-map", ",".join(f"{o}:{i}" for o, i in io_map)]
    if pa:
        args += ["--prefix-a", pa]
    if pb:
        args += ["--prefix-b", pb]
    if external:
        args += ["--external", external]
    return args + list(extra)


def copy_model(m):
    c = onnx.ModelProto()
    c.CopyFrom(m)
    return c


# --- graphs --------------------------------------------------------------------------------------

def subgraphs(node):
    for a in node.attribute:
        if a.type == onnx.AttributeProto.GRAPH:
            yield a.g
        elif a.type == onnx.AttributeProto.GRAPHS:
            yield from a.graphs


def declared(g):
    """Names a graph defines itself: its inputs, initializers and node outputs."""
    return ({v.name for v in g.input} | {t.name for t in g.initializer} |
            {s.values.name for s in g.sparse_initializer} | {o for n in g.node for o in n.output}) - {""}


def outer_reads(g):
    """Names a body reads (or names as its output) that it does not define."""
    used = {v.name for v in g.output}
    for n in g.node:
        used.update(n.input)
        for s in subgraphs(n):
            used |= outer_reads(s)
    return used - declared(g) - {""}


def reads_outer(model):
    return any(outer_reads(s) for n in model.graph.node for s in subgraphs(n))


def has_subgraphs(model):
    return any(True for n in model.graph.node for _ in subgraphs(n))


def rename_outer(g, mapping):
    """Renames in body g (and deeper) the names it takes from outside, as mapping says."""
    m = {k: v for k, v in mapping.items() if k not in declared(g)}
    if not m:
        return
    for n in g.node:
        for k, x in enumerate(n.input):
            if x in m:
                n.input[k] = m[x]
        for s in subgraphs(n):
            rename_outer(s, m)
    for v in list(g.output) + list(g.value_info):
        if v.name in m:
            v.name = m[v.name]


def compose_renamed(g):
    """The names compose.add_prefix_graph renames: node edges, initializers, sparse ones, value_info."""
    names = {x for n in g.node for x in list(n.input) + list(n.output)}
    names |= {t.name for t in g.initializer} | {v.name for v in g.value_info}
    for s in g.sparse_initializer:
        names |= {s.values.name, s.indices.name}
    return names - {""}


def unused_io(model):
    g = model.graph
    done = compose_renamed(g)
    return [v.name for v in list(g.input) + list(g.output) if v.name and v.name not in done]


def prefixed(model, p):
    """model with prefix p applied as onnxview applies it (see the module's doc)."""
    from onnx import compose
    r = compose.add_prefix(model, p, rename_functions=False)
    g0, g = model.graph, r.graph
    done = compose_renamed(g0)
    for v0, v in zip(list(g0.input) + list(g0.output), list(g.input) + list(g.output)):
        if v0.name and v0.name not in done:
            v.name = p + v0.name
    main = (done | {v.name for v in g0.input} | {v.name for v in g0.output}) - {""}
    mapping = {n: p + n for n in main}
    for n in g.node:
        for s in subgraphs(n):
            rename_outer(s, mapping)
    local = {(f.domain, f.name) for f in model.functions}

    def calls(nodes):
        for n in nodes:
            if (n.domain, n.op_type) in local:
                n.op_type = p + n.op_type
            for s in subgraphs(n):
                calls(s.node)
    calls(g.node)
    for f in r.functions:
        calls(f.node)
        f.name = p + f.name
    return r


def annotations(g, p, connect=None):
    """g's quantization annotations with prefix p (connect: B's io_map input -> A's output, prefixed)."""
    out = []
    for qa in g.quantization_annotation:
        c = onnx.TensorAnnotation()
        c.CopyFrom(qa)
        if connect and p + c.tensor_name in connect:
            c.tensor_name = connect[p + c.tensor_name]
        elif c.tensor_name:
            c.tensor_name = p + c.tensor_name
        for e in c.quant_parameter_tensor_names:
            if e.value:
                e.value = p + e.value
        out.append(c)
    return out


class _NoChecker:
    """Stands for onnx.checker inside compose: its refusals are the merge logic's alone."""
    @staticmethod
    def check_model(*_args, **_kwargs):
        return None


def compose_unchecked(*args, **kwargs):
    from onnx import compose
    saved = compose.checker
    compose.checker = _NoChecker
    try:
        return compose.merge_models(*args, **kwargs), None
    except Exception as e:  # noqa: BLE001 - a refusal of compose
        return None, first_line(e)
    finally:
        compose.checker = saved


def dedupe_opsets(m):
    seen, keep = set(), []
    for o in m.opset_import:
        if (o.domain, o.version) not in seen:
            seen.add((o.domain, o.version))
            keep.append((o.domain, o.version))
    del m.opset_import[:]
    for d, v in keep:
        m.opset_import.add(domain=d, version=v)


def expected_merge(a, b, io_map, pa, pb):
    """(expected model, None) or (None, compose's refusal)."""
    pa, pb = pa or "", pb or ""
    a2 = prefixed(a, pa) if pa else copy_model(a)
    b2 = prefixed(b, pb) if pb else copy_model(b)
    iom = [(pa + o, pb + i) for o, i in io_map]
    connect = {i: o for o, i in iom}
    if connect:
        for n in b2.graph.node:
            for s in subgraphs(n):
                rename_outer(s, connect)
    exp, why = compose_unchecked(a2, b2, iom)
    if exp is None:
        return None, why
    dedupe_opsets(exp)
    # compose 1.12 means A.name + "_" + B.name, but its loop over B's node inputs reuses the variable
    # `name`, so that the graph is named after the last of them.
    exp.graph.name = a.graph.name + "_" + b.graph.name
    exp.graph.quantization_annotation.extend(annotations(a.graph, pa) + annotations(b.graph, pb, connect))
    return exp, None


def plain(model):
    """No body, no function, every graph input and output named by a node: compose prefixes as onnxview does."""
    return not has_subgraphs(model) and not model.functions and not unused_io(model)


def compose_self_check(ck, name, a, b, io_map, pa, pb, exp):
    """Where compose needs no help, the expectation must be compose's own merge."""
    raw, _ = compose_unchecked(a, b, list(io_map), prefix1=pa or None, prefix2=pb or None)
    if raw is not None:
        dedupe_opsets(raw)
        raw.graph.name = exp.graph.name
        raw.graph.quantization_annotation.extend(exp.graph.quantization_annotation)
    ck.check((raw is None) == (exp is None) and (raw is None or raw.SerializeToString() == exp.SerializeToString()),
             f"{name}: this script's expectation is not compose's merge (a bug of merge_oracle.py)")


# --- comparing ------------------------------------------------------------------------------------

def tensor_value(t):
    """(how read, shape, bytes) of a tensor's values: numpy_helper.to_array's bytes where it reads it,
    else the typed field in raw_data layout (complex in float_data, which to_array cannot read, gives the
    bytes to_array gives of its raw_data form). Compare [1:]: data_type is compared apart."""
    import numpy as np
    from onnx import numpy_helper
    try:
        a = numpy_helper.to_array(t)
        return str(a.dtype), tuple(a.shape), repr(a.tolist()).encode() if a.dtype == object else a.tobytes()
    except Exception:  # noqa: BLE001 - complex in float_data, unresolved external data...
        pass
    T = onnx.TensorProto
    if t.HasField("raw_data"):
        return "raw", tuple(t.dims), t.raw_data
    typed = {T.COMPLEX64: ("float_data", np.float32), T.COMPLEX128: ("double_data", np.float64),
             T.FLOAT: ("float_data", np.float32), T.DOUBLE: ("double_data", np.float64),
             T.INT64: ("int64_data", np.int64), T.UINT64: ("uint64_data", np.uint64),
             T.UINT32: ("uint64_data", np.uint32), T.INT32: ("int32_data", np.int32),
             T.INT16: ("int32_data", np.int16), T.INT8: ("int32_data", np.int8), T.UINT16: ("int32_data", np.uint16),
             T.UINT8: ("int32_data", np.uint8), T.BOOL: ("int32_data", np.uint8),
             T.FLOAT16: ("int32_data", np.uint16), T.BFLOAT16: ("int32_data", np.uint16)}
    if t.data_type in typed:
        field, dt = typed[t.data_type]
        return "raw", tuple(t.dims), np.array(getattr(t, field)).astype(dt).tobytes()
    return "unreadable", tuple(t.dims), t.SerializeToString()


def canon_tensor(t):
    """A tensor's name, doc_string, type, dims and values, whatever field holds them."""
    c = onnx.TensorProto()
    c.name, c.doc_string, c.data_type = t.name, t.doc_string, t.data_type
    c.dims.extend(t.dims)
    if t.data_type == onnx.TensorProto.STRING:
        c.string_data.extend(t.string_data)
    else:
        c.raw_data = tensor_value(t)[2]
    return c


def canon_sparse(s):
    s.values.CopyFrom(canon_tensor(s.values))
    s.indices.CopyFrom(canon_tensor(s.indices))


def canon_graph(g):
    for t in g.initializer:
        t.CopyFrom(canon_tensor(t))
    for s in g.sparse_initializer:
        canon_sparse(s)
    for n in g.node:
        canon_node(n)


def canon_node(n):
    for a in n.attribute:
        if a.HasField("t"):
            a.t.CopyFrom(canon_tensor(a.t))
        for t in a.tensors:
            t.CopyFrom(canon_tensor(t))
        if a.HasField("sparse_tensor"):
            canon_sparse(a.sparse_tensor)
        for s in a.sparse_tensors:
            canon_sparse(s)
        if a.HasField("g"):
            canon_graph(a.g)
        for g in a.graphs:
            canon_graph(g)


def strip_defaults(msg):
    """Clears the singular scalar fields set to their default value (compose writes `name: ""` where
    onnxview writes nothing: the same to any reader), oneof members aside (dim_value 0 is not an
    unknown dim), and drops unknown fields (padding)."""
    msg.DiscardUnknownFields()
    for fd, value in msg.ListFields():
        if fd.type == fd.TYPE_MESSAGE:
            for v in (value if fd.label == fd.LABEL_REPEATED else [value]):
                strip_defaults(v)
        elif fd.label != fd.LABEL_REPEATED and fd.containing_oneof is None and value == fd.default_value:
            msg.ClearField(fd.name)
    return msg


def canon_bytes(msg, canon=None):
    """A message's bytes, tensors by value, defaults and unknown fields left out."""
    c = type(msg)()
    c.CopyFrom(msg)
    if canon:
        canon(c)
    return strip_defaults(c).SerializeToString()


def node_bytes(n):
    return canon_bytes(n, canon_node)


def function_bytes(f):
    return canon_bytes(f, lambda c: [canon_node(n) for n in c.node])


def sparse_bytes(s):
    return canon_bytes(s, canon_sparse)


def describe(n):
    return f"{n.op_type} '{n.name}' {list(n.input)} -> {list(n.output)}"


def first_diff(got, exp):
    return next((k for k, (x, y) in enumerate(zip(got, exp)) if x != y), min(len(got), len(exp)))


def compare(ck, name, got, exp):
    """OUT against the expected merge, field by field; a failure names the first difference."""
    g, e = got.graph, exp.graph
    ck.check(got.ir_version == exp.ir_version, f"{name}: ir_version {got.ir_version}, expected {exp.ir_version}")
    ops = [(o.domain, o.version) for o in got.opset_import]
    want = {(o.domain, o.version) for o in exp.opset_import}
    ck.check(set(ops) == want and len(ops) == len(set(ops)),
             f"{name}: opset_import {ops}, expected the set {sorted(want)} without duplicates")
    meta = [(p.key, p.value) for p in got.metadata_props]
    ck.check(dict(meta) == {p.key: p.value for p in exp.metadata_props} and len(meta) == len(dict(meta)),
             f"{name}: metadata_props {meta}, expected {[(p.key, p.value) for p in exp.metadata_props]}")
    ck.check(g.name == e.name, f"{name}: graph name {g.name!r}, expected {e.name!r}")
    ck.check(g.doc_string == e.doc_string, f"{name}: graph doc_string {g.doc_string!r}, expected {e.doc_string!r}")
    gn, en = [node_bytes(n) for n in g.node], [node_bytes(n) for n in e.node]
    if not ck.check(gn == en, f"{name}: nodes differ ({len(gn)}, expected {len(en)})"):
        k = first_diff(gn, en)
        ck.failures[-1] += (f"; node {k} is {describe(g.node[k]) if k < len(gn) else 'missing'}, expected "
                            f"{describe(e.node[k]) if k < len(en) else 'none'}")
        if k < len(gn) and k < len(en) and g.node[k].op_type == e.node[k].op_type and \
                [x for x in g.node[k].input] == [x for x in e.node[k].input]:
            ck.failures[-1] += " (they differ in attributes or bodies)"
    for field in ("input", "output", "value_info"):
        gv = [canon_bytes(v) for v in getattr(g, field)]
        ev = [canon_bytes(v) for v in getattr(e, field)]
        if not ck.check(gv == ev, f"{name}: graph {field} differs"):
            k = first_diff(gv, ev)
            ck.failures[-1] += (f" at {k}: {[v.name for v in getattr(g, field)]} vs expected "
                                f"{[v.name for v in getattr(e, field)]}"[:400])
            if k < len(gv) and k < len(ev):
                detail = f"; got {getattr(g, field)[k]} expected {getattr(e, field)[k]}"
                ck.failures[-1] += detail.replace("\n", " ")[:300]
    gi = [(t.name, tuple(t.dims), t.data_type, tensor_value(t)[1:]) for t in g.initializer]
    ei = [(t.name, tuple(t.dims), t.data_type, tensor_value(t)[1:]) for t in e.initializer]
    if not ck.check(gi == ei, f"{name}: initializers differ"):
        k = first_diff(gi, ei)
        values = k < min(len(gi), len(ei)) and gi[k][:3] == ei[k][:3]
        ck.failures[-1] += (f" at {k} ({gi[k][:3] if k < len(gi) else 'missing'} vs expected "
                            f"{ei[k][:3] if k < len(ei) else 'none'}"
                            f"{'; same name, dims and type, other values' if values else ''}); "
                            f"names {[t.name for t in g.initializer][:8]} vs {[t.name for t in e.initializer][:8]}")
    ck.check([sparse_bytes(s) for s in g.sparse_initializer] == [sparse_bytes(s) for s in e.sparse_initializer],
             f"{name}: sparse initializers {[(s.values.name, s.indices.name) for s in g.sparse_initializer]}, expected "
             f"{[(s.values.name, s.indices.name) for s in e.sparse_initializer]} (or other values)")
    ck.check([function_bytes(f) for f in got.functions] == [function_bytes(f) for f in exp.functions],
             f"{name}: functions {[(f.domain, f.name) for f in got.functions]}, expected "
             f"{[(f.domain, f.name) for f in exp.functions]} (or other bodies)")
    ck.check([canon_bytes(q) for q in g.quantization_annotation] == [canon_bytes(q) for q in e.quantization_annotation],
             f"{name}: quantization_annotation {[q.tensor_name for q in g.quantization_annotation]}, expected "
             f"{[q.tensor_name for q in e.quantization_annotation]} (or other parameters)")


def all_tensors(model):
    """(place, is an initializer, tensor) of every tensor of the main graph and its bodies at any depth."""
    out = []

    def graph(g, where):
        out.extend((where, True, t) for t in g.initializer)
        out.extend((where, True, t) for s in g.sparse_initializer for t in (s.values, s.indices))
        for n in g.node:
            for a in n.attribute:
                ts = ([a.t] if a.HasField("t") else []) + list(a.tensors)
                if a.HasField("sparse_tensor"):
                    ts += [a.sparse_tensor.values, a.sparse_tensor.indices]
                for s in a.sparse_tensors:
                    ts += [s.values, s.indices]
                out.extend((f"{where} > {n.op_type} '{n.name}'.{a.name}", False, t) for t in ts)
            for s in subgraphs(n):
                graph(s, f"{where} > {n.op_type} '{n.name}'")
    graph(model.graph, "graph")
    for f in model.functions:
        for n in f.node:
            for a in n.attribute:
                if a.HasField("t"):
                    out.append((f"function {f.name}", False, a.t))
    return out


def elements(t):
    k = 1
    for d in t.dims:
        k *= d
    return k


def is_external(t):
    return t.data_location == onnx.TensorProto.EXTERNAL or len(t.external_data) > 0


def check_inline(ck, tally, name, got):
    """Every payload in OUT itself, initializers in raw_data."""
    bad = []
    for where, init, t in all_tensors(got):
        if is_external(t):
            bad.append(f"{where} '{t.name}' external")
        elif init and t.data_type != onnx.TensorProto.STRING and elements(t) and not t.HasField("raw_data"):
            bad.append(f"{where} '{t.name}' not in raw_data")
        elif not init and t.data_type != onnx.TensorProto.STRING and elements(t) and not t.HasField("raw_data"):
            tally["attribute tensors left in typed fields (not a failure)"] += 1
    ck.check(not bad, f"{name}: payloads not inline in raw_data: {bad[:4]}")


def checker_error(model):
    try:
        onnx.checker.check_model(model, full_check=True)
        return None
    except Exception as e:  # noqa: BLE001
        return first_line(e)


# --- a pair ---------------------------------------------------------------------------------------

class Pair:
    def __init__(self, name, a_path, b_path, a, b, io_map=(), pa=None, pb=None, split=False, a_dir=None, b_dir=None):
        self.name, self.a_path, self.b_path, self.a, self.b = name, a_path, b_path, a, b
        self.io_map, self.pa, self.pb, self.split = list(io_map), pa, pb, split
        self.a_dir, self.b_dir = a_dir, b_dir  # their test directories, for test_data_set_0

    def label(self):
        parts = []
        if self.io_map:
            parts.append("io " + ",".join(f"{o}:{i}" for o, i in self.io_map))
        if self.pa:
            parts.append(f"prefix-a {self.pa}")
        if self.pb:
            parts.append(f"prefix-b {self.pb}")
        return f"{self.name} [{'; '.join(parts) or 'no option'}]"


def check_refused(ck, name, r, out, words=()):
    """Exit 1, one line on stderr matching each regular expression of words (case aside), no OUT nor
    any file named after it (a temporary one left behind)."""
    msg = r.stderr.strip()
    left = [f for f in os.listdir(os.path.dirname(out)) if f.startswith(os.path.basename(out))]
    ok = ck.check(r.returncode == 1 and len(msg.splitlines()) == 1 and not left,
                  f"{name}: expected a refusal (exit 1, one line on stderr, no OUT): exit {r.returncode}, "
                  f"stderr {one_line(msg)!r}, left {left}")
    for w in words:
        ok &= ck.check(re.search(w, msg, re.I) is not None,
                       f"{name}: the refusal does not mention /{w}/: {one_line(msg)!r}")
    return ok


def merge_and_compare(ck, tally, exe, pair, work, refusal_words=(), external=True):
    """Runs the merge, checks it against the expectation. Returns (OUT path, expectation) or (None, None)."""
    name = pair.label()
    exp, why = expected_merge(pair.a, pair.b, pair.io_map, pair.pa, pair.pb)
    if plain(pair.a) and plain(pair.b):
        compose_self_check(ck, name, pair.a, pair.b, pair.io_map, pair.pa, pair.pb, exp)
        tally["expectations checked to be compose's own merge"] += 1
    out = os.path.join(work, "out.onnx")
    for f in glob.glob(os.path.join(work, "*")):
        if os.path.isfile(f):
            os.remove(f)
    r = run(exe, *merge_args(pair.a_path, pair.b_path, out, pair.io_map, pair.pa, pair.pb, split=pair.split))
    if exp is None:
        tally["refusals (compose refuses too)"] += 1
        check_refused(ck, f"{name}: compose refuses ({why})", r, out, refusal_words)
        return None, None
    tally["merges compared"] += 1
    outer = reads_outer(pair.a) or reads_outer(pair.b)
    if outer:
        tally["merges with bodies reading outer values (expectation: compose's, bodies renamed here)"] += 1
    if not ck.check(r.returncode == 0 and r.stdout.strip() and os.path.exists(out),
                    f"{name}: exit {r.returncode}, expected 0 with a summary line: "
                    f"{one_line(r.stdout + r.stderr)!r} (compose merges it)"):
        return None, None
    try:
        got = onnx.load(out, load_external_data=False)
    except Exception as e:  # noqa: BLE001
        ck.check(False, f"{name}: OUT does not load with onnx: {first_line(e)}")
        return None, None
    compare(ck, name, got, exp)
    check_inline(ck, tally, name, got)
    if outer:
        need = checker_error(pair.a) is None and checker_error(pair.b) is None
    else:
        need = checker_error(exp) is None
    if need:
        tally["onnx.checker (full) must accept OUT"] += 1
        why = checker_error(got)
        ck.check(why is None, f"{name}: onnx.checker refuses OUT ({why}) but accepts "
                 f"{'A and B' if outer else 'compose merge'}")
    if external and any(len(t.raw_data) >= THRESHOLD for _, _, t in all_tensors(got)):
        check_external(ck, tally, exe, pair, exp, got, work)
    return out, exp


def check_external(ck, tally, exe, pair, exp, inline, work):
    name = pair.label() + " --external w.bin"
    d = os.path.join(work, "ext")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    out = os.path.join(d, "out.onnx")
    r = run(exe, *merge_args(pair.a_path, pair.b_path, out, pair.io_map, pair.pa, pair.pb, external="w.bin",
                             split=not pair.split))
    tally["--external merges"] += 1
    if not ck.check(r.returncode == 0 and os.path.isfile(os.path.join(d, "w.bin")),
                    f"{name}: exit {r.returncode}, w.bin "
                    f"{'present' if os.path.exists(os.path.join(d, 'w.bin')) else 'absent'}: "
                    f"{one_line(r.stdout + r.stderr)!r}"):
        return
    try:
        bare = onnx.load(out, load_external_data=False)
        got = onnx.load(out)
    except Exception as e:  # noqa: BLE001
        ck.check(False, f"{name}: OUT does not load with its external data: {first_line(e)}")
        return
    size = {t.name: len(t.raw_data) for t in inline.graph.initializer}
    wrong = []
    for t in bare.graph.initializer:
        loc = {e.key: e.value for e in t.external_data}.get("location")
        big = size.get(t.name, 0) >= THRESHOLD
        if big != is_external(t) or (is_external(t) and loc != "w.bin"):
            wrong.append(f"'{t.name}' ({size.get(t.name)} bytes) {'in ' + str(loc) if is_external(t) else 'inline'}")
    ck.check(not wrong, f"{name}: initializers of >= {THRESHOLD} bytes go to w.bin, others stay: {wrong[:4]}")
    for where, _, t in all_tensors(bare):
        if is_external(t) and {e.key: e.value for e in t.external_data}.get("location") != "w.bin":
            ck.check(False, f"{name}: {where} '{t.name}' refers to a file other than w.bin")
    compare(ck, name, got, exp)


# --- onnxruntime ----------------------------------------------------------------------------------

def ort_available(ort_dir):
    return bool(ort_dir) and shutil.which("node") is not None and \
        os.path.isdir(os.path.join(ort_dir, "node_modules", "onnxruntime-node"))


def all_ops(model):
    ops = set()

    def walk(nodes):
        for n in nodes:
            ops.add(n.op_type)
            for s in subgraphs(n):
                walk(s.node)
    walk(model.graph.node)
    for f in model.functions:
        walk(f.node)
    return ops


def test_inputs(model, test_dir):
    """common's inputs_from (test_data_set_0, or generated without a test directory), None where a
    test input is not a plain tensor."""
    try:
        return inputs_from(onnx, model, test_dir)
    except Exception:  # noqa: BLE001 - sequences, optionals...
        return None


def renamed(inputs, prefix, drop=()):
    return [dict(i, name=(prefix or "") + i["name"]) for i in inputs if i["name"] not in drop]


def same_outputs(x, y):
    return [(o["name"], o["type"], o["dims"], o["data"]) for o in x] == \
        [(o["name"], o["type"], o["dims"], o["data"]) for o in y]


def ort_chain(ck, tally, ort_dir, pair, out, exp, work):
    """OUT and the expectation on A's test inputs and B's unconnected ones: identical outputs.
    Whether onnxruntime ran the expectation (1) or not (0)."""
    if (all_ops(pair.a) | all_ops(pair.b)) & RANDOM_OPS:
        tally["ort: random ops, not compared"] += 1
        return 0
    ia, ib = test_inputs(pair.a, pair.a_dir), test_inputs(pair.b, pair.b_dir)
    if ia is None or ib is None or None in ia + ib:
        tally["ort: inputs not plain tensors, not compared"] += 1
        return 0
    feeds = renamed(ia, pair.pa) + renamed(ib, pair.pb, {i for _, i in pair.io_map})
    exp_path = os.path.join(work, "expected.onnx")
    onnx.save(exp, exp_path)
    res = ort_case(ort_dir, [out, exp_path], feeds, work).get("results")
    if not ck.check(res is not None, f"{pair.label()}: ort_run.js fails"):
        return 0
    ours, theirs = res
    if theirs.get("error"):
        tally["ort: onnxruntime cannot run compose's merge"] += 1
        print(f"note: {pair.label()}: onnxruntime cannot run compose's merge: {one_line(theirs['error'], 200)}")
        return 0
    tally["ort: chains compared"] += 1
    ck.check(not ours.get("error") and same_outputs(ours["outputs"], theirs["outputs"]),
             f"{pair.label()}: onnxruntime: OUT " + (f"fails: {ours['error'][:300]}" if ours.get("error")
                                                     else "gives other outputs than compose's merge"))
    return 1


def ort_parallel(ck, tally, ort_dir, name, a_path, a, out, pa, pb, test_dir, work, feeds=None):
    """A merged with itself: each half of OUT gives A alone's outputs. feeds: A's inputs (else generated)."""
    if all_ops(a) & RANDOM_OPS:
        tally["ort: random ops, not compared"] += 1
        return
    feeds = feeds if feeds is not None else test_inputs(a, test_dir)
    if feeds is None or None in feeds:
        tally["ort: inputs not plain tensors, not compared"] += 1
        return
    alone = ort_case(ort_dir, [a_path], feeds, work).get("results")
    merged = ort_case(ort_dir, [out], renamed(feeds, pa) + renamed(feeds, pb), work).get("results")
    if not ck.check(alone is not None and merged is not None, f"{name}: ort_run.js fails"):
        return
    if alone[0].get("error"):
        tally["ort: onnxruntime cannot run A alone"] += 1
        return
    tally["ort: parallel merges compared with A alone"] += 1
    if not ck.check(not merged[0].get("error"),
                    f"{name}: onnxruntime fails on OUT: {merged[0].get('error', '')[:300]}"):
        return
    got = {o["name"]: o for o in merged[0]["outputs"]}
    for o in alone[0]["outputs"]:
        for p in (pa, pb):
            g = got.get((p or "") + o["name"])
            ck.check(g is not None and (g["type"], g["dims"], g["data"]) == (o["type"], o["dims"], o["data"]),
                     f"{name}: onnxruntime: OUT's {(p or '') + o['name']} "
                     f"{'missing' if g is None else 'differs from A alone'}")


# --- the corpus -----------------------------------------------------------------------------------

def type_key(v):
    if not v.type.HasField("tensor_type") or not v.type.tensor_type.HasField("shape"):
        return None
    tt = v.type.tensor_type
    dims = []
    for d in tt.shape.dim:
        if d.HasField("dim_value"):
            dims.append(d.dim_value)
        elif d.HasField("dim_param"):
            dims.append(d.dim_param)
        else:
            return None
    return tt.elem_type, tuple(dims)


def opsets_conflict(a, b):
    va = {o.domain: o.version for o in a.opset_import}
    return any(o.domain in va and va[o.domain] != o.version for o in b.opset_import)


def chain_pairs(corpus_root, count, load):
    """Chains of single-node node tests, `count` of them (None: every candidate), a tenth incompatible."""
    from onnx import compose
    singles = []
    for p in sorted(glob.glob(os.path.join(corpus_root, "node", "*", "model.onnx"))):
        m = load(p)
        if m is not None and len(m.graph.node) == 1 and not m.functions:
            singles.append(p)
    takers = collections.defaultdict(list)
    for p in singles:
        m = load(p)
        inits = {t.name for t in m.graph.initializer}
        for v in m.graph.input:
            k = type_key(v)
            if k and v.name not in inits:
                takers[k].append(p)
    compatible, clash, incompatible = [], [], []
    for pa in singles:
        a = load(pa)
        for pb in sorted({q for o in a.graph.output for q in takers.get(type_key(o), ()) if type_key(o)}):
            b = load(pb)
            inits = {t.name for t in b.graph.initializer}
            free, io_map = [o for o in a.graph.output if type_key(o)], []
            for v in b.graph.input:
                o = next((o for o in free if v.name not in inits and type_key(o) == type_key(v)), None)
                if o is not None:
                    free.remove(o)
                    io_map.append((o.name, v.name))
            if not io_map:
                continue
            if a.ir_version != b.ir_version or opsets_conflict(a, b):
                incompatible.append((pa, pb, io_map))
            elif compose.check_overlapping_names(a.graph, b.graph, io_map):
                clash.append((pa, pb, io_map))
            else:
                compatible.append((pa, pb, io_map))
    rng = random.Random(1)
    for x in (compatible, clash, incompatible):
        rng.shuffle(x)
    if count is None:
        return compatible + clash + incompatible, len(singles)
    n_bad = max(1, count // 10) if count else 0
    n_plain = min(len(compatible), (count - n_bad) // 2)
    chosen = compatible[:n_plain] + clash[:count - n_bad - n_plain] + incompatible[:n_bad]
    return chosen, len(singles)


def check_corpus(ck, tally, exe, args, work, ort_dir, load):
    corpus = sorted(glob.glob(os.path.join(args.corpus, "**", "model.onnx"), recursive=True))
    if not corpus:
        print(f"note: no model.onnx under {args.corpus}: corpus pairs skipped")
        return 0
    n_self = args.limit // 3 if args.limit else 0
    # A third of them among the models holding a weight of 1 KiB or more, for --external, a sixth among
    # those with subgraphs.
    heavy = [p for p in corpus if load(p) is not None and
             any(len(t.raw_data) >= THRESHOLD or 4 * len(t.float_data) >= THRESHOLD for t in load(p).graph.initializer)]
    bodies = [p for p in corpus if load(p) is not None and has_subgraphs(load(p))]
    def some(items, n):  # spread() takes 0 for all; here a share of 0 is none
        return set(spread(items, n)) if n > 0 else set()
    selves = sorted(some(corpus, n_self - n_self // 3 - n_self // 6) | some(heavy, n_self // 3) |
                    some(bodies, n_self // 6)) if args.limit else corpus
    for path in selves:
        m = load(path)
        if m is None:
            tally["corpus models python3-onnx cannot load"] += 1
            continue
        name = os.path.relpath(os.path.dirname(path), args.corpus)
        pair = Pair(name, path, path, m, m, (), "a/", "b/")
        out, _ = merge_and_compare(ck, tally, exe, pair, work)
        if out and ort_dir and reads_outer(m):
            ort_parallel(ck, tally, ort_dir, pair.label(), path, m, out, "a/", "b/", os.path.dirname(path), work)
    chains, singles = chain_pairs(args.corpus, max(0, args.limit - len(selves)) if args.limit else None, load)
    ort_runs = 0
    variants = [("a/", "b/"), (None, "b/"), ("a/", None)]
    n_clash = 0
    for k, (pa_path, pb_path, io_map) in enumerate(chains):
        a, b = load(pa_path), load(pb_path)
        name = f"{os.path.basename(os.path.dirname(pa_path))} -> {os.path.basename(os.path.dirname(pb_path))}"
        clash = a.ir_version == b.ir_version and not opsets_conflict(a, b) and \
            bool(onnx.compose.check_overlapping_names(a.graph, b.graph, io_map))
        prefixes = (None, None)
        if clash:
            prefixes = variants[n_clash % 3]
            if n_clash % 4 == 0:
                tally["chains with clashing names, also run without prefixes"] += 1
                bare = Pair(name, pa_path, pb_path, a, b, io_map, split=k % 2 == 1)
                merge_and_compare(ck, tally, exe, bare, work, refusal_words=("--prefix",))
            n_clash += 1
        tally["chains (" + ("names clash, prefixed" if clash else "no prefix") + ")"] += 1
        pair = Pair(name, pa_path, pb_path, a, b, io_map, *prefixes, split=k % 2 == 1,
                    a_dir=os.path.dirname(pa_path), b_dir=os.path.dirname(pb_path))
        if len(io_map) > 1:
            tally["chains of several io_map pairs"] += 1
        out, exp = merge_and_compare(ck, tally, exe, pair, work)
        if out and ort_dir and ort_runs < args.ort_limit and \
                all(os.path.isdir(os.path.join(x, "test_data_set_0")) for x in (pair.a_dir, pair.b_dir)):
            ort_runs += ort_chain(ck, tally, ort_dir, pair, out, exp, work)
    print(f"corpus: {len(selves)} models merged with themselves, {len(chains)} chains of {singles} single-node models")
    return len(selves) + len(chains)


def check_testdata(ck, tally, exe, work, ort_dir, load):
    paths = sorted(glob.glob(os.path.join(ROOT, "testdata", "*.onnx")))
    for path in paths:
        m = load(path)
        if m is None:
            ck.check(False, f"{path}: python3-onnx cannot load it")
            continue
        name = "testdata/" + os.path.basename(path)
        pair = Pair(name, path, path, m, m, (), "a/", "b/")
        out, _ = merge_and_compare(ck, tally, exe, pair, work)
        if out and ort_dir and reads_outer(m):
            ort_parallel(ck, tally, ort_dir, pair.label(), path, m, out, "a/", "b/", None, work)
    return len(paths)


# --- models made here -----------------------------------------------------------------------------

def vi(name, elem=1, shape=(2,)):
    return onnx.helper.make_tensor_value_info(name, elem, list(shape))


def node(op, ins, outs, name="", domain="", **attrs):
    return onnx.helper.make_node(op, ins, outs, name=name, domain=domain, **attrs)


def floats(name, values, shape=None):
    import numpy as np
    from onnx import numpy_helper
    a = np.array(values, dtype=np.float32)
    return numpy_helper.from_array(a.reshape(shape) if shape else a, name)


def made(nodes, inputs, outputs, inits=(), name="g", opset=13, ir=8, functions=(), meta=None, domains=()):
    h = onnx.helper
    g = h.make_graph(nodes, name, inputs, outputs, list(inits))
    m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)] + [h.make_opsetid(d, 1) for d in domains],
                     functions=list(functions))
    m.ir_version = ir
    if meta:
        h.set_model_props(m, meta)
    return m


def model_a(**kw):
    """x_in -> Add(shared_w) -> sum_mid -> Relu -> y_out."""
    return made([node("Add", ["x_in", "shared_w"], ["sum_mid"], "add_a"),
                 node("Relu", ["sum_mid"], ["y_out"], "relu_a")],
                [vi("x_in")], [vi("y_out")], [floats("shared_w", [1, -2])], name="ga", **kw)


def model_b(**kw):
    """u_in -> Mul(shared_w) -> z_out; its initializer shared_w clashes with A's."""
    return made([node("Mul", ["u_in", "shared_w"], ["z_out"], "mul_b")], [vi("u_in")], [vi("z_out")],
                [floats("shared_w", [3, 4])], name="gb", **kw)


def with_function(value_in, value_out):
    """A call of the local function local.LocalFn (Neg then Abs) from value_in to value_out."""
    h = onnx.helper
    f = h.make_function("local", "LocalFn", ["i"], ["o"], [node("Neg", ["i"], ["n"]), node("Abs", ["n"], ["o"])],
                        [h.make_opsetid("", 13)])
    nodes = [node("LocalFn", [value_in], [value_out], "call_" + value_in, domain="local")]
    return made(nodes, [vi(value_in)], [vi(value_out)], name="gf_" + value_in, functions=[f], domains=("local",))


def if_model():
    """An If whose branches read main-graph values, one through a branch's branch."""
    h = onnx.helper
    inner = node("If", ["c"], ["tt"], "inner_if",
                 then_branch=h.make_graph([node("Neg", ["v"], ["t1"])], "inner_then", [], [vi("t1")]),
                 else_branch=h.make_graph([node("Abs", ["x"], ["t2"])], "inner_else", [], [vi("t2")]))
    then = h.make_graph([inner, node("Add", ["tt", "v"], ["t_out"])], "then", [], [vi("t_out")])
    els = h.make_graph([node("Sub", ["v", "x"], ["e_out"])], "else", [], [vi("e_out")])
    nodes = [node("Relu", ["x"], ["v"], "relu"), node("If", ["c"], ["o"], "if", then_branch=then, else_branch=els),
             node("Add", ["o", "v"], ["y"], "add")]
    return made(nodes, [vi("x"), vi("c", onnx.TensorProto.BOOL, ())], [vi("y")], name="gif")


def loop_model():
    """B: its Loop body reads the graph input bin from outer scope."""
    h = onnx.helper
    import numpy as np
    from onnx import numpy_helper
    body = h.make_graph([node("Add", ["acc", "bin"], ["acc2"], "body_add"), node("Identity", ["ci"], ["co"])], "body",
                        [vi("it", onnx.TensorProto.INT64, ()), vi("ci", onnx.TensorProto.BOOL, ()), vi("acc")],
                        [vi("co", onnx.TensorProto.BOOL, ()), vi("acc2")])
    inits = [numpy_helper.from_array(np.array(3, dtype=np.int64), "trip"),
             numpy_helper.from_array(np.array(True), "cond")]
    nodes = [node("Loop", ["trip", "cond", "bin"], ["lout"], "loop", body=body), node("Neg", ["lout"], ["z"], "neg")]
    return made(nodes, [vi("bin")], [vi("z")], inits, name="gloop")


def shadow_model():
    """A Loop body whose own input is named v, as a main-graph value: the body's v is its own."""
    h = onnx.helper
    import numpy as np
    from onnx import numpy_helper
    body = h.make_graph([node("Neg", ["v"], ["v2"], "body_neg"), node("Identity", ["ci"], ["co"])], "body",
                        [vi("it", onnx.TensorProto.INT64, ()), vi("ci", onnx.TensorProto.BOOL, ()), vi("v")],
                        [vi("co", onnx.TensorProto.BOOL, ()), vi("v2")])
    inits = [numpy_helper.from_array(np.array(2, dtype=np.int64), "trip"),
             numpy_helper.from_array(np.array(True), "cond")]
    nodes = [node("Relu", ["x"], ["v"], "relu"), node("Loop", ["trip", "cond", "v"], ["y"], "loop", body=body)]
    return made(nodes, [vi("x")], [vi("y")], inits, name="gshadow")


def capture_model():
    """A branch declaring a/v itself while reading the main graph's v: under prefix a/ the reference
    would become its own a/v."""
    h = onnx.helper
    then = h.make_graph([node("Neg", ["x"], ["a/v"]), node("Add", ["a/v", "v"], ["t"])], "then", [], [vi("t")])
    els = h.make_graph([node("Abs", ["v"], ["e"])], "else", [], [vi("e")])
    nodes = [node("Relu", ["x"], ["v"], "relu"), node("If", ["c"], ["y"], "if", then_branch=then, else_branch=els)]
    return made(nodes, [vi("x"), vi("c", onnx.TensorProto.BOOL, ())], [vi("y")], name="gcapture")


def quant_model(tag):
    """A MatMul whose weight carries a quantization annotation (scale and zero point tensors)."""
    import numpy as np
    from onnx import numpy_helper
    m = made([node("MatMul", [f"in_{tag}", f"w_{tag}"], [f"out_{tag}"], f"mm_{tag}")],
             [vi(f"in_{tag}", shape=(1, 2))], [vi(f"out_{tag}", shape=(1, 2))],
             [floats(f"w_{tag}", [1, 2, 3, 4], (2, 2)), floats(f"scale_{tag}", [0.5]),
              numpy_helper.from_array(np.array([0], dtype=np.uint8), f"zp_{tag}")], name="gq" + tag)
    qa = m.graph.quantization_annotation.add()
    qa.tensor_name = f"w_{tag}"
    for k, v in (("SCALE_TENSOR", f"scale_{tag}"), ("ZERO_POINT_TENSOR", f"zp_{tag}")):
        e = qa.quant_parameter_tensor_names.add()
        e.key, e.value = k, v
    return m


def body_of(model, node_name, attr="body"):
    n = next(n for n in model.graph.node if n.name == node_name)
    return next(a.g for a in n.attribute if a.name == attr)


def check_made(ck, tally, exe, work, ort_dir):
    d = os.path.join(work, "made")
    os.makedirs(d, exist_ok=True)
    mw = os.path.join(work, "m")
    os.makedirs(mw, exist_ok=True)

    def save(m, file):
        path = os.path.join(d, file)
        onnx.save(m, path)
        return path

    def refusal(what, a, b, io_map=(), pa=None, pb=None, words=(), compose_refuses=True):
        pa_path, pb_path = save(a, "ra.onnx"), save(b, "rb.onnx")
        if compose_refuses:
            exp, _ = expected_merge(a, b, io_map, pa, pb)
            ck.check(exp is None, f"{what}: compose merges it, yet the spec refuses it (a bug of merge_oracle.py)")
        out = os.path.join(mw, "refused.onnx")
        r = run(exe, *merge_args(pa_path, pb_path, out, io_map, pa, pb))
        tally["refusals made here"] += 1
        check_refused(ck, what, r, out, words)
        for f in glob.glob(out + "*"):  # one wrong refusal is enough
            os.remove(f)

    def merged(what, a, b, io_map=(), pa=None, pb=None, split=False):
        pair = Pair(what, save(a, "a_" + what.replace(" ", "_") + ".onnx"),
                    save(b, "b_" + what.replace(" ", "_") + ".onnx"), a, b, io_map, pa, pb, split)
        tally["merges made here"] += 1
        out, exp = merge_and_compare(ck, tally, exe, pair, mw)
        got = onnx.load(out, load_external_data=False) if out else None
        return pair, out, got, exp

    a, b = model_a(), model_b()
    # Refusals.
    refusal("ir_version mismatch", a, model_b(ir=7), [("y_out", "u_in")], pb="b/", words=(r"\bir\b|ir_version",))
    refusal("opset version conflict", a, model_b(opset=14), [("y_out", "u_in")], pb="b/",
            words=("opset|operator set",))
    refusal("clashing initializer 'shared_w' without prefixes", a, b, [("y_out", "u_in")],
            words=("shared_w", "--prefix"))
    refusal("io_map output not an output of A", a, b, [("sum_mid", "u_in")], pb="b/", words=("sum_mid",))
    refusal("io_map output not a value of A", a, b, [("nowhere_out", "u_in")], pb="b/", words=("nowhere_out",))
    refusal("io_map input not an input of B", a, b, [("y_out", "z_out")], pb="b/", words=("z_out",))
    refusal("metadata key of two values", model_a(meta={"author": "one"}), model_b(meta={"author": "two"}),
            [("y_out", "u_in")], pb="b/", words=("author",))
    fa, fb = with_function("x_in", "y_out"), with_function("p_in", "q_out")
    refusal("one local function in both", fa, fb, words=("LocalFn",))
    # Beyond compose, which merges these into a wrong model.
    two_b = made([node("Sub", ["s1", "s2"], ["d"], "sub")], [vi("s1"), vi("s2")], [vi("d")], name="gsub")
    refusal("one input of B connected twice", two_b, two_b, [("d", "s1"), ("d", "s1")], "a/", "b/",
            words=("s1",), compose_refuses=False)
    refusal("a body declaring the prefixed name of an outer value it reads", capture_model(), two_b, (), "a/", "b/",
            words=("a/",), compose_refuses=False)
    out = os.path.join(mw, "usage.onnx")
    r = run(exe, *merge_args(save(a, "ua.onnx"), save(b, "ub.onnx"), out, extra=("--io-map", "x")))
    ck.check(r.returncode == 2 and not os.path.exists(out), f"--io-map x: exit {r.returncode}, expected 2: "
             f"{one_line(r.stderr)!r}")
    r = run(exe, "merge", os.path.join(d, "ua.onnx"), os.path.join(d, "ub.onnx"))
    ck.check(r.returncode == 2, f"merge A B (no OUT): exit {r.returncode}, expected 2: {one_line(r.stderr)!r}")
    tally["usage errors"] += 2
    # Merges.
    for what, pa, pb in (("clash prefixed b", None, "b/"), ("clash prefixed a", "a/", None),
                         ("clash prefixed both", "a/", "b/")):
        _, _, got, _ = merged(what, a, b, [("y_out", "u_in")], pa, pb)
        if got is not None:
            mul = [n for n in got.graph.node if n.op_type == "Mul"]
            want = (pa or "") + "y_out"
            ck.check(mul and mul[0].input[0] == want, f"{what}: B's Mul reads {list(mul[0].input) if mul else None}, "
                     f"expected {want} first")
    _, _, got, _ = merged("same metadata value", model_a(meta={"author": "one", "a": "1"}),
                          model_b(meta={"author": "one", "b": "2"}), [("y_out", "u_in")], pb="b/")
    _, _, got, _ = merged("function in both prefixed", fa, fb, (), "a/", "b/")
    if got is not None:
        ck.check(sorted(f.name for f in got.functions) == ["a/LocalFn", "b/LocalFn"] and
                 sorted(n.op_type for n in got.graph.node) == ["a/LocalFn", "b/LocalFn"],
                 f"function in both prefixed: functions {[f.name for f in got.functions]}, "
                 f"calls {[n.op_type for n in got.graph.node]}")
    two_a = made([node("Split", ["x_in"], ["p1", "p2"], "split", axis=0)], [vi("x_in", shape=(4,))],
                 [vi("p1"), vi("p2")], name="gsplit")
    merged("two io_map pairs joined", two_a, two_b, [("p1", "s1"), ("p2", "s2")])
    merged("two io_map pairs split", two_a, two_b, [("p2", "s1"), ("p1", "s2")], split=True)
    same_a = made([node("Relu", ["x"], ["y"], "relu")], [vi("x")], [vi("y")], name="gr")
    _, _, got, _ = merged("one output feeding two inputs", same_a, two_b, [("y", "s1"), ("y", "s2")])
    if got is not None:
        ck.check([list(n.input) for n in got.graph.node if n.op_type == "Sub"] == [["y", "y"]] and
                 [v.name for v in got.graph.output] == ["d"],
                 f"one output feeding two inputs: Sub reads {[list(n.input) for n in got.graph.node][-1:]}, "
                 f"outputs {[v.name for v in got.graph.output]}")
    same_b = made([node("Neg", ["y"], ["z"], "neg")], [vi("y")], [vi("z")], name="gn")
    _, _, got, _ = merged("io_map of equal names", same_a, same_b, [("y", "y")])
    if got is not None:
        ck.check([v.name for v in got.graph.input] == ["x"] and [v.name for v in got.graph.output] == ["z"],
                 f"io_map of equal names: inputs {[v.name for v in got.graph.input]}, outputs "
                 f"{[v.name for v in got.graph.output]}, expected ['x'] and ['z']")
    _, _, got, _ = merged("quantization annotations", quant_model("a"), quant_model("b"), [("out_a", "in_b")],
                          "a/", "b/")
    if got is not None:
        ck.check([q.tensor_name for q in got.graph.quantization_annotation] == ["a/w_a", "b/w_b"],
                 f"quantization annotations: {[q.tensor_name for q in got.graph.quantization_annotation]}")
    # --external's threshold: 256 floats go to w.bin, 255 stay.
    edge_a = made([node("Add", ["x", "big"], ["y"], "add")], [vi("x", shape=(256,))], [vi("y", shape=(256,))],
                  [floats("big", range(256))], name="gbig")
    edge_b = made([node("Concat", ["u", "small"], ["z"], "cat", axis=0)], [vi("u", shape=(256,))],
                  [vi("z", shape=(511,))], [floats("small", range(255))], name="gsmall")
    merged("1024-byte threshold", edge_a, edge_b, [("y", "u")])

    # Bodies reading outer values.
    fi = if_model()
    ok_alone = checker_error(fi) is None
    ck.check(ok_alone, f"if_model: onnx.checker refuses the model made here: {checker_error(fi)} (merge_oracle.py)")
    for what, other, pa, pb in (("If reading outer values, with itself", fi, "a/", "b/"),
                                ("If reading outer values, with another model", same_b, "a/", None)):
        pair, out, got, exp = merged(what, fi, other, (), pa, pb)
        if got is None:
            continue
        then = body_of(got, "a/if", "then_branch")
        inner = next((n for n in then.node if n.op_type == "If"), None)
        reads = {x for n in then.node for x in n.input} | \
            ({x for a in (inner.attribute if inner else []) for n in a.g.node for x in n.input})
        ck.check({"a/v", "a/x"} <= reads and not {"v", "x"} & reads,
                 f"{what}: the then-branch and its inner If read {sorted(reads)}, expected a/v and a/x, not v or x")
        if ort_dir:
            import numpy as np
            for cond in (True, False):
                feeds = [encode("x", np.array([1.5, -2.0], dtype=np.float32)), encode("c", np.array(cond))]
                if other is fi:
                    ort_parallel(ck, tally, ort_dir, f"{what} (c={cond})", pair.a_path, fi, out, pa, pb, None,
                                 mw, feeds)
                else:
                    alone = ort_case(ort_dir, [pair.a_path], feeds, mw).get("results")
                    feeds_b = [encode("y", np.array([0.25, 3.0], dtype=np.float32))]
                    merged_r = ort_case(ort_dir, [out], renamed(feeds, pa) + feeds_b, mw).get("results")
                    if ck.check(alone and merged_r and not alone[0].get("error") and not merged_r[0].get("error"),
                                f"{what} (c={cond}): onnxruntime fails: {alone} {merged_r}"[:400]):
                        tally["ort: made merges compared with A alone"] += 1
                        y = next((o for o in merged_r[0]["outputs"] if o["name"] == "a/y"), None)
                        ck.check(y is not None and y["data"] == alone[0]["outputs"][0]["data"],
                                 f"{what} (c={cond}): onnxruntime: OUT's a/y differs from A alone's y")
    fl = loop_model()
    for what, pa, pb in (("Loop body reading the io_map input", None, None),
                         ("Loop body reading the io_map input, prefixed", "a/", "b/")):
        pair, out, got, exp = merged(what, same_a, fl, [("y", "bin")], pa, pb)
        if got is None:
            continue
        body = body_of(got, (pb or "") + "loop")
        add = next((n for n in body.node if n.name == "body_add"), None)
        want = (pa or "") + "y"
        ck.check(add is not None and list(add.input) == ["acc", want],
                 f"{what}: the body's Add reads {list(add.input) if add else None}, expected ['acc', '{want}']")
        if ort_dir:
            import numpy as np
            feeds = [encode("x", np.array([1.5, -2.0], dtype=np.float32))]
            first = ort_case(ort_dir, [pair.a_path], feeds, mw).get("results")
            if not ck.check(first and not first[0].get("error"), f"{what}: onnxruntime fails on A alone: {first}"):
                continue
            y = first[0]["outputs"][0]
            second = ort_case(ort_dir, [pair.b_path], [dict(y, name="bin")], mw).get("results")
            merged_r = ort_case(ort_dir, [out], renamed(feeds, pa), mw).get("results")
            if ck.check(second and merged_r and not second[0].get("error") and not merged_r[0].get("error"),
                        f"{what}: onnxruntime fails: {second} {merged_r}"[:400]):
                tally["ort: made merges compared with A alone"] += 1
                z = next((o for o in merged_r[0]["outputs"] if o["name"] == (pb or "") + "z"), None)
                ck.check(z is not None and z["data"] == second[0]["outputs"][0]["data"],
                         f"{what}: onnxruntime: OUT's z differs from B alone's on A alone's y")
    fs = shadow_model()
    _, _, got, _ = merged("Loop body declaring a main-graph name", fs, same_b, (), "a/", None)
    if got is not None:
        body = body_of(got, "a/loop")
        ck.check([v.name for v in body.input][2] == "v" and list(body.node[0].input) == ["v"],
                 f"Loop body declaring v: body inputs {[v.name for v in body.input]}, its Neg reads "
                 f"{list(body.node[0].input)}: expected its own v kept")


# --- --big ----------------------------------------------------------------------------------------

BIG_TENSORS, BIG_SIDE = 18, 4096  # 18 weights of 4096 x 4096 floats (64 MiB) a model: 1.125 GiB


def memory_sample(pid, peak):
    """Adds pid's resident anonymous and file-backed memory (KiB, /proc) to the maxima in peak."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                key = line.split(":")[0]
                if key in ("RssAnon", "RssFile"):
                    peak[key] = max(peak.get(key, 0), int(line.split()[1]))
    except (OSError, ValueError):
        pass


def timed(args):
    """(CompletedProcess, seconds, peak RSS in KiB or None, how it was measured, sampled maxima of RssAnon and
    RssFile in KiB: mapped input pages count in the RSS; the anonymous part is what the process allocated)."""
    use_time = os.access("/usr/bin/time", os.X_OK)
    cmd = ["/usr/bin/time", "-v", *map(str, args)] if use_time else [*map(str, args)]
    start = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = {}
    while p.poll() is None:
        pid = p.pid
        if use_time:  # the command is /usr/bin/time's child
            try:
                with open(f"/proc/{p.pid}/task/{p.pid}/children") as f:
                    pid = int(f.read().split()[0])
            except (OSError, ValueError, IndexError):
                pid = None
        if pid:
            memory_sample(pid, peak)
        time.sleep(0.05)
    out, err = p.communicate()
    secs = time.perf_counter() - start
    if use_time:
        m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", err)
        err = "\n".join(x for x in err.splitlines() if not x.startswith("\t") and "Command" not in x)
        rss, how = (int(m.group(1)) if m else None), "/usr/bin/time -v"
    else:
        rss, how = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, "getrusage(RUSAGE_CHILDREN)"
    return subprocess.CompletedProcess(cmd, p.returncode, out, err), secs, rss, how, peak


def check_big(ck, exe, scratch, keep):
    import numpy as np
    from onnx import helper
    d = os.path.join(scratch, "big")
    os.makedirs(d)
    size = BIG_SIDE * BIG_SIDE * 4

    def write(side, seed):
        """side.bin by numpy, one weight at a time; side.onnx referencing it."""
        t0 = time.perf_counter()
        with open(os.path.join(d, f"{side}.bin"), "wb") as f:
            for k in range(BIG_TENSORS):
                a = np.random.default_rng(seed + k).random(BIG_SIDE * BIG_SIDE, dtype=np.float32) - np.float32(0.5)
                f.write(a.tobytes())
        inits, nodes, h = [], [], f"x_{side}"
        for k in range(BIG_TENSORS):
            t = onnx.TensorProto(name=f"w{side}{k}", data_type=onnx.TensorProto.FLOAT, dims=[BIG_SIDE, BIG_SIDE])
            for key, value in (("location", f"{side}.bin"), ("offset", str(k * size)), ("length", str(size))):
                e = t.external_data.add()
                e.key, e.value = key, value
            t.data_location = onnx.TensorProto.EXTERNAL
            inits.append(t)
            nodes.append(helper.make_node("MatMul", [h, t.name], [f"h_{side}{k}"]))
            h = f"h_{side}{k}"
        g = helper.make_graph(nodes, f"big_{side}", [vi(f"x_{side}", shape=(1, BIG_SIDE))],
                              [vi(h, shape=(1, BIG_SIDE))], inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
        m.ir_version = 8
        onnx.save(m, os.path.join(d, f"{side}.onnx"))
        print(f"--big: {side}.bin ({BIG_TENSORS} x 64 MiB) and {side}.onnx written in {time.perf_counter() - t0:.1f} s")
        return h
    out_a = write("a", 100)
    write("b", 200)
    out = os.path.join(d, "out.onnx")
    p, secs, rss, how, peak = timed([exe, *merge_args(os.path.join(d, "a.onnx"), os.path.join(d, "b.onnx"), out,
                                                      [(out_a, "x_b")], external="w.bin")])
    print(f"--big: onnxview merge --external w.bin: exit {p.returncode}, {secs:.1f} s, peak RSS "
          f"{rss / 1024 if rss else float('nan'):.0f} MiB ({how}); sampled every 50 ms: anonymous "
          f"{peak.get('RssAnon', 0) / 1024:.1f} MiB, file-backed {peak.get('RssFile', 0) / 1024:.0f} MiB at most; "
          f"{one_line(p.stdout + p.stderr)}")
    w = os.path.join(d, "w.bin")
    if not ck.check(p.returncode == 0 and os.path.isfile(w),
                    f"--big: merge exit {p.returncode}: {one_line(p.stdout + p.stderr)}"):
        return
    print(f"--big: out.onnx {os.path.getsize(out)} bytes, w.bin {os.path.getsize(w) / 2 ** 30:.2f} GiB")
    m = onnx.load(out, load_external_data=False)
    ck.check([v.name for v in m.graph.input] == ["x_a"] and len(m.graph.node) == 2 * BIG_TENSORS and
             list(m.graph.node[BIG_TENSORS].input) == [out_a, "wb0"],
             f"--big: inputs {[v.name for v in m.graph.input]}, {len(m.graph.node)} nodes, B's first reads "
             f"{list(m.graph.node[BIG_TENSORS].input) if len(m.graph.node) > BIG_TENSORS else None}")
    t0 = time.perf_counter()

    def digest(path, at):
        h = hashlib.blake2b(digest_size=16)
        h.update(np.memmap(path, dtype=np.uint8, mode="r", offset=at, shape=(size,)))
        return h.digest()
    bad, seen = [], set()
    for t in m.graph.initializer:
        e = {x.key: x.value for x in t.external_data}
        side, k = t.name[1], int(t.name[2:])
        seen.add(t.name)
        if e.get("location") != "w.bin" or int(e.get("length", size)) != size or \
                digest(w, int(e.get("offset", 0))) != digest(os.path.join(d, f"{side}.bin"), k * size):
            bad.append(t.name)
    names = {f"w{s}{k}" for s in "ab" for k in range(BIG_TENSORS)}
    ck.check(not bad and seen == names, f"--big: weights differ {bad[:4]} or missing {sorted(names - seen)[:4]}")
    print(f"--big: {len(seen)} weights hashed against their sources in {time.perf_counter() - t0:.1f} s")
    copy = os.path.join(d, "checked.onnx")
    shutil.copy(out, copy)
    try:
        onnx.checker.check_model(copy, full_check=True)
        ck.check(True, "")
    except Exception as e:  # noqa: BLE001
        ck.check(False, f"--big: onnx.checker refuses out.onnx: {first_line(e)}")
    inline = os.path.join(d, "inline.onnx")
    p, secs, _, _, _ = timed([exe, *merge_args(os.path.join(d, "a.onnx"), os.path.join(d, "b.onnx"), inline,
                                               [(out_a, "x_b")])])
    # As pack and edit refuse it: exit 2, a hint to use --external.
    ck.check(p.returncode == 2 and "--external" in p.stderr and not os.path.exists(inline),
             f"--big: merge of {2 * BIG_TENSORS * size / 2 ** 30:.2f} GiB inline without --allow-over-2gib: "
             f"exit {p.returncode}, OUT {'written' if os.path.exists(inline) else 'absent'}, expected exit 2 and "
             f"a hint to use --external: {one_line(p.stderr)}")
    print(f"--big: without --external: exit {p.returncode} in {secs:.1f} s: {one_line(p.stderr, 200)}")
    if not keep:
        shutil.rmtree(d)


# --- main -----------------------------------------------------------------------------------------

def main():
    global onnx
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--onnxview", required=True)
    ap.add_argument("--corpus", default="/usr/share/libonnx-testdata/data")
    ap.add_argument("--limit", type=int, default=150,
                    help="corpus pairs: a third models merged with themselves, the rest chains "
                         "(0: all, some twenty minutes)")
    ap.add_argument("--ort-limit", type=int, default=20, help="chains run in onnxruntime (0: none)")
    ap.add_argument("--ort-dir", default=os.environ.get("ONNXRUNTIME_NODE_DIR", "/opt/onnxruntime-node"))
    ap.add_argument("--big", action="store_true", help="also two models of 1.125 GiB each (~4.5 GiB of disk)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary files, and say where")
    args = ap.parse_args()
    try:
        import onnx as onnx_module
        import onnx.checker  # noqa: F401
        import onnx.compose  # noqa: F401
        import numpy  # noqa: F401 - python3-onnx's dependency, used throughout
        onnx = onnx_module
    except ImportError as e:
        print(f"merge_oracle: skipped: {e}")
        return SKIP
    start = time.monotonic()
    exe = os.path.abspath(args.onnxview)
    ck, tally = Checks(), collections.Counter()
    r = run(exe, "merge", "--help") if os.access(exe, os.X_OK) else None
    if not ck.check(r is not None and r.returncode == 0,
                    f"{exe} merge --help: " + (f"exit {r.returncode}: {one_line(r.stdout + r.stderr)}" if r else
                                               "no such executable")):
        return ck.finish()
    ort_dir = args.ort_dir if ort_available(args.ort_dir) else None
    cache = {}

    def load(path):
        if path not in cache:
            try:
                cache[path] = onnx.load(path)
            except Exception:  # noqa: BLE001
                cache[path] = None
        return cache[path]
    work = tempfile.mkdtemp(prefix="merge_oracle.")
    n_testdata = n_corpus = 0
    try:
        check_made(ck, tally, exe, work, ort_dir)
        n_testdata = check_testdata(ck, tally, exe, work, ort_dir, load)
        n_corpus = check_corpus(ck, tally, exe, args, work, ort_dir, load)
        if args.big:
            try:
                check_big(ck, exe, work, args.keep)
            except Exception as e:  # noqa: BLE001 - a step that failed outright
                ck.check(False, f"--big: {type(e).__name__}: {first_line(e)}")
    finally:
        if args.keep:
            print(f"kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(f"merge_oracle: {n_testdata} testdata models merged with themselves, {n_corpus} corpus pairs, "
          f"{time.monotonic() - start:.1f} s")
    for k, n in sorted(tally.items()):
        print(f"  {k}: {n}")
    if not ort_dir:
        print("  onnxruntime: not run (no node, or no node_modules/onnxruntime-node in --ort-dir): skipped")
    return ck.finish()


if __name__ == "__main__":
    sys.exit(main())
