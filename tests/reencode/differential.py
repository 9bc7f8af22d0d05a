#!/usr/bin/python3
"""`onnxview dump` against `protoc --decode=onnx.ModelProto` on re-encoded and
mutated models.

One script of ~1,100 lines on purpose: meson runs it as one test with
Debian's python3 and nothing else on the path, and its wire encoder,
re-encoder and mutators are written for this comparison only (it must not
share code with the onnxview it checks).

  differential.py reencode [--models N] [--seeds K] [--jobs J]
  differential.py mutate   [--bases N] [--mutants M] [--jobs J]
  differential.py all      (both, the bounded sizes meson runs)

The reference is Debian's protoc 3.21 with /usr/include/onnx/onnx.proto
(ONNX 1.12). The schema used to re-encode (which LEN fields are messages,
which repeated scalars may be packed, which fields are int32 or enums, the
oneofs) comes from onnx's generated descriptors (onnx.onnx_ml_pb2), with the
three onnx-ml.proto fields that the non-ML onnx.proto lacks (TypeProto 7 and
TypeProto.Opaque) treated as unknown, as protoc treats them; the difference
between the two files is read from protoc's own descriptor set.

reencode: every model is written again in ways protobuf allows (an own wire
decoder and encoder, seeded):
  A (meaning kept): fields of different numbers moved past each other (same
    number, same oneof and unknown fields keep their relative order), packed
    <-> unpacked and packed runs split (empty runs too), non-minimal varints
    in tags and lengths (up to 5 bytes, libprotobuf's ReadTag/ReadSize limit)
    and values (up to 10 bytes), int32/enum values with garbage in the upper
    32 bits (libprotobuf truncates), singular messages split into several
    occurrences (merged) down to 8 consecutive levels, an earlier occurrence
    with another value before a singular scalar (last one wins), for oneof
    members an earlier other member, for int32 a negative 10-byte value.
    Checks: protoc accepts it, protoc prints exactly what it prints for the
    original (this checks the rewriter), onnxview prints the same bytes.
  B (meaning changed): A plus unknown fields of every wire type (varint,
    fixed32, fixed64, LEN of random bytes, LEN holding a message, groups with
    nested content) and int32 values made negative. Checks: protoc accepts,
    onnxview prints the same bytes.
  D (deliberate differences, exercised on purpose): a length of the original
    written in 6..10 varint bytes (protoc refuses, onnxview accepts and must
    print what protoc prints for the original); a TypeProto chain merged at
    8 consecutive levels (both accept, same bytes) and at 9 (onnxview refuses
    with merge_too_deep).

mutate: bit flips, byte inserts, deletes, truncations and varints (tags,
lengths, values) overwritten with large or over-long values in small corpus
models and in B rewrites of them. protoc and onnxview must agree on accepting
and, when both accept, on every output byte; a rejection by onnxview must be
exit 1 with one line on stderr naming the byte offset.

Deliberate differences are counted apart, never failed, each only when
it is shown to be nothing else:
  long_length    protoc rejects, onnxview accepts: a length varint of 6..10
                 bytes (libprotobuf's ReadSize reads at most 5; onnxview reads
                 lengths of 2 GiB and more). Counted when protoc accepts the
                 input with those lengths written minimally and then prints
                 exactly what onnxview printed.
  merge_too_deep protoc accepts, onnxview refuses (exit 1, merge_too_deep)
                 more than 8 nested levels of merged singular messages. The
                 printer meets this while printing, so the text before it,
                 braces closed, is on stdout. Never expected in rewrites
                 (they merge at most 8 levels in a row): a failure there.
  newer_schema   the CLI prints with the newest onnx.proto, protoc with 1.12
                 (a field or enum value newer than 1.12). Counted when the CLI
                 printed exactly what text_decode prints (the library, newest
                 schema) and text_decode --release 1.12 agrees with protoc.

Environment: ONNXVIEW (the CLI), ONNXVIEW_TEXT_DECODE (tests/text/text_decode,
optional: without it newer-schema differences are failures), ONNXVIEW_TESTDATA
(the repository's testdata/). Exits 77 (skipped) when protoc, onnx.proto,
python onnx or the corpus is missing.
"""
import argparse
import hashlib
import multiprocessing
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

SKIP = 77
PROTO_DIR = "/usr/include/onnx"
CORPUS = "/usr/share/libonnx-testdata"
INT_MAX = 2**31 - 1


def skip(msg):
    print("SKIPPED: " + msg)
    sys.exit(SKIP)


# ---------------------------------------------------------------------------
# Schema, from onnx's generated descriptors

class Fld:
    __slots__ = ("number", "name", "msg", "repeated", "wire", "stype", "enum_values", "oneof", "packable")


class Msg:
    __slots__ = ("name", "fields", "oneofs")


