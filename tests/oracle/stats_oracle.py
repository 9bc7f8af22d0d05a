#!/usr/bin/python3
"""Checks `onnxview stats --json` against numpy on the tensors python3-onnx reads.

  stats_oracle.py --onnxview BUILD/tools/onnxview [--corpus DIR] [--limit N]
                  [--histogram-limit N]

Models: every testdata/*.onnx and testdata/profile/*.onnx (their external
data file is absent), and --limit (default 150; 0 = all) of the corpus
models that store at least one tensor (172 of the 1,072 model.onnx of
Debian's libonnx-testdata, default DIR /usr/share/libonnx-testdata/data),
spread evenly over them.

Expected tensors, in every graph, subgraph (attribute g and graphs) and
model-local function: graph initializers (origin "initializer", path
`graph.initializer[I]`), sparse initializers' values ("sparse_initializer",
`graph.sparse_initializer[I].values`), the `value` tensor of Constant nodes
("constant", `...node[J].attribute[K].t`), other tensor attributes
("attribute", `.t` and `.tensors[Q]`). Each record of `stats MODEL --json`
is matched to one of these by its "path", else by name and origin (a path
that differs from the expected one is then a failure of its own). A tensor
of a sparse tensor attribute (Constant's sparse_value, or a sparse_tensor(s)
attribute) may be listed (path `...attribute[K].sparse_tensor.values`,
`...sparse_tensors[Q].values`, origin "constant" or "attribute") or not:
the specification does not say; a listed one is compared, an unlisted one is
reported in the summary line. The record's "name" is the TensorProto's name;
for a Constant whose value tensor has no name the node's first output is
accepted too. Record order is not checked.

Per record: name, origin, data_type (onnx's name), dims, storage (external
when data_location is EXTERNAL, raw when raw_data is non-empty, typed when a
typed field is; a tensor with no non-empty field may say none, raw or typed),
elements (product of dims) and values (2 x elements for COMPLEX64/128, 0 for
STRING) are compared for every tensor. Where python3-onnx converts the
payload (numpy_helper.to_array, and here the COMPLEX typed fields it cannot
read; FLOAT8*, INT4, UINT4, FLOAT4E2M1 and newer types are skipped), with
loaded external data:
  - exactly: finite, zeros, nan, pos_inf, neg_inf; subnormal for FLOAT,
    DOUBLE, FLOAT16, BFLOAT16 (finite, nonzero, |x| < np.finfo(format).tiny,
    2**-126 for BFLOAT16; 0 or absent for the other types); fp16_overflow
    (finite |x| > 65504), fp16_underflow (0 < |x| <= 2**-25), fp16_subnormal
    (2**-25 < |x| < 2**-14), bf16_overflow (finite |x| > 3.3895313892515355e38)
    for FLOAT and DOUBLE (0 or absent for the others), counted on the values
    in double. COMPLEX values are the real and imaginary parts.
  - min and max over the finite values: JSON integers equal to numpy's for
    integer and BOOL types; for float types the JSON number must equal the
    value exactly once rounded to the tensor's own format (so a float32
    printed with its shortest float32 digits passes); null without a finite
    value; absent for STRING.
  - mean and std (population, ddof=0) over the finite values, the reference
    computed in numpy's long double (80-bit here, so a DOUBLE tensor holding
    1.8e308 has a finite std): |got - want| <= rtol * max(|want|, max|x|),
    max|x| the largest finite magnitude, rtol 1e-9 for DOUBLE and COMPLEX128,
    1e-6 for every other type (the absolute floor rtol * max|x| keeps a
    mean near 0 of large values from failing on rounding).
  - a record with "error" fails where numpy read the payload; it has no
    counts, min, max, mean, std or histogram, and may lack elements and
    values (a present one must be right). testdata/profile/*.onnx, whose
    external data file is deliberately absent, give such records: their
    storage must still be "external".
totals must equal the sums over the records (unreadable = records with
"error"). The exit status must be 0 when no record has an error.

`--histogram 10` runs on every testdata model and --histogram-limit
(default 10; a large number = all) corpus models: bins 10, low and high the
min and max of the finite values (compared like min and max; for an integer
type the double nearest to the integer is accepted too, as for INT64 and
UINT64 extremes), counts summing to finite and equal to
numpy.histogram(finite values, bins=10), the values in numpy_helper's dtype
(float32 for FLOAT, BFLOAT16 and COMPLEX64 parts, float16 for FLOAT16:
numpy then computes the edges and bins in that dtype, so a float32 0.7 of
linspace(0, 1, 11) falls in bin 7, where in double it falls in bin 6).
Differences are classified rather than hidden: where onnxview's counts
equal those of numpy.histogram on the values in double, or of
floor((x - low) / (high - low) * 10) (last bin closed) in double, the
difference is one of tie-breaking at bin edges and is printed as a NOTE,
not a failure. A tensor whose finite values are all equal gets numpy's
counts: numpy uses the range (v - 0.5, v + 0.5) and puts every value in the
middle bin, while low = high = v. Where high - low overflows a double (a
DOUBLE tensor holding -1e300 and 1.8e308), numpy.histogram fails: the
reference is then the bin formula in long double (a NOTE when onnxview
agrees, a failure when not). A tensor without finite values may have no
histogram (absent or null) or one of 0 counts. Without --histogram no
record has a histogram.

NAME arguments: on every testdata model, `stats MODEL N1 N2 --json` with two
tensor names must list exactly the tensors of those names.

Exits 77 (skipped) when python3-onnx or numpy is absent.
"""
import argparse
import glob
import json
import math
import os
import subprocess
import sys

