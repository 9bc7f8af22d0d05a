#!/usr/bin/python3
"""Scans many ONNX files on a Dask cluster: `onnxview scan --format jsonl`,
spread over processes or machines.

  dask_scan.py [--scheduler ADDRESS] [--workers N] [--batch N]
               [--numeric] [--digests] [--fail-on error|warning|info|none]
               TARGET... > out.jsonl

TARGET is a directory (walked recursively for files whose name ends in
.onnx, any case, sorted by path), a model (a file whose name ends in .onnx),
or a list file (any other file, or "-" for stdin): one target per line,
a directory or a model, blank lines ignored. Each model gives one record,
onnxview.scan_record(PATH, numeric, digests), written as one JSON line in
the order of the targets, as `onnxview scan --format jsonl TARGET...`
writes them (the same records; tests/oracle/scan_dask_test.py checks it).

Without --scheduler the script starts a LocalCluster of N worker processes
(--workers, default: the number of CPUs, at most 8), one thread each: the
scan of one file holds the GIL little, but a process per worker keeps one
hostile file from taking the others down. The cluster listens on 127.0.0.1
only and has no dashboard, so it runs where there is no network. With
--scheduler tcp://HOST:8786 the files are scanned by that cluster's workers,
which must have the onnxview module and see the files under the same paths
(relative paths are resolved in each worker's current directory: on a
LocalCluster that is the one the script runs in; give absolute paths to a
remote cluster).

Files are sent in batches (--batch, default: enough for 4 batches per
worker, at most 64 files each) so that a million small models do not make a
million tasks. scan_record is a pure function of the file, so the tasks are
pure (a file scanned twice in one run is scanned once). Results are written
as their batch completes, in order, and released: memory stays that of a few
batches.

A file that cannot be read gives the record the command-line tool gives
(with "error"); should scan_record itself raise, the record is
{"schema", "path", "error": "scan_record failed: ..."} and the exit status 2.
Otherwise the exit status is the command's: 1 when a finding at or above
--fail-on (default error) was seen, 0 when not.

The worker processes import onnxview; when it is not installed, run with
PYTHONPATH=BUILD/python (the workers inherit the environment).
"""
import argparse
import json
import logging
import os
import sys
import tempfile
import warnings

RANK = {"info": 0, "warning": 1, "error": 2}


def expand(targets):
    """The files to scan, in the order `onnxview scan` lists them."""
    out = []
    for t in targets:
        if os.path.isdir(t):
            found = []
            for d, _, files in os.walk(t):
                found += [os.path.join(d, f) for f in files if f.lower().endswith(".onnx")]
            out += sorted(found)
        elif t == "-" or (os.path.isfile(t) and not t.lower().endswith(".onnx")):
            lines = sys.stdin.read().splitlines() if t == "-" else open(t, encoding="utf-8").read().splitlines()
            out += expand_lines([line for line in lines if line.strip()])
        else:
            out.append(t)  # a model, or a missing file: scan_record says so
    return out


def expand_lines(lines):
    out = []
    for t in lines:
        if os.path.isdir(t):
            out += expand([t])
        else:
            out.append(t)
    return out


def scan_batch(paths, numeric=False, digests=False):
    """Runs on a worker: the records of a batch of files."""
    import onnxview  # imported on the worker

    records = []
    for p in paths:
        try:
            records.append(onnxview.scan_record(p, numeric=numeric, digests=digests))
        except Exception as e:  # noqa: BLE001 - one bad file must not lose the batch
            records.append({"schema": "onnxview-scan/1", "path": p,
                            "error": f"scan_record failed: {type(e).__name__}: {e}"})
    return records


def batches(items, size):
    return [items[i:i + size] for i in range(0, len(items), size)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("targets", nargs="+", metavar="TARGET")
    ap.add_argument("--scheduler", help="address of a running Dask scheduler (default: start a LocalCluster)")
    ap.add_argument("--workers", type=int, default=min(8, os.cpu_count() or 1),
                    help="worker processes of the LocalCluster")
    ap.add_argument("--batch", type=int, help="files per task")
    ap.add_argument("--numeric", action="store_true", help="scan_record(numeric=True): the weights' values too")
    ap.add_argument("--digests", action="store_true", help="scan_record(digests=True): SHA-256 of the files")
    ap.add_argument("--fail-on", choices=["error", "warning", "info", "none"], default="error")
    args = ap.parse_args(argv)

    warnings.filterwarnings("ignore")
    logging.getLogger("distributed").setLevel(logging.ERROR)
    try:
        from distributed import Client, LocalCluster
    except ImportError as e:
        print(f"dask_scan.py: {e}: install dask's distributed (Debian: python3-distributed)", file=sys.stderr)
        return 2

    files = expand(args.targets)
    workers = max(1, args.workers)
    size = args.batch or max(1, min(64, -(-len(files) // (workers * 4))))
    cluster = None
    if args.scheduler:
        client = Client(args.scheduler)
    else:
        # The workers' spill space in a directory of this run's own: a shared
        # default one collects other runs' stale locks (and log lines about them).
        space = tempfile.TemporaryDirectory(prefix="dask-scan-")
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                               dashboard_address=None, silence_logs=logging.ERROR, local_directory=space.name)
        client = Client(cluster)
    status, failed = 0, 0
    try:
        futures = client.map(scan_batch, batches(files, size), numeric=args.numeric, digests=args.digests,
                             pure=True)
        out = sys.stdout
        for i in range(len(futures)):
            for rec in futures[i].result():
                out.write(json.dumps(rec, separators=(",", ":"), sort_keys=False) + "\n")
                if str(rec.get("error", "")).startswith("scan_record failed:"):
                    failed += 1
                if args.fail_on != "none":
                    for f in rec.get("findings") or []:
                        if RANK.get(f.get("severity"), -1) >= RANK[args.fail_on]:
                            status = 1
            futures[i] = None  # released: the cluster forgets the batch
        out.flush()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    if failed:
        print(f"dask_scan.py: scan_record failed on {failed} files (their records say why)", file=sys.stderr)
        return 2
    return status


if __name__ == "__main__":
    sys.exit(main())
