#!/usr/bin/env bash
# Usage: bench/diff_vs_cat.sh ONNXVIEW [MODEL ...] [-n REPS]
# (default model: bench/cache/weights.onnx, from scripts/make_bench_models.py;
# 5 repetitions)
#
# `onnxview diff A B` on a model and a copy of it with one byte of one weight
# changed (the middle byte of the file, inside a payload), side by side with
# `cat A B > /dev/null` (reading both files once) and with the Python
# baseline bench/diff_python.py (onnx.load both, protobufs and numpy arrays
# compared), interleaved: the median wall time of each, the ratios diff / cat
# and python / diff, and the peak resident set of diff and of Python (VmHWM,
# from /usr/bin/time). Both files are read once first, so every warm run
# starts warm; then cat and diff run cold, each after both files' pages are
# dropped from the page cache (posix_fadvise DONTNEED, after an fsync of the
# changed copy). Before timing, each competitor's answer is checked: onnxview
# must report exactly one weights line and Python the same initializer.
# The changed copy goes next to the model, or into $DIFF_BENCH_DIR.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/compare_lib.sh"
bench_args 5 "$@"
[ ${#models[@]} -gt 0 ] || models=("$root/bench/cache/weights.onnx")
python=/usr/bin/python3

# evict FILE...: the files' pages dropped from the page cache.
evict() {
    "$python" -c 'import os, sys
for p in sys.argv[1:]:
    fd = os.open(p, os.O_RDONLY)
    os.fsync(fd)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)' "$@"
}

echo "| model | size | cat A B | onnxview diff | Python (onnx + numpy) | diff / cat | Python / diff | diff peak RSS | Python peak RSS | cat A B cold | diff cold | diff / cat cold |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for m in "${models[@]}"; do
    [ -f "$m" ] || { echo "missing $m" >&2; continue; }
    work=$(mktemp -d "${DIFF_BENCH_DIR:-$(dirname "$m")}/diff-bench.XXXXXX")
    changed="$work/changed.onnx"
    cp "$m" "$changed"
    size=$(stat -c %s "$m")
    # One byte in the middle of the file: inside a weight's payload in a
    # weight-heavy model (the check below makes sure).
    middle=$((size / 2))
    byte=$(od -An -tu1 -j "$middle" -N1 "$changed" | tr -d ' ')
    printf "$(printf '\\%03o' $(((byte ^ 1) & 255)))" |
        dd of="$changed" bs=1 seek="$middle" count=1 conv=notrunc status=none
    cat "$m" "$changed" >/dev/null
    "$exe" diff "$m" "$changed" >"$work/ours"
    ours=$(sed -n '/^weights$/,/^[^ ]/p' "$work/ours" | grep -c '^  initializer')
    tensor=$(grep -o "^  initializer '[^']*'" "$work/ours" | sed "s/^  //")
    theirs=$("$python" "$root/bench/diff_python.py" "$m" "$changed")
    if [ "$ours" != 1 ] || [ "$(tail -1 "$work/ours")" != "0 signature, 0 graph, 1 weight changes" ] ||
        [ "$theirs" != "$tensor" ]; then
        echo "answers differ: onnxview: $(cat "$work/ours"); python: $theirs" >&2
        rm -rf "$work"
        exit 1
    fi
    for _ in $(seq "$reps"); do
        timed cat sh -c "cat '$m' '$changed' >/dev/null"
        timed diff "$exe" diff "$m" "$changed"
        timed python "$python" "$root/bench/diff_python.py" "$m" "$changed"
    done
    for _ in $(seq "$reps"); do
        evict "$m" "$changed"
        timed cat_cold sh -c "cat '$m' '$changed' >/dev/null"
        evict "$m" "$changed"
        timed diff_cold "$exe" diff "$m" "$changed"
    done
    cat_s=$(median <"$work/cat") diff_s=$(median <"$work/diff") python_s=$(median <"$work/python")
    cat_cold=$(median <"$work/cat_cold") diff_cold=$(median <"$work/diff_cold")
    printf '| %s | %.2f GB | %s s | %s s | %s s | %s | %s | %s MiB | %s MiB | %s s | %s s | %s |\n' "$(basename "$m")" \
        "$(echo "$size / 1000000000" | bc -l)" "$cat_s" "$diff_s" "$python_s" \
        "$(ratio "$diff_s" "$cat_s")" "$(ratio "$python_s" "$diff_s")" "$(peak "$work/rss.diff")" \
        "$(peak "$work/rss.python")" "$cat_cold" "$diff_cold" "$(ratio "$diff_cold" "$cat_cold")"
    rm -rf "$work"
done