def load_schema():
    try:
        from google.protobuf import descriptor_pb2
        from google.protobuf.descriptor import FieldDescriptor as FD
        import onnx.onnx_ml_pb2 as pb
    except ImportError as e:
        skip(f"python onnx / google.protobuf not importable ({e}); Debian: python3-onnx")
    # Which fields Debian's non-ML onnx.proto has: protoc's descriptor set.
    with tempfile.NamedTemporaryFile(suffix=".pb") as t:
        r = subprocess.run(["protoc", "--descriptor_set_out=" + t.name, "onnx.proto"], cwd=PROTO_DIR,
                           capture_output=True)
        if r.returncode != 0:
            skip("protoc cannot compile onnx.proto: " + r.stderr.decode(errors="replace").strip())
        fds = descriptor_pb2.FileDescriptorSet()
        fds.ParseFromString(open(t.name, "rb").read())
    nonml = set()

    def walk(prefix, msgs):
        for m in msgs:
            n = prefix + "." + m.name
            for f in m.field:
                nonml.add((n, f.number))
            walk(n, m.nested_type)

    for f in fds.file:
        walk(f.package, f.message_type)

    varint = {FD.TYPE_INT32, FD.TYPE_INT64, FD.TYPE_UINT32, FD.TYPE_UINT64, FD.TYPE_SINT32,
              FD.TYPE_SINT64, FD.TYPE_BOOL, FD.TYPE_ENUM}
    fixed32 = {FD.TYPE_FIXED32, FD.TYPE_SFIXED32, FD.TYPE_FLOAT}
    fixed64 = {FD.TYPE_FIXED64, FD.TYPE_SFIXED64, FD.TYPE_DOUBLE}
    names = {FD.TYPE_INT32: "int32", FD.TYPE_INT64: "int64", FD.TYPE_UINT64: "uint64",
             FD.TYPE_UINT32: "uint32", FD.TYPE_ENUM: "enum", FD.TYPE_FLOAT: "float",
             FD.TYPE_DOUBLE: "double", FD.TYPE_STRING: "string", FD.TYPE_BYTES: "bytes",
             FD.TYPE_MESSAGE: "message", FD.TYPE_BOOL: "bool"}
    table = {}

    def get(d):
        if d.full_name in table:
            return table[d.full_name]
        m = Msg()
        m.name = d.full_name
        m.fields = {}
        m.oneofs = {}
        table[d.full_name] = m
        for f in d.fields:
            if (d.full_name, f.number) not in nonml:
                continue  # onnx-ml.proto only: an unknown field to protoc
            x = Fld()
            x.number, x.name = f.number, f.name
            x.repeated = f.label == FD.LABEL_REPEATED
            x.stype = names.get(f.type, "other")
            x.msg = get(f.message_type) if f.type == FD.TYPE_MESSAGE else None
            x.wire = 0 if f.type in varint else 5 if f.type in fixed32 else 1 if f.type in fixed64 else 2
            x.packable = x.repeated and x.wire != 2
            x.enum_values = [v.number for v in f.enum_type.values] if f.type == FD.TYPE_ENUM else None
            x.oneof = f.containing_oneof.name if f.containing_oneof is not None else None
            if x.oneof:
                m.oneofs.setdefault(x.oneof, []).append(x)
            m.fields[f.number] = x
        return m

    for d in pb.DESCRIPTOR.message_types_by_name.values():
        get(d)
    return table


# ---------------------------------------------------------------------------
# Wire format

class WireError(Exception):
    pass


def read_varint(b, i, end):
    """Returns (value, next index, byte count); at most 10 bytes as libprotobuf."""
    v = 0
    shift = 0
    start = i
    while True:
        if i >= end:
            raise WireError("truncated varint at %d" % start)
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        if c < 0x80:
            return v & (2**64 - 1), i, i - start
        shift += 7
        if i - start >= 10:
            raise WireError("varint too long at %d" % start)


def read_tag(b, i, end):
    """A tag as libprotobuf's ReadTag: at most 5 bytes, the low 32 bits."""
    v, j, n = read_varint(b, i, end)
    if n > 5:
        raise WireError("tag too long at %d" % i)
    return v & 0xFFFFFFFF, j


def varint(v, size=0):
    """v (0 <= v < 2**64) in `size` bytes (0: minimal; padded with 0x80 groups)."""
    groups = []
    while True:
        groups.append(v & 0x7F)
        v >>= 7
        if not v:
            break
    while len(groups) < size:
        groups.append(0)
    return bytes([g | 0x80 for g in groups[:-1]] + [groups[-1]])


def u64(v):
    return v & (2**64 - 1)


class Node:
    """One field occurrence: num, wire type, value (int; bytes; list of nodes
    for messages and groups; list of elements for packed runs), its schema
    field (None: unknown to protoc), packed flag."""
    __slots__ = ("num", "wt", "val", "fld", "packed")

    def __init__(self, num, wt, val, fld=None, packed=False):
        self.num, self.wt, self.val, self.fld, self.packed = num, wt, val, fld, packed


def field_for(msg, num, wt, val=None):
    """The schema field protoc would use for this occurrence, else None."""
    f = msg.fields.get(num) if msg else None
    if f is None:
        return None
    if wt == f.wire or (wt == 2 and f.packable):
        if f.enum_values is not None and wt == 0:
            s = val & 0xFFFFFFFF
            s = s - 2**32 if s >= 2**31 else s
            if s not in f.enum_values:
                return None  # closed enum: an unknown value is an unknown field
        return f
    return None


def parse(b, i, end, msg, depth=0, group=None):
    """Parses a valid message (or group content up to the end tag of `group`)."""
    out = []
    while i < end:
        key, i = read_tag(b, i, end)
        num, wt = key >> 3, key & 7
        if num == 0:
            raise WireError("field 0")
        if wt == 0:
            v, i, _ = read_varint(b, i, end)
            out.append(Node(num, 0, v, field_for(msg, num, 0, v)))
        elif wt in (1, 5):
            n = 8 if wt == 1 else 4
            if end - i < n:
                raise WireError("truncated fixed")
            out.append(Node(num, wt, bytes(b[i:i + n]), field_for(msg, num, wt)))
            i += n
        elif wt == 2:
            n, i, _ = read_varint(b, i, end)
            if end - i < n:
                raise WireError("truncated LEN")
            f = field_for(msg, num, 2)
            if f is not None and f.msg is not None:
                out.append(Node(num, 2, parse(b, i, i + n, f.msg, depth + 1), f))
            elif f is not None and f.packable:
                out.append(Node(num, 2, parse_packed(b, i, i + n, f), f, packed=True))
            else:
                out.append(Node(num, 2, bytes(b[i:i + n]), f))
            i += n
        elif wt == 3:
            nodes, i = parse(b, i, end, None, depth + 1, group=num)
            out.append(Node(num, 3, nodes))
        elif wt == 4:
            if group == num:
                return out, i
            raise WireError("unmatched end group")
        else:
            raise WireError("wire type %d" % wt)
    if group is not None:
        raise WireError("unterminated group")
    return out


