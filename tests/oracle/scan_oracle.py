#!/usr/bin/python3
"""Checks `onnxview scan` against python3-onnx, the fixtures of
scripts/make_scan_fixtures.py and the CycloneDX 1.6 schema.

  scan_oracle.py --onnxview BUILD/tools/onnxview [--corpus DIR] [--limit N]
                 [--fixtures DIR] [--pythonpath DIR]

(a) Corpus. `scan --format jsonl TESTDATA CORPUS` (TESTDATA = the repository's
    testdata/, CORPUS default /usr/share/libonnx-testdata/data, both walked
    recursively) must list one record per file whose name ends in .onnx (any
    case), in the order of the targets and, within a directory, sorted by
    path (a plain string sort of the joined paths), each with "schema"
    "onnxview-scan/1", "path" = os.path.join(TARGET, relative path) and
    "size" = os.stat. Every record of a file python3-onnx loads must be a
    model (diagnosis kind onnx_model) and, for the testdata models and
    --limit corpus models (default 0 = all 1,072, spread evenly), agree with
    python3-onnx (external data not loaded) on:
      model.ir_version, producer_name, producer_version, domain,
      model_version; opsets ({domain: version}, "" the default domain);
      nodes (every node of the main graph, of every subgraph (attributes g
      and graphs) at any depth, and of model-local functions and their
      subgraphs); functions (len(model.functions)); subgraphs (subgraph
      GraphProtos below the main graph; those inside functions may be
      counted or not); ops ({op_type: n} for domain "" and "ai.onnx",
      {"domain::op_type": n} otherwise, all scopes); domains (the same
      nodes by domain, "" counted as "ai.onnx"); inputs and outputs (the
      main graph's names in order; each "type" must equal the "type" of
      `onnxview info MODEL --json`); parameters.elements and .tensors (every
      TensorProto the model stores, in all scopes: initializers, sparse
      initializers' values, Constant `value` tensors, other tensor
      attributes (t and tensors); the values of sparse tensor attributes may
      be counted or not) and by_type (per onnx type name; its tensors,
      elements and bytes summing to the totals); external_files (one entry
      per location: tensors, bytes = the sum of the lengths, exists (the
      resolver gave some tensor its bytes from the file: not a hard-linked
      file, nor for entries naming a key twice, a negative offset or length,
      a length too short for the tensor, or a range past its end), size,
      in_range) where the location is a plain relative path;
      model.check equal to `onnxview check MODEL --json` (errors, warnings,
      codes counted over the findings), and check.errors == 0 wherever
      onnx.checker.check_model(PATH) accepts the model; model.digest equal to
      `onnxview hash MODEL` (null allowed only where hash fails or the build
      has no libxxhash).
    Findings of every model record: the set of warning and error codes must
    be the one python computes: custom_domain (a node domain outside the
    known list and the model-local functions' domains), huge_elements (a
    declared shape, a stored tensor's dims, or an initializer/Constant shape
    fed to ConstantOfShape (input 0), Expand or Reshape (input 1, positive
    entries), or Tile's repeats, whose product exceeds 2^32), dangerous_op,
    the external_* codes of external_codes() below, and invalid_model
    exactly when model.check has errors (leaving out the checker's
    external_data errors when make_scan_fixtures.py's EXTERNAL_ALSO_INVALID
    is False). On this corpus that means: no code above info except where a
    model really has one.
    Every record: the severity of each code is the specification's,
    "highest" is the highest severity or null, every finding has a code,
    severity and message; the exit status is 1 when a record has an error
    finding (default --fail-on error), else 0.

(b) Fixtures. make_scan_fixtures.py writes OUTDIR (a temporary directory
    unless --fixtures names one it wrote); `scan --format jsonl OUTDIR` must
    list exactly the .onnx files of expected.json, each with its sorted list
    of finding codes; exit 1. Scanning only clean.onnx and
    clean_external.onnx: no finding, exit 0. --fail-on: custom_domain.onnx
    exits 0 by default and 1 with --fail-on warning; the whole directory
    exits 0 with --fail-on none. The clean external model's external_files
    entry is checked as in (a). With --digests: "sha256" = hashlib of the
    file, "external_sha256" of clean_external.onnx = hashlib of
    clean_external.bin; without it neither key. With --numeric, on the
    fixtures and testdata: each model record has "numeric" whose errors,
    warnings, infos and codes are those of the numeric findings (codes of
    numeric_oracle.NUMERIC) of `onnxview check MODEL --numeric --json`, and
    the record's findings hold those numeric codes too (as a multiset);
    without --numeric no record has "numeric".

(c) CycloneDX. `scan --format cyclonedx --digests OUTDIR` must validate
    against the CycloneDX 1.6 JSON schema (tests/data/cyclonedx/, schema/ of
    github.com/CycloneDX/specification: bom-1.6.schema.json and the
    spdx.schema.json and jsf-0.82.schema.json it references, resolved
    locally, no network), have bomFormat "CycloneDX", specVersion "1.6",
    metadata.tools.components with an application "onnxview", one component
    of type machine-learning-model per model record (bom-ref "model:PATH",
    name the basename, a SHA-256 hash equal to the record's sha256, the
    properties onnxview:ir_version, onnxview:opset:DOMAIN ("" written
    ai.onnx), onnxview:parameters = parameters.elements, and
    onnxview:finding:CODE for each finding code) and none for the files that
    are not models; unique bom-refs; every dependency's ref and dependsOn
    naming a component; for each external_files entry of a model that
    exists, a dependency of the model's component on a component of type
    data or file named as the location. Without --digests: no hashes.
    A model given twice as a target, and two models sharing one external
    file: the BOM still validates, with one component per model file and
    per external file (unique bom-refs).

(d) Targets, order, output. `--from LIST` (a file, and "-" on stdin) gives the
    records the same targets give on the command line; `--jobs 2` gives the
    records of `--jobs 1` in the same order (on TESTDATA, the fixtures and
    the corpus); `-o FILE` writes what stdout gets; `--format json` is
    {"records": [the jsonl records]}; the directory walk takes A.ONNX and
    b.Onnx, descends into sub/ and into a directory named x.onnx, and skips
    c.onnx.bin; a missing target gives a record with "error" (and none of
    "model", "diagnosis") and exit 1; an unreadable --from list, an unknown
    --format and no target at all exit 2.

(e) With --pythonpath DIR (where the onnxview Python module is built):
    onnxview.scan_record(PATH) equals the jsonl record of PATH (parsed JSON
    equality) for every fixture and testdata file, and with numeric=True,
    digests=True the record of `--numeric --digests`.

(f) Edge cases, written to a temporary directory by write_edge_models():
    external data in a FIFO, through a symlink to /dev/zero, at "." (a
    directory), with an offset that is no number, a negative or too short
    length, no or an empty location, drive, UNC, backslash and
    "sub/../x" locations, an unknown key, no length, a prefix overlap and a
    shared extent (pack --dedupe's, not an overlap); huge_elements through
    Reshape (also with -1), Tile, a Constant node's value and value_ints, an
    If branch using the outer graph's initializer, a single declared dim of
    2^33, a value_info, exactly 2^32 (not huge) and 65536 x 65537 (huge);
    PyOp in a custom domain (dangerous_op and custom_domain), PyFunc,
    PythonOpGrad; a model-local function's domain, each known domain, a
    custom domain imported but unused (no finding); and as scan targets an
    empty file, a dangling symlink, a FIFO and 4 KiB of zeros. Each model
    record's warning and error codes must be python's (as in (a)); the
    other files give an "error" record or a not_a_model/truncated
    diagnosis, and the scan must not hang on the FIFOs (60 s).

Failures are grouped by kind (at most 5 printed per kind). The last line is
`N passed, M failed` (checks). Exits 77 (skipped) when python3-onnx, numpy
or python3-jsonschema is absent, 1 on any failure.
"""
import argparse
import collections
import glob
import hashlib
import importlib.util
import json
import math
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import warnings

SKIP = 77
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TESTDATA = os.path.join(ROOT, "testdata")
SCHEMA_DIR = os.path.join(ROOT, "tests", "data", "cyclonedx")
SCHEMA_FILES = ("bom-1.6.schema.json", "spdx.schema.json", "jsf-0.82.schema.json")
BOM_ID = "http://cyclonedx.org/schema/bom-1.6.schema.json"
MAKER = os.path.join(ROOT, "scripts", "make_scan_fixtures.py")
RECORD_SCHEMA = "onnxview-scan/1"
HUGE = 2 ** 32

