#!/bin/sh
# Regenerate testdata/ into a temporary directory and check that it is
# byte-identical to the committed files (models, weights and summaries),
# then run the independent value-rule check on them.
#   tests/oracle/check_testdata.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 "$repo/scripts/make_testdata.py" "$tmp"
cp "$repo/testdata/README.md" "$tmp/README.md"
diff -r "$repo/testdata" "$tmp"
/usr/bin/python3 "$here/spec_check.py" "$repo"/testdata/*.onnx
echo "testdata is up to date"
