# bench/compare_lib.sh - what the scripts timing onnxview against another
# tool share (sourced by diff_vs_cat.sh, pack_vs_cp.sh, profile_vs_python.sh):
# their arguments, the timing of one run, medians, ratios, peak RSS.

# bench_args DEFAULT_REPS EXE [-n REPS] [MODEL ...]: sets exe, reps, models and root.
bench_args() {
    reps=$1
    exe=$2
    shift 2
    models=()
    while [ $# -gt 0 ]; do
        case $1 in
            -n) reps=$2; shift 2 ;;
            *) models+=("$1"); shift ;;
        esac
    done
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
}

# timed NAME COMMAND...: runs COMMAND under /usr/bin/time (its output
# dropped), appending the wall time to $work/NAME and the peak RSS (KiB) to
# $work/rss.NAME. A script may define before_timed, run first (to let the
# disk settle, say). A command's non-zero exit is timed all the same: time
# then writes it on a line of its own before the figures.
timed() {
    local name=$1
    shift
    if declare -F before_timed >/dev/null; then before_timed; fi
    /usr/bin/time -f "%e %M" -o "$work/t" "$@" >/dev/null
    tail -1 "$work/t" | cut -d' ' -f1 >>"$work/$name"
    tail -1 "$work/t" | cut -d' ' -f2 >>"$work/rss.$name"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# ratio A B [DIGITS]: A / B (2 digits), or "-" when B is 0.
ratio() {
    if [ "$(echo "$2 > 0" | bc -l)" = 1 ]; then echo "$1 / $2" | bc -l | xargs printf "%.${3:-2}f"; else echo "-"; fi
}
# peak FILE: the largest peak RSS in FILE (KiB per line), in MiB.
peak() { sort -n "$1" | tail -1 | xargs -I{} echo "{} / 1024" | bc; }