def parse_packed(b, i, end, f):
    els = []
    if f.wire == 0:
        while i < end:
            v, i, _ = read_varint(b, i, end)
            els.append(v)
    else:
        n = 4 if f.wire == 5 else 8
        if (end - i) % n:
            raise WireError("packed length")
        els = [bytes(b[j:j + n]) for j in range(i, end, n)]
    return els


# ---------------------------------------------------------------------------
# The re-encoder

class Plan:
    """What a rewrite may do; probabilities per opportunity."""

    def __init__(self, rng, meaning_kept):
        self.r = rng
        self.kept = meaning_kept
        self.p_shuffle = rng.choice([0.0, 0.5, 1.0])
        self.p_pad = rng.choice([0.0, 0.1, 0.4])
        self.p_split = rng.choice([0.0, 0.3, 0.8])
        self.p_packed = rng.choice([0.0, 0.5, 1.0])
        self.p_earlier = rng.choice([0.0, 0.2, 0.6])
        self.p_high = rng.choice([0.0, 0.3])
        self.p_unknown = 0.0 if meaning_kept else rng.choice([0.1, 0.3, 0.6])
        self.p_negate = 0.0 if meaning_kept else rng.choice([0.0, 0.3])
        self.max_chain = 8
        self.long_at = 0  # the n-th length written in 6..10 bytes (0: none)
        self.lengths = 0
        self.stats = {"splits": 0, "pads": 0, "unknown": 0, "earlier": 0, "packed_runs": 0,
                      "high_bits": 0, "negated": 0, "max_chain": 0}

    def pad(self, v, limit):
        if self.r.random() < self.p_pad:
            n = len(varint(v))
            if n < limit:
                self.stats["pads"] += 1
                return varint(v, self.r.randint(n + 1, limit))
        return varint(v)

    def tag(self, num, wt):
        t = self.pad((num << 3) | wt, 5)
        if len(t) == 5 and self.r.random() < 0.3:
            # libprotobuf's ReadTag keeps the low 32 bits of a 5-byte tag.
            self.stats["tag_garbage"] = self.stats.get("tag_garbage", 0) + 1
            t = t[:4] + bytes([t[4] | (self.r.randint(1, 7) << 4)])
        return t

    def length(self, n):
        self.lengths += 1
        if self.lengths == self.long_at:
            self.stats["long"] = 1
            return varint(n, self.r.randint(6, 10))
        return self.pad(n, 5)

    def value(self, v):
        return self.pad(v, 10)


def rand_int32(r):
    return r.choice([r.randint(-2**31, 2**31 - 1), r.randint(-5, -1), -2**31, 2**31 - 1, 0, 1])


def int32_value(v):
    s = v & 0xFFFFFFFF
    return s - 2**32 if s >= 2**31 else s


def scalar_payload(plan, f, v, wt):
    """Encodes one scalar value (without tag) of field f, maybe re-encoded."""
    r = plan.r
    if wt == 0:
        if f is not None and f.stype in ("int32", "enum", "uint32") and plan.p_high and r.random() < plan.p_high:
            plan.stats["high_bits"] += 1
            v = (v & 0xFFFFFFFF) | (r.randint(1, 2**32 - 1) << 32)  # protobuf reads the low 32 bits
        return plan.value(v)
    return v  # fixed: the bytes


def other_value(plan, f):
    """Another valid value of scalar field f, for an earlier occurrence."""
    r = plan.r
    if f.stype == "enum":
        return Node(f.number, 0, u64(r.choice(f.enum_values)), f)
    if f.stype == "int32":
        return Node(f.number, 0, u64(rand_int32(r)), f)
    if f.stype in ("int64", "uint64", "uint32", "bool"):
        v = r.choice([0, 1, r.randint(0, 2**64 - 1), u64(-r.randint(1, 2**40))])
        if f.stype == "uint32":
            v &= 0xFFFFFFFF
        if f.stype == "bool":
            v = r.randint(0, 1)
        return Node(f.number, 0, v, f)
    if f.wire in (1, 5):
        return Node(f.number, f.wire, bytes(r.getrandbits(8) for _ in range(8 if f.wire == 1 else 4)), f)
    if f.stype in ("string", "bytes"):
        s = bytes(r.choice(b"abcxyz_019 ") for _ in range(r.randint(0, 6)))
        return Node(f.number, 2, s, f)
    return None


def unknown_number(plan, msg):
    r = plan.r
    while True:
        n = r.choice([r.randint(30, 200), r.randint(1000, 20000), r.randint(2**20, 2**29 - 1), 2**29 - 1])
        if msg is None or n not in msg.fields:
            return n


