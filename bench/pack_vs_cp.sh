#!/usr/bin/env bash
# Usage: bench/pack_vs_cp.sh ONNXVIEW [MODEL ...] [-n REPS]
# (default models: bench/cache/weights.onnx and huge.onnx, from
# scripts/make_bench_models.py; 3 repetitions)
#
# `onnxview pack` side by side with `cp` of the same model, interleaved,
# output in a scratch directory next to the models (same file system): the
# median wall time of each, and pack's peak resident set (VmHWM, from
# /usr/bin/time). The input is read once first, so every run starts warm.
# pack writes through fsync'd temporary files; cp does not sync, so
# `cp + sync` is timed as well.
set -uo pipefail
exe=$1
shift
reps=3
models=()
while [ $# -gt 0 ]; do
    case $1 in
        -n) reps=$2; shift 2 ;;
        *) models+=("$1"); shift ;;
    esac
done
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ ${#models[@]} -gt 0 ] || models=("$root/bench/cache/weights.onnx" "$root/bench/cache/huge.onnx")

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "| model | size | cp | cp + sync | pack --inline-align 64 | pack --external | pack peak RSS |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for m in "${models[@]}"; do
    [ -f "$m" ] || { echo "missing $m" >&2; continue; }
    work=$(mktemp -d "$(dirname "$m")/pack-bench.XXXXXX")
    cat "$m" >/dev/null
    big=()
    [ "$(stat -c %s "$m")" -gt 2147483647 ] && big=(--allow-over-2gib)
    : >"$work/cp" >"$work/sync" >"$work/inline" >"$work/external" >"$work/rss"
    for _ in $(seq "$reps"); do
        /usr/bin/time -f "%e" -o "$work/t" cp "$m" "$work/c.onnx" && cat "$work/t" >>"$work/cp"
        rm -f "$work/c.onnx"
        /usr/bin/time -f "%e" -o "$work/t" sh -c "cp '$m' '$work/c.onnx' && sync '$work/c.onnx'" && cat "$work/t" >>"$work/sync"
        rm -f "$work/c.onnx"
        /usr/bin/time -f "%e %M" -o "$work/t" "$exe" pack "$m" "$work/i.onnx" "${big[@]}" >/dev/null &&
            { cut -d' ' -f1 "$work/t" >>"$work/inline"; cut -d' ' -f2 "$work/t" >>"$work/rss"; }
        rm -f "$work/i.onnx"
        /usr/bin/time -f "%e %M" -o "$work/t" "$exe" pack "$m" "$work/e.onnx" --external e.data >/dev/null &&
            { cut -d' ' -f1 "$work/t" >>"$work/external"; cut -d' ' -f2 "$work/t" >>"$work/rss"; }
        rm -f "$work/e.onnx" "$work/e.data"
    done
    size=$(stat -c %s "$m")
    rss=$(sort -n "$work/rss" | tail -1)
    printf '| %s | %.2f GB | %s s | %s s | %s s | %s s | %s MiB |\n' "$(basename "$m")" \
        "$(echo "$size / 1000000000" | bc -l)" "$(median <"$work/cp")" "$(median <"$work/sync")" \
        "$(median <"$work/inline")" "$(median <"$work/external")" "$((rss / 1024))"
    rm -rf "$work"
done
