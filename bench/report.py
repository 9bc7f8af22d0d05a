#!/usr/bin/python3
"""Turns the raw outputs of bench/run.sh into bench/RESULTS.md (on stdout)."""
import argparse
import json
import os
import platform
import re
import statistics
import subprocess
from collections import defaultdict

COMPETITORS = ["onnxview", "onnxview-views", "protozero", "protozero-checked", "libprotobuf", "libprotobuf-arena"]
PEERS = COMPETITORS[1:]
MODELS = ["meta", "weights", "packed", "huge", "testdata"]


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""


def fmt_ms(v):
    if v is None:
        return "-"
    if v >= 100:
        return f"{v:.0f}"
    if v >= 1:
        return f"{v:.2f}"
    return f"{v:.4f}"


def fmt_ratio(v):
    return "-" if v is None else (f"{v:.0f}x" if v >= 100 else f"{v:.2f}x")


def fmt_count(v):
    if v is None:
        return "-"
    if v >= 1e6:
        return f"{v / 1e6:.2f} M"
    if v >= 1e3:
        return f"{v / 1e3:.1f} k"
    return f"{v:.0f}"


def instructions_table(out_dir, w):
    """Workloads 2 and 3 counted by callgrind (instructions.jsonl, run.sh)."""
    counts = {}
    try:
        with open(os.path.join(out_dir, "instructions.jsonl")) as f:
            for line in f:
                try:
                    r = json.loads(line)
                except ValueError:
                    continue
                if r.get("ok") and r.get("instructions"):
                    counts[(r["model"], r["payloads"], r["competitor"])] = r["instructions"]
    except OSError:
        return
    if not counts:
        return
    w("## Workloads 2 and 3 in instructions (callgrind)\n")
    w("Instructions of one walk, the same walks as the two tables above, counted by "
      "`valgrind --tool=callgrind` inside the walk alone (`onnxview_bench --child=count`; an "
      "uncounted walk first). Unlike times they do not move with the machine's load. Full walks "
      "of the models over 200 MB and libprotobuf on them are left out (hours under callgrind).\n")
    w("| model | walk | " + " | ".join(COMPETITORS) + " | " +
      " | ".join(f"{c} / onnxview" for c in PEERS) + " |")
    w("|---" * (2 + len(COMPETITORS) + len(PEERS)) + "|")
    for m in MODELS:
        for payloads, walk in ((0, "metadata"), (1, "full")):
            n = {c: counts.get((m, payloads, c)) for c in COMPETITORS}
            if not any(n.values()):
                continue
            ratios = [fmt_ratio(n[c] / n["onnxview"]) if n[c] and n["onnxview"] else "-" for c in PEERS]
            w(f"| {m} | {walk} | " + " | ".join(fmt_count(n[c]) for c in COMPETITORS) + " | " +
              " | ".join(ratios) + " |")
    w("")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--command", default="bench/run.sh")
    ap.add_argument("--note", default="", help="a line printed under the title (e.g. a partial run)")
    args = ap.parse_args()

    jpath = os.path.join(args.out, "inproc.json")
    gb = {"benchmarks": [], "context": {}}
    try:
        with open(jpath) as f:
            gb = json.load(f)
    except (OSError, ValueError):
        # An interrupted run: the console output has the medians too.
        unit = {"ms": 1, "us": 1e-3, "ns": 1e-6, "s": 1e3}
        with open(os.path.join(args.out, "inproc.txt")) as f:
            for line in f:
                m = re.match(r"(\S+)_median\s+([\d.]+) (ms|us|ns|s)\s+([\d.]+) (ms|us|ns|s)\s+\d+(.*)", line)
                if m:
                    b = {"aggregate_name": "median", "run_name": m.group(1), "time_unit": "ms",
                       "real_time": float(m.group(2)) * unit[m.group(3)],
                       "cpu_time": float(m.group(4)) * unit[m.group(5)]}
                    n = re.search(r"nodes=([\d.]+)(k?)", m.group(6))
                    if n:
                        b["nodes"] = float(n.group(1)) * (1000 if n.group(2) else 1)
                    gb["benchmarks"].append(b)
    # median CPU time (ms) per benchmark name
    med = {}
    for b in gb["benchmarks"]:
        if b.get("aggregate_name") != "median":
            continue
        # Rows with a fixed iteration count (destroy/...) carry it in their name.
        name = re.sub(r"/iterations:\d+$", "", b["run_name"])
        scale = {"ms": 1, "us": 1e-3, "ns": 1e-6, "s": 1e3}[b["time_unit"]]
        med[name] = (b["cpu_time"] * scale, b["real_time"] * scale, b)
    checks, fails, mismatches = {}, defaultdict(dict), []
    with open(os.path.join(args.out, "inproc.txt")) as f:
        for line in f:
            m = re.match(r"# check (\w+)/([^/:]+)/([^:]+): FAILS: (.*)", line)
            if m:
                fails[(m.group(1), m.group(2))][m.group(3)] = m.group(4).strip()
                continue
            m = re.match(r"# check (\w+)/([^/:]+)/([^:]+): MISMATCH", line)
            if m:
                mismatches.append(line.strip())
                continue
            m = re.match(r"# check (\w+)/([^/:]+): (.*)", line)
            if m:
                checks[(m.group(1), m.group(2))] = m.group(3).strip()
    children = []
    cpath = os.path.join(args.out, "children.jsonl")
    with open(cpath if os.path.exists(cpath) else os.devnull) as f:
        for line in f:
            try:
                children.append(json.loads(line))
            except ValueError:
                pass

    models = [m for m in MODELS if any(k[1] == m for k in checks)]
    models += sorted({k[1] for k in checks} - set(models))

    out = []
    w = out.append
    w("# onnxview benchmark results\n")
    w("Generated by `bench/report.py` from the run below; raw outputs in `bench/cache/results/`.\n")
    if args.note:
        w(f"**{args.note}**\n")
    w(f"- Reproduce: `{args.command}` (builds with `-Dbenchmarks=enabled`, writes the models with "
      "`scripts/make_bench_models.py` when missing)")
    cpu = sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2")
    load = sh("cut -d' ' -f1-3 /proc/loadavg")
    cxx = sh("c++ --version | head -1")
    w(f"- Machine: {sh('nproc')} CPUs ({cpu.strip()}), {platform.system()} {platform.release()}; "
      f"load average at report time: {load} "
      "(the machine is shared: times are **CPU time** medians of the process, ratios are from the same run)")
    w(f"- Compiler: {cxx}; flags: `-O3 -std=c++17` (Meson buildtype=release, "
      "b_ndebug=if-release); Google Benchmark 1.7.1, libprotobuf 3.21.12, protozero 1.7.1 (Debian 12)")
    ctx = gb.get("context", {})
    w(f"- Google Benchmark context: {ctx.get('num_cpus')} CPUs at {ctx.get('mhz_per_cpu')} MHz, "
      f"library build type {ctx.get('library_build_type')}")
    w("")
    if mismatches:
        w("**Result mismatches (these competitors were not timed):**\n")
        for m in mismatches:
            w(f"    {m}")
        w("")
    else:
        w("Every competitor's counts and checksums equal onnxview's on every model it could read "
          "(checked before timing).\n")

    w("Competitors (bench/README.md says how each is written): `onnxview` walks with cursors "
      "(`onnxview/cursor.hpp`, each field decoded once), `onnxview-views` with the typed views "
      "(each message indexed, then its ranges read); `protozero-checked` is the `protozero` walk with "
      "the checks and meaning the cursors keep (wire types, the closed enum, the depth limit, last "
      "occurrence wins); the ratios are against `onnxview`.\n")
    w("Models: `meta` metadata-heavy (100k nodes, ~30 MB), `weights` weight-heavy (~1.5 GB raw_data, "
      "3k nodes), `packed` (~100 MB packed float_data), `huge` (~2.5 GB, over 2 GiB), `testdata` "
      "(the 1,072 libonnx-testdata models as one batch).\n")

    def table(workload, title, note=""):
        w(f"## {title}\n")
        if note:
            w(note + "\n")
        w("| model | " + " | ".join(f"{c} ms" for c in COMPETITORS) + " | " +
          " | ".join(f"{c} / onnxview" for c in PEERS) + " |")
        w("|---" * (1 + len(COMPETITORS) + len(PEERS)) + "|")
        for m in models:
            if (workload, m) not in checks:
                continue
            t = {c: med.get(f"{workload}/{m}/{c}", (None,))[0] for c in COMPETITORS}
            cells = []
            for c in COMPETITORS:
                if t[c] is None and c in fails.get((workload, m), {}):
                    cells.append("fails")
                else:
                    cells.append(fmt_ms(t[c]))
            ratios = [fmt_ratio(t[c] / t["onnxview"]) if t[c] and t["onnxview"] else "-" for c in PEERS]
            w(f"| {m} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")
        w("")
        for (wl, m), d in sorted(fails.items()):
            if wl == workload:
                for c, e in d.items():
                    w(f"- {m} / {c}: {e}")
        w("")

    table("open", "Workload 1: open (path to a handle whose graph can be read)",
          "The graph is located, not read (a lazy reader pays for it when it walks it; counting nodes "
          "is the metadata walk's job). onnxview (both): `mapped_file::open` (MADV_RANDOM) + `parse_model` "
          "(the model's own fields) + `has_graph()` + `producer_name()`; protozero: mmap (MADV_RANDOM) + "
          "the model's own fields; libprotobuf: mmap + `ParseFromArray` + `has_graph()` + "
          "`producer_name()`. Close/unmap included.")
    apart = ("libprotobuf: parse + walk; the destruction of the messages it built is timed apart "
             "(table below).")
    table("meta", "Workload 2: metadata walk (bytes in memory, parse included)", apart)
    table("full", "Workload 3: full walk (2 + every tensor element converted to double and summed)", apart)

    # Destruction of what the parse built (destroy/MODEL/COMPETITOR rows)
    builders = [c for c in COMPETITORS if any(n.startswith("destroy/") and n.endswith("/" + c) for n in med)]
    if builders:
        w("## Destroying what the parse built (libprotobuf)\n")
        w("Not part of workloads 1-3: the message tree of one parse (heap: every message and string "
          "freed; arena: the arena's destructor) destroyed, parse and walk untimed. `share` is the "
          "destruction's part of parse + metadata walk + destruction.\n")
        w("| model | " + " | ".join(f"{c} parse+walk ms | {c} destroy ms | {c} share" for c in builders) + " |")
        w("|---" * (1 + 3 * len(builders)) + "|")
        for m in models:
            cells = []
            for c in builders:
                pw = med.get(f"meta/{m}/{c}", (None,))[0]
                d = med.get(f"destroy/{m}/{c}", (None,))[0]
                share = f"{100 * d / (pw + d):.0f}%" if pw and d is not None else "-"
                cells += [fmt_ms(pw), fmt_ms(d), share]
            if any(x != "-" for x in cells):
                w(f"| {m} | " + " | ".join(cells) + " |")
        w("")

    instructions_table(args.out, w)

    # Workload 4
    w("## Workload 4: cold open + metadata walk (fresh process, posix_fadvise DONTNEED first)\n")
    w("Wall time (the disk is the point), median of the fresh-process runs; `read` is "
      "/proc/self/io read_bytes of the process, `resident` the file's pages in the page cache "
      "afterwards (mincore), both as a share of the file. onnxview maps with "
      "`advise_metadata_reads` (random access, the metadata found by a scan of the model's "
      "structure prefetched), protozero with MADV_RANDOM, libprotobuf with MADV_SEQUENTIAL "
      "(it reads every byte); libprotobuf's messages are destroyed after the clock stops.\n")
    w("| model | " + " | ".join(f"{c} s (read, resident)" for c in COMPETITORS) +
      " | libprotobuf / onnxview |")
    w("|---" * (2 + len(COMPETITORS)) + "|")
    by = defaultdict(list)
    for c in children:
        by[(c["mode"], c["payloads"], os.path.basename(c["path"]).replace(".onnx", ""), c["competitor"])].append(c)
    cold_models = []
    for c in children:
        mname = os.path.basename(c["path"]).replace(".onnx", "")
        if mname not in cold_models:
            cold_models.append(mname)
    for m in cold_models:
        cells, times = [], {}
        for comp in COMPETITORS:
            runs = by.get(("cold", 0, m, comp), [])
            oks = [r for r in runs if r["ok"]]
            if not runs:
                cells.append("-")
            elif not oks:
                cells.append("fails")
            else:
                t = statistics.median(r["seconds"] for r in oks)
                rb = statistics.median(r["read_bytes"] for r in oks)
                res = statistics.median(r["resident_after"] for r in oks)
                size = oks[0]["file_bytes"]
                times[comp] = t
                cells.append(f"{t:.3f} ({100 * rb / size:.2f}%, {100 * res / size:.2f}%)")
        ratio = fmt_ratio(times["libprotobuf"] / times["onnxview"]) if "libprotobuf" in times and "onnxview" in times else "-"
        w(f"| {m} | " + " | ".join(cells) + f" | {ratio} |")
    w("")

    # Workload 5
    w("## Workload 5: private (anonymous) memory added by open + walk, fresh process\n")
    w("/proc/self/smaps_rollup `Anonymous:` at the end of the walk (every structure built still "
      "alive) minus before the open. File pages of the mapping are not private anonymous memory "
      "and are not counted.\n")
    w("| model | walk | " + " | ".join(f"{c} KiB" for c in COMPETITORS) + " |")
    w("|---" * (2 + len(COMPETITORS)) + "|")
    for m in cold_models:
        for p, label in ((0, "metadata"), (1, "full")):
            cells = []
            for comp in COMPETITORS:
                runs = [r for r in by.get(("mem", p, m, comp), []) if r["ok"]]
                if not runs:
                    cells.append("fails" if by.get(("mem", p, m, comp)) else "-")
                else:
                    r = runs[0]
                    cells.append(f"{max(0, r['anon_peak_kib'] - r['anon_before_kib']):,}")
            w(f"| {m} | {label} | " + " | ".join(cells) + " |")
    w("")

    # Workload 6
    w("## Workload 6: over 2 GiB (`huge`)\n")
    for wl in ("open", "meta"):
        t = {c: med.get(f"{wl}/huge/{c}", (None,))[0] for c in COMPETITORS}
        parts = []
        for c in COMPETITORS:
            if t[c] is not None:
                parts.append(f"{c} {fmt_ms(t[c])} ms")
            elif c in fails.get((wl, "huge"), {}):
                parts.append(f"{c}: {fails[(wl, 'huge')][c]}")
        if parts:
            w(f"- {wl}: " + "; ".join(parts))
    w("")

    # graph.name() loop
    w("## `for each node: read graph.name()` (onnxview)\n")
    w("| model | nodes | without name ms | with name ms | ns/node without | ns/node with |")
    w("|---|---|---|---|---|---|")
    for m in models:
        a = med.get(f"graph_name_loop/{m}/without_name")
        b = med.get(f"graph_name_loop/{m}/with_name")
        if not a or not b:
            continue
        n = a[2].get("nodes", 0)
        w(f"| {m} | {n:,.0f} | {fmt_ms(a[0])} | {fmt_ms(b[0])} | {1e6 * a[0] / max(n, 1):.1f} | "
          f"{1e6 * b[0] / max(n, 1):.1f} |")
    w("")

    w("## Reference results (onnxview's; every timed competitor matched them)\n")
    for (wl, m), v in sorted(checks.items()):
        w(f"- {wl}/{m}: `{v}`")
    w("")
    # Tables written by bench/run.sh's fresh-process stages, with how they were measured.
    def measured_table(file, title, method):
        path = os.path.join(args.out, file)
        if os.path.exists(path):
            w(title + "\n")
            w(method + "\n")
            with open(path) as f:
                w(f.read())

    measured_table("pack.md", "## `onnxview pack` against `cp` (`bench/pack_vs_cp.sh`)",
                   "Median wall times of interleaved runs, warm page cache, output on the models' file system; every "
                   "run starts after `sync` and a pause, so that no run pays for the previous one's writeback or "
                   "deletion. pack fsyncs its outputs before renaming them into place and copies raw_data payloads "
                   "with `copy_file_range`; `cp` copies with `copy_file_range` too and does not sync, so `cp + sync` "
                   "is timed as well. `pack` aligns embedded payloads (64 B, `--allow-over-2gib` over 2 GiB), "
                   "`pack --external` moves them to a 4 KiB-aligned external file. Peak RSS: the largest VmHWM of "
                   "the pack runs (`/usr/bin/time`). Target: pack within 1.5x of `cp`, peak RSS at most 128 MiB.")
    measured_table("python.md", "## Python: open + list names + read one tensor (`bench/python_open.py`)",
                   "Each row is a fresh `/usr/bin/python3` process (numpy and the reader imported before the clock "
                   "starts): `onnxview.open` + `keys()` + `get_tensor(first).sum()` against `onnx.load` + names + "
                   "`numpy_helper.to_array(first).sum()`, and `onnx.load(load_external_data=False)` of an "
                   "external-data copy (written once; `to_array` then reads the one tensor's file). Every row's "
                   "checksum agrees with onnxview's or the row says it failed. Peak RSS growth is VmHWM over the "
                   "RSS after the imports; \"anonymous\" is the private memory still held at the end (the rest of "
                   "onnxview's growth is file pages mapped in place, shared with the page cache). Target: 100x "
                   "faster than `onnx.load`.")
    analysis = os.path.join(os.path.dirname(os.path.abspath(__file__)), "analysis.md")
    if os.path.exists(analysis):
        with open(analysis) as f:
            w(f.read())
    print("\n".join(out))


if __name__ == "__main__":
    main()