EXTERNAL_CODES = ["external_absolute", "external_escape", "external_symlink_escape", "external_hard_link",
                  "external_special_file", "external_missing", "external_out_of_range", "external_overlap",
                  "external_duplicate_key", "external_bad_entry"]
SEVERITY = {c: "error" for c in ["not_a_model", "lfs_pointer", "truncated", "file_unreadable", "invalid_model",
                                 "dangerous_op"] + EXTERNAL_CODES}
SEVERITY.update({"custom_domain": "warning", "huge_elements": "warning"})
# `check --numeric` codes and their severities (tests/oracle/numeric_oracle.py).
NUMERIC = {
    "non_finite": "error", "fp16_overflow": "warning", "bf16_overflow": "warning",
    "fp16_underflow": "warning", "subnormal": "warning", "all_zero": "info", "constant": "info",
    "duplicate": "info", "quant_scale": "error", "quant_zero_point": "error", "quant_shape": "error",
    "packing": "error", "unreadable": "warning",
}
RANK = {"info": 0, "warning": 1, "error": 2}
DANGEROUS = {"PythonOp", "PythonOpGrad", "PyOp", "PyFunc"}
KNOWN_DOMAINS = {"", "ai.onnx", "ai.onnx.ml", "ai.onnx.preview.training", "com.microsoft", "com.microsoft.nchwc",
                 "com.microsoft.experimental", "com.microsoft.dml", "pkg.onnxscript.torch_lib"}
# diagnosis kind -> the finding it gives (any other kind but onnx_model: not_a_model)
KIND_CODE = {"lfs_pointer": "lfs_pointer", "git_lfs_pointer": "lfs_pointer", "truncated": "truncated",
             "zero_filled_tail": "truncated"}
TYPE_NAMES = ["UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16", "INT32", "INT64", "STRING", "BOOL",
              "FLOAT16", "DOUBLE", "UINT32", "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16", "FLOAT8E4M3FN",
              "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "UINT4", "INT4", "FLOAT4E2M1", "FLOAT8E8M0",
              "UINT2", "INT2"]
# bits per element, for an external tensor without a length
BITS = {1: 32, 2: 8, 3: 8, 4: 16, 5: 16, 6: 32, 7: 64, 9: 8, 10: 16, 11: 64, 12: 32, 13: 64, 14: 64, 15: 128,
        16: 16, 17: 8, 18: 8, 19: 8, 20: 8, 21: 4, 22: 4, 23: 4, 24: 8, 25: 2, 26: 2}
EXTERNAL = 1  # TensorProto.EXTERNAL


class Checks:
    """Counts checks; failures are grouped by kind so that one bug does not print 1,000 lines."""

    def __init__(self):
        self.passed = 0
        self.failed = collections.OrderedDict()  # kind -> [messages]
        self.notes = []

    def check(self, cond, kind, msg):
        if cond:
            self.passed += 1
        else:
            self.failed.setdefault(kind, []).append(msg)
        return cond

    def fail(self, kind, msg):
        return self.check(False, kind, msg)

    def equal(self, got, want, kind, where):
        return self.check(got == want, kind, f"{where}: {got!r}, expected {want!r}")

    def note(self, msg):
        if msg not in self.notes:
            self.notes.append(msg)

    def count(self):
        return sum(len(v) for v in self.failed.values())

    def report(self):
        for n in self.notes:
            print("NOTE", n)
        for kind, msgs in self.failed.items():
            for m in msgs[:5]:
                print(f"FAIL [{kind}] {m}")
            if len(msgs) > 5:
                print(f"FAIL [{kind}] ... and {len(msgs) - 5} more of this kind")


def run(args, cwd=None, stdin=None):
    r = subprocess.run(args, capture_output=True, text=True, cwd=cwd, input=stdin)
    return r.returncode, r.stdout, r.stderr


def parse_jsonl(ck, text, what):
    records = []
    for i, line in enumerate(text.splitlines()):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except ValueError as e:
            ck.fail("jsonl", f"{what}: line {i + 1} is not JSON ({e}): {line[:200]!r}")
    return records


def scan(ck, onnxview, args, what, cwd=None, stdin=None):
    """Runs `scan ARGS` (--format jsonl unless ARGS has a --format); returns (rc, records, stdout)."""
    fmt = [] if "--format" in args else ["--format", "jsonl"]
    rc, out, err = run([onnxview, "scan"] + fmt + args, cwd=cwd, stdin=stdin)
    if rc not in (0, 1):
        ck.fail("exit", f"{what}: exit status {rc}: {err.strip()[:300]}")
    elif not out.strip():
        ck.fail("no_output", f"{what}: nothing on stdout, exit status {rc}, stderr {err.strip()[-300:]!r}")
    if fmt:
        return rc, parse_jsonl(ck, out, what), out
    return rc, None, out


# ----------------------------------------------------------------------------------------------
# The model as python3-onnx reads it


def subgraphs_of(nodes):
    for n in nodes:
        for a in n.attribute:
            if a.HasField("g"):
                yield a.g
            yield from a.graphs


def graph_tree(g):
    out, stack = [], [g]
    while stack:
        g = stack.pop()
        out.append(g)
        stack.extend(subgraphs_of(g.node))
    return out


class Facts:
    """What the specification lets python compute of one model."""

    def __init__(self, onnx, numpy_helper, m, path):
        self.m, self.path = m, path
        self.main_tree = graph_tree(m.graph)  # the main graph and its subgraphs
        self.func_graphs = [s for f in m.functions for g in subgraphs_of(f.node) for s in graph_tree(g)]
        graphs = self.main_tree + self.func_graphs
        self.nodes = [n for g in graphs for n in g.node] + [n for f in m.functions for n in f.node]
        self.subgraphs = (len(self.main_tree) - 1, len(self.main_tree) - 1 + len(self.func_graphs))
        self.ops = collections.Counter(n.op_type if n.domain in ("", "ai.onnx") else f"{n.domain}::{n.op_type}"
                                       for n in self.nodes)
        self.domains = collections.Counter(n.domain or "ai.onnx" for n in self.nodes)
        self.opsets = {o.domain: o.version for o in m.opset_import}
        # stored tensors: (tensor, optional)
        self.tensors = []
        for g in graphs:
            self.tensors += [(t, False) for t in g.initializer]
            self.tensors += [(s.values, False) for s in g.sparse_initializer]
        for n in self.nodes:
            for a in n.attribute:
                if a.HasField("t"):
                    self.tensors.append((a.t, False))
                self.tensors += [(t, False) for t in a.tensors]
                if a.HasField("sparse_tensor"):
                    self.tensors.append((a.sparse_tensor.values, True))
                self.tensors += [(s.values, True) for s in a.sparse_tensors]
        self.graphs = graphs
        self.numpy_helper = numpy_helper

    @staticmethod
    def elements(t):
        return math.prod(t.dims)

    def parameters(self):
        """[(tensors, elements, {type: (tensors, elements)})] for each accepted reading."""
        out = []
        for with_optional in (False, True):
            sel = [t for t, opt in self.tensors if with_optional or not opt]
            by = collections.defaultdict(lambda: [0, 0])
            for t in sel:
                name = TYPE_NAMES[t.data_type] if t.data_type < len(TYPE_NAMES) else str(t.data_type)
                by[name][0] += 1
                by[name][1] += self.elements(t)
            out.append((len(sel), sum(self.elements(t) for t in sel), {k: tuple(v) for k, v in by.items()}))
            if not any(opt for _, opt in self.tensors):
                break
        return out

    def external_tensors(self):
        return [t for t, _ in self.tensors if t.data_location == EXTERNAL]

    def huge(self):
        """Where python finds more than 2^32 elements asked for (list of strings)."""
        found = []
        for g in self.graphs:
            for vi in list(g.input) + list(g.output) + list(g.value_info):
                tt = vi.type.tensor_type if vi.type.HasField("tensor_type") else None
                if tt is not None and tt.HasField("shape"):
                    dims = [d.dim_value for d in tt.shape.dim if d.HasField("dim_value")]
                    if dims and math.prod(dims) > HUGE:
                        found.append(f"declared {vi.name} {dims}")
        for t, _ in self.tensors:
            if self.elements(t) > HUGE:
                found.append(f"tensor {t.name} dims {list(t.dims)}")
        # stored shapes, with graph scoping (outer graphs' initializers and Constants are visible)

        def stored(g, outer):
            values = dict(outer)
            for t in g.initializer:
                values[t.name] = t
            for n in g.node:
                if n.op_type == "Constant" and n.domain in ("", "ai.onnx") and n.output:
                    for a in n.attribute:
                        if a.name == "value" and a.HasField("t"):
                            values[n.output[0]] = a.t
                        elif a.name == "value_ints":
                            values[n.output[0]] = list(a.ints)
            return values

        def walk(g, outer):
            values = stored(g, outer)
            for n in g.node:
                if n.domain in ("", "ai.onnx"):
                    idx = {"ConstantOfShape": 0, "Expand": 1, "Reshape": 1, "Tile": 1}.get(n.op_type)
                    if idx is not None and len(n.input) > idx and n.input[idx] in values:
                        v = values[n.input[idx]]
                        try:
                            arr = list(v) if isinstance(v, list) else \
                                [int(x) for x in self.numpy_helper.to_array(v).reshape(-1)]
                        except Exception:  # noqa: BLE001 - an unreadable payload asks for nothing
                            arr = []
                        pos = [x for x in arr if x > 0]
                        if pos and math.prod(pos) > HUGE:
                            found.append(f"{n.op_type} {n.name or n.output[0]} {arr}")
                for sg in subgraphs_of([n]):
                    walk(sg, values)

        walk(self.m.graph, {})
        for f in self.m.functions:
            for sg in subgraphs_of(f.node):
                walk(sg, {})
        return found

    def codes(self):
        """The warning and error codes python expects, apart from invalid_model: {code: why}."""
        out = {}
        for n in self.nodes:
            if n.op_type in DANGEROUS:
                out.setdefault("dangerous_op", f"node {n.name!r} {n.domain}::{n.op_type}")
        local = {f.domain for f in self.m.functions}
        for n in self.nodes:
            if n.domain not in KNOWN_DOMAINS and n.domain not in local:
                out.setdefault("custom_domain", f"node {n.name!r} domain {n.domain!r}")
        h = self.huge()
        if h:
            out["huge_elements"] = "; ".join(h[:3])
        for code, why in external_codes(self.external_tensors(), os.path.dirname(self.path)).items():
            out.setdefault(code, why)
        return out


