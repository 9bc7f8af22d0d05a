#!/usr/bin/env bash
# Usage: bench/scan_throughput.sh ONNXVIEW [-n REPS] [DIR ...]
# (default: testdata/ and Debian's libonnx-testdata; 3 repetitions)
#
# `onnxview scan` over directories of models, with --jobs 1 and 2, and over a
# --from list naming every model ten times (10x the files, for the memory
# that must not grow with them): the median wall time, models per second and
# the peak resident set (VmHWM, /usr/bin/time) of each. Before timing, the
# answers are checked: one record per model found, none of them unreadable.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/compare_lib.sh"
bench_args 3 "$@"
[ ${#models[@]} -gt 0 ] || models=("$root/testdata" /usr/share/libonnx-testdata/data)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
find "${models[@]}" -name '*.onnx' -type f | sort >"$work/targets1"
for _ in $(seq 10); do cat "$work/targets1"; done >"$work/targets10"
n1=$(wc -l <"$work/targets1")
records=$("$exe" scan --jobs 2 "${models[@]}" --fail-on none | wc -l)
unreadable=$("$exe" scan "${models[@]}" --fail-on none | grep -c '"code":"file_unreadable"')
if [ "$records" != "$n1" ] || [ "$unreadable" != 0 ]; then
    echo "answers differ: $records records for $n1 models, $unreadable unreadable" >&2
    exit 1
fi
for _ in $(seq "$reps"); do
    timed jobs1 "$exe" scan --jobs 1 --fail-on none "${models[@]}"
    timed jobs2 "$exe" scan --jobs 2 --fail-on none "${models[@]}"
    timed list10 "$exe" scan --jobs 2 --fail-on none --from "$work/targets10"
done
echo "| run | models | time | models/s | peak RSS |"
echo "| --- | --- | --- | --- | --- |"
for run in jobs1 jobs2 list10; do
    n=$n1
    [ "$run" = list10 ] && n=$((n1 * 10))
    t=$(median <"$work/$run")
    printf '| %s | %s | %s s | %s | %s MiB |\n' "$run" "$n" "$t" "$(ratio "$n" "$t" 0)" "$(peak "$work/rss.$run")"
done
