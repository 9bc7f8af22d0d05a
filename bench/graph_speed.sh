#!/usr/bin/env bash
# Usage: bench/graph_speed.sh ONNXVIEW [-n REPS] [MODEL]
# (default model: bench/cache/meta.onnx, the 100,400-node model of
# scripts/make_bench_models.py; 5 repetitions)
#
# `onnxview graph` at the sizes its issue names, each beside a peer timed in
# the same run, interleaved and warm:
#   - the 100k-node model: `graph --format dot` (the default picture) and
#     `--fold none` (every node), against python3-onnx reading the same file
#     (onnx.load: the least any Python tool pays before drawing a box); the
#     aim is under 1 s at <= 256 MiB peak;
#   - a 32-layer transformer (tests/oracle/graph_oracle.py's transformer(),
#     made here): `graph --format svg` (folded, laid out by Graphviz's
#     library in process) against `graph --format dot | dot -Tsvg` (the
#     Graphviz command on the same DOT); the aim is under 10 s;
#   - the same transformer's HTML page (every folded box's inside laid out).
# Before timing, the answers are checked: the DOT parses with `dot`, and the
# SVG holds one box group per box of the JSON.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/compare_lib.sh"
bench_args 5 "$@"
[ ${#models[@]} -gt 0 ] || models=("$root/bench/cache/meta.onnx")
python=/usr/bin/python3
big=${models[0]}
[ -f "$big" ] || { echo "missing $big (scripts/make_bench_models.py --only meta)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$python" - "$root" "$work/transformer_32.onnx" <<'PY'
import sys
sys.path.insert(0, sys.argv[1] + "/tests/oracle")
import onnx
from graph_oracle import transformer
onnx.save(transformer(onnx, 32), sys.argv[2])
PY
t32="$work/transformer_32.onnx"
"$exe" graph "$big" | dot -Tplain >/dev/null || { echo "the DOT of $big does not parse" >&2; exit 1; }
boxes=$("$exe" graph "$t32" --format json | "$python" -c 'import json, sys; print(len(json.load(sys.stdin)["boxes"]))')
groups=$("$exe" graph "$t32" --format svg | grep -c 'class="node"')
[ "$boxes" = "$groups" ] || { echo "answers differ: $boxes boxes, $groups SVG node groups" >&2; exit 1; }
cat "$big" >/dev/null
for _ in $(seq "$reps"); do
    timed dot "$exe" graph "$big"
    timed none "$exe" graph "$big" --fold none
    timed onnx_load "$python" -c 'import onnx, sys; onnx.load(sys.argv[1], load_external_data=False)' "$big"
    timed svg "$exe" graph "$t32" --format svg
    timed dot_cmd sh -c '"$0" graph "$1" | dot -Tsvg' "$exe" "$t32"
    timed html "$exe" graph "$t32" --format html
done
row() {  # label run peer-run
    local t p
    t=$(median <"$work/$2")
    p=$(median <"$work/$3")
    printf '| %s | %s s | %s MiB | %s s | %s |\n' "$1" "$t" "$(peak "$work/rss.$2")" "$p" "$(ratio "$t" "$p")"
}
echo "| run | time | peak RSS | peer's time | / peer |"
echo "| --- | --- | --- | --- | --- |"
row "$(basename "$big"): graph (default, DOT) vs onnx.load" dot onnx_load
row "$(basename "$big"): graph --fold none vs onnx.load" none onnx_load
row "transformer x32: graph --format svg vs graph | dot -Tsvg" svg dot_cmd
row "transformer x32: graph --format html vs graph | dot -Tsvg" html dot_cmd
