#!/usr/bin/env python3
"""Fixtures and expected figures for tests/cli/doctor_test.sh, computed from
the wire bytes here, independently of onnxview.

    doctor_fixtures.py payloads MODEL     expected zero-copy figures (JSON)
    doctor_fixtures.py external DIR       models with external data problems
    doctor_fixtures.py big PATH [MIB]     a valid model over 2 GiB, or of MIB MiB (a sparse file)
    doctor_fixtures.py many PATH MIB      a valid model of MIB MiB in UINT8 initializers of 128 KiB
    doctor_fixtures.py duplicates MODEL   expected duplicate groups (JSON), per python3-onnx
    doctor_fixtures.py tied DIR           a model storing one tensor five ways, and a near miss

`payloads` walks the protobuf wire format of MODEL itself: every TensorProto
the model stores (graph initializers, sparse initializers' values and
indices, tensor attributes of nodes, in subgraphs and functions too) and
where its raw_data payload starts in the file, and prints, for the raw_data
of the model file and for each external location, the counts doctor
--json must give (all, aligned to element size / 64 / 4096 / 65536, and
zero_copy: an aligned payload of a type at least one byte wide that is not
STRING, BOOL bytes 0 or 1; this test runs on little-endian hosts only).
"""
import json
import os
import sys

# DataType: (element bytes, natural alignment); 0 bytes: sub-byte; None: STRING.
TYPES = {1: (4, 4), 2: (1, 1), 3: (1, 1), 4: (2, 2), 5: (2, 2), 6: (4, 4), 7: (8, 8), 8: None, 9: (1, 1),
         10: (2, 2), 11: (8, 8), 12: (4, 4), 13: (8, 8), 14: (8, 4), 15: (16, 8), 16: (2, 2), 17: (1, 1),
         18: (1, 1), 19: (1, 1), 20: (1, 1), 21: (0, 1), 22: (0, 1), 23: (0, 1), 24: (1, 1), 25: (0, 1), 26: (0, 1)}


def varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return v, i


def fields(b, start, end):
    """(number, wire type, value or (payload start, payload end)) of [start, end)."""
    i = start
    while i < end:
        tag, i = varint(b, i)
        number, wt = tag >> 3, tag & 7
        if wt == 0:
            v, i = varint(b, i)
            yield number, wt, v
        elif wt == 1:
            yield number, wt, b[i:i + 8]
            i += 8
        elif wt == 5:
            yield number, wt, b[i:i + 4]
            i += 4
        elif wt == 2:
            n, i = varint(b, i)
            yield number, wt, (i, i + n)
            i += n
        else:
            raise SystemExit(f"unexpected wire type {wt}")


def tensor(b, start, end):
    t = {"dims": [], "data_type": 0, "raw": None, "external": {}, "location": 0, "typed": False}
    for number, wt, v in fields(b, start, end):
        if number == 1:
            if wt == 0:
                t["dims"].append(v)
            else:
                i = v[0]
                while i < v[1]:
                    d, i = varint(b, i)
                    t["dims"].append(d)
        elif number == 2:
            t["data_type"] = v
        elif number == 9:
            t["raw"] = v
        elif number == 13:
            kv = {}
            for n2, _, v2 in fields(b, *v):
                kv[n2] = b[v2[0]:v2[1]].decode()
            t["external"][kv.get(1, "")] = kv.get(2, "")
        elif number == 14:
            t["location"] = v
        elif number in (4, 5, 6, 7, 10, 11):
            t["typed"] = True
    count = 1
    for d in t["dims"]:
        count *= d
    t["count"] = count
    return t


def tensors_of_graph(b, start, end, out):
    for number, _, v in fields(b, start, end):
        if number == 5:  # initializer
            out.append(tensor(b, *v))
        elif number == 15:  # sparse_initializer
            sparse(b, v, out)
        elif number == 1:  # node
            tensors_of_node(b, v, out)


def sparse(b, v, out):
    for n2, _, v2 in fields(b, *v):
        if n2 in (1, 2):  # values, indices
            out.append(tensor(b, *v2))


def tensors_of_node(b, v, out):
    for number, _, a in fields(b, *v):
        if number != 5:  # attribute
            continue
        for n2, _, v2 in fields(b, *a):
            if n2 in (5, 10):  # t, tensors
                out.append(tensor(b, *v2))
            elif n2 in (22, 23):  # sparse_tensor, sparse_tensors
                sparse(b, v2, out)
            elif n2 in (6, 11):  # g, graphs
                tensors_of_graph(b, v2[0], v2[1], out)


