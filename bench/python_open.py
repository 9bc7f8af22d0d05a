#!/usr/bin/python3
"""Open a model, list its initializer names and read one tensor: onnxview's
Python package against onnx.load, side by side, each run in a fresh process.

    /usr/bin/python3 bench/python_open.py [--runs N] [--tensor NAME] MODEL [MODEL ...]

Rows per model (median wall time of N runs; peak RSS growth of the process
over its RSS after the imports: VmHWM, reset through /proc/self/clear_refs;
of it, the anonymous memory still held at the end, RssAnon: the rest is
file pages mapped in place, shared with the page cache):
  onnxview          onnxview.open + keys() + get_tensor(one).sum()
  onnx.load         onnx.load + [names] + numpy_helper.to_array(one).sum()
  onnx.load no-ext  onnx.load(load_external_data=False) of an external-data copy
                    (written once into --scratch as NAME.ext.onnx + NAME.ext.data
                    when --external is given), + to_array of the tensor's file
Every run's checksum of the tensor must agree with onnxview's, or the row fails.
Needs PYTHONPATH to hold the onnxview package (e.g. BUILD/python) unless installed.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

CHILD = r"""
import json, sys, time
import numpy
def status(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
which, path, name = sys.argv[1:4]
if which == "onnxview":
    import onnxview
else:
    import onnx
    from onnx import numpy_helper
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # resets the peak RSS (VmHWM) to the current RSS
base, base_anon = status("VmRSS"), status("RssAnon")
t0 = time.perf_counter()
if which == "onnxview":
    with onnxview.open(path) as m:
        names = m.keys()
        total = float(m.get_tensor(name or names[0]).sum(dtype=numpy.float64))
else:
    model = onnx.load(path, load_external_data=(which == "onnx"))
    names = [t.name for t in model.graph.initializer]
    t = next(t for t in model.graph.initializer if t.name == (name or names[0]))
    import os
    total = float(numpy_helper.to_array(t, os.path.dirname(path)).sum(dtype=numpy.float64))
wall = time.perf_counter() - t0
peak, anon = status("VmHWM"), status("RssAnon")
print(json.dumps({"wall": wall, "rss_growth": max(0, peak - base), "anon_growth": max(0, anon - base_anon),
                  "names": len(names), "sum": total}))
"""


def run(which, path, name, runs):
    results = []
    for _ in range(runs):
        r = subprocess.run([sys.executable, "-c", CHILD, which, path, name or ""],
                           capture_output=True, text=True)
        if r.returncode != 0:
            return {"error": (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[-1]}
        results.append(json.loads(r.stdout))
    return {"wall": statistics.median(x["wall"] for x in results),
            "rss_growth": max(x["rss_growth"] for x in results),
            "anon_growth": max(x["anon_growth"] for x in results),
            "names": results[0]["names"], "sum": results[0]["sum"]}


def external_copy(path, scratch):
    import onnx
    os.makedirs(scratch, exist_ok=True)
    out = os.path.join(scratch, os.path.basename(path)[:-len(".onnx")] + ".ext.onnx")
    if not os.path.exists(out):
        model = onnx.load(path)
        onnx.save_model(model, out, save_as_external_data=True, all_tensors_to_one_file=True,
                        location=os.path.basename(out)[:-len(".onnx")] + ".data", size_threshold=1024)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", nargs="+")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--tensor", help="the tensor to read (default: the first initializer)")
    ap.add_argument("--external", action="store_true", help="also time onnx.load(load_external_data=False)")
    ap.add_argument("--scratch", default=os.path.join(tempfile.gettempdir(), "onnxview-bench"),
                    help="where the external-data copies go (default: %(default)s)")
    args = ap.parse_args()
    print("| model | size | reader | wall (median of %d) | peak RSS growth | anonymous | wall / onnxview's |" % args.runs)
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: |")
    failed = False
    for path in args.models:
        rows = [("onnxview", path), ("onnx.load", path)]
        if args.external:
            try:
                rows.append(("onnx.load no-ext", external_copy(path, args.scratch)))
            except Exception as e:  # noqa: BLE001 - onnx cannot read models over 2 GiB
                print("| %s | | onnx.load no-ext | fails: no external-data copy (%s) | | | |" % (
                    os.path.basename(path), type(e).__name__))
        ref = None
        for label, p in rows:
            which = {"onnxview": "onnxview", "onnx.load": "onnx", "onnx.load no-ext": "noext"}[label]
            r = run(which, p, args.tensor, args.runs)
            size = "%.1f MB" % (os.path.getsize(path) / 1e6)
            if "error" in r:
                print("| %s | %s | %s | fails: %s | | | |" % (os.path.basename(path), size, label, r["error"][:80]))
                continue
            if ref is None:
                ref = r
            elif r["sum"] != ref["sum"] and not (r["sum"] != r["sum"] and ref["sum"] != ref["sum"]):
                failed = True
                print("| %s | %s | %s | checksum %r differs from onnxview's %r | | | |" % (
                    os.path.basename(path), size, label, r["sum"], ref["sum"]))
                continue
            print("| %s | %s | %s | %.4f s | %.1f MiB | %.1f MiB | %s |" % (
                os.path.basename(path), size, label, r["wall"], r["rss_growth"] / 2**20, r["anon_growth"] / 2**20,
                "1" if r is ref else "%.3g" % (r["wall"] / ref["wall"])))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