def random_unknown(plan, msg, depth=0):
    """A random unknown field (number not in msg's schema), encoded."""
    r = plan.r
    plan.stats["unknown"] += 1
    num = unknown_number(plan, msg)
    kind = r.choice(["varint", "fixed32", "fixed64", "len", "lenmsg", "group"] if depth < 3 else
                    ["varint", "fixed32", "fixed64", "len"])
    if msg is not None and msg.fields and r.random() < 0.25:
        # A known number that protoc keeps as an unknown field: another wire
        # type than the schema's, or a closed enum's value outside the enum.
        f = r.choice(list(msg.fields.values()))
        num = f.number
        if f.enum_values is not None and r.random() < 0.5:
            plan.stats["bad_enum"] = plan.stats.get("bad_enum", 0) + 1
            v = r.choice([max(f.enum_values) + r.randint(1, 1000), -r.randint(1, 5), 2**31 - 1])
            return plan.tag(num, 0) + plan.value(u64(v))
        plan.stats["wrong_wire_type"] = plan.stats.get("wrong_wire_type", 0) + 1
        kinds = {0: "varint", 5: "fixed32", 1: "fixed64", 2: "len", 3: "group"}
        bad = [w for w in kinds if w != f.wire and not (w == 2 and f.packable)]
        kind = kinds[r.choice(bad)]
        if depth >= 3 and kind == "group":
            kind = "varint" if f.wire != 0 else "fixed32"
    if kind == "varint":
        v = r.choice([0, 1, 127, 128, r.randint(0, 2**64 - 1), 2**63, 2**64 - 1, u64(-1 * r.randint(1, 99))])
        return plan.tag(num, 0) + plan.value(v)
    if kind == "fixed32":
        return plan.tag(num, 5) + bytes(r.getrandbits(8) for _ in range(4))
    if kind == "fixed64":
        return plan.tag(num, 1) + bytes(r.getrandbits(8) for _ in range(8))
    if kind == "len":
        body = r.choice([b"", bytes(r.getrandbits(8) for _ in range(r.randint(1, 12))),
                         bytes(r.choice(b"hello\\\"'\n\x00\x7f") for _ in range(r.randint(1, 8)))])
        return plan.tag(num, 2) + plan.length(len(body)) + body
    content = b"".join(random_unknown(plan, None, depth + 1) for _ in range(r.randint(0 if kind == "group" else 1, 3)))
    if kind == "lenmsg":
        return plan.tag(num, 2) + plan.length(len(content)) + content
    return plan.tag(num, 3) + content + plan.tag(num, 4)


def raw_node(plan, n):
    """An occurrence protoc sees as unknown (or a string/bytes value), re-encoded."""
    if n.wt == 0:
        return plan.tag(n.num, 0) + scalar_payload(plan, n.fld, n.val, 0)
    if n.wt in (1, 5):
        return plan.tag(n.num, n.wt) + n.val
    if n.wt == 2:
        return plan.tag(n.num, 2) + plan.length(len(n.val)) + n.val
    body = b"".join(raw_node(plan, c) for c in n.val)
    return plan.tag(n.num, 3) + body + plan.tag(n.num, 4)


def packed_runs(plan, f, elements):
    """Elements of repeated scalar field f as a list of encoded occurrences."""
    r = plan.r
    out = []
    i = 0
    while i < len(elements):
        k = r.randint(1, len(elements) - i) if r.random() < 0.5 else len(elements) - i
        chunk = elements[i:i + k]
        i += k
        if r.random() < plan.p_packed:
            plan.stats["packed_runs"] += 1
            body = b"".join(scalar_payload(plan, f, e, f.wire) for e in chunk)
            out.append(plan.tag(f.number, 2) + plan.length(len(body)) + body)
            if r.random() < 0.1:
                out.append(plan.tag(f.number, 2) + plan.length(0))  # an empty packed run
        else:
            out.extend(plan.tag(f.number, f.wire) + scalar_payload(plan, f, e, f.wire) for e in chunk)
    return out


def emit(plan, nodes, msg, chain):
    """Re-encodes a message: returns its occurrences (bytes) in wire order.
    chain = consecutive split (merged) singular message levels above."""
    r = plan.r
    items = []  # (ordering key, bytes)
    repeated = {}  # field number -> (index in items of the placeholder, elements)
    for n in nodes:
        f = n.fld
        if f is None:
            items.append(("U", raw_node(plan, n)))
            continue
        key = ("O", f.oneof) if f.oneof else f.number
        if f.packable:
            els = n.val if n.packed else [n.val]
            if f.stype == "int32" and plan.p_negate and f.wire == 0:
                els = [u64(-r.randint(1, 2**31)) if r.random() < plan.p_negate else e for e in els]
            if f.number not in repeated:
                repeated[f.number] = (len(items), [])
                items.append(None)
            repeated[f.number][1].extend(els)
            continue
        if f.msg is not None:
            # A singular message may be split into merged occurrences (the
            # concatenation of the parts is the message); onnxview follows 8
            # consecutive merged levels, so the rewrite stops there.
            split = not f.repeated and chain < plan.max_chain and r.random() < plan.p_split
            body_items = emit(plan, n.val, f.msg, chain + 1 if split else 0)
            if split:
                plan.stats["splits"] += 1
                plan.stats["max_chain"] = max(plan.stats["max_chain"], chain + 1)
                cuts = sorted(r.randint(0, len(body_items)) for _ in range(r.randint(1, 2)))
                parts = [body_items[a:b] for a, b in zip([0] + cuts, cuts + [len(body_items)])]
            else:
                parts = [body_items]
            for p in parts:
                body = b"".join(p)
                items.append((key, plan.tag(f.number, 2) + plan.length(len(body)) + body))
            continue
        if not f.repeated:
            if plan.p_earlier and r.random() < plan.p_earlier:
                choices = [g for g in (msg.oneofs[f.oneof] if f.oneof else [f]) if g.msg is None]
                e = other_value(plan, r.choice(choices))
                if e is not None:
                    plan.stats["earlier"] += 1
                    items.append((key, raw_node(plan, e)))
            if f.stype == "int32" and plan.p_negate and r.random() < plan.p_negate:
                plan.stats["negated"] += 1
                n = Node(n.num, 0, u64(rand_int32(r) | -2**31), f)  # negative: 10 bytes
        items.append((key, raw_node(plan, n)))
    for num, (idx, els) in repeated.items():
        runs = packed_runs(plan, nodes_field(nodes, num), els)
        items[idx] = [(num, b) for b in runs]
    flat = []
    for it in items:
        if isinstance(it, list):
            flat.extend(it)
        else:
            flat.append(it)
    if not plan.kept and plan.p_unknown:
        for _ in range(sum(1 for _ in flat) + 1):
            if r.random() < plan.p_unknown:
                flat.insert(r.randint(0, len(flat)), ("U", random_unknown(plan, msg)))
    if r.random() < plan.p_shuffle:
        flat = shuffle_kept(r, flat)
    return [b for _, b in flat]


