#!/bin/sh
# The checks the walks keep (a meson test, bench/meson.build):
#   meaning_test.sh BENCH_EXE MODELS_DIR CHECKED_COMPETITORS
# MODELS_DIR holds scripts/make_meaning_models.py's models. Every competitor in
# CHECKED_COMPETITORS (comma-separated; libprotobuf, when built, is the
# oracle) must read meaning.onnx and deep100.onnx with the same results and
# refuse deep101.onnx with an error (exit status 1, not a crash); the plain
# protozero walk, which reads each field as it comes, must not compute the
# same results on meaning.onnx, or the file no longer tests anything.
set -u
EXE=$1 DIR=$2 CHECKED=$3
fail=0
if ! "$EXE" --check-only --strict --competitors="$CHECKED" "$DIR/meaning.onnx" "$DIR/deep100.onnx"; then
  echo "FAIL: the checked competitors ($CHECKED) disagree or refuse a model libprotobuf reads"
  fail=1
fi
for c in $(echo "$CHECKED" | tr , ' '); do
  "$EXE" --child=count --competitor="$c" --payloads=1 "$DIR/deep101.onnx" > /dev/null
  rc=$?
  if [ $rc -ne 1 ]; then
    echo "FAIL: $c on deep101.onnx (101 messages deep): exit status $rc, not 1 (refused)"
    fail=1
  fi
done
case ",$CHECKED," in
  *,protozero-checked,*)
    if "$EXE" --check-only --competitors=onnxview,protozero "$DIR/meaning.onnx" > /dev/null; then
      echo "FAIL: the plain protozero walk agrees on meaning.onnx: the file tests no check"
      fail=1
    fi ;;
esac
[ $fail = 0 ] && echo "meaning: every check holds"
exit $fail