SKIP = 77
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

TYPE_NAMES = ["UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16", "INT32", "INT64", "STRING", "BOOL",
              "FLOAT16", "DOUBLE", "UINT32", "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16", "FLOAT8E4M3FN",
              "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "UINT4", "INT4", "FLOAT4E2M1", "FLOAT8E8M0",
              "UINT2", "INT2"]
FLOAT, UINT8, INT8, UINT16, INT16, INT32, INT64, STRING, BOOL, FLOAT16, DOUBLE, UINT32, UINT64 = range(1, 14)
COMPLEX64, COMPLEX128, BFLOAT16 = 14, 15, 16
INTEGER = {UINT8, INT8, UINT16, INT16, INT32, INT64, BOOL, UINT32, UINT64}
FLOATS = {FLOAT, DOUBLE, FLOAT16, BFLOAT16}
COMPLEX = {COMPLEX64, COMPLEX128}
# The smallest normal number of each format; complex parts are FLOAT or DOUBLE values.
TINY = {FLOAT: 2.0 ** -126, DOUBLE: 2.0 ** -1022, FLOAT16: 2.0 ** -14, BFLOAT16: 2.0 ** -126,
        COMPLEX64: 2.0 ** -126, COMPLEX128: 2.0 ** -1022}
COUNTS = ["finite", "zeros", "nan", "pos_inf", "neg_inf"]
FORMAT_COUNTS = ["subnormal", "fp16_overflow", "fp16_underflow", "fp16_subnormal", "bf16_overflow"]
TOTALS = ["elements", "values", "zeros", "nan", "pos_inf", "neg_inf", "subnormal"]
HIST_BINS = 10


class Tensor:
    """One TensorProto the model stores, as the specification lists it."""

    def __init__(self, path, origin, stored, loaded, optional=False, alt_name=None):
        self.path, self.origin, self.stored, self.loaded = path, origin, stored, loaded
        self.optional = optional  # sparse attribute values: may or may not be listed
        self.alt_name = alt_name  # a Constant's output, for a value tensor without a name
        self.name = stored.name