def nodes_field(nodes, num):
    for n in nodes:
        if n.num == num and n.fld is not None:
            return n.fld
    raise AssertionError(num)


def shuffle_kept(r, items):
    """A random interleaving that keeps the relative order of equal keys."""
    queues = {}
    order = []
    for k, b in items:
        if k not in queues:
            queues[k] = []
            order.append(k)
        queues[k].append((k, b))
    out = []
    remaining = len(items)
    heads = {k: 0 for k in order}
    while remaining:
        x = r.randrange(remaining)
        for k in order:  # pick a queue with probability proportional to what it holds
            left = len(queues[k]) - heads[k]
            if x < left:
                out.append(queues[k][heads[k]])
                heads[k] += 1
                break
            x -= left
        remaining -= 1
    return out


def rewrite(data, schema, rng, kept, long_at=0):
    plan = Plan(rng, kept)
    plan.long_at = long_at
    nodes = parse(data, 0, len(data), schema["onnx.ModelProto"])
    return b"".join(emit(plan, nodes, schema["onnx.ModelProto"], 0)), plan.stats


# ---------------------------------------------------------------------------
# Wire walks used by mutations and by the classification of differences

def spans(b, i, end, msg, out, depth=0):
    """Collects (kind, start, end) of tags, lengths and varint values at the
    levels libprotobuf parses; stops quietly at the first framing error."""
    try:
        while i < end and depth < 40:
            s = i
            key, i = read_tag(b, i, end)
            out.append(("tag", s, i))
            num, wt = key >> 3, key & 7
            if wt == 0:
                s = i
                v, i, _ = read_varint(b, i, end)
                out.append(("value", s, i))
            elif wt in (1, 5):
                i += 8 if wt == 1 else 4
            elif wt == 2:
                s = i
                n, i, _ = read_varint(b, i, end)
                out.append(("length", s, i))
                if end - i < n:
                    return
                f = field_for(msg, num, 2)
                if f is not None and f.msg is not None:
                    spans(b, i, i + n, f.msg, out, depth + 1)
                i += n
            elif wt not in (3, 4):
                return
    except WireError:
        return


def shorten_lengths(b, msg):
    """The input with every length varint longer than 5 bytes written in its
    minimal form (enclosing lengths adjusted), at the levels libprotobuf
    parses: known message fields (1.12 schema) and groups. Returns (bytes,
    how many were shortened); None when the framing is not valid."""
    try:
        out, i, n = _shorten(b, 0, len(b), msg, 0, None)
        return out, n
    except WireError:
        return None


def _shorten(b, i, end, msg, depth, group):
    out = bytearray()
    count = 0
    if depth > 110:
        raise WireError("deep")
    while i < end:
        s = i
        key, i = read_tag(b, i, end)
        num, wt = key >> 3, key & 7
        if wt == 0:
            _, i, _ = read_varint(b, i, end)
            out += b[s:i]
        elif wt in (1, 5):
            i += 8 if wt == 1 else 4
            if i > end:
                raise WireError("truncated")
            out += b[s:i]
        elif wt == 2:
            t = i
            n, i, nb = read_varint(b, i, end)
            if end - i < n:
                raise WireError("truncated")
            f = field_for(msg, num, 2)
            if f is not None and f.msg is not None:
                body, _, c = _shorten(b, i, i + n, f.msg, depth + 1, None)
            else:
                body, c = b[i:i + n], 0
            if nb > 5 or c:
                out += b[s:t] + varint(len(body)) + body
                count += c + (nb > 5)
            else:
                out += b[s:i + n]
            i += n
        elif wt == 3:
            body, i, c = _shorten(b, i, end, None, depth + 1, num)
            out += b[s:_after_varint(b, s)]
            out += body
            count += c
        elif wt == 4 and group == num:
            e = _end_tag_consumed(b, s, end, out)
            return bytes(out), e, count
        else:
            raise WireError("framing")
    if group is not None:
        raise WireError("unterminated group")
    return bytes(out), i, count


def _after_varint(b, s):
    return read_tag(b, s, len(b))[1]


def _end_tag_consumed(b, s, end, out):
    # Group content ends before its end tag, which is copied with it.
    e = read_tag(b, s, end)[1]
    out += b[s:e]
    return e


# ---------------------------------------------------------------------------
# Running the two tools

def protoc(path):
    with open(path, "rb") as f:
        p = subprocess.run(["protoc", "--decode=onnx.ModelProto", "onnx.proto"], stdin=f, cwd=PROTO_DIR,
                           capture_output=True)
    return p.returncode, p.stdout


def onnxview(path):
    p = subprocess.run([os.environ["ONNXVIEW"], "dump", path], capture_output=True)
    return p.returncode, p.stdout, p.stderr


