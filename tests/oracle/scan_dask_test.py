#!/usr/bin/python3
"""Checks examples/dask_scan.py (onnxview.scan_record mapped over a Dask
LocalCluster) against `onnxview scan --format jsonl`.

  scan_dask_test.py --onnxview BUILD/tools/onnxview --pythonpath BUILD/python
                    [--workers N] [--fixtures DIR]

The recipe runs with PYTHONPATH=DIR (its worker processes inherit it) on a
LocalCluster of --workers (default 2) processes, over the repository's
testdata/ and the files of scripts/make_scan_fixtures.py (written to a
temporary directory unless --fixtures names one it wrote). Each run must
give, line for line, the records the command gives for the same targets
(parsed JSON equality, in the same order), and the same exit status:

  1. `dask_scan.py --workers N testdata FIXTURES` from the repository's root
     (a relative and an absolute directory) against
     `onnxview scan --format jsonl testdata FIXTURES` there;
  2. `dask_scan.py --workers N --batch 1 --numeric --digests LIST`, LIST a
     list file naming the fixture models in reverse order, testdata/profile
     and a missing file, against `onnxview scan --numeric --digests --from
     LIST` (one task per file; the records of a file that cannot be read).

The recipe's stderr must be empty (the cluster's log lines silenced). The
last line is `N passed, M failed` (checks). Exits 77 (skipped) when dask's
distributed (Debian: python3-distributed), python3-onnx or numpy is absent,
1 on any failure.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

SKIP = 77
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RECIPE = os.path.join(ROOT, "examples", "dask_scan.py")
MAKER = os.path.join(ROOT, "scripts", "make_scan_fixtures.py")
TIMEOUT = 900


def parse(text, what, failures):
    out = []
    for i, line in enumerate(text.splitlines()):
        if line.strip():
            try:
                out.append(json.loads(line))
            except ValueError as e:
                failures.append(f"{what}: line {i + 1} is not JSON ({e}): {line[:200]!r}")
    return out


def compare(want, got, what):
    """Failures (a list of strings) of got against want, record for record."""
    failures = []
    if [r.get("path") for r in got] != [r.get("path") for r in want]:
        failures.append(f"{what}: {len(got)} records for paths {[r.get('path') for r in got][:4]}..., "
                        f"the command gives {len(want)} for {[r.get('path') for r in want][:4]}...")
    for i, (w, g) in enumerate(zip(want, got)):
        if w != g:
            keys = sorted(k for k in set(w) | set(g) if w.get(k) != g.get(k))
            detail = "; ".join(f"{k}: recipe {json.dumps(g.get(k))[:150]}, command {json.dumps(w.get(k))[:150]}"
                               for k in keys[:3])
            failures.append(f"{what}: record {i} ({w.get('path')}) differs in {keys}: {detail}")
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxview", required=True)
    ap.add_argument("--pythonpath", required=True, help="the directory that holds the onnxview Python module")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--fixtures", help="a directory make_scan_fixtures.py wrote (default: write one now)")
    args = ap.parse_args()
    try:
        import distributed  # noqa: F401 - the recipe's cluster
        import numpy  # noqa: F401 - the fixtures' maker
        import onnx  # noqa: F401
    except ImportError as e:
        print(f"scan_dask_test: skipped: {e}")
        return SKIP
    onnxview = os.path.abspath(args.onnxview)
    env = dict(os.environ, PYTHONPATH=os.path.abspath(args.pythonpath))
    r = subprocess.run([sys.executable, "-c", "import onnxview; onnxview.scan_record"], capture_output=True,
                       text=True, env=env)
    if r.returncode != 0:
        print(f"FAIL onnxview.scan_record is not importable from {args.pythonpath}: "
              f"{r.stderr.strip().splitlines()[-1:]}")
        print("0 passed, 1 failed")
        return 1
    passed, failures = 0, []
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
        lst = os.path.join(work, "targets.txt")
        models = sorted(glob.glob(os.path.join(fx, "models", "*.onnx")), reverse=True)
        with open(lst, "w") as f:
            f.write("\n".join(models + [os.path.join(ROOT, "testdata", "profile"),
                                        os.path.join(work, "no_such_model.onnx")]) + "\n")
        runs = [("1. testdata FIXTURES", ["testdata", fx], [], ["testdata", fx]),
                ("2. --batch 1 --numeric --digests LIST", ["--batch", "1", "--numeric", "--digests", lst],
                 ["--numeric", "--digests"], ["--from", lst])]
        for what, recipe_args, flags, cli_targets in runs:
            t0 = time.time()
            cli = subprocess.run([onnxview, "scan", "--format", "jsonl"] + flags + cli_targets, capture_output=True,
                                 text=True, cwd=ROOT)
            t1 = time.time()
            try:
                rec = subprocess.run([sys.executable, RECIPE, "--workers", str(args.workers)] + recipe_args,
                                     capture_output=True, text=True, cwd=ROOT, env=env, timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                failures.append(f"{what}: the recipe took more than {TIMEOUT} s")
                continue
            t2 = time.time()
            f = []
            want = parse(cli.stdout, f"{what}: command", f)
            got = parse(rec.stdout, f"{what}: recipe", f)
            if cli.returncode not in (0, 1):
                f.append(f"{what}: the command exits {cli.returncode}: {cli.stderr.strip()[:300]}")
            if not want:
                f.append(f"{what}: the command gives no records")
            f += compare(want, got, what)
            if rec.returncode != cli.returncode:
                f.append(f"{what}: the recipe exits {rec.returncode}, the command {cli.returncode}"
                         + (f"; recipe stderr: {rec.stderr.strip()[-500:]}" if rec.stderr.strip() else ""))
            if rec.stderr.strip():
                f.append(f"{what}: the recipe wrote to stderr: {rec.stderr.strip()[-500:]}")
            print(f"{what}: {len(want)} records; command {t1 - t0:.1f} s, recipe on {args.workers} workers "
                  f"{t2 - t1:.1f} s")
            checks = 5 + len(want)
            passed += max(0, checks - len(f))
            failures += f
    for f in failures:
        print("FAIL", f)
    print(f"{passed} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
