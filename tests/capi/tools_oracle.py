#!/usr/bin/python3
"""The optional libraries' C functions against the CLI: for every model of
testdata/ and a spread of the corpus, `tools_c profile M` (and `--by op`,
`scope:1`) prints what `onnxview profile --json` prints, `tools_c hash M` what
`onnxview hash` prints, and `tools_c diff A B` what `onnxview diff --json A B`
prints (neighbouring models, and each model with itself), byte for byte;
where the CLI fails, the C function fails too. A `by` profile does not take
is invalid_argument.

  tools_oracle.py TOOLS_C ONNXVIEW SOURCE_ROOT [--corpus DIR] [--limit N]
"""
import argparse
import glob
import os
import subprocess
import sys


def run(*cmd):
    r = subprocess.run(cmd, capture_output=True, timeout=300)
    return r.returncode, r.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tools_c")
    ap.add_argument("onnxview")
    ap.add_argument("root")
    ap.add_argument("--corpus", default="/usr/share/libonnx-testdata/data")
    ap.add_argument("--limit", type=int, default=60)
    args = ap.parse_args()
    models = sorted(glob.glob(os.path.join(args.root, "testdata", "*.onnx")))
    corpus = sorted(glob.glob(os.path.join(args.corpus, "**", "model.onnx"), recursive=True))
    if corpus and args.limit:
        step = max(1, len(corpus) // args.limit)
        models += corpus[::step][: args.limit]
    compare = run(args.tools_c, "hash", models[0])[0] != 2  # 2: built without the comparison library
    checked = failures = 0

    def check(what, c_cmd, cli_cmd, answered=(0,)):
        nonlocal checked, failures
        checked += 1
        c_code, c_out = run(*c_cmd)
        cli_code, cli_out = run(*cli_cmd)
        cli_code = 0 if cli_code in answered else cli_code
        if cli_code == 0 and (c_code != 0 or c_out != cli_out):
            failures += 1
            print(f"FAIL {what}: the C function gives exit {c_code}, {len(c_out)} bytes; the CLI {len(cli_out)} bytes")
        elif cli_code != 0 and c_code == 0:
            failures += 1
            print(f"FAIL {what}: the CLI fails (exit {cli_code}), the C function does not")

    for m in models:
        check(f"profile {m}", [args.tools_c, "profile", m], [args.onnxview, "profile", "--json", m])
        for by in ("op", "scope:1"):
            check(f"profile --by {by} {m}", [args.tools_c, "profile", m, by],
                  [args.onnxview, "profile", "--json", "--by", by, m])
        if compare:
            check(f"hash {m}", [args.tools_c, "hash", m], [args.onnxview, "hash", m])
    if compare:
        for a, b in list(zip(models, models[1:]))[:: 3] + [(models[0], models[0])]:
            # diff exits 1 when the models differ, as diff(1) does
            check(f"diff {a} {b}", [args.tools_c, "diff", a, b], [args.onnxview, "diff", "--json", a, b], (0, 1))
    code, _ = run(args.tools_c, "profile", models[0], "by-nothing")
    checked += 1
    if code != 1:
        failures += 1
        print(f"FAIL a `by` profile does not take: exit {code}, not 1")
    print(f"{len(models)} models{'' if compare else ' (no comparison library: profile only)'}")
    print(f"{checked - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