def text_decode(path, release):
    """tests/text/text_decode: the library's printer, restricted to a release."""
    exe = os.environ.get("ONNXVIEW_TEXT_DECODE")
    if not exe:
        return None
    p = subprocess.run([exe] + (["--release", release] if release else []) + ["ModelProto", path],
                       capture_output=True)
    return p.returncode, p.stdout


def first_diff(a, b):
    i = 0
    n = min(len(a), len(b))
    while i < n and a[i] == b[i]:
        i += 1
    lo = max(0, i - 60)
    return "first difference at output byte %d\n    protoc:   %r\n    onnxview: %r" % (i, a[lo:i + 80], b[lo:i + 80])


ERROR_LINE = re.compile(rb"^onnxview dump: .*\b(byte|offset) \d+")


def compare(path, data, protoc_result=None):
    """Runs both tools (protoc only when its result is not given); returns
    (verdict, detail). verdict: 'agree', a deliberate difference, or 'FAIL'."""
    prc, pout = protoc_result or protoc(path)
    orc, oout, oerr = onnxview(path)
    p_ok, o_ok = prc == 0, orc == 0
    merge_deep = not o_ok and b"(merge_too_deep)" in oerr
    if not o_ok:
        # One line naming the byte offset; nothing on stdout, except for
        # merge_too_deep, which the printer meets while printing (the text
        # printed up to there, with its braces closed, is on stdout).
        lines = oerr.splitlines()
        if orc != 1 or len(lines) != 1 or not ERROR_LINE.search(lines[0]) or (oout and not merge_deep):
            return "FAIL", "onnxview rejection not as documented (exit %d, %d stdout bytes, stderr %r)" % (
                orc, len(oout), oerr[:300])
    if p_ok == o_ok and (not p_ok or pout == oout):
        STATS["both accept" if p_ok else "both reject"] += 1
        return "agree", (prc, pout)
    # A difference: is it a deliberate one?
    if not p_ok and o_ok:
        # Deliberate only when protoc accepts the input with its over-long
        # lengths written minimally, and prints then what onnxview printed.
        short = shorten_lengths(data, SCHEMA["onnx.ModelProto"])
        if short is not None and short[1]:
            q = path + ".short"
            with open(q, "wb") as f:
                f.write(short[0])
            src, sout = protoc(q)
            os.unlink(q)
            if src == 0 and sout == oout:
                return "long_length", (prc, pout, oout)
            return "FAIL", ("protoc refuses, onnxview accepts; with the over-long lengths written minimally "
                            "protoc exits %d and %s" % (src, first_diff(sout, oout) if src == 0 else "refuses"))
    if p_ok and merge_deep:
        return "merge_too_deep", (prc, pout)
    # Deliberate only when the CLI printed what the library prints with the
    # newest schema, and the library restricted to 1.12 agrees with protoc.
    old = text_decode(path, "1.12")
    if old is not None and (old[0] == 0) == p_ok and (not p_ok or old[1] == pout):
        new = text_decode(path, None)
        if (new[0] == 0) == o_ok and (not o_ok or new[1] == oout) and new != old:
            return "newer_schema", (prc, pout)
    if p_ok and o_ok:
        return "FAIL", "both accept, output differs: " + first_diff(pout, oout)
    return "FAIL", "protoc exit %d, onnxview exit %d: %s" % (prc, orc, oerr.decode(errors="replace").strip()[:300])


# ---------------------------------------------------------------------------
# Tasks (run in a worker pool; each returns a list of result records)

SCHEMA = None
TMP = None
FIRST_SEED = 0
STATS = {"both accept": 0, "both reject": 0}  # per worker; returned with each task


def init_worker(tmp, first_seed):
    global SCHEMA, TMP, FIRST_SEED
    SCHEMA = load_schema()
    TMP = tmp
    FIRST_SEED = first_seed


def write_tmp(name, data):
    p = os.path.join(TMP, name)
    with open(p, "wb") as f:
        f.write(data)
    return p


def seeded(*parts):
    return random.Random(hashlib.sha256(repr(parts).encode()).digest())


def reencode_task(args):
    idx, path, seed = args
    data = open(path, "rb").read()
    name = "r%d_%d" % (idx, seed)
    recs = []
    orig = protoc(path)
    if orig[0] != 0:
        return [("input", path, "FAIL", "protoc rejects the original")]
    if seed == FIRST_SEED:  # the original once, not once per seed
        base = compare(path, data, orig)
        recs.append(("original", path, base[0], base[1] if base[0] == "FAIL" else ""))
    for variant, kept in (("A", True), ("B", False)):
        rng = seeded("reencode", seed, os.path.basename(os.path.dirname(path)) + os.path.basename(path), variant)
        try:
            out, stats = rewrite(data, SCHEMA, rng, kept)
        except WireError as e:
            return recs + [(variant, path, "FAIL", "rewriter cannot parse: %s" % e)]
        p = write_tmp(name + variant + ".onnx", out)
        verdict, detail = compare(p, out)
        what = "%s seed %d variant %s (%s)" % (path, seed, variant, stats)
        pr = protoc(p) if verdict != "agree" else detail
        if pr[0] != 0:
            recs.append((variant, what, "FAIL", "rewriter: protoc rejects the rewrite, kept at " + keep(p)))
            continue
        if kept and pr[1] != orig[1]:
            recs.append((variant, what, "FAIL", "rewriter: protoc output changed, kept at " + keep(p) + "\n  " +
                         first_diff(orig[1], pr[1])))
            continue
        if verdict in ("long_length", "merge_too_deep"):  # impossible by construction
            verdict, detail = "FAIL", "%s in a rewrite that has neither" % verdict
        recs.append((variant, what, verdict, detail if verdict == "FAIL" else stats))
        if verdict == "FAIL":
            keep(p)
        else:
            os.unlink(p)
    # D: a meaning-kept rewrite with one length written in 6..10 bytes.
    if seed == FIRST_SEED and idx % 4 == 0:
        sp = []
        spans(data, 0, len(data), SCHEMA["onnx.ModelProto"], sp)
        k = seeded("long", idx).randint(1, max(1, sum(1 for s in sp if s[0] == "length")))
        for at in (k, 1):
            out, stats = rewrite(data, SCHEMA, seeded("long", idx, at), True, long_at=at)
            if stats.get("long"):
                break
        p = write_tmp(name + "D.onnx", out)
        verdict, detail = compare(p, out)
        if verdict == "long_length" and detail[2] != orig[1]:
            verdict, detail = "FAIL", ("a 6..10-byte length: onnxview prints otherwise than protoc does for "
                                       "the original, kept at " + keep(p) + "\n  " + first_diff(orig[1], detail[2]))
        elif verdict != "long_length":
            verdict, detail = "FAIL", ("a 6..10-byte length: expected protoc to refuse and onnxview to accept, "
                                       "got %s %s, kept at %s" % (verdict, detail, keep(p)))
        recs.append(("D", path, verdict, detail if verdict == "FAIL" else ""))
        os.unlink(p)
    return recs