def model_tensors(b):
    out = []
    for number, _, v in fields(b, 0, len(b)):
        if number == 7:
            tensors_of_graph(b, v[0], v[1], out)
        elif number == 25:  # functions: node = 7
            for n2, _, v2 in fields(b, *v):
                if n2 == 7:
                    tensors_of_node(b, v2, out)
    return out


def empty_group():
    z = {"tensors": 0, "bytes": 0}
    return {"all": dict(z), "aligned": {k: dict(z) for k in ("element", "64", "4096", "65536")},
            "zero_copy": dict(z), "copied": dict(z)}


def add(group, key, sub, nbytes):
    g = group[key] if sub is None else group[key][sub]
    g["tensors"] += 1
    g["bytes"] += nbytes


def payloads(path):
    b = open(path, "rb").read()
    groups = {"": empty_group()}
    for t in model_tensors(b):
        info = TYPES.get(t["data_type"])
        if info is None or t["count"] == 0:
            continue  # STRING, empty or unknown: not viewed
        size, align = info
        nbytes = (t["count"] * {21: 4, 22: 4, 23: 4, 25: 2, 26: 2}.get(t["data_type"], 8) + 7) // 8 if size == 0 \
            else t["count"] * size
        if t["location"] == 1:
            key = t["external"]["location"]
            offset = int(t["external"].get("offset", "0"))
            payload = None
        elif t["raw"] is not None:
            key = ""
            offset = t["raw"][0]
            payload = b[t["raw"][0]:t["raw"][1]]
        else:
            continue  # typed fields: counted apart
        g = groups.setdefault(key, empty_group())
        add(g, "all", None, nbytes)
        for k, a in (("element", max(size, 1)), ("64", 64), ("4096", 4096), ("65536", 65536)):
            if offset % a == 0:
                add(g, "aligned", k, nbytes)
        zero_copy = size > 0 and offset % align == 0
        if t["data_type"] == 9 and payload is not None and any(x > 1 for x in payload):
            zero_copy = False
        add(g, "zero_copy" if zero_copy else "copied", None, nbytes)
    print(json.dumps(groups, sort_keys=True))


# ---- building models ------------------------------------------------------

def enc_varint(n):
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(number, payload):
    return enc_varint(number << 3 | 2) + enc_varint(len(payload)) + payload


def vfield(number, v):
    return enc_varint(number << 3) + enc_varint(v)


def external_tensor(name, count, location, offset=None, length=None):
    """FLOAT[count] stored in `location`."""
    t = vfield(1, count) + vfield(2, 1) + field(8, name.encode())
    for k, v in (("location", location), ("offset", offset), ("length", length)):
        if v is not None:
            t += field(13, field(1, k.encode()) + field(2, str(v).encode()))
    return t + vfield(14, 1)


def model_with(initializers):
    graph = field(1, field(1, b"w") + field(2, b"y") + field(4, b"Identity")) + field(2, b"g")
    for t in initializers:
        graph += field(5, t)
    graph += field(12, field(1, b"y"))
    return vfield(1, 8) + field(8, vfield(2, 13)) + field(7, graph)


def external(d):
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "missing.onnx"), "wb").write(model_with([external_tensor("w", 4, "absent.bin")]))
    open(os.path.join(d, "short.bin"), "wb").write(b"\0" * 8)
    open(os.path.join(d, "short.onnx"), "wb").write(
        model_with([external_tensor("w", 4, "short.bin", 0, 16), external_tensor("v", 2, "short.bin", 0, 8)]))
    open(os.path.join(d, "escape.onnx"), "wb").write(model_with([external_tensor("w", 4, "../w.bin")]))
    # Aligned and unaligned offsets in one external file.
    open(os.path.join(d, "w.bin"), "wb").write(b"\0" * 65536 * 2)
    open(os.path.join(d, "aligned.onnx"), "wb").write(model_with([
        external_tensor("a", 16384, "w.bin", 65536, 65536),  # 64 KiB aligned
        external_tensor("b", 4, "w.bin", 4096, 16),          # 4 KiB aligned
        external_tensor("c", 4, "w.bin", 64, 16),            # 64 B aligned
        external_tensor("d", 4, "w.bin", 4, 16),             # element aligned
        external_tensor("e", 4, "w.bin", 2, 16),             # unaligned
    ]))


