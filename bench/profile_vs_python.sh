#!/usr/bin/env bash
# Usage: bench/profile_vs_python.sh ONNXVIEW [MODEL[:NAME=VALUE,...] ...] [-n REPS]
# (default: bench/cache/meta.onnx:N=1 and bench/cache/weights.onnx, from
# scripts/make_bench_models.py; 3 repetitions)
#
# `onnxview profile --json MODEL` against the Python baseline
# bench/profile_python.py (onnx.load, onnx.shape_inference.infer_shapes and
# the spec's MACs formulas: what a script with python3-onnx does), with the
# dims given after the model's name (--dim for both). Before timing, the two
# answers are compared (profile_python.py --check: the same parameters, the
# same MACs for every node both count); a disagreement stops the script with
# exit status 1. Then both run interleaved, warm: the median wall time of
# each, the ratio Python / onnxview, and the peak resident set of each
# (VmHWM, from /usr/bin/time). A model onnx cannot load (over 2 GiB) is
# timed for onnxview alone, and the table says so. Exits 77 (skipped)
# without python3-onnx.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/compare_lib.sh"
bench_args 3 "$@"
[ ${#models[@]} -gt 0 ] || models=("$root/bench/cache/meta.onnx:N=1" "$root/bench/cache/weights.onnx")
python=/usr/bin/python3
if ! "$python" -c 'import onnx, numpy' 2>/dev/null; then
    echo "SKIP: $python lacks onnx or numpy (Debian: python3-onnx python3-numpy)"
    exit 77
fi

echo "| model | size | onnxview profile | Python (onnx + infer_shapes) | Python / onnxview | onnxview peak RSS | Python peak RSS |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
status=0
for spec in "${models[@]}"; do
    m=${spec%%:*}
    dims=()
    if [ "$m" != "$spec" ]; then
        IFS=, read -r -a given <<<"${spec#*:}"
        for d in "${given[@]}"; do dims+=(--dim "$d"); done
    fi
    [ -f "$m" ] || { echo "missing $m" >&2; status=1; continue; }
    work=$(mktemp -d)
    size=$(stat -c %s "$m")
    cat "$m" >/dev/null
    if ! "$exe" profile --json "${dims[@]}" "$m" >"$work/ours.json"; then
        echo "onnxview profile failed on $m" >&2
        status=1
        rm -rf "$work"
        continue
    fi
    # onnx.load refuses a file over 2 GiB (protobuf's limit): onnxview alone then.
    python_runs=1
    [ "$size" -lt 2147483648 ] || python_runs=0
    if [ "$python_runs" = 1 ] && ! "$python" "$root/bench/profile_python.py" "${dims[@]}" --check "$work/ours.json" "$m" \
        >"$work/check" 2>/dev/null; then
        echo "answers differ on $m:" >&2
        cat "$work/check" >&2
        status=1
        rm -rf "$work"
        continue
    fi
    for _ in $(seq "$reps"); do
        timed ours "$exe" profile --json "${dims[@]}" "$m"
        [ "$python_runs" = 0 ] || timed python "$python" "$root/bench/profile_python.py" "${dims[@]}" "$m" 2>/dev/null
    done
    ours_s=$(median <"$work/ours")
    if [ "$python_runs" = 1 ]; then
        python_s=$(median <"$work/python")
        printf '| %s | %.2f GB | %s s | %s s | %s | %s MiB | %s MiB |\n' "$(basename "$spec")" \
            "$(echo "$size / 1000000000" | bc -l)" "$ours_s" "$python_s" "$(ratio "$python_s" "$ours_s" 1)" \
            "$(peak "$work/rss.ours")" "$(peak "$work/rss.python")"
    else
        printf '| %s | %.2f GB | %s s | onnx.load refuses a file over 2 GiB | - | %s MiB | - |\n' "$(basename "$spec")" \
            "$(echo "$size / 1000000000" | bc -l)" "$ours_s" "$(peak "$work/rss.ours")"
    fi
    rm -rf "$work"
done
exit $status