def keep(p):
    d = os.environ.get("DIFFERENTIAL_KEEP", os.path.join(tempfile.gettempdir(), "onnxview-differential-failures"))
    os.makedirs(d, exist_ok=True)
    q = os.path.join(d, os.path.basename(p))
    shutil.copyfile(p, q)
    return q


def deep_merge_cases():
    """ModelProto { graph { input { name: "x" type: T } } } where T is a chain
    of 10 sequence types whose first k singular message levels (sequence_type,
    elem_type, ...) each occur twice (an empty occurrence, then the real one):
    k consecutive merged levels."""
    def ld(num, body):
        return varint((num << 3) | 2) + varint(len(body)) + body

    def typeproto(lv, k):
        if lv == 0:
            return ld(1, b"\x08\x01")  # tensor_type { elem_type: 1 }
        occ = ld(4, sequence(lv, max(k - 1, 0)))
        return ld(4, b"") + occ if k > 0 else occ

    def sequence(lv, k):
        occ = ld(1, typeproto(lv - 1, max(k - 1, 0)))
        return ld(1, b"") + occ if k > 0 else occ

    cases = []
    for k in (7, 8, 9, 12):
        vi = ld(1, b"x") + ld(2, typeproto(10, k))
        cases.append((k, b"\x08\x08" + ld(7, ld(11, vi))))
    return cases


def deep_merge_task(args):
    k, data = args
    p = write_tmp("deep%d.onnx" % k, data)
    verdict, detail = compare(p, data)
    want = "agree" if k <= 8 else "merge_too_deep"
    os.unlink(p)
    if verdict != want:
        return [("D", "deep merge %d levels" % k, "FAIL", "expected %s, got %s %s" % (want, verdict, detail))]
    return [("D", "deep merge %d levels" % k, verdict, "")]


def mutate(rng, data, sp):
    r = rng
    kind = r.choice(["flip", "flip", "insert", "delete", "truncate", "varint", "varint", "overlong"])
    b = bytearray(data)
    if kind == "flip":
        for _ in range(r.choice([1, 1, 2, 3])):
            i = r.randrange(len(b))
            b[i] ^= 1 << r.randrange(8)
    elif kind == "insert":
        i = r.randint(0, len(b))
        b[i:i] = bytes(r.getrandbits(8) for _ in range(r.choice([1, 1, 2, 5])))
    elif kind == "delete":
        i = r.randrange(len(b))
        del b[i:i + r.choice([1, 1, 2, 4])]
    elif kind == "truncate":
        del b[r.randrange(len(b)):]
    elif kind in ("varint", "overlong") and sp:
        what, a, e = r.choice(sp)
        old, _, _ = read_varint(data, a, e)
        if kind == "varint":
            v = r.choice([2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**63, 2**64 - 1, INT_MAX - 16, INT_MAX - 15,
                          old + r.randint(1, 300), max(0, old - r.randint(1, 5)), r.randint(0, 2**64 - 1),
                          (old & 0xFFFFFFFF) | (r.randint(1, 2**32 - 1) << 32)])
            enc = varint(v, r.choice([0, 0, 5, 10]) if v < 2**28 else 0)
        else:  # the same value, over-long: 6..10 bytes, or 11 (too long for both)
            enc = varint(old, r.choice([5, 6, 10])) if r.random() < 0.8 else b"\x80" * 10 + b"\x00"
            what = what + "_overlong"
        b[a:e] = enc
        kind = "varint:" + what
    else:
        b = b[:-1]
        kind = "truncate"
    return bytes(b), kind


def mutate_task(args):
    idx, path, count, seed, rewritten = args
    data = open(path, "rb").read()
    if rewritten:
        data, _ = rewrite(data, SCHEMA, seeded("mutbase", seed, idx), False)
    sp = []
    spans(data, 0, len(data), SCHEMA["onnx.ModelProto"], sp)
    recs = []
    for j in range(count):
        rng = seeded("mutate", seed, idx, j)
        m, kind = mutate(rng, data, sp)
        if not m:
            continue
        p = write_tmp("m%d%s_%d.onnx" % (idx, "r" if rewritten else "", j), m)
        verdict, detail = compare(p, m)
        what = "%s%s mutant %d (%s)" % (path, " (rewritten)" if rewritten else "", j, kind)
        if verdict == "FAIL":
            detail = detail + ", kept at " + keep(p)
        recs.append(("M", what, verdict, detail if verdict == "FAIL" else kind))
        os.unlink(p)
    return recs