def model_tensors(stored, loaded):
    """Walks the model stored (no external data loaded) and loaded side by side."""
    out = []

    def nodes(ns, ls, pre):
        for j, (n, ln) in enumerate(zip(ns, ls)):
            constant = n.op_type == "Constant" and n.domain in ("", "ai.onnx")
            for k, (a, la) in enumerate(zip(n.attribute, ln.attribute)):
                p = f"{pre}node[{j}].attribute[{k}]."
                if a.HasField("t"):
                    if constant and a.name == "value":
                        out.append(Tensor(p + "t", "constant", a.t, la.t,
                                          alt_name=n.output[0] if len(n.output) else None))
                    else:
                        out.append(Tensor(p + "t", "attribute", a.t, la.t))
                for q, (t, lt) in enumerate(zip(a.tensors, la.tensors)):
                    out.append(Tensor(f"{p}tensors[{q}]", "attribute", t, lt))
                if a.HasField("sparse_tensor"):
                    out.append(Tensor(p + "sparse_tensor.values", ("constant", "attribute"),
                                      a.sparse_tensor.values, la.sparse_tensor.values, optional=True))
                for q, (s, ls_) in enumerate(zip(a.sparse_tensors, la.sparse_tensors)):
                    out.append(Tensor(f"{p}sparse_tensors[{q}].values", ("attribute",), s.values, ls_.values,
                                      optional=True))
                if a.HasField("g"):
                    graph(a.g, la.g, p + "g.")
                for q, (g, lg) in enumerate(zip(a.graphs, la.graphs)):
                    graph(g, lg, f"{p}graphs[{q}].")

    def graph(g, lg, pre):
        for i, (t, lt) in enumerate(zip(g.initializer, lg.initializer)):
            out.append(Tensor(f"{pre}initializer[{i}]", "initializer", t, lt))
        for i, (s, ls_) in enumerate(zip(g.sparse_initializer, lg.sparse_initializer)):
            out.append(Tensor(f"{pre}sparse_initializer[{i}].values", "sparse_initializer", s.values, ls_.values))
        nodes(g.node, lg.node, pre)

    graph(stored.graph, loaded.graph, "graph.")
    for i, (f, lf) in enumerate(zip(stored.functions, loaded.functions)):
        nodes(f.node, lf.node, f"functions[{i}].")
    return out


def storage_of(t):
    if t.data_location == 1:
        return {"external"}
    if len(t.raw_data) > 0:
        return {"raw"}
    for field in ("float_data", "int32_data", "string_data", "int64_data", "double_data", "uint64_data"):
        if len(getattr(t, field)) > 0:
            return {"typed"}
    return {"none", "raw", "typed"}


def parts(np, numpy_helper, t):
    """The tensor's values as a flat numpy array (real and imaginary parts for
    COMPLEX), or None when python3-onnx cannot convert the type."""
    dt = t.data_type
    if dt in COMPLEX:
        if t.data_location != 1 and len(t.raw_data) == 0:
            typed = t.float_data if dt == COMPLEX64 else t.double_data
            return np.array(list(typed), dtype=np.float32 if dt == COMPLEX64 else np.float64)
        a = numpy_helper.to_array(t)
        return a.reshape(-1).view(np.float32 if dt == COMPLEX64 else np.float64)
    if dt in FLOATS or dt in INTEGER or dt == STRING:
        return numpy_helper.to_array(t).reshape(-1)
    return None


def bf16_round(np, x):
    bits = int(np.array([x], dtype=np.float32).view(np.uint32)[0])
    if (bits & 0x7F800000) != 0x7F800000:
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return float(np.array([bits & 0xFFFF0000], dtype=np.uint32).view(np.float32)[0])


def same_value(np, got, want, dt, histogram=False):
    """min, max, low, high: exact, after rounding got to the tensor's format;
    a histogram's low and high of an integer type may also be the double
    nearest to the integer (the bin edges are doubles)."""
    if want is None or got is None:
        return got is None and want is None
    if isinstance(got, bool) or not isinstance(got, (int, float)):
        return False
    if dt in INTEGER:
        return (type(got) is int and got == want) or (histogram and float(got) == float(want))
    g = float(got)
    if g == want:
        return True
    if dt in (FLOAT, COMPLEX64):
        return float(np.float32(g)) == want
    if dt == FLOAT16:
        return float(np.float16(g)) == want
    if dt == BFLOAT16:
        return bf16_round(np, g) == want
    return False


