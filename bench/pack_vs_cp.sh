#!/usr/bin/env bash
# Usage: bench/pack_vs_cp.sh ONNXVIEW [MODEL ...] [-n REPS]
# (default models: bench/cache/weights.onnx and huge.onnx, from
# scripts/make_bench_models.py; 5 repetitions)
#
# `onnxview pack` side by side with `cp` of the same model, interleaved,
# output in a scratch directory next to the models (same file system): the
# median wall time of each, the ratios pack / cp, and pack's peak resident
# set (VmHWM, from /usr/bin/time). `pack --reference` (a weight-less proxy,
# which must sit in the model's own directory) is timed too, with the
# proxy's size and its own peak resident set. The input is read once first, so every run
# starts warm. pack writes through fsync'd temporary files; cp does not
# sync, so `cp + sync` is timed as well.
#
# Every timed run starts from a settled disk: the previous run's output is
# removed, then `sync` and a pause let its writeback (and, on file systems
# mounted with `discard`, the trim of the deleted blocks) finish first.
# Without that, whichever command runs after a deletion pays for it, and
# the order of the commands decides the result.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/compare_lib.sh"
bench_args 5 "$@"
[ ${#models[@]} -gt 0 ] || models=("$root/bench/cache/weights.onnx" "$root/bench/cache/huge.onnx")

# Each timed run after the previous one's output is gone and the disk settled.
before_timed() {
    rm -f "$work/out.onnx" "$work/out.data"
    sync
    sleep "${SETTLE_SECONDS:-2}"
}

echo "| model | size | cp | cp + sync | pack | pack --external | pack / cp | pack / (cp + sync) | pack --external / cp | pack peak RSS | pack --reference | --reference / cp | proxy size | --reference peak RSS |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for m in "${models[@]}"; do
    [ -f "$m" ] || { echo "missing $m" >&2; continue; }
    work=$(mktemp -d "$(dirname "$m")/pack-bench.XXXXXX")
    cat "$m" >/dev/null
    big=()
    [ "$(stat -c %s "$m")" -gt 2147483647 ] && big=(--allow-over-2gib)
    for _ in $(seq "$reps"); do
        timed cp cp "$m" "$work/out.onnx"
        timed sync sh -c "cp '$m' '$work/out.onnx' && sync '$work/out.onnx'"
        timed inline "$exe" pack "$m" "$work/out.onnx" "${big[@]}"
        timed external "$exe" pack "$m" "$work/out.onnx" --external out.data
        proxy="$(dirname "$m")/.pack-bench-proxy.$$.onnx"
        timed reference "$exe" pack "$m" "$proxy" --reference
        proxy_size=$(stat -c %s "$proxy" 2>/dev/null || echo 0)
        rm -f "$proxy"
    done
    size=$(stat -c %s "$m")
    cp_s=$(median <"$work/cp") sync_s=$(median <"$work/sync")
    inline_s=$(median <"$work/inline") external_s=$(median <"$work/external")
    rss=$(cat "$work/rss.inline" "$work/rss.external" | sort -n | tail -1)
    reference_s=$(median <"$work/reference")
    reference_rss=$(sort -n "$work/rss.reference" | tail -1)
    printf '| %s | %.2f GB | %s s | %s s | %s s | %s s | %s | %s | %s | %s MiB | %s s | %s | %s bytes | %s MiB |\n' \
        "$(basename "$m")" \
        "$(echo "$size / 1000000000" | bc -l)" "$cp_s" "$sync_s" "$inline_s" "$external_s" \
        "$(ratio "$inline_s" "$cp_s")" "$(ratio "$inline_s" "$sync_s")" "$(ratio "$external_s" "$cp_s")" \
        "$((rss / 1024))" "$reference_s" "$(ratio "$reference_s" "$cp_s")" "$proxy_size" "$((reference_rss / 1024))"
    rm -rf "$work"
done