def entries_of(t):
    return [(e.key, e.value) for e in t.external_data]


def nbytes(t):
    bits = BITS.get(t.data_type)
    return None if bits is None else (math.prod(t.dims) * bits + 7) // 8


def location_kind(loc):
    """'absolute', 'escape' or None for a plain relative path (the specification's reading)."""
    if loc.startswith("/"):
        return "absolute"
    if "\\" in loc or re.match(r"^[A-Za-z]:", loc) or ".." in loc.split("/"):
        return "escape"
    return None


def external_codes(tensors, base):
    """{code: why} for the external tensors of one model whose folder is base."""
    out = {}
    extents = collections.defaultdict(list)
    for t in tensors:
        ent = entries_of(t)
        keys = [k for k, _ in ent]
        if len(keys) != len(set(keys)):
            out.setdefault("external_duplicate_key", f"tensor {t.name!r}: keys {keys}")
        d = dict(ent)
        loc = d.get("location")
        try:
            offset = int(d.get("offset", "0"))
            length = int(d["length"]) if "length" in d else nbytes(t)
        except ValueError:
            out.setdefault("external_bad_entry", f"tensor {t.name!r}: entries {ent}")
            continue
        if not loc:
            out.setdefault("external_bad_entry", f"tensor {t.name!r}: no location")
            continue
        need = nbytes(t)
        if offset < 0 or (length is not None and length < 0) or \
                (length is not None and need is not None and length < need):
            out.setdefault("external_bad_entry", f"tensor {t.name!r}: offset {offset}, length {length}, "
                                                 f"{need} bytes needed")
            continue
        kind = location_kind(loc)
        if kind:
            out.setdefault("external_" + kind, f"tensor {t.name!r}: location {loc!r}")
            continue
        full = os.path.join(base, loc)
        if not os.path.lexists(full) or (os.path.islink(full) and not os.path.exists(full)):
            out.setdefault("external_missing", f"tensor {t.name!r}: {full} absent")
            continue
        real, top = os.path.realpath(full), os.path.realpath(base or ".")
        if os.path.commonpath([real, top]) != top:
            out.setdefault("external_symlink_escape", f"tensor {t.name!r}: {loc!r} resolves to {real}")
            continue
        st = os.stat(full)
        if not stat.S_ISREG(st.st_mode):
            out.setdefault("external_special_file", f"tensor {t.name!r}: {loc!r} is not a regular file")
            continue
        if st.st_nlink > 1:
            out.setdefault("external_hard_link", f"tensor {t.name!r}: {loc!r} has {st.st_nlink} links")
        if length is not None:
            if offset + length > st.st_size:
                out.setdefault("external_out_of_range", f"tensor {t.name!r}: [{offset}, {offset + length}) of "
                                                        f"{st.st_size} bytes")
            extents[real].append((offset, offset + length, t.name))
    for real, ext in extents.items():
        ext.sort()
        for (a0, a1, an), (b0, b1, bn) in zip(ext, ext[1:]):
            # a shared range (pack --dedupe) is not an overlap
            if b0 < a1 and (a0, a1) != (b0, b1):
                out.setdefault("external_overlap", f"{an!r} [{a0}, {a1}) and {bn!r} [{b0}, {b1}) in {real}")
    return out


def external_files_ref(tensors, base):
    """{location: (tensors, bytes, exists, size, in_range)} for plain relative locations."""
    out = {}
    for t in tensors:
        d = dict(entries_of(t))
        loc = d.get("location")
        if not loc or location_kind(loc):
            continue
        try:
            offset = int(d.get("offset", "0"))
            length = int(d["length"]) if "length" in d else nbytes(t)
        except ValueError:
            continue
        full = os.path.join(base, loc)
        top = os.path.realpath(base or ".")
        if os.path.commonpath([os.path.realpath(full), top]) != top:
            continue  # a symlink out of the folder: whether it is followed is not said
        # "exists": the resolver opened the file for some tensor. It refuses
        # a hard-linked file and entries that name a key twice, and then the
        # scan does not open the file either.
        keys = [k for k, _ in entries_of(t) if k in ("location", "offset", "length", "checksum")]
        refused = len(keys) != len(set(keys)) or (os.path.isfile(full) and os.stat(full).st_nlink > 1)
        # a negative offset or length, or a length too short for the tensor, is a bad entry: refused too
        need = nbytes(t)
        refused = refused or offset < 0 or (length is not None and (length < 0 or (need is not None
                                                                                    and length < need)))
        # And it gave a tensor its bytes: a range past the end is not given.
        opened = (os.path.isfile(full) and not refused and length is not None
                  and offset + length <= os.stat(full).st_size)
        n, b, was_opened, _, ok = out.get(loc, (0, 0, False, None, True))
        exists = was_opened or opened
        size = os.stat(full).st_size if exists else None
        out[loc] = (n + 1, b + max(length or 0, 0), exists, size, ok and opened)
    return out


# ----------------------------------------------------------------------------------------------
# Checks of one record


def finding_codes(rec, severities=("error", "warning", "info")):
    return [f.get("code") for f in rec.get("findings") or [] if f.get("severity") in severities]