def expected_stats(np, dt, v):
    """The statistics of flat values v (numpy) of data type dt."""
    e = {}
    if dt == STRING:
        return e
    if dt in INTEGER:
        ints = v.astype(np.int64) if dt == BOOL else v
        e.update(finite=int(v.size), zeros=int((ints == 0).sum()), nan=0, pos_inf=0, neg_inf=0)
        finite = ints
        e["min"] = int(finite.min()) if finite.size else None
        e["max"] = int(finite.max()) if finite.size else None
        x = finite.astype(np.longdouble)
    else:
        d = v.astype(np.float64)
        fin = np.isfinite(d)
        finite_d = d[fin]
        e.update(finite=int(fin.sum()), zeros=int((d == 0).sum()), nan=int(np.isnan(d).sum()),
                 pos_inf=int((d == np.inf).sum()), neg_inf=int((d == -np.inf).sum()))
        a = np.abs(finite_d)
        if dt in TINY:
            e["subnormal"] = int(((a != 0) & (a < TINY[dt])).sum())
        if dt in (FLOAT, DOUBLE):
            e["fp16_overflow"] = int((a > 65504.0).sum())
            e["fp16_underflow"] = int(((a > 0) & (a <= 2.0 ** -25)).sum())
            e["fp16_subnormal"] = int(((a > 2.0 ** -25) & (a < 2.0 ** -14)).sum())
            e["bf16_overflow"] = int((a > 3.3895313892515355e38).sum())
        e["min"] = float(finite_d.min()) if finite_d.size else None
        e["max"] = float(finite_d.max()) if finite_d.size else None
        finite = v[fin]
        x = finite_d.astype(np.longdouble)
    if x.size:
        mean = x.sum() / x.size
        std = np.sqrt(((x - mean) ** 2).sum() / x.size)
        e["mean"], e["std"] = float(mean), float(std)
        e["maxabs"] = float(np.abs(x).max())
    else:
        e["mean"] = e["std"] = None
        e["maxabs"] = 0.0
    e["finite_values"] = finite
    return e


def compare_record(np, numpy_helper, model, t, r, failures):
    """Compares record r with tensor t; returns the expected statistics or None."""
    where = f"{model}: {t.path} ({t.name!r})"
    st = t.stored
    dt = st.data_type
    want_name = {t.name} | ({t.alt_name} if t.alt_name and not t.name else set())
    if r.get("name") not in want_name:
        failures.append(f"{where}: name {r.get('name')!r}, expected {' or '.join(map(repr, sorted(want_name)))}")
    origins = t.origin if isinstance(t.origin, tuple) else (t.origin,)
    if r.get("origin") not in origins:
        failures.append(f"{where}: origin {r.get('origin')!r}, expected {' or '.join(origins)}")
    want_type = TYPE_NAMES[dt] if 0 <= dt < len(TYPE_NAMES) else None
    if want_type is not None and r.get("data_type") != want_type:
        failures.append(f"{where}: data_type {r.get('data_type')!r}, expected {want_type}")
    if r.get("dims") != list(st.dims):
        failures.append(f"{where}: dims {r.get('dims')!r}, expected {list(st.dims)}")
    if r.get("storage") not in storage_of(st):
        failures.append(f"{where}: storage {r.get('storage')!r}, expected {' or '.join(sorted(storage_of(st)))}")
    elements = math.prod(st.dims)
    values = 0 if dt == STRING else 2 * elements if dt in COMPLEX else elements
    for k, want in (("elements", elements), ("values", values)):
        if r.get(k) != want and not ("error" in r and k not in r):
            failures.append(f"{where}: {k} {r.get(k)!r}, expected {want}")
    if "error" in r:
        if not isinstance(r["error"], str) or not r["error"]:
            failures.append(f"{where}: error {r['error']!r} is not a message")
        stats = sorted(k for k in COUNTS + FORMAT_COUNTS + ["min", "max", "mean", "std", "histogram"] if k in r)
        if stats:
            failures.append(f"{where}: a record with an error also has {', '.join(stats)}")
    try:
        v = parts(np, numpy_helper, t.loaded)
    except Exception as ex:  # noqa: BLE001 - a payload python3-onnx cannot read is skipped
        v = None
        why = f"{type(ex).__name__}: {ex}"
    else:
        why = "a type python3-onnx 1.12 cannot convert"
    if v is None:
        return None, why
    if "error" in r:
        failures.append(f"{where}: error {r['error']!r}, but numpy reads the payload")
        return None, None
    e = expected_stats(np, dt, v)
    for k in COUNTS:
        if dt == STRING:
            if r.get(k, 0) != 0:
                failures.append(f"{where}: {k} {r.get(k)!r} on a STRING tensor")
        elif r.get(k) != e[k]:
            failures.append(f"{where}: {k} {r.get(k)!r}, numpy {e[k]}")
    for k in FORMAT_COUNTS:
        want = e.get(k)
        got = r.get(k, 0 if want is None else None)
        if got != (want or 0):
            failures.append(f"{where}: {k} {r.get(k, '(absent)')!r}, numpy {want if want is not None else 0}")
    if dt == STRING:
        for k in ("min", "max", "mean", "std"):
            if k in r:
                failures.append(f"{where}: STRING tensor has {k} {r[k]!r}")
        return e, None
    for k in ("min", "max"):
        if k not in r or not same_value(np, r[k], e[k], dt):
            failures.append(f"{where}: {k} {r.get(k, '(absent)')!r}, numpy {e[k]!r}")
    rtol = 1e-9 if dt in (DOUBLE, COMPLEX128) else 1e-6
    for k in ("mean", "std"):
        got, want = r.get(k, "(absent)"), e[k]
        if want is None or got is None or isinstance(got, bool) or not isinstance(got, (int, float)):
            if got is not None or want is not None:
                failures.append(f"{where}: {k} {got!r}, numpy {want!r}")
            continue
        tol = rtol * max(abs(want), e["maxabs"])
        if not abs(float(got) - want) <= tol:
            failures.append(f"{where}: {k} {got!r}, numpy {want!r} (difference {abs(float(got) - want):.3g} > "
                            f"tolerance {tol:.3g})")
    return e, None


