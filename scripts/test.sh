#!/usr/bin/env bash
# Usage: scripts/test.sh [BUILD_DIR] [extra meson setup args...]
#
# Configures BUILD_DIR (default: build/ in the source tree; reconfigured when
# it exists, with tests enabled and benchmarks/fuzz targets back to auto
# unless the arguments say otherwise), builds it, runs `meson test`, and prints a last line
#   N passed, M failed
# counting Catch2 test cases over every test executable and pytest cases over
# every pytest run (a meson test that is neither counts as one case; skipped
# tests are listed, not counted). Exits non-zero if anything failed. Works
# from any directory.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
[ $# -gt 0 ] && shift
case "$build" in /*) ;; *) build="$PWD/$build" ;; esac

summary() {  # passed failed
    echo "$1 passed, $2 failed"
    [ "$2" -eq 0 ]
}

# The whole suite, whatever an earlier `meson setup` of the same directory
# chose (the README's first command disables tests, benchmarks and fuzzing:
# a reconfigure keeps those choices unless they are given again). Options the
# caller passes win: each of these is added only when not given.
defaults=(-Dtests=enabled -Dbenchmarks=auto -Dfuzzing=auto)
for d in "${defaults[@]}"; do
    name="${d%%=*}"
    given=false
    for a in "$@"; do case "$a" in "$name="*) given=true ;; esac; done
    $given || set -- "$@" "$d"
done

if [ -f "$build/build.ninja" ]; then
    meson setup --reconfigure "$build" "$root" "$@" ||
        meson setup --wipe "$build" "$root" "$@" || { summary 0 1; exit 1; }
else
    meson setup "$build" "$root" "$@" || { summary 0 1; exit 1; }
fi

jobs="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
if ! ninja -C "$build" -j"$jobs"; then
    echo "test.sh: build failed in $build" >&2
    summary 0 1
    exit 1
fi

# --print-errorlogs shows the output of failing tests; the counts come from
# the JSON log meson writes for every run.
# MESON_TEST_ARGS: extra `meson test` arguments (e.g. --no-suite reencode).
# shellcheck disable=SC2086
meson test -C "$build" --print-errorlogs --num-processes "$jobs" ${MESON_TEST_ARGS:-}
meson_rc=$?

log="$build/meson-logs/testlog.json"
if [ ! -f "$log" ]; then
    echo "test.sh: no test log at $log" >&2
    summary 0 1
    exit 1
fi

counts="$(python3 - "$log" <<'PY'
import json, re, sys

passed = failed = 0
skipped = []
catch_all = re.compile(r"All tests passed \((\d+) assertions? in (\d+) test cases?\)")
# "test cases: 15 | 13 passed | 1 failed | 1 failed as expected" (parts optional)
catch_line = re.compile(r"^test cases:\s*(\d+)\s*((?:\|[^|\n]*)*)$", re.M)
# pytest's last line: "3 failed, 12 passed, 1 skipped in 2.10s" (with -q; "=" around it otherwise)
pytest_line = re.compile(r"^=*\s*((?:\d+ [a-z]+(?:, )?)+) in [\d.]+s(?: \([^)]*\))?\s*=*$", re.M)
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    line = line.strip()
    if not line:
        continue
    t = json.loads(line)
    out = t.get("stdout") or ""
    res = t.get("result", "")
    ok = res in ("OK", "EXPECTEDFAIL")
    if res == "SKIP":
        skipped.append(t.get("name", "?"))
        continue
    a = catch_all.findall(out)
    c = catch_line.findall(out)
    py = pytest_line.findall(out)
    if py:
        counts = {k: int(n) for n, k in re.findall(r"(\d+) ([a-z]+)", py[-1])}
        p = counts.get("passed", 0) + counts.get("xfailed", 0)
        f = counts.get("failed", 0) + counts.get("error", 0) + counts.get("errors", 0)
    elif c and (not a or out.rfind("test cases:") > out.rfind("All tests passed")):
        p = f = 0
        for part in c[-1][1].split("|"):
            m = re.match(r"\s*(\d+) (passed|failed as expected|failed)\s*$", part)
            if not m:
                continue
            if m.group(2) == "failed":
                f += int(m.group(1))
            else:  # [!shouldfail] cases that failed count as passing
                p += int(m.group(1))
    elif a:
        p, f = int(a[-1][1]), 0
    else:  # not a Catch2 runner, or it died before its summary
        p, f = (1, 0) if ok else (0, 1)
    if not ok and f == 0:  # crashed or timed out after its cases passed
        f = 1
    passed += p
    failed += f
if skipped:
    print("skipped: " + ", ".join(skipped), file=sys.stderr)
print(passed, failed)
PY
)" || { summary 0 1; exit 1; }

read -r passed failed <<<"$counts"
if [ "$meson_rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
    failed=1  # meson saw a failure the log did not explain
fi
summary "$passed" "$failed"