def check_record_form(ck, rec, numeric=False):
    """What every record must satisfy, whatever the file."""
    p = rec.get("path")
    ck.equal(rec.get("schema"), RECORD_SCHEMA, "record_schema", f"{p}: schema")
    if "error" in rec:
        extra = set(rec) - {"schema", "path", "error", "findings", "highest"}
        ck.check(not extra, "error_record", f"{p}: a record with \"error\" has other fields {sorted(extra)}")
        ck.check(isinstance(rec.get("error"), str) and rec["error"], "error_record", f"{p}: empty error")
        if "findings" not in rec:
            ck.note("records with \"error\" carry no findings (so no file_unreadable finding)")
            return
        ck.check("file_unreadable" in finding_codes(rec), "error_record",
                 f"{p}: a record with \"error\" has findings {finding_codes(rec)} without file_unreadable")
    else:
        ck.check(isinstance(rec.get("size"), int), "record_form", f"{p}: size {rec.get('size')!r}")
        diag = rec.get("diagnosis")
        ck.check(isinstance(diag, dict) and isinstance(diag.get("kind"), str) and isinstance(diag.get("line"), str),
                 "record_form", f"{p}: diagnosis {diag!r}")
        kind = diag.get("kind") if isinstance(diag, dict) else None
        ck.check(("model" in rec) == (kind == "onnx_model"), "record_form",
                 f"{p}: diagnosis kind {kind!r} but \"model\" {'present' if 'model' in rec else 'absent'}")
        if kind is not None and kind != "onnx_model":
            want = KIND_CODE.get(kind, "not_a_model")
            ck.equal(sorted(finding_codes(rec)), [want], "diagnosis_finding", f"{p}: kind {kind!r}: codes")
        if "model" in rec:
            ck.check(("numeric" in rec["model"]) == numeric, "numeric_presence",
                     f"{p}: \"numeric\" {'present' if 'numeric' in rec['model'] else 'absent'} "
                     f"{'with' if numeric else 'without'} --numeric")
    findings = rec.get("findings")
    if not ck.check(isinstance(findings, list), "record_form", f"{p}: findings {findings!r}"):
        return
    top = None
    for i, f in enumerate(findings):
        code, sev = f.get("code"), f.get("severity")
        want = SEVERITY.get(code)
        if numeric and code in NUMERIC and (code not in SEVERITY or sev == NUMERIC[code]):
            want = NUMERIC[code]
        if want is None:
            ck.fail("unknown_code", f"{p}: findings[{i}] unknown code {code!r}")
        else:
            ck.equal(sev, want, "severity", f"{p}: findings[{i}] {code} severity")
        ck.check(isinstance(f.get("message"), str) and f["message"], "finding_form",
                 f"{p}: findings[{i}] {code} has no message")
        ck.check(isinstance(f.get("where", ""), str), "finding_form", f"{p}: findings[{i}] where {f.get('where')!r}")
        if sev in RANK and (top is None or RANK[sev] > RANK[top]):
            top = sev
    ck.equal(rec.get("highest"), top, "highest", f"{p}: highest")


def check_model_fields(ck, rec, facts, info, check_doc, hash_out, onnx_accepts, external_invalid):
    p, model = rec["path"], rec["model"]
    m = facts.m
    for field, want in (("ir_version", m.ir_version), ("producer_name", m.producer_name),
                        ("producer_version", m.producer_version), ("domain", m.domain),
                        ("model_version", m.model_version), ("functions", len(m.functions)),
                        ("nodes", len(facts.nodes))):
        ck.equal(model.get(field), want, "model_" + field, f"{p}: model.{field}")
    ck.equal(model.get("opsets"), facts.opsets, "model_opsets", f"{p}: model.opsets")
    ck.check(model.get("subgraphs") in facts.subgraphs, "model_subgraphs",
             f"{p}: model.subgraphs {model.get('subgraphs')!r}, expected one of {sorted(set(facts.subgraphs))}")
    ck.equal(model.get("ops"), dict(facts.ops), "model_ops", f"{p}: model.ops")
    ck.equal(model.get("domains"), dict(facts.domains), "model_domains", f"{p}: model.domains")
    for side in ("inputs", "outputs"):
        got = model.get(side)
        want = [v.name for v in getattr(m.graph, side[:-1])]
        if not ck.check(isinstance(got, list) and all(isinstance(v, dict) for v in got), "model_" + side,
                        f"{p}: model.{side} {got!r}"):
            continue
        ck.equal([v.get("name") for v in got], want, "model_" + side, f"{p}: model.{side} names")
        if info is not None:
            itypes = [v.get("type") for v in info.get(side, [])]
            ck.equal([v.get("type") for v in got], itypes, "model_io_type",
                     f"{p}: model.{side} types (`info --json` says {itypes})")
    # parameters
    par = model.get("parameters") or {}
    readings = facts.parameters()
    got = (par.get("tensors"), par.get("elements"))
    ck.check(got in [(t, e) for t, e, _ in readings], "parameters",
             f"{p}: parameters tensors, elements {got}, expected " + " or ".join(str((t, e)) for t, e, _ in readings))
    by = par.get("by_type")
    if ck.check(isinstance(by, dict), "parameters", f"{p}: parameters.by_type {by!r}"):
        for key in ("tensors", "elements", "bytes"):
            ck.equal(sum(v.get(key, 0) for v in by.values()), par.get(key), "parameters_by_type_sum",
                     f"{p}: sum of by_type {key}")
        got_by = {k: (v.get("tensors"), v.get("elements")) for k, v in by.items() if v.get("tensors")}
        ck.check(got_by in [b for _, _, b in readings], "parameters_by_type",
                 f"{p}: by_type (tensors, elements) {got_by}, expected "
                 + " or ".join(str(b) for _, _, b in readings))
    # external files
    ext = facts.external_tensors()
    ref = external_files_ref(ext, os.path.dirname(p))
    got_ext = model.get("external_files")
    if ck.check(isinstance(got_ext, list), "external_files", f"{p}: external_files {got_ext!r}"):
        locs = [e.get("location") for e in got_ext]
        ck.check(len(locs) == len(set(locs)), "external_files", f"{p}: a location listed twice: {locs}")
        for e in got_ext:
            loc = e.get("location")
            if loc not in ref:
                ck.check(loc in {dict(entries_of(t)).get("location", "") for t in ext}, "external_files",
                         f"{p}: external_files lists {loc!r}, which no tensor names")
                continue
            n, b, exists, size, ok = ref[loc]
            got_t = (e.get("tensors"), e.get("bytes"), e.get("exists"), e.get("size") if exists else None,
                     e.get("in_range"))
            ck.equal(got_t, (n, b, exists, size, ok), "external_files",
                     f"{p}: external_files {loc!r} (tensors, bytes, exists, size, in_range)")
        ck.check(set(ref) <= set(locs), "external_files",
                 f"{p}: external_files lacks {sorted(set(ref) - set(locs))}")
    # check
    chk = model.get("check") or {}
    if check_doc is not None:
        fs = check_doc.get("findings") or []
        want = (sum(f.get("severity") == "error" for f in fs), sum(f.get("severity") == "warning" for f in fs))
        ck.equal((chk.get("errors"), chk.get("warnings")), want, "check_counts",
                 f"{p}: model.check (errors, warnings) (`check --json`)")
        all_codes = dict(collections.Counter(f.get("code") for f in fs))
        ew_codes = dict(collections.Counter(f.get("code") for f in fs if f.get("severity") in ("error", "warning")))
        ck.check(chk.get("codes") in (all_codes, ew_codes), "check_codes",
                 f"{p}: model.check.codes {chk.get('codes')!r}, `check --json` gives {all_codes}")
    if onnx_accepts:
        ck.equal(chk.get("errors"), 0, "check_vs_onnx", f"{p}: onnx.checker accepts it; model.check.errors")
    # digest
    digest = model.get("digest", "absent")
    if hash_out is not None:
        rc, out = hash_out
        if rc == 0 and out.split():
            ck.equal(digest, out.split()[0], "digest", f"{p}: model.digest (`onnxview hash`)")
        else:
            ck.check(digest is None or (isinstance(digest, str) and re.fullmatch(r"[0-9a-f]{32}", digest)),
                     "digest", f"{p}: model.digest {digest!r}")
            if digest is None:
                ck.note("model.digest is null where `onnxview hash` fails (a model whose weights cannot be read)")
    else:
        ck.check(digest is None or (isinstance(digest, str) and re.fullmatch(r"[0-9a-f]{32}", digest)),
                 "digest", f"{p}: model.digest {digest!r}")
    zc = model.get("zero_copy")
    ck.check(isinstance(zc, dict) and all(isinstance(zc.get(k), int) for k in
                                          ("payloads", "bytes", "zero_copy", "zero_copy_bytes")),
             "zero_copy", f"{p}: zero_copy {zc!r}")
    # findings
    want = facts.codes()
    check_errors = chk.get("errors") or 0
    if not external_invalid:
        check_errors -= (chk.get("codes") or {}).get("external_data", 0)
    if check_errors > 0:
        want["invalid_model"] = f"model.check has {check_errors} errors"
    got = set(finding_codes(rec, ("error", "warning")))
    got -= {c for c in got if c in NUMERIC and c not in SEVERITY}
    ck.check(got == set(want), "findings_vs_python",
             f"{p}: warning/error codes {sorted(got)}, python expects {sorted(want)}"
             + (f" ({'; '.join(f'{c}: {w}' for c, w in sorted(want.items()) if c not in got)})"
                if set(want) - got else ""))


# ----------------------------------------------------------------------------------------------


def walk_targets(targets):
    """The files a scan of TARGETS lists, as the specification says (directories walked recursively)."""
    out = []
    for t in targets:
        if os.path.isdir(t):
            found = []
            for d, _, files in os.walk(t):
                found += [os.path.join(d, f) for f in files if f.lower().endswith(".onnx")]
            out += sorted(found)
        else:
            out.append(t)
    return out