# ---------------------------------------------------------------------------

def corpus_models(extra_dir):
    files = []
    for d, _, names in os.walk(CORPUS):
        files += [os.path.join(d, n) for n in names if n.endswith(".onnx")]
    files.sort()
    if extra_dir and os.path.isdir(extra_dir):
        files += sorted(os.path.join(extra_dir, n) for n in os.listdir(extra_dir) if n.endswith(".onnx"))
    return files


def spread(files, n):
    """n files spread evenly over the sorted list (all when n >= len)."""
    if n >= len(files):
        return list(files)
    return [files[(i * len(files)) // n] for i in range(n)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=["reencode", "mutate", "all"])
    ap.add_argument("--models", type=int, default=150, help="models to re-encode (0: all)")
    ap.add_argument("--seeds", type=int, default=1, help="seeds per model")
    ap.add_argument("--bases", type=int, default=60, help="models to mutate")
    ap.add_argument("--mutants", type=int, default=2000, help="mutants in all")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0, help="first seed")
    a = ap.parse_args()

    if not os.environ.get("ONNXVIEW"):
        print("ONNXVIEW (the onnxview binary) is not set", file=sys.stderr)
        return 2
    if shutil.which("protoc") is None or not os.path.exists(os.path.join(PROTO_DIR, "onnx.proto")):
        skip("needs protoc and %s/onnx.proto (Debian: protobuf-compiler, libonnx-dev)" % PROTO_DIR)
    try:
        import onnx  # noqa: F401
    except ImportError:
        if os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3") and os.access(
                "/usr/bin/python3", os.X_OK):
            os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
        skip("needs python onnx (Debian: python3-onnx) in /usr/bin/python3")
    files = corpus_models(os.environ.get("ONNXVIEW_TESTDATA"))
    if not any(f.startswith(CORPUS) for f in files):
        skip("no models under %s (Debian: libonnx-testdata)" % CORPUS)
    global SCHEMA
    SCHEMA = load_schema()

    tasks = []
    if a.mode in ("reencode", "all"):
        models = files if a.models == 0 else spread(files, a.models)
        for s in range(a.seed, a.seed + a.seeds):
            tasks += [(reencode_task, (i, f, s)) for i, f in enumerate(models)]
        tasks += [(deep_merge_task, c) for c in deep_merge_cases()]
    if a.mode in ("mutate", "all"):
        small = sorted(files, key=lambda f: (os.path.getsize(f), f))
        small = [f for f in small if os.path.getsize(f) <= 4096]
        bases = spread(small, a.bases)
        per = max(1, a.mutants // (2 * len(bases)))
        for i, f in enumerate(bases):
            tasks.append((mutate_task, (i, f, per, a.seed, False)))
            tasks.append((mutate_task, (i, f, per, a.seed, True)))

    t0 = time.time()
    tmp = tempfile.mkdtemp(prefix="onnxview-differential-")
    results = []
    try:
        with multiprocessing.Pool(a.jobs, initializer=init_worker, initargs=(tmp, a.seed)) as pool:
            for recs in pool.imap(run_task, tasks, chunksize=1):
                results += recs
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    counts = {}
    fails = []
    agreed = {}
    transforms = {}
    for variant, what, verdict, detail in results:
        if variant == "S":
            for x, n in detail.items():
                agreed[x] = agreed.get(x, 0) + n
            continue
        if variant in "AB" and isinstance(detail, dict):
            for x, n in detail.items():
                transforms[x] = max(transforms.get(x, 0), n) if x == "max_chain" else transforms.get(x, 0) + n
        k = "mutants" if variant == "M" else "rewrites" if variant in "AB" else variant
        counts.setdefault(k, {}).setdefault(verdict, 0)
        counts[k][verdict] += 1
        if verdict == "FAIL":
            fails.append((what, detail))
    for what, detail in fails[:25]:
        print("FAIL %s\n  %s" % (what, detail))
    if len(fails) > 25:
        print("... %d more failures" % (len(fails) - 25))

    def line(k):
        c = counts.get(k, {})
        total = sum(c.values())
        deliberate = ", ".join("%s %d" % (x, c[x]) for x in sorted(c) if x not in ("agree", "FAIL"))
        return "%s %d: %d agree, %d fail%s" % (k, total, c.get("agree", 0), c.get("FAIL", 0),
                                               (", deliberate: " + deliberate) if deliberate else "")

    parts = [line(k) for k in ("original", "rewrites", "D", "mutants") if k in counts]
    print("differential (%s, %.0f s): " % (a.mode, time.time() - t0) + "; ".join(parts))
    print("  agreements: %d both accept (same bytes), %d both reject" % (agreed.get("both accept", 0),
                                                                         agreed.get("both reject", 0)))
    if transforms:
        print("  rewrite operations: " + ", ".join("%s %d" % kv for kv in sorted(transforms.items())))
    return 1 if fails else 0


def run_task(t):
    fn, args = t
    try:
        for k in STATS:
            STATS[k] = 0
        recs = fn(args)
        return recs + [("S", "", "stats", dict(STATS))]
    except Exception as e:  # a crash of the harness is a failure, with its task
        import traceback
        return [("X", repr(args)[:200], "FAIL", "harness error: %s\n%s" % (e, traceback.format_exc()))]


if __name__ == "__main__":
    sys.exit(main())
