#!/bin/sh
# Runs every benchmark workload and writes bench/RESULTS.md.
#
#   bench/run.sh [EXTRA_MODEL.onnx ...]
#
# Environment: BUILD (build directory, default build-bench), REPS (repetitions
# of each in-process benchmark, default 5; medians are reported), COLD_REPS
# (fresh-process repetitions of workloads 4 and 5, default 3), TESTDATA
# (default /usr/share/libonnx-testdata), FILTER (a --benchmark_filter regex
# for the in-process workloads), SKIP_CHILDREN=1 (keep the workload 4/5
# results of the previous run), SKIP_CALLGRIND=1 (keep the previous
# instruction counts).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build-bench}
CACHE=${CACHE:-$ROOT/bench/cache}
OUT=$CACHE/results
TESTDATA=${TESTDATA:-/usr/share/libonnx-testdata}
REPS=${REPS:-5}
COLD_REPS=${COLD_REPS:-3}
PY=/usr/bin/python3   # Debian python with python3-onnx

mkdir -p "$CACHE" "$OUT"
for m in meta weights packed huge; do
  [ -f "$CACHE/$m.onnx" ] || "$PY" "$ROOT/scripts/make_bench_models.py" --out "$CACHE" --only $m
done
[ -d "$BUILD" ] || meson setup "$BUILD" "$ROOT" -Dbenchmarks=enabled
ninja -C "$BUILD" bench/onnxview_bench tools/onnxview
EXE=$BUILD/bench/onnxview_bench

# Workloads 1-3, 6 and the graph.name() loop: one process, warm pages. The
# repetitions of all benchmarks are interleaved in random order, so that the
# drift of a shared machine falls on every competitor alike.
"$EXE" --models="$CACHE" --testdata="$TESTDATA" "$@" \
  --benchmark_repetitions="$REPS" --benchmark_report_aggregates_only=true \
  --benchmark_enable_random_interleaving=true \
  --benchmark_min_time=0.2 --benchmark_filter="${FILTER:-.}" \
  --benchmark_out="$OUT/inproc.json" --benchmark_out_format=json | tee "$OUT/inproc.txt"

# Workloads 4 (cold open + metadata walk) and 5 (private memory): fresh processes.
COMPETITORS=$("$EXE" --list-competitors)
[ "${SKIP_CHILDREN:-0}" = 1 ] || : > "$OUT/children.jsonl"
[ "${SKIP_CHILDREN:-0}" = 1 ] || for m in "$CACHE/meta.onnx" "$CACHE/weights.onnx" "$CACHE/packed.onnx" "$CACHE/huge.onnx" "$@"; do
  for c in $COMPETITORS; do
    # libprotobuf reads the whole file from disk: one cold run (arena: small
    # models only, its disk time is the same); over 2 GiB it cannot open at all
    # (workload 6 records how it fails).
    reps=$COLD_REPS
    case $c in libprotobuf*) reps=1 ;; esac
    size=$(stat -c %s "$m")
    case $c in libprotobuf-arena) [ "$size" -lt 200000000 ] || reps=0 ;; esac
    case $c in libprotobuf*) [ "$size" -lt 2147483648 ] || reps=0 ;; esac
    i=0
    while [ $i -lt "$reps" ]; do
      "$EXE" --child=cold --competitor="$c" --payloads=0 "$m" | sed -n 's/^RESULT //p' >> "$OUT/children.jsonl" || true
      i=$((i + 1))
    done
    for p in 0 1; do
      "$EXE" --child=mem --competitor="$c" --payloads=$p "$m" | sed -n 's/^RESULT //p' >> "$OUT/children.jsonl" || true
    done
  done
done

# Workloads 2 and 3 in instructions (callgrind), which the machine's load does
# not change: one walk per model and competitor. Full walks of the models over
# 200 MB (half a billion elements converted) and libprotobuf on them would
# take hours under callgrind and are left out.
#   count_walks MODEL SIZE ARGS...: a line per competitor and walk in
#   instructions.jsonl.
count_walks() {
  m=$1 size=$2
  shift 2
  for c in $COMPETITORS; do
    case $c in libprotobuf*) [ "$size" -lt 200000000 ] || continue ;; esac
    for p in 0 1; do
      [ $p = 0 ] || [ "$size" -lt 200000000 ] || continue
      rm -f "$OUT/callgrind.out"
      valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*counted_walks*' \
        --callgrind-out-file="$OUT/callgrind.out" \
        "$EXE" --child=count --competitor="$c" --payloads=$p "$@" 2>/dev/null > "$OUT/count.txt" || true
      ir=$(sed -n 's/^totals: *//p' "$OUT/callgrind.out" 2>/dev/null)
      sed -n "s/^RESULT {/{\"model\":\"$m\",\"instructions\":${ir:-0},/p" "$OUT/count.txt" >> "$OUT/instructions.jsonl"
    done
  done
}
if [ "${SKIP_CALLGRIND:-0}" != 1 ] && command -v valgrind >/dev/null; then
  : > "$OUT/instructions.jsonl"
  for m in meta weights packed huge; do
    count_walks $m "$(stat -c %s "$CACHE/$m.onnx")" "$CACHE/$m.onnx"
  done
  [ ! -d "$TESTDATA" ] || count_walks testdata 0 --testdata="$TESTDATA"
  rm -f "$OUT/callgrind.out" "$OUT/count.txt"
fi

# `onnxview pack` against `cp` of the same bytes, and the Python package's
# open against onnx.load: fresh processes, after the timings above.
[ "${SKIP_PACK:-0}" = 1 ] ||
  bash "$ROOT/bench/pack_vs_cp.sh" "$BUILD/tools/onnxview" "$CACHE/weights.onnx" "$CACHE/huge.onnx" > "$OUT/pack.md"
if [ "${SKIP_PYTHON:-0}" != 1 ] && [ -d "$BUILD/python/onnxview" ]; then
  ninja -C "$BUILD"
  PYTHONPATH="$BUILD/python" "$PY" "$ROOT/bench/python_open.py" --runs 3 --external \
    "$CACHE/weights.onnx" "$CACHE/meta.onnx" "$CACHE/huge.onnx" > "$OUT/python.md"
fi

"$PY" "$ROOT/bench/report.py" --out "$OUT" --command "bench/run.sh $*" > "$ROOT/bench/RESULTS.md"
echo "wrote bench/RESULTS.md"