def compare_histogram(np, model, t, r, e, failures, notes):
    where = f"{model}: {t.path} ({t.name!r})"
    h = r.get("histogram")
    dt = t.stored.data_type
    f = e.get("finite_values") if e is not None else None
    if dt == STRING:
        if h is not None:
            failures.append(f"{where}: STRING tensor has a histogram")
        return
    if f is None:
        return
    if f.size == 0:
        if h is not None and sum(h.get("counts") or []) != 0:
            failures.append(f"{where}: histogram {h!r} without finite values")
        return
    if not isinstance(h, dict):
        failures.append(f"{where}: no histogram with --histogram {HIST_BINS}")
        return
    if h.get("bins") != HIST_BINS:
        failures.append(f"{where}: histogram bins {h.get('bins')!r}")
    for k, want in (("low", e["min"]), ("high", e["max"])):
        if not same_value(np, h.get(k), want, dt, histogram=True):
            failures.append(f"{where}: histogram {k} {h.get(k)!r}, expected the finite {k == 'low' and 'min' or 'max'} "
                            f"{want!r}")
    counts = h.get("counts")
    if not isinstance(counts, list) or len(counts) != HIST_BINS:
        failures.append(f"{where}: histogram counts {counts!r}")
        return
    if sum(counts) != f.size:
        failures.append(f"{where}: histogram counts {counts} sum to {sum(counts)}, finite values {f.size}")
    d = f.astype(np.float64)
    low, high = float(d.min()), float(d.max())
    if not math.isfinite(high - low):
        # numpy.histogram fails here (high - low overflows a double): the
        # reference is the bin formula in long double.
        x = d.astype(np.longdouble)
        idx = np.floor((x - low) / (np.longdouble(high) - np.longdouble(low)) * HIST_BINS).astype(np.int64)
        want = np.bincount(np.clip(idx, 0, HIST_BINS - 1), minlength=HIST_BINS).tolist()
        if counts != want:
            failures.append(f"{where}: histogram counts {counts}, expected {want} (range {low!r}..{high!r} overflows "
                            f"a double: numpy.histogram cannot; the reference is computed in long double)")
        else:
            notes.append(f"{where}: range {low!r}..{high!r} overflows a double (numpy.histogram fails on it); "
                         f"onnxview's counts {counts} equal the long double reference")
        return
    want = np.histogram(f, bins=HIST_BINS)[0].tolist()
    if counts == want:
        return
    if low == high:
        failures.append(f"{where}: histogram of {d.size} equal values {low!r}: counts {counts}, numpy {want} "
                        f"(numpy widens the range to v +- 0.5: every value in the middle bin)")
        return
    idx = np.floor((d - low) / (high - low) * HIST_BINS).astype(np.int64)
    formula = np.bincount(np.clip(idx, 0, HIST_BINS - 1), minlength=HIST_BINS).tolist()
    double = np.histogram(d, bins=HIST_BINS)[0].tolist()
    if counts in (formula, double):
        how = "floor((x - low) / (high - low) * bins) in double" if counts == formula else \
            "numpy.histogram on the values converted to double"
        moved = sum(abs(a - b) for a, b in zip(counts, want)) // 2
        notes.append(f"{where}: histogram {counts}, numpy on {f.dtype} {want}: {moved} value(s) at a bin edge "
                     f"fall the other way; onnxview matches {how}")
        return
    failures.append(f"{where}: histogram counts {counts}, numpy on {f.dtype} {want}"
                    + (f" (on double {double})" if double != want else ""))