def big(path, mib=None):
    """A model whose one UINT8 initializer holds 2 GiB + 16 bytes of zeros
    (or MIB MiB): its raw_data is the last field, so the file ends with it
    and most of it is a hole."""
    n = 2**31 + 16 if mib is None else int(mib) << 20
    head = vfield(1, n) + vfield(2, 2) + field(8, b"w")
    tensor_len = len(head) + 1 + len(enc_varint(n)) + n
    graph_head = field(1, field(1, b"w") + field(2, b"y") + field(4, b"Identity")) + field(2, b"g") + \
        field(12, field(1, b"y"))
    graph_len = len(graph_head) + 1 + len(enc_varint(tensor_len)) + tensor_len
    prefix = vfield(1, 8) + field(8, vfield(2, 13)) + enc_varint(7 << 3 | 2) + enc_varint(graph_len) + graph_head + \
        enc_varint(5 << 3 | 2) + enc_varint(tensor_len) + head + enc_varint(9 << 3 | 2) + enc_varint(n)
    with open(path, "wb") as f:
        f.write(prefix)
        f.truncate(len(prefix) + n)


def many(path, mib):
    """A model of MIB MiB in UINT8 initializers of 128 KiB of zeros each: a
    tensor header every 128 KiB, as in models of many mid-sized weights."""
    n = 128 << 10
    with open(path, "wb") as f:
        tensors = []
        for i in range((int(mib) << 20) // n):
            t = vfield(1, n) + vfield(2, 2) + field(8, b"w%d" % i) + field(9, bytes(n))
            tensors.append(enc_varint(5 << 3 | 2) + enc_varint(len(t)) + t)
        graph = field(1, field(1, b"w0") + field(2, b"y") + field(4, b"Identity")) + field(2, b"g") + \
            field(12, field(1, b"y")) + b"".join(tensors)
        f.write(vfield(1, 8) + field(8, vfield(2, 13)) + enc_varint(7 << 3 | 2) + enc_varint(len(graph)) + graph)


# Types numpy_helper.to_array reads in the onnx of Debian 12 (1.12); the
# others are compared as onnx.proto stores them: BFLOAT16 and FLOAT8 one
# element per int32_data entry, 4- and 2-bit types packed low bits first.
NUMPY_TYPES = {1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15}
BITS = {16: 16, 17: 8, 18: 8, 19: 8, 20: 8, 24: 8, 21: 4, 22: 4, 23: 4, 25: 2, 26: 2}


def stored_values(t, base):
    """The tensor's values as bytes in raw_data layout, or None when unreadable."""
    from onnx import numpy_helper
    count = 1
    for d in t.dims:
        count *= d
    if t.data_type in (14, 15) and not t.HasField("raw_data") and t.data_location != 1:
        # onnx 1.12's to_array fails on typed complex data; the typed field
        # holds real and imaginary parts in turn, as raw_data does.
        import numpy as np
        return np.array(t.float_data if t.data_type == 14 else t.double_data,
                        dtype=np.float32 if t.data_type == 14 else np.float64).tobytes()
    if t.data_type in NUMPY_TYPES:
        return numpy_helper.to_array(t, base).tobytes()
    bits = BITS.get(t.data_type)
    if bits is None:
        return None
    if bits >= 8:
        raw = t.raw_data if t.HasField("raw_data") else b"".join(
            (v & (1 << bits) - 1).to_bytes(bits // 8, "little") for v in t.int32_data)
        return raw
    per = 8 // bits
    raw = bytearray(t.raw_data if t.HasField("raw_data") else bytes(v & 0xFF for v in t.int32_data))
    if count % per:  # padding bits of the last byte carry no value
        raw[-1] &= (1 << bits * (count % per)) - 1
    return bytes(raw)


def all_tensors(model):
    def graph(g):
        yield from g.initializer
        for s in g.sparse_initializer:
            yield s.values
            yield s.indices
        yield from nodes(g.node)

    def nodes(ns):
        for n in ns:
            for a in n.attribute:
                if a.HasField("t"):
                    yield a.t
                yield from a.tensors
                for s in ([a.sparse_tensor] if a.HasField("sparse_tensor") else []) + list(a.sparse_tensors):
                    yield s.values
                    yield s.indices
                if a.HasField("g"):
                    yield from graph(a.g)
                for g in a.graphs:
                    yield from graph(g)

    yield from graph(model.graph)
    for f in model.functions:
        yield from nodes(f.node)


def duplicates(path):
    """[[data type, dims, copies, bytes of one], ...] sorted, and the bytes wasted."""
    import onnx
    model = onnx.load(path, load_external_data=False)
    base = os.path.dirname(os.path.abspath(path))
    groups = {}
    for t in all_tensors(model):
        if t.data_type == 8:  # STRING: not compared
            continue
        values = stored_values(t, base)
        if values is None or len(values) == 0:
            continue
        key = (onnx.TensorProto.DataType.Name(t.data_type), tuple(t.dims), values)
        groups[key] = groups.get(key, 0) + 1
    found = sorted([k[0], list(k[1]), n, len(k[2])] for k, n in groups.items() if n > 1)
    print(json.dumps({"groups": found, "wasted_bytes": sum((g[2] - 1) * g[3] for g in found)}))


def tied(d):
    """tied.onnx: one FLOAT [4,4] stored as raw_data, in float_data, as
    external data, in a Constant node and in a tensor attribute of a node;
    the same bytes with dims [16] and other values with dims [4,4] are not
    duplicates of it. Two INT64 [2] tensors that are. tied_1k.onnx: two
    FLOAT [512] initializers with the same values (what pack --dedupe shares).
    int4.onnx (wire bytes: this onnx predates INT4): three INT4 [3] that
    are duplicates, two in raw_data whose padding nibbles differ and one in
    int32_data, and one that is not."""
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper
    os.makedirs(d, exist_ok=True)
    w = np.arange(16, dtype=np.float32).reshape(4, 4)
    raw = numpy_helper.from_array(w, "w_raw")
    typed = helper.make_tensor("w_typed", onnx.TensorProto.FLOAT, [4, 4], w.flatten().tolist())
    ext = numpy_helper.from_array(w, "w_external")
    open(os.path.join(d, "tied.bin"), "wb").write(b"\0" * 3 + w.tobytes())
    ext.ClearField("raw_data")
    ext.data_location = onnx.TensorProto.EXTERNAL
    for k, v in (("location", "tied.bin"), ("offset", "3"), ("length", "64")):
        ext.external_data.add(key=k, value=v)
    flat = numpy_helper.from_array(w.flatten(), "w_flat")
    other = numpy_helper.from_array(w + 1, "w_other")
    i1 = numpy_helper.from_array(np.array([7, -7], dtype=np.int64), "i1")
    i2 = helper.make_tensor("i2", onnx.TensorProto.INT64, [2], [7, -7])
    nodes = [helper.make_node("Constant", [], ["c"], value=numpy_helper.from_array(w)),
             helper.make_node("Add", ["c", "w_raw"], ["y"], name="add", bias=numpy_helper.from_array(w, "b"))]
    graph = helper.make_graph(nodes, "tied", [], [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [4, 4])],
                              [raw, typed, ext, flat, other, i1, i2])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    open(os.path.join(d, "tied.onnx"), "wb").write(model.SerializeToString())
    big = np.arange(512, dtype=np.float32)  # 2 KiB, over pack's threshold
    graph = helper.make_graph([helper.make_node("Add", ["a", "b"], ["y"])], "tied_1k", [],
                              [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [512])],
                              [numpy_helper.from_array(big, "a"), numpy_helper.from_array(big, "b")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    open(os.path.join(d, "tied_1k.onnx"), "wb").write(model.SerializeToString())
    int4 = [vfield(1, 3) + vfield(2, 22) + field(8, name.encode()) + payload
            for name, payload in (("q_a", field(9, b"\x21\x03")), ("q_b", field(9, b"\x21\xf3")),
                                  ("q_c", field(5, enc_varint(0x21) + enc_varint(0x03))),
                                  ("q_d", field(9, b"\x21\x04")))]
    open(os.path.join(d, "int4.onnx"), "wb").write(model_with(int4))


if __name__ == "__main__":
    {"payloads": payloads, "external": external, "big": big, "many": many, "duplicates": duplicates,
     "tied": tied}[sys.argv[1]](*sys.argv[2:])