def quiet_check(onnx, path):
    """onnx.checker.check_model(path), its stdout warnings sent to /dev/null."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            try:
                onnx.checker.check_model(path)
                return True
            except Exception:  # noqa: BLE001 - any checker failure means not accepted
                return False
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def load_maker():
    spec = importlib.util.spec_from_file_location("make_scan_fixtures", MAKER)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def part_a(ck, onnx, numpy_helper, onnxview, corpus, limit, external_invalid, timings):
    t0 = time.time()
    targets = [TESTDATA] + ([corpus] if os.path.isdir(corpus) else [])
    if len(targets) == 1:
        ck.note(f"corpus {corpus} absent: testdata only")
    rc, records, _ = scan(ck, onnxview, ["--jobs", "1"] + targets, "(a) scan TESTDATA CORPUS")
    timings["a: scan --jobs 1"] = time.time() - t0
    want_paths = walk_targets(targets)
    got_paths = [r.get("path") for r in records]
    if got_paths != want_paths:
        if sorted(got_paths) == sorted(want_paths):
            first = next((g, w) for g, w in zip(got_paths, want_paths) if g != w)
            ck.fail("walk_order", f"(a) the records list the right files in another order (first difference, got "
                                  f"and expected: {first})")
        else:
            ck.fail("walk", f"(a) records for files not expected: {sorted(set(got_paths) - set(want_paths))[:5]}, "
                            f"files without a record: {sorted(set(want_paths) - set(got_paths))[:5]}")
    else:
        ck.passed += 1
    any_error = any("error" in finding_severities(r) for r in records)
    ck.equal(rc, 1 if any_error else 0, "exit", "(a) exit status of scan TESTDATA CORPUS")
    corpus_recs = [r for r in records if not r.get("path", "").startswith(TESTDATA + os.sep)]
    deep = set(r.get("path") for r in records if r.get("path", "").startswith(TESTDATA + os.sep))
    if limit and corpus_recs:
        step = len(corpus_recs) / min(limit, len(corpus_recs))
        deep |= {corpus_recs[int(i * step)].get("path") for i in range(min(limit, len(corpus_recs)))}
    else:
        deep |= {r.get("path") for r in corpus_recs}
    t1 = time.time()
    n_models = 0
    for rec in records:
        p = rec.get("path")
        check_record_form(ck, rec)
        if p not in want_paths:
            continue
        ck.equal(rec.get("size"), os.stat(p).st_size, "size", f"{p}: size")
        try:
            m = onnx.load(p, load_external_data=False)
        except Exception as e:  # noqa: BLE001
            ck.note(f"python3-onnx cannot load {p}: {e}")
            continue
        if not ck.check("model" in rec, "not_model", f"{p}: python3-onnx loads it but the record has no model "
                                                     f"(diagnosis {rec.get('diagnosis')!r})"):
            continue
        n_models += 1
        facts = Facts(onnx, numpy_helper, m, p)
        info = check_doc = hash_out = None
        if p in deep:
            r_rc, out, _ = run([onnxview, "info", p, "--json"])
            info = json.loads(out) if out.strip().startswith("{") else None
            r_rc, out, _ = run([onnxview, "check", p, "--json"])
            check_doc = json.loads(out) if out.strip().startswith("{") else None
            hash_out = run([onnxview, "hash", p])[:2]
        check_model_fields(ck, rec, facts, info, check_doc, hash_out, quiet_check(onnx, p), external_invalid)
    timings["a: python comparison"] = time.time() - t1
    print(f"(a) {len(records)} records, {n_models} models compared with python3-onnx "
          f"({len(deep)} with info/check/hash)")
    return targets, records


def finding_severities(rec):
    return {f.get("severity") for f in rec.get("findings") or []}


def part_b(ck, onnx, numpy_helper, onnxview, fx, expected, external_invalid, timings):
    t0 = time.time()
    rc, records, _ = scan(ck, onnxview, [fx], "(b) scan FIXTURES")
    by_rel = {}
    for rec in records:
        check_record_form(ck, rec)
        by_rel[os.path.relpath(rec.get("path", ""), fx)] = rec
    ck.equal([r.get("path") for r in records], walk_targets([fx]), "walk", "(b) record paths")
    ck.equal(sorted(by_rel), sorted(expected), "fixtures_listed", "(b) files scanned")
    for rel, want in sorted(expected.items()):
        rec = by_rel.get(rel)
        if rec is None:
            continue
        ck.equal(sorted(finding_codes(rec)), want, "fixture_codes", f"(b) {rel}: codes")
        if "model" in rec:
            p = rec["path"]
            m = onnx.load(p, load_external_data=False)
            check_model_fields(ck, rec, Facts(onnx, numpy_helper, m, p), None, None, None, False, external_invalid)
    ck.equal(rc, 1, "exit", "(b) exit status of scan FIXTURES (error findings)")
    clean = [os.path.join(fx, "models", n) for n in ("clean.onnx", "clean_external.onnx")]
    rc, recs, _ = scan(ck, onnxview, clean, "(b) scan clean models")
    ck.equal(rc, 0, "exit", "(b) exit status of scan clean.onnx clean_external.onnx")
    ck.equal([finding_codes(r) for r in recs], [[], []], "fixture_codes", "(b) clean models' codes")
    ce = [r for r in recs if r.get("path") == clean[1]]
    if ce:
        ck.equal([(e.get("location"), e.get("tensors"), e.get("bytes"), e.get("exists"), e.get("size"),
                   e.get("in_range")) for e in ce[0].get("model", {}).get("external_files", [])],
                 [("clean_external.bin", 2, 60, True, 60, True)], "external_files", "(b) clean_external external_files")
    custom = os.path.join(fx, "models", "custom_domain.onnx")
    for args, want, what in (([custom], 0, "custom_domain.onnx (a warning), default --fail-on"),
                             ([custom, "--fail-on", "warning"], 1, "custom_domain.onnx --fail-on warning"),
                             ([custom, "--fail-on=info"], 1, "custom_domain.onnx --fail-on=info"),
                             ([fx, "--fail-on", "none"], 0, "FIXTURES --fail-on none"),
                             ([clean[0], "--fail-on", "info"], 0, "clean.onnx --fail-on info")):
        rc, _, _ = scan(ck, onnxview, args, f"(b) {what}")
        ck.equal(rc, want, "fail_on", f"(b) exit status of {what}")
    # digests
    rc, drecs, _ = scan(ck, onnxview, [fx, "--digests"], "(b) scan FIXTURES --digests")
    for r in drecs:
        p = r.get("path")
        if "error" in r:
            continue
        with open(p, "rb") as f:
            ck.equal(r.get("sha256"), hashlib.sha256(f.read()).hexdigest(), "sha256", f"(b) {p}: sha256")
        ext = r.get("external_sha256")
        if "model" in r:
            ck.check(isinstance(ext, dict), "sha256", f"(b) {p}: external_sha256 {ext!r} with --digests")
        if p == clean[1]:
            with open(os.path.join(fx, "models", "clean_external.bin"), "rb") as f:
                ck.equal(ext, {"clean_external.bin": hashlib.sha256(f.read()).hexdigest()}, "sha256",
                         f"(b) {p}: external_sha256")
    for r in records:
        ck.check("sha256" not in r and "external_sha256" not in r, "sha256",
                 f"(b) {r.get('path')}: sha256 without --digests")
    timings["b: fixtures"] = time.time() - t0
    return records, drecs


def part_b_numeric(ck, onnxview, targets, timings):
    t0 = time.time()
    rc, records, _ = scan(ck, onnxview, targets + ["--numeric"], "(b) scan --numeric")
    for rec in records:
        check_record_form(ck, rec, numeric=True)
        if "model" not in rec:
            continue
        p = rec["path"]
        _, out, _ = run([onnxview, "check", p, "--numeric", "--json"])
        try:
            doc = json.loads(out)
        except ValueError:
            ck.fail("numeric", f"{p}: `check --numeric --json` is not JSON")
            continue
        nf = [f for f in doc.get("findings") or [] if f.get("code") in NUMERIC]
        want = {"errors": sum(f.get("severity") == "error" for f in nf),
                "warnings": sum(f.get("severity") == "warning" for f in nf),
                "infos": sum(f.get("severity") == "info" for f in nf),
                "codes": dict(collections.Counter(f.get("code") for f in nf))}
        num = rec["model"].get("numeric")
        ck.equal(num, want, "numeric", f"{p}: model.numeric (`check --numeric --json`'s numeric findings)")
        got = collections.Counter(f.get("code") for f in rec.get("findings") or []
                                  if f.get("code") in NUMERIC and (f.get("code") not in SEVERITY
                                                                   or f.get("severity") == NUMERIC[f.get("code")]))
        ck.equal(dict(got), want["codes"], "numeric_findings", f"{p}: numeric codes among the findings")
    timings["b: --numeric"] = time.time() - t0


def cyclonedx_validator(jsonschema):
    """A validator of CycloneDX 1.6 whose $refs resolve to tests/data/cyclonedx/ (never the network)."""
    store = {}
    for name in SCHEMA_FILES:
        with open(os.path.join(SCHEMA_DIR, name)) as f:
            s = json.load(f)
        store[s["$id"]] = s
        store[s["$id"].replace("http://", "https://")] = s

    def offline(uri):
        raise LookupError(f"{uri} is not among {SCHEMA_FILES} (no network here)")

    bom = store[BOM_ID]
    cls = jsonschema.validators.validator_for(bom)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        resolver = jsonschema.RefResolver(BOM_ID, bom, store=store, handlers={"http": offline, "https": offline})
        return cls(bom, resolver=resolver)


def check_bom(ck, validator, bom, records, digests, what):
    errors = sorted(validator.iter_errors(bom), key=lambda e: list(e.absolute_path))
    for e in errors[:5]:
        where = "/".join(str(x) for x in e.absolute_path) or "(top)"
        ck.fail("cyclonedx_schema", f"{what}: does not validate at {where}: {e.message[:200]}")
    if len(errors) > 5:
        ck.fail("cyclonedx_schema", f"{what}: {len(errors) - 5} more schema errors")
    if not errors:
        ck.passed += 1
    ck.equal((bom.get("bomFormat"), bom.get("specVersion")), ("CycloneDX", "1.6"), "cyclonedx", f"{what}: format")
    tools = ((bom.get("metadata") or {}).get("tools") or {})
    tools = tools.get("components") if isinstance(tools, dict) else None
    ck.check(isinstance(tools, list) and any(t.get("name") == "onnxview" and t.get("type") == "application"
                                             for t in tools),
             "cyclonedx", f"{what}: metadata.tools.components has no application onnxview: {tools!r}")
    comps = bom.get("components") or []
    refs = [c.get("bom-ref") for c in comps]
    ck.check(len(refs) == len(set(refs)), "cyclonedx_refs",
             f"{what}: bom-refs not unique: {[r for r, n in collections.Counter(refs).items() if n > 1]}")
    by_ref = {c.get("bom-ref"): c for c in comps}
    deps = {d.get("ref"): d.get("dependsOn") or [] for d in bom.get("dependencies") or []}
    for ref, on in deps.items():
        for r in [ref] + list(on):
            ck.check(r in by_ref, "cyclonedx_refs", f"{what}: dependency names {r!r}, which is no component")
    ml = [c for c in comps if c.get("type") == "machine-learning-model"]
    models = [r for r in records if "model" in r]
    ck.equal(sorted(c.get("bom-ref") for c in ml), sorted({"model:" + r["path"] for r in models}),
             "cyclonedx_models", f"{what}: machine-learning-model components (one per model file)")
    for r in models:
        c = by_ref.get("model:" + r["path"])
        if c is None:
            continue
        p, model = r["path"], r["model"]
        ck.equal(c.get("name"), os.path.basename(p), "cyclonedx_model", f"{what}: {p}: name")
        if digests:
            ck.equal(c.get("hashes"), [{"alg": "SHA-256", "content": r.get("sha256")}], "cyclonedx_hashes",
                     f"{what}: {p}: hashes")
        else:
            ck.check(not c.get("hashes"), "cyclonedx_hashes", f"{what}: {p}: hashes without --digests")
        props = collections.defaultdict(list)
        for pr in c.get("properties") or []:
            props[pr.get("name")].append(pr.get("value"))
        ck.equal(props.get("onnxview:ir_version"), [str(model.get("ir_version"))], "cyclonedx_properties",
                 f"{what}: {p}: onnxview:ir_version")
        for dom, ver in (model.get("opsets") or {}).items():
            ck.equal(props.get("onnxview:opset:" + (dom or "ai.onnx")), [str(ver)], "cyclonedx_properties",
                     f"{what}: {p}: onnxview:opset:{dom or 'ai.onnx'}")
        ck.equal(props.get("onnxview:parameters"), [str((model.get("parameters") or {}).get("elements"))],
                 "cyclonedx_properties", f"{what}: {p}: onnxview:parameters")
        for code in set(finding_codes(r)):
            ck.check(("onnxview:finding:" + code) in props, "cyclonedx_properties",
                     f"{what}: {p}: no property onnxview:finding:{code}")
        for e in model.get("external_files") or []:
            if not e.get("exists"):
                continue
            on = [by_ref.get(x) or {} for x in deps.get("model:" + p, [])]
            ck.check(any(o.get("type") in ("data", "file") and o.get("name") == e.get("location") for o in on),
                     "cyclonedx_dependencies",
                     f"{what}: {p}: no dependency on a data/file component named {e.get('location')!r} "
                     f"(dependsOn {deps.get('model:' + p)})")
    non_models = {"model:" + r.get("path", "") for r in records if "model" not in r}
    ck.check(not (non_models & set(refs)), "cyclonedx_models",
             f"{what}: components for files that are not models: {sorted(non_models & set(refs))}")


def part_c(ck, jsonschema, onnxview, fx, drecs, records, timings):
    t0 = time.time()
    try:
        validator = cyclonedx_validator(jsonschema)
    except (OSError, ValueError, KeyError) as e:
        ck.fail("cyclonedx_schema", f"cannot load the schemas in {SCHEMA_DIR}: {e}")
        return
    for digests, recs in ((True, drecs), (False, records)):
        args = [fx, "--format", "cyclonedx"] + (["--digests"] if digests else [])
        what = "(c) scan FIXTURES --format cyclonedx" + (" --digests" if digests else "")
        rc, _, out = scan(ck, onnxview, args, what)
        try:
            bom = json.loads(out)
        except ValueError as e:
            ck.fail("cyclonedx", f"{what}: not JSON ({e}): {out[:200]!r}")
            continue
        check_bom(ck, validator, bom, recs, digests, what)
        ck.equal(rc, 1, "exit", f"{what}: exit status")
    # a model listed twice, and two models sharing one external file: still one component each
    clean_ext = os.path.join(fx, "models", "clean_external.onnx")
    shared = os.path.join(os.path.dirname(fx), "shared")
    os.makedirs(shared, exist_ok=True)
    for name in ("clean_external.onnx", "clean_external.bin"):
        shutil.copyfile(os.path.join(fx, "models", name), os.path.join(shared, name))
    shutil.copyfile(clean_ext, os.path.join(shared, "second.onnx"))
    for targets, what in (([clean_ext, clean_ext], "(c) the same model twice"),
                          ([shared], "(c) two models sharing clean_external.bin")):
        _, recs, _ = scan(ck, onnxview, targets, what + " (jsonl)")
        rc, _, out = scan(ck, onnxview, targets + ["--format", "cyclonedx"], what)
        try:
            check_bom(ck, validator, json.loads(out), recs, False, what)
        except ValueError as e:
            ck.fail("cyclonedx", f"{what}: not JSON ({e})")
    timings["c: cyclonedx"] = time.time() - t0


def part_d(ck, onnxview, fx, a_targets, a_records, fx_records, work, timings):
    t0 = time.time()
    # --jobs 2 against --jobs 1
    rc, recs2, _ = scan(ck, onnxview, ["--jobs", "2"] + a_targets, "(d) scan --jobs 2 TESTDATA CORPUS")
    ck.check(recs2 == a_records, "jobs", "(d) --jobs 2 gives other records than --jobs 1 "
             + first_difference(a_records, recs2))
    rc, fx2, _ = scan(ck, onnxview, ["--jobs", "2", fx], "(d) scan --jobs 2 FIXTURES")
    ck.check(fx2 == fx_records, "jobs", "(d) FIXTURES --jobs 2 " + first_difference(fx_records, fx2))
    timings["d: --jobs 2"] = time.time() - t0
    t0 = time.time()
    # --from
    files = sorted(glob.glob(os.path.join(fx, "models", "*.onnx")))[::-1]  # not in walk order: order as listed
    targets = [TESTDATA] + files
    rc_pos, pos, _ = scan(ck, onnxview, targets, "(d) positional targets")
    lst = os.path.join(work, "targets.txt")
    with open(lst, "w") as f:
        f.write("\n".join(targets) + "\n")
    rc_from, frm, _ = scan(ck, onnxview, ["--from", lst], "(d) --from LIST")
    ck.check(frm == pos, "from", "(d) --from LIST " + first_difference(pos, frm))
    ck.equal(rc_from, rc_pos, "from", "(d) --from LIST exit status")
    rc_stdin, frm2, _ = scan(ck, onnxview, ["--from", "-"], "(d) --from -", stdin="\n".join(targets) + "\n")
    ck.check(frm2 == pos, "from", "(d) --from - " + first_difference(pos, frm2))
    ck.equal([r.get("path") for r in pos], walk_targets(targets), "walk", "(d) positional targets' record paths")
    # -o FILE, --format json
    outf = os.path.join(work, "out.jsonl")
    rc_o, out_o, _ = run([onnxview, "scan", "--format", "jsonl", "-o", outf] + targets)
    ck.equal(rc_o, rc_pos, "output", "(d) -o FILE exit status")
    if os.path.exists(outf):
        with open(outf) as f:
            ck.check(parse_jsonl(ck, f.read(), "-o FILE") == pos, "output", "(d) -o FILE: other records than stdout")
        ck.check(not out_o.strip(), "output", f"(d) -o FILE also wrote to stdout: {out_o[:100]!r}")
    else:
        ck.fail("output", "(d) -o FILE wrote no file")
    rc_j, _, out_j = scan(ck, onnxview, ["--format", "json"] + targets, "(d) --format json")
    try:
        ck.check(json.loads(out_j) == {"records": pos}, "json_format",
                 "(d) --format json is not {\"records\": [the jsonl records]}")
    except ValueError as e:
        ck.fail("json_format", f"(d) --format json: not JSON ({e})")
    # the walk
    tree = os.path.join(work, "walk")
    for d in ("sub", "x.onnx"):
        os.makedirs(os.path.join(tree, d), exist_ok=True)
    src = os.path.join(fx, "models", "clean.onnx")
    for name in ("A.ONNX", "b.Onnx", "c.onnx.bin", "sub/d.onnx", "x.onnx/e.onnx"):
        shutil.copyfile(src, os.path.join(tree, name))
    rc, wrecs, _ = scan(ck, onnxview, [tree], "(d) walk")
    ck.equal([r.get("path") for r in wrecs], walk_targets([tree]), "walk", "(d) walk of A.ONNX b.Onnx sub/ x.onnx/")
    # a missing target
    missing = os.path.join(work, "no_such_model.onnx")
    rc, mrecs, _ = scan(ck, onnxview, [missing], "(d) missing target")
    ck.equal(rc, 1, "missing_target", "(d) exit status of a scan of a missing file")
    if ck.equal(len(mrecs), 1, "missing_target", "(d) records of a scan of a missing file"):
        ck.check("error" in mrecs[0] and "model" not in mrecs[0] and "diagnosis" not in mrecs[0],
                 "missing_target", f"(d) record of a missing file: {mrecs[0]}")
        ck.equal(mrecs[0].get("path"), missing, "missing_target", "(d) path of a missing file's record")
        check_record_form(ck, mrecs[0])
    # usage errors
    for args, what in ((["--from", os.path.join(work, "no_such_list.txt")], "an unreadable --from list"),
                       (["--format", "yaml", src], "--format yaml"),
                       ([], "no target")):
        rc, _, _ = run([onnxview, "scan"] + args)
        ck.equal(rc, 2, "usage", f"(d) exit status of scan with {what}")
    timings["d: targets and output"] = time.time() - t0


def write_edge_models(mk, onnx, d):
    """Models and files beyond the fixtures, for (f); returns the names of the non-model files."""
    from onnx import TensorProto, helper
    os.makedirs(d, exist_ok=True)

    def save(name, m):
        with open(os.path.join(d, name + ".onnx"), "wb") as f:
            f.write(m.SerializeToString())

    def ext_w(name, entries, b=None):
        save(name, mk.mlp(name, mk.external("W", [4, 3], entries), b or mk.inline("B", [3], mk.B)))

    with open(os.path.join(d, "ok.bin"), "wb") as f:
        f.write(mk.f32(mk.W))
    os.mkfifo(os.path.join(d, "fifo.bin"))
    os.symlink("/dev/zero", os.path.join(d, "zero.bin"))
    ext_w("ext_fifo", [("location", "fifo.bin"), ("offset", 0), ("length", 48)])
    ext_w("ext_dev_zero_link", [("location", "zero.bin"), ("offset", 0), ("length", 48)])
    ext_w("ext_directory", [("location", "."), ("offset", 0), ("length", 48)])
    ext_w("ext_bad_offset", [("location", "ok.bin"), ("offset", "abc"), ("length", 48)])
    ext_w("ext_negative_length", [("location", "ok.bin"), ("offset", 0), ("length", -48)])
    ext_w("ext_short_length", [("location", "ok.bin"), ("offset", 0), ("length", 40)])
    ext_w("ext_no_location", [("offset", 0), ("length", 48)])
    ext_w("ext_empty_location", [("location", ""), ("offset", 0), ("length", 48)])
    ext_w("ext_drive", [("location", "C:\\weights.bin"), ("offset", 0), ("length", 48)])
    ext_w("ext_unc", [("location", "\\\\server\\share\\w.bin"), ("offset", 0), ("length", 48)])
    ext_w("ext_backslash", [("location", "sub\\ok.bin"), ("offset", 0), ("length", 48)])
    ext_w("ext_dotdot_inside", [("location", "sub/../ok.bin"), ("offset", 0), ("length", 48)])
    ext_w("ext_unknown_key", [("location", "ok.bin"), ("offset", 0), ("length", 48), ("checksum", "0")])
    ext_w("ext_no_length", [("location", "ok.bin"), ("offset", 0)])
    ext_w("ext_prefix_overlap", [("location", "ok.bin"), ("offset", 0), ("length", 48)],
          mk.external("B", [3], [("location", "ok.bin"), ("offset", 0), ("length", 12)]))
    save("ext_shared_range", mk.mlp("shared", mk.external("W", [4, 3], [("location", "ok.bin"), ("length", 48)]),
                                    mk.external("B", [4, 3], [("location", "ok.bin"), ("length", 48)])))
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    y_ab = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["a", "b"])
    shape = helper.make_tensor("shape", TensorProto.INT64, [2], mk.HUGE)
    for op in ("Reshape", "Tile"):
        save(f"huge_{op.lower()}", mk.single(op, helper.make_node(op, ["x", "shape"], ["y"]), [x], [shape]))
    save("huge_reshape_minus_one", mk.single("r", helper.make_node("Reshape", ["x", "shape"], ["y"]), [x],
                                             [helper.make_tensor("shape", TensorProto.INT64, [3],
                                                                 [-1] + mk.HUGE)]))
    for name, const in (("huge_constant_node", helper.make_node("Constant", [], ["shape"], value=shape)),
                        ("huge_constant_value_ints", helper.make_node("Constant", [], ["shape"],
                                                                      value_ints=mk.HUGE))):
        save(name, mk.model(helper.make_graph([const, helper.make_node("ConstantOfShape", ["shape"], ["y"])], name,
                                              [], [y_ab])))
    then = helper.make_graph([helper.make_node("ConstantOfShape", ["shape"], ["t"])], "then", [],
                             [helper.make_tensor_value_info("t", TensorProto.FLOAT, ["a", "b"])])
    other = helper.make_graph([helper.make_node("ConstantOfShape", ["small"], ["e"])], "else", [],
                              [helper.make_tensor_value_info("e", TensorProto.FLOAT, ["a", "b"])])
    save("huge_in_subgraph", mk.model(helper.make_graph(
        [helper.make_node("If", ["cond"], ["y"], then_branch=then, else_branch=other)], "sub",
        [helper.make_tensor_value_info("cond", TensorProto.BOOL, [])], [y_ab],
        [shape, helper.make_tensor("small", TensorProto.INT64, [2], [2, 2])])))
    for name, dims in (("exactly_2_32", [65536, 65536]), ("just_over_2_32", [65536, 65537])):
        save(name, mk.single(name, helper.make_node("ConstantOfShape", ["shape"], ["y"]), [],
                             [helper.make_tensor("shape", TensorProto.INT64, [2], dims)]))
    save("huge_single_dim", mk.single("s", helper.make_node("Identity", ["x"], ["y"]),
                                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2 ** 33])]))
    save("huge_value_info", mk.model(helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])], "vi", [x], [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                                                                             [1, 4])],
        value_info=[helper.make_tensor_value_info("z", TensorProto.FLOAT, ["N"] + mk.HUGE)])))
    for op, dom in (("PyOp", "com.example.custom"), ("PyFunc", ""), ("PythonOpGrad", "com.microsoft")):
        save(f"dangerous_{op}", mk.single(op, helper.make_node(op, ["x"], ["y"], domain=dom), [x],
                                          opsets=(("", 13),) + (((dom, 1),) if dom else ())))
    fn = helper.make_function("my.local", "Twice", ["a"], ["b"], [helper.make_node("Add", ["a", "a"], ["b"])],
                              [helper.make_opsetid("", 13)])
    m = mk.single("f", helper.make_node("Twice", ["x"], ["y"], domain="my.local"), [x],
                  opsets=(("", 13), ("my.local", 1)))
    m.functions.append(fn)
    save("local_function_domain", m)
    for dom in sorted(KNOWN_DOMAINS - {"", "ai.onnx"}):
        save(f"known_domain_{dom}", mk.single("k", helper.make_node("Foo", ["x"], ["y"], domain=dom), [x],
                                              opsets=(("", 13), (dom, 1))))
    save("custom_opset_without_node", mk.single("o", helper.make_node("Relu", ["x"], ["y"]), [x],
                                                opsets=(("", 13), ("com.example.unused", 1))))
    # files that are not models, or not files
    open(os.path.join(d, "empty.onnx"), "wb").close()
    os.symlink("nowhere.onnx", os.path.join(d, "dangling_link.onnx"))
    os.mkfifo(os.path.join(d, "fifo.onnx"))
    with open(os.path.join(d, "zeros.onnx"), "wb") as f:
        f.write(bytes(4096))
    return {"empty.onnx", "dangling_link.onnx", "fifo.onnx", "zeros.onnx"}


def part_f(ck, onnx, numpy_helper, onnxview, mk, work, external_invalid, timings):
    """Edge cases: the python reading of the specification on models beyond the fixtures."""
    t0 = time.time()
    d = os.path.join(work, "edge")
    odd = write_edge_models(mk, onnx, d)
    try:
        rc, records, _ = run_scan_timeout(ck, onnxview, [d], "(f) scan EDGE")
    except subprocess.TimeoutExpired:
        ck.fail("hang", "(f) scan EDGE (FIFOs as a target and as external data) did not finish in 60 s")
        return
    ck.equal([r.get("path") for r in records], walk_targets([d]), "walk", "(f) record paths")
    for rec in records:
        check_record_form(ck, rec)
        p, name = rec.get("path", ""), os.path.basename(rec.get("path", ""))
        if name in odd:
            if "error" in rec:
                ck.check(name != "zeros.onnx", "edge_files", f"(f) {name}: a readable file is an error record "
                                                             f"({rec['error']!r})")
                if name == "empty.onnx":
                    ck.note("an empty file is an \"error\" record (unreadable), not a diagnosis (kind empty)")
            else:
                ck.check(name in ("empty.onnx", "zeros.onnx"), "edge_files",
                         f"(f) {name}: not an error record: {rec.get('diagnosis')}")
                ck.check(finding_codes(rec) in (["not_a_model"], ["truncated"]), "edge_files",
                         f"(f) {name}: codes {finding_codes(rec)}")
            continue
        if ck.check("model" in rec, "edge_model", f"(f) {name}: no model: {rec.get('diagnosis') or rec.get('error')}"):
            m = onnx.load(p, load_external_data=False)
            check_model_fields(ck, rec, Facts(onnx, numpy_helper, m, p), None, None, None, False, external_invalid)
    ck.equal(rc, 1, "exit", "(f) exit status")
    timings["f: edge cases"] = time.time() - t0


def run_scan_timeout(ck, onnxview, args, what):
    r = subprocess.run([onnxview, "scan", "--format", "jsonl"] + args, capture_output=True, text=True, timeout=60)
    if r.returncode not in (0, 1):
        ck.fail("exit", f"{what}: exit status {r.returncode}: {r.stderr.strip()[:300]}")
    return r.returncode, parse_jsonl(ck, r.stdout, what), r.stdout


def first_difference(a, b):
    if a == b:
        return ""
    if len(a) != len(b):
        return f"({len(b)} records instead of {len(a)})"
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            keys = sorted(k for k in set(x) | set(y) if x.get(k) != y.get(k))
            return f"(record {i} {x.get('path')!r} differs in {keys})"
    return ""


def part_e(ck, onnxview, pythonpath, fx, timings):
    t0 = time.time()
    sys.path.insert(0, os.path.abspath(pythonpath))
    try:
        import onnxview as ov
        scan_record = ov.scan_record
    except (ImportError, AttributeError) as e:
        ck.fail("python", f"(e) cannot import onnxview.scan_record from {pythonpath}: {e}")
        return
    targets = [TESTDATA, fx]
    for args, kw in (([], {}), (["--numeric", "--digests"], {"numeric": True, "digests": True})):
        _, recs, _ = scan(ck, onnxview, targets + args, f"(e) scan {' '.join(args)}")
        for rec in recs:
            try:
                got = scan_record(rec["path"], **kw)
            except Exception as e:  # noqa: BLE001 - reported as a failure
                ck.fail("python", f"(e) scan_record({rec['path']!r}, {kw}) raised {type(e).__name__}: {e}")
                continue
            ck.check(got == rec, "python", f"(e) scan_record({rec['path']!r}, {kw}) differs from the CLI "
                     + first_difference([rec], [got]))
    timings["e: python"] = time.time() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxview", required=True)
    ap.add_argument("--corpus", default="/usr/share/libonnx-testdata/data")
    ap.add_argument("--limit", type=int, default=0, help="corpus models compared with info/check/hash (0 = all)")
    ap.add_argument("--fixtures", help="a directory make_scan_fixtures.py wrote (default: write one now)")
    ap.add_argument("--pythonpath", help="where the onnxview Python module is: compare scan_record too")
    args = ap.parse_args()
    try:
        import numpy  # noqa: F401 - the fixtures' maker and numpy_helper need it
        import onnx
        from onnx import numpy_helper
        import jsonschema
    except ImportError as e:
        print(f"scan_oracle: skipped: {e}")
        return SKIP
    onnxview = os.path.abspath(args.onnxview)
    rc, out, err = run([onnxview, "scan", "--help"])
    if rc != 0 or "scan" not in out + err:
        print(f"FAIL {onnxview} has no scan command (`scan --help`: exit {rc}: {(err or out).strip()[:200]})")
        print("0 passed, 1 failed")
        return 1
    ck = Checks()
    timings = collections.OrderedDict()
    maker = load_maker()
    external_invalid = bool(getattr(maker, "EXTERNAL_ALSO_INVALID", True))
    start = time.time()
    with tempfile.TemporaryDirectory() as work:
        fx = args.fixtures
        if fx is None:
            fx = os.path.join(work, "fixtures")
            r = subprocess.run([sys.executable, MAKER, fx], capture_output=True, text=True)
            if r.returncode != 0:
                print(f"FAIL make_scan_fixtures.py: exit {r.returncode}: {r.stderr.strip()}")
                print("0 passed, 1 failed")
                return 1
        fx = os.path.abspath(fx)
        with open(os.path.join(fx, "expected.json")) as f:
            expected = json.load(f)
        a_targets, a_records = part_a(ck, onnx, numpy_helper, onnxview, args.corpus, args.limit, external_invalid,
                                      timings)
        fx_records, fx_drecs = part_b(ck, onnx, numpy_helper, onnxview, fx, expected, external_invalid, timings)
        part_b_numeric(ck, onnxview, [TESTDATA, fx], timings)
        part_c(ck, jsonschema, onnxview, fx, fx_drecs, fx_records, timings)
        part_d(ck, onnxview, fx, a_targets, a_records, fx_records, work, timings)
        if args.pythonpath:
            part_e(ck, onnxview, args.pythonpath, fx, timings)
        part_f(ck, onnx, numpy_helper, onnxview, maker, work, external_invalid, timings)
    ck.report()
    print("scan_oracle: " + ", ".join(f"{k} {v:.1f} s" for k, v in timings.items())
          + f"; total {time.time() - start:.1f} s; {len(ck.failed)} kinds of failure")
    print(f"{ck.passed} passed, {ck.count()} failed")
    return 1 if ck.count() else 0


if __name__ == "__main__":
    sys.exit(main())