def run_stats(onnxview, path, extra):
    r = subprocess.run([onnxview, "stats", path, "--json"] + extra, capture_output=True, text=True)
    try:
        doc = json.loads(r.stdout)
    except ValueError as e:
        raise AssertionError(f"{path}: stats --json {' '.join(extra)}: exit {r.returncode}, stdout is not JSON "
                             f"({e}); stderr {r.stderr.strip()[:300]!r}")
    return r.returncode, doc


def check_model(np, onnx, numpy_helper, onnxview, path, histogram, counters):
    failures, notes = [], []
    stored = onnx.load(path, load_external_data=False)
    try:
        loaded = onnx.load(path)
    except Exception:  # noqa: BLE001 - external data absent: those payloads are unreadable
        loaded = stored
    tensors = model_tensors(stored, loaded)
    runs = [[]] + ([["--histogram", str(HIST_BINS)]] if histogram else [])
    for extra in runs:
        rc, doc = run_stats(onnxview, path, extra)
        records = doc.get("tensors")
        if not isinstance(records, list):
            failures.append(f"{path}: stats --json has no tensors array")
            continue
        if doc.get("file") != path:
            failures.append(f"{path}: \"file\" is {doc.get('file')!r}")
        by_path = {t.path: t for t in tensors}
        matched = {}
        unmatched = []
        for r in records:
            t = by_path.get(r.get("path"))
            if t is not None and t.path not in matched:
                matched[t.path] = r
            else:
                unmatched.append(r)
        for r in unmatched:
            cands = [t for t in tensors if t.path not in matched and r.get("name") in ({t.name, t.alt_name} - {None})
                     and r.get("origin") in (t.origin if isinstance(t.origin, tuple) else (t.origin,))]
            if len(cands) == 1:
                failures.append(f"{path}: record {r.get('name')!r} has path {r.get('path')!r}, expected "
                                f"{cands[0].path}")
                matched[cands[0].path] = r
            else:
                failures.append(f"{path}: record path {r.get('path')!r} name {r.get('name')!r} "
                                f"origin {r.get('origin')!r} matches no tensor")
        for t in tensors:
            if t.path not in matched:
                if t.optional:
                    if not extra:
                        counters["sparse_attr_unlisted"] += 1
                else:
                    failures.append(f"{path}: {t.path} ({t.name!r}, {t.origin}) is not listed")
            elif t.optional and not extra:
                counters["sparse_attr_listed"] += 1
        has_error = False
        for t in tensors:
            r = matched.get(t.path)
            if r is None:
                continue
            has_error |= "error" in r
            e, skipped = compare_record(np, numpy_helper, path, t, r, failures)
            if not extra:
                counters["records"] += 1
                if skipped:
                    counters["skipped"] += 1
                    counters["skip_reasons"].add(skipped)
            if extra:
                compare_histogram(np, path, t, r, e, failures, notes)
            elif "histogram" in r:
                failures.append(f"{path}: {t.path} has a histogram without --histogram")
        totals = doc.get("totals") or {}
        sums = {k: sum(r.get(k, 0) or 0 for r in records) for k in TOTALS}
        sums["tensors"] = len(records)
        sums["unreadable"] = sum(1 for r in records if "error" in r)
        for k, want in sums.items():
            if totals.get(k) != want:
                failures.append(f"{path}: totals.{k} {totals.get(k)!r}, the records sum to {want}")
        if rc != 0 and not has_error:
            failures.append(f"{path}: stats --json {' '.join(extra)} exit status {rc}")
    return failures, notes, tensors


