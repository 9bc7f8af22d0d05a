#!/bin/sh
# Write the oracle summary of every model.onnx of the ONNX test corpus and
# of every *.pb test data file next to them.
#
#   tests/oracle/export_corpus.sh OUTDIR [CORPUS_ROOT]
#
# CORPUS_ROOT defaults to /usr/share/libonnx-testdata (Debian package
# libonnx-testdata).  ROOT/a/b/model.onnx gives OUTDIR/a/b/model.onnx.summary
# and ROOT/a/b/test_data_set_0/input_0.pb gives
# OUTDIR/a/b/test_data_set_0/input_0.pb.summary.  Needs /usr/bin/python3 with
# python3-onnx.  Exits non-zero if the exporter fails; files it cannot read
# get a summary with an "error:" line instead.
set -eu
if [ $# -lt 1 ]; then
    echo "usage: $0 OUTDIR [CORPUS_ROOT]" >&2
    exit 2
fi
out=$1
root=${2:-/usr/share/libonnx-testdata}
here=$(cd "$(dirname "$0")" && pwd)
list=$(mktemp)
trap 'rm -f "$list"' EXIT
(cd "$root" && find . \( -name model.onnx -o -name '*.pb' \) -type f | LC_ALL=C sort) \
    | sed "s|^\./|$root/|" > "$list"
mkdir -p "$out"
/usr/bin/python3 "$here/export_summary.py" --out-dir "$out" --root "$root" --list "$list"
