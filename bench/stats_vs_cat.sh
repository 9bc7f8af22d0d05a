#!/usr/bin/env bash
# Usage: bench/stats_vs_cat.sh ONNXVIEW [MODEL ...] [-n REPS]
# (default model: bench/cache/weights.onnx, from scripts/make_bench_models.py;
# 5 repetitions)
#
# `onnxview stats --json` and `onnxview check --numeric` on a weight-heavy
# model, side by side with `cat MODEL > /dev/null` (reading the file once)
# and the Python baseline bench/stats_python.py (onnx.load, then numpy per
# tensor), interleaved and warm (the file is read once first): the median
# wall time of each, the ratios stats / cat, check / cat and python / stats,
# and the peak resident set of each (VmHWM, from /usr/bin/time). Before
# timing, the answers are compared: onnxview and Python must count the same
# tensors, values and NaN on the model's initializers. Models over 2 GiB get
# no Python run (onnx.load cannot read them).
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/compare_lib.sh"
bench_args 5 "$@"
[ ${#models[@]} -gt 0 ] || models=("$root/bench/cache/weights.onnx")
python=/usr/bin/python3

echo "| model | size | cat | onnxview stats | check --numeric | Python (onnx + numpy) | stats / cat | check / cat | Python / stats | stats peak RSS | check peak RSS | Python peak RSS |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for m in "${models[@]}"; do
    [ -f "$m" ] || { echo "missing $m" >&2; continue; }
    work=$(mktemp -d)
    size=$(stat -c %s "$m")
    with_python=$([ "$size" -lt 2147483648 ] && echo 1 || echo 0)
    cat "$m" >/dev/null
    ours=$("$exe" stats --json "$m" | "$python" -c 'import json, sys
r = json.load(sys.stdin)
init = [t for t in r["tensors"] if t["origin"] == "initializer" and t.get("values")]
print(len(init), sum(t["values"] for t in init), sum(t["nan"] for t in init))')
    if [ "$with_python" = 1 ]; then
        theirs=$("$python" "$root/bench/stats_python.py" "$m")
        if [ "$ours" != "$theirs" ]; then
            echo "answers differ: onnxview: $ours; python: $theirs" >&2
            rm -rf "$work"
            exit 1
        fi
    fi
    for _ in $(seq "$reps"); do
        timed cat sh -c "cat '$m' >/dev/null"
        timed stats "$exe" stats --json "$m"
        timed check "$exe" check --numeric "$m"
        [ "$with_python" = 1 ] && timed python "$python" "$root/bench/stats_python.py" "$m"
    done
    cat_s=$(median <"$work/cat") stats_s=$(median <"$work/stats") check_s=$(median <"$work/check")
    python_s="-" python_rss="-"
    if [ "$with_python" = 1 ]; then python_s=$(median <"$work/python"); python_rss="$(peak "$work/rss.python") MiB"; fi
    printf '| %s | %.2f GB | %s s | %s s | %s s | %s s | %s | %s | %s | %s MiB | %s MiB | %s |\n' "$(basename "$m")" \
        "$(echo "$size / 1000000000" | bc -l)" "$cat_s" "$stats_s" "$check_s" "$python_s" \
        "$(ratio "$stats_s" "$cat_s")" "$(ratio "$check_s" "$cat_s")" \
        "$([ "$with_python" = 1 ] && ratio "$python_s" "$stats_s" || echo -)" \
        "$(peak "$work/rss.stats")" "$(peak "$work/rss.check")" "$python_rss"
    rm -rf "$work"
done
