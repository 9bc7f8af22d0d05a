#!/bin/sh
# scripts/differential.sh [BUILD_DIR] [SEEDS] [MUTANTS] - the large run of
# tests/reencode/differential.py: `onnxview dump` against
# `protoc --decode=onnx.ModelProto` (Debian's protoc and onnx.proto 1.12).
#
#   reencode: every corpus model (Debian's libonnx-testdata, 1,072 models, and
#             testdata/*.onnx) re-encoded with SEEDS seeds (default 3), two
#             rewrites per model and seed, plus the deliberate-difference cases
#   mutate:   MUTANTS byte-level mutants (default 30000) of the 400 smallest-
#             spread corpus models and of rewrites of them
#
# `meson test --suite reencode` runs the same with bounded sizes (about a
# minute). Builds BUILD_DIR (default build/) first if it has no onnxview.
# Environment: JOBS (default: the number of CPUs), DIFFERENTIAL_KEEP (where
# failing inputs are copied; default /tmp/onnxview-differential-failures).
# Exits non-zero on any disagreement that is not a documented deliberate one;
# 77 when protoc, python onnx or the corpus is missing.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
seeds=${2:-3}
mutants=${3:-30000}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}

if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build" "$root"
fi
ninja -C "$build" -j"$jobs" tools/onnxview
ninja -C "$build" -j"$jobs" tests/text/text_decode 2>/dev/null || true

export ONNXVIEW="$build/tools/onnxview"
export ONNXVIEW_TESTDATA="$root/testdata"
if [ -x "$build/tests/text/text_decode" ]; then
    export ONNXVIEW_TEXT_DECODE="$build/tests/text/text_decode"
fi
py=/usr/bin/python3
[ -x "$py" ] || py=python3

rc=0
"$py" "$root/tests/reencode/differential.py" reencode --models 0 --seeds "$seeds" --jobs "$jobs" || rc=$?
"$py" "$root/tests/reencode/differential.py" mutate --bases 400 --mutants "$mutants" --jobs "$jobs" || {
    r=$?
    [ "$rc" -ne 0 ] || rc=$r
}
exit "$rc"
