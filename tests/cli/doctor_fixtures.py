#!/usr/bin/env python3
"""Fixtures and expected figures for tests/cli/doctor_test.sh, computed from
the wire bytes here, independently of onnxview.

    doctor_fixtures.py payloads MODEL     expected zero-copy figures (JSON)
    doctor_fixtures.py external DIR       models with external data problems
    doctor_fixtures.py big PATH           a valid model over 2 GiB (a sparse file)

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


def big(path):
    """A model whose one UINT8 initializer holds 2 GiB + 16 bytes of zeros:
    its raw_data is the last field, so the file ends with it and most of it
    is a hole."""
    n = 2**31 + 16
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


if __name__ == "__main__":
    {"payloads": payloads, "external": external, "big": big}[sys.argv[1]](sys.argv[2])
