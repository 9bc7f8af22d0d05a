#!/bin/sh
# scripts/fuzz_campaign.sh TARGET SECONDS [BUILD_DIR] - one long libFuzzer run.
#
# Builds (if needed) a clang ASan+UBSan libFuzzer build in BUILD_DIR
# (default build-fuzz), then fuzzes TARGET (fuzz_wire, fuzz_model, fuzz_dump,
# fuzz_differential) for SECONDS seconds in one process (libFuzzer without -jobs), the ONNX
# dictionary and the committed seeds. New inputs go to a working corpus
# outside the tree (FUZZ_WORK, default /tmp/onnxview-fuzz/TARGET), never into
# fuzz/corpus/ (keep the committed corpus small: minimise with -merge=1 and
# copy only a few new inputs by hand). Crashes, leaks, timeouts and slow units
# are written to FUZZ_WORK/artifacts/. Prints a one-line summary for
# fuzz/README.md: target, seconds, executions, corpus size, findings.
#
# Environment: FUZZ_ARGS adds libFuzzer flags (e.g. -max_len=65536).
set -eu

if [ $# -lt 2 ]; then
    echo "usage: $0 TARGET SECONDS [BUILD_DIR]" >&2
    exit 2
fi
target=$1
seconds=$2
root=$(cd "$(dirname "$0")/.." && pwd)
build=${3:-$root/build-fuzz}
work=${FUZZ_WORK:-/tmp/onnxview-fuzz/$target}

if [ ! -f "$build/build.ninja" ]; then
    CXX=${CXX:-clang++} meson setup "$build" "$root" -Dfuzzing=enabled \
        -Db_sanitize=address,undefined -Db_lundef=false -Dbenchmarks=disabled
fi
ninja -C "$build" "fuzz/$target"

mkdir -p "$work/corpus" "$work/artifacts"
log="$work/campaign-$(date +%Y%m%d-%H%M%S).log"
set +e
"$build/fuzz/$target" "$work/corpus" "$root/fuzz/corpus/$target" \
    -dict="$root/fuzz/onnx.dict" -max_total_time="$seconds" \
    -timeout=10 -rss_limit_mb=2048 -max_len=16384 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/" ${FUZZ_ARGS:-} >"$log" 2>&1
status=$?
set -e

execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
units=$(ls "$work/corpus" | wc -l)
findings=$(ls "$work/artifacts" | wc -l)
echo "$target: ${seconds}s, exit $status, ${execs:-?} executions, corpus $units files, $findings artifacts ($log)"
exit $status