def check_names(onnxview, path, tensors):
    """stats MODEL N1 N2 lists exactly the tensors of those names."""
    names = []
    for t in tensors:
        if t.name and t.name not in names:
            names.append(t.name)
    if not names:
        return []
    pick = names[:1] + names[-1:] if len(names) > 1 else names
    rc, doc = run_stats(onnxview, path, pick)
    got = sorted(r.get("path") for r in doc.get("tensors") or [])
    listed_optional = {r.get("path") for r in doc.get("tensors") or []}
    want = sorted(t.path for t in tensors if t.name in pick and (not t.optional or t.path in listed_optional))
    if got != want or (rc != 0 and not any("error" in r for r in doc.get("tensors") or [])):
        return [f"{path}: stats {' '.join(pick)}: exit {rc}, paths {got}, expected {want}"]
    return []


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxview", required=True)
    ap.add_argument("--corpus", default="/usr/share/libonnx-testdata/data")
    ap.add_argument("--limit", type=int, default=150)
    ap.add_argument("--histogram-limit", type=int, default=10)
    args = ap.parse_args()
    try:
        import numpy as np
        import onnx
        from onnx import numpy_helper
    except ImportError as e:
        print(f"stats_oracle: skipped: {e}")
        return SKIP
    models = [(p, True) for p in sorted(glob.glob(os.path.join(ROOT, "testdata", "*.onnx")))]
    models += [(p, False) for p in sorted(glob.glob(os.path.join(ROOT, "testdata", "profile", "*.onnx")))]
    corpus = []
    for p in sorted(glob.glob(os.path.join(args.corpus, "**", "model.onnx"), recursive=True)):
        m = onnx.load(p, load_external_data=False)
        if model_tensors(m, m):
            corpus.append(p)
    if corpus and args.limit != 0:
        step = len(corpus) / min(args.limit, len(corpus))
        corpus = [corpus[int(i * step)] for i in range(min(args.limit, len(corpus)))]
    hist_every = max(1, len(corpus) // max(1, args.histogram_limit)) if args.histogram_limit > 0 else 0
    for i, p in enumerate(corpus):
        models.append((p, hist_every > 0 and i % hist_every == 0 and i // hist_every < args.histogram_limit))
    failures, notes = [], []
    counters = {"records": 0, "skipped": 0, "skip_reasons": set(), "sparse_attr_listed": 0,
                "sparse_attr_unlisted": 0}
    histograms = 0
    for path, histogram in models:
        try:
            f, n, tensors = check_model(np, onnx, numpy_helper, args.onnxview, path, histogram, counters)
            if path.startswith(os.path.join(ROOT, "testdata")):
                f += check_names(args.onnxview, path, tensors)
        except AssertionError as e:
            f, n = [str(e)], []
        failures += f
        notes += n
        histograms += histogram
    failures, notes = list(dict.fromkeys(failures)), list(dict.fromkeys(notes))
    for n in notes:
        print("NOTE", n)
    for f in failures:
        print("FAIL", f)
    print(f"stats_oracle: {len(models)} models ({histograms} with --histogram), {counters['records']} tensors "
          f"compared, {counters['skipped']} with statistics skipped"
          + (f" ({'; '.join(sorted(counters['skip_reasons']))})" if counters["skip_reasons"] else "")
          + f", sparse attribute tensors listed {counters['sparse_attr_listed']}"
          f" / not listed {counters['sparse_attr_unlisted']}, {len(notes)} notes, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
