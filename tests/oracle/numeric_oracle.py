#!/usr/bin/python3
"""Checks `onnxview check --numeric` (JSON and SARIF) on models with known faults.

  numeric_oracle.py --onnxview BUILD/tools/onnxview [--models DIR]

The models and their expected findings come from scripts/make_numeric_models.py
(run into a temporary directory unless --models names a directory it already
wrote; its docstring lists the faults). Each model is checked from inside its
directory (`onnxview check NAME.onnx ...`, a relative path) so that the SARIF
artifact URI is the name as given.

1. `check MODEL --numeric --json`: the numeric findings (codes below) must
   equal expected.json exactly, as a multiset of (code, tensor, count); a clean
   twin has none. Each numeric finding has the severity its code has (error,
   warning or info) and a non-empty path and message; every finding that
   carries "tensor" or "count" has a numeric code. No structural (non-numeric)
   finding is allowed, except payload_size_mismatch on the model whose
   expected findings include packing. The top level's "errors", "warnings"
   and "infos" count the findings of each severity, "valid" is errors == 0,
   and the exit status is 1 with errors, 0 without.
2. `check MODEL --numeric --sarif` must validate against the SARIF 2.1.0
   schema (tests/data/sarif-schema-2.1.0.json, OASIS errata 01, a draft-04
   schema) with python3-jsonschema, have one run whose tool.driver.name is
   "onnxview", and one result per finding of the JSON report (as a multiset of
   ruleId = code, level = error/warning/note for error/warning/info, and
   locations[0].logicalLocations[0].fullyQualifiedName = the finding's path),
   each with a non-empty message.text and
   locations[0].physicalLocation.artifactLocation.uri = the model path as
   given; every ruleId must be the id of one of tool.driver.rules. Its exit
   status, and that of the text report (`check MODEL --numeric`), must be the
   JSON run's.

Exits 77 (skipped) when python3-onnx, numpy or python3-jsonschema is absent.
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

SKIP = 77
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMA = os.path.join(ROOT, "tests", "data", "sarif-schema-2.1.0.json")
MAKER = os.path.join(ROOT, "scripts", "make_numeric_models.py")

# numeric code -> severity
NUMERIC = {
    "non_finite": "error", "fp16_overflow": "warning", "bf16_overflow": "warning",
    "fp16_underflow": "warning", "subnormal": "warning", "all_zero": "info", "constant": "info",
    "duplicate": "info", "quant_scale": "error", "quant_zero_point": "error", "quant_shape": "error",
    "packing": "error", "unreadable": "warning",
}
SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def run(onnxview, model_dir, name, fmt):
    r = subprocess.run([onnxview, "check", name, "--numeric", fmt], capture_output=True, text=True,
                       cwd=model_dir)
    try:
        doc = json.loads(r.stdout)
    except ValueError as e:
        raise AssertionError(f"check {name} --numeric {fmt}: exit {r.returncode}, stdout is not JSON ({e}): "
                             f"{r.stdout[:300]!r} stderr {r.stderr.strip()[:300]!r}")
    return r.returncode, doc


def key(f):
    return (f.get("code"), f.get("tensor"), f.get("count"))


def show(keys):
    return ", ".join(f"{c}({t}, {n})" for c, t, n in sorted(keys, key=repr)) or "none"


def check_json(name, rc, doc, expected):
    failures = []
    findings = doc.get("findings")
    if not isinstance(findings, list):
        return [f"{name}: JSON report has no findings array"]
    numeric = [f for f in findings if f.get("code") in NUMERIC]
    structural = [f for f in findings if f.get("code") not in NUMERIC]
    got = collections.Counter(key(f) for f in numeric)
    want = collections.Counter((e["code"], e["tensor"], e["count"]) for e in expected)
    if got != want:
        failures.append(f"{name}: numeric findings {show(got.elements())}; expected {show(want.elements())}"
                        + (f" (missing {show((want - got).elements())};" if want - got else " (")
                        + (f" unexpected {show((got - want).elements())})" if got - want else ")"))
    allowed = {"payload_size_mismatch"} if any(e["code"] == "packing" for e in expected) else set()
    for f in structural:
        if f.get("code") not in allowed:
            failures.append(f"{name}: structural finding {f.get('severity')} {f.get('code')} at {f.get('path')}: "
                            f"{f.get('message')}")
        if "tensor" in f or "count" in f:
            failures.append(f"{name}: finding {f.get('code')} is not numeric but carries tensor/count")
    for f in numeric:
        if f.get("severity") != NUMERIC[f["code"]]:
            failures.append(f"{name}: {f['code']} on {f.get('tensor')} has severity {f.get('severity')}, "
                            f"expected {NUMERIC[f['code']]}")
        if not f.get("path") or not f.get("message"):
            failures.append(f"{name}: {f['code']} on {f.get('tensor')} has an empty path or message: {f}")
        if "tensor" not in f or "count" not in f:
            failures.append(f"{name}: {f['code']} lacks the tensor or count field: {f}")
    counts = collections.Counter(f.get("severity") for f in findings)
    for field, sev in (("errors", "error"), ("warnings", "warning"), ("infos", "info")):
        if doc.get(field) != counts[sev]:
            failures.append(f"{name}: \"{field}\" is {doc.get(field)!r}, the report has {counts[sev]} {sev} findings")
    unknown = set(counts) - {"error", "warning", "info"}
    if unknown:
        failures.append(f"{name}: unknown severities {sorted(map(str, unknown))}")
    if doc.get("valid") is not (counts["error"] == 0):
        failures.append(f"{name}: \"valid\" is {doc.get('valid')!r} with {counts['error']} errors")
    if doc.get("truncated") is not False:
        failures.append(f"{name}: \"truncated\" is {doc.get('truncated')!r}")
    want_rc = 1 if counts["error"] else 0
    if rc != want_rc:
        failures.append(f"{name}: --json exit status {rc}, expected {want_rc}")
    return failures


def check_sarif(jsonschema, schema, name, rc, json_rc, log, findings):
    failures = []
    validator = jsonschema.validators.validator_for(schema)(schema)
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.absolute_path))
    for e in errors[:5]:
        where = "/".join(str(p) for p in e.absolute_path) or "(top)"
        failures.append(f"{name}: SARIF does not validate at {where}: {e.message[:200]}")
    if len(errors) > 5:
        failures.append(f"{name}: SARIF: {len(errors) - 5} more schema errors")
    if rc != json_rc:
        failures.append(f"{name}: --sarif exit status {rc}, --json's is {json_rc}")
    runs = log.get("runs") if isinstance(log, dict) else None
    if not isinstance(runs, list) or len(runs) != 1:
        return failures + [f"{name}: SARIF has {len(runs) if isinstance(runs, list) else 'no'} runs, expected 1"]
    run0 = runs[0]
    driver = run0.get("tool", {}).get("driver", {})
    if driver.get("name") != "onnxview":
        failures.append(f"{name}: tool.driver.name is {driver.get('name')!r}")
    rule_ids = {r.get("id") for r in driver.get("rules", []) or []}
    results = run0.get("results") or []
    got = collections.Counter()
    for i, r in enumerate(results):
        locs = r.get("locations") or [{}]
        uri = locs[0].get("physicalLocation", {}).get("artifactLocation", {}).get("uri")
        logical = (locs[0].get("logicalLocations") or [{}])[0].get("fullyQualifiedName")
        got[(r.get("ruleId"), r.get("level"), logical)] += 1
        if uri != name:
            failures.append(f"{name}: results[{i}] artifact uri {uri!r}, expected {name!r}")
        if not (r.get("message") or {}).get("text"):
            failures.append(f"{name}: results[{i}] has no message.text")
        if r.get("ruleId") not in rule_ids:
            failures.append(f"{name}: results[{i}] ruleId {r.get('ruleId')!r} is not among tool.driver.rules")
    want = collections.Counter((f.get("code"), SARIF_LEVEL.get(f.get("severity")), f.get("path")) for f in findings)
    if got != want:
        failures.append(f"{name}: SARIF results (ruleId, level, path) differ from the JSON findings: "
                        f"missing {sorted((want - got).elements())}, unexpected {sorted((got - want).elements())}")
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxview", required=True)
    ap.add_argument("--models", help="a directory make_numeric_models.py wrote (default: write one now)")
    args = ap.parse_args()
    try:
        import numpy  # noqa: F401 - the models' maker needs it
        import onnx  # noqa: F401
        import jsonschema
    except ImportError as e:
        print(f"numeric_oracle: skipped: {e}")
        return SKIP
    onnxview = os.path.abspath(args.onnxview)
    with open(SCHEMA) as f:
        schema = json.load(f)
    with tempfile.TemporaryDirectory() as work:
        model_dir = args.models
        if model_dir is None:
            model_dir = work
            r = subprocess.run([sys.executable, MAKER, model_dir], capture_output=True, text=True)
            if r.returncode != 0:
                print(f"FAIL make_numeric_models.py: exit {r.returncode}: {r.stderr.strip()}")
                return 1
        with open(os.path.join(model_dir, "expected.json")) as f:
            expected = json.load(f)
        failures = []
        for name in sorted(expected):
            try:
                rc, doc = run(onnxview, model_dir, name, "--json")
                failures += check_json(name, rc, doc, expected[name])
                src, log = run(onnxview, model_dir, name, "--sarif")
                failures += check_sarif(jsonschema, schema, name, src, rc, log, doc.get("findings") or [])
                text = subprocess.run([onnxview, "check", name, "--numeric"], capture_output=True, text=True,
                                      cwd=model_dir)
                if text.returncode != rc:
                    failures.append(f"{name}: text report exit status {text.returncode}, --json's is {rc}")
            except AssertionError as e:
                failures.append(str(e))
    for f in failures:
        print("FAIL", f)
    print(f"numeric_oracle: {len(expected)} models, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
