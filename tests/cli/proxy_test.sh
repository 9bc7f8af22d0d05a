#!/bin/bash
# `onnxview pack --reference` (a weight-less proxy) and packing a proxy (the
# weights put back): what is written, and the refusals, each leaving nothing
# behind. python3-onnx, its shape inference and version converter, and
# onnxruntime check the outputs in tests/oracle/proxy_oracle.py.
# Usage: proxy_test.sh ONNXVIEW SOURCE_ROOT
set -u
exe=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")  # absolute: some runs cd
root=$2
data=$root/testdata
# shellcheck source=harness.sh
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

out=$tmp/o
mkdir -p "$out" "$tmp/sub"
# only NAME FILE...: the output directory holds exactly these files.
only() {
    local name=$1
    shift
    local want got
    want=$(printf '%s\n' "$@" | sort)
    got=$(cd "$out" && ls -A | sort)
    [ "$got" = "$want" ] || fail "$name: directory holds '$(echo $got)', expected '$(echo $want)'"
}
# metadata FILE: the model's reference-source record, or "" when it has none.
metadata() { "$exe" dump "$1" | grep -A1 'key: "onnxview.reference_source"' | sed -n 's/^ *value: "\(.*\)"$/\1/p'; }
size() { wc -c <"$1" | tr -d ' '; }

cp "$data/small_cnn_inline.onnx" "$out/in.onnx"

# --- a proxy -------------------------------------------------------------------
run "proxy" 0 pack "$out/in.onnx" "$out/p.onnx" --reference --threshold 256 --verify &&
    grep -q "^verified: 11 tensors equal bit for bit$" "$tmp/out" &&
    grep -q ", [1-9][0-9]* tensors referencing their bytes in '.*in.onnx'$" "$tmp/out" || fail "proxy: $(cat "$tmp/out")"
[ "$(size "$out/p.onnx")" -lt $(($(size "$out/in.onnx") / 4)) ] || fail "proxy: $(size "$out/p.onnx") bytes of $(size "$out/in.onnx")"
metadata "$out/p.onnx" | grep -q "^size=$(size "$out/in.onnx");mtime_ns=[0-9]*;location=in.onnx$" ||
    fail "proxy: record '$(metadata "$out/p.onnx")'"
"$exe" dump "$out/p.onnx" | grep -q 'value: "in.onnx"' || fail "proxy: no location in.onnx"
run "proxy checks" 0 check "$out/p.onnx"
only "proxy" in.onnx p.onnx
# Run from IN's directory with bare names: the location is still IN's name.
(cd "$out" && "$exe" pack in.onnx q.onnx --reference >/dev/null) || fail "proxy with bare names"
metadata "$out/q.onnx" | grep -q ";location=in.onnx$" || fail "bare names: $(metadata "$out/q.onnx")"
rm -f "$out/q.onnx"

# --- the weights put back -----------------------------------------------------------
run "put back" 0 pack "$out/p.onnx" "$out/back.onnx" --verify &&
    grep -q "^verified: 11 tensors equal bit for bit$" "$tmp/out" || fail "put back: $(cat "$tmp/out")"
[ -z "$(metadata "$out/back.onnx")" ] || fail "put back: the record stayed"
"$exe" dump "$out/back.onnx" | grep -q "EXTERNAL" && fail "put back: a tensor is still external"
run "put back --external" 0 pack "$out/p.onnx" "$out/ext.onnx" --external ext.data --verify
[ -z "$(metadata "$out/ext.onnx")" ] || fail "put back --external: the record stayed"
"$exe" dump "$out/ext.onnx" | grep -q 'value: "in.onnx"' && fail "put back --external: still references in.onnx"
only "put back" in.onnx p.onnx back.onnx ext.onnx ext.data
rm -f "$out/back.onnx" "$out/ext.onnx" "$out/ext.data"
# Every pack of a proxy brings the weights back (or moves them to --external):
# plain options bring them back too.
run "pack of a proxy internalizes" 0 pack "$out/p.onnx" "$out/back.onnx"
grep -q " 0 brought back" "$tmp/out" && fail "pack of a proxy: $(cat "$tmp/out")"
rm -f "$out/back.onnx"

# --- refusals: usage (2) or an invalid proxy (1), and nothing written -------------
run "OUT outside IN's directory" 2 pack "$out/in.onnx" "$tmp/sub/p.onnx" --reference &&
    grep -q "^onnxview pack: --reference: OUT '.*sub/p.onnx' must be in the directory of IN '.*in.onnx'" "$tmp/err" ||
    fail "outside: $(cat "$tmp/err")"
[ -z "$(ls -A "$tmp/sub")" ] || fail "outside: wrote $(ls -A "$tmp/sub")"
run "--reference --external" 2 pack "$out/in.onnx" "$out/y.onnx" --reference --external y.data
run "--reference --internalize" 2 pack "$out/in.onnx" "$out/y.onnx" --reference --internalize
run "proxy of a proxy" 2 pack "$out/p.onnx" "$out/pp.onnx" --reference &&
    grep -q "is already a proxy of 'in.onnx'" "$tmp/err" || fail "proxy of a proxy: $(cat "$tmp/err")"
cp "$out/in.onnx" "$out/.hidden.onnx"
run "IN named .NAME" 2 pack "$out/.hidden.onnx" "$out/y.onnx" --reference
rm -f "$out/.hidden.onnx"
# IN a symlink to a file elsewhere: the put-back could not follow it (open_beneath).
mkdir -p "$tmp/elsewhere"
cp "$out/in.onnx" "$tmp/elsewhere/real.onnx"
ln -s "$tmp/elsewhere/real.onnx" "$out/link.onnx"
run "IN a link out of its directory" 2 pack "$out/link.onnx" "$out/y.onnx" --reference &&
    grep -q "is a link to '.*real.onnx', outside its directory" "$tmp/err" || fail "link: $(cat "$tmp/err")"
rm -f "$out/link.onnx"
ln -s in.onnx "$out/link.onnx"
run "IN a link within its directory" 0 pack "$out/link.onnx" "$out/y.onnx" --reference --verify
rm -f "$out/link.onnx" "$out/y.onnx"
only "refusals" in.onnx p.onnx

# The source changed (same size, new mtime), then moved away.
cp -p "$out/in.onnx" "$tmp/in.saved"
touch -d "2001-01-01 00:00:00" "$out/in.onnx"
run "source changed" 2 pack "$out/p.onnx" "$out/back.onnx" &&
    grep -q "^onnxview pack: '.*in.onnx' changed since '.*p.onnx' was made from it" "$tmp/err" ||
    fail "source changed: $(cat "$tmp/err")"
run "source changed, --external" 2 pack "$out/p.onnx" "$out/back.onnx" --external back.data
mv "$out/in.onnx" "$out/moved.onnx"
run "source moved" 2 pack "$out/p.onnx" "$out/back.onnx" &&
    grep -q "^onnxview pack: cannot read '.*in.onnx', which '.*p.onnx' references" "$tmp/err" ||
    fail "source moved: $(cat "$tmp/err")"
rm -f "$out/moved.onnx"
cp -p "$tmp/in.saved" "$out/in.onnx"
run "source restored" 0 pack "$out/p.onnx" "$out/back.onnx"
rm -f "$out/back.onnx"
only "source changed" in.onnx p.onnx

# A record that is not size=N;mtime_ns=M;location=NAME.
run "bad record (edit)" 0 edit "$out/in.onnx" "$out/r.onnx" --metadata onnxview.reference_source=size=1
run "bad record" 2 pack "$out/r.onnx" "$out/back.onnx" &&
    grep -q "the metadata entry 'onnxview.reference_source' is not size=N;mtime_ns=M;location=NAME" "$tmp/err" ||
    fail "bad record: $(cat "$tmp/err")"
rm -f "$out/r.onnx"

# Proxies that a tool rewrote: python3-onnx edits the references.
if $py -c "import onnx" 2>/dev/null; then
    broken() {  # broken OUT PYTHON: p.onnx loaded without its weights, edited by PYTHON (on `t`), saved as OUT.
        $py - "$out/p.onnx" "$out/$1" "$2" <<'PY'
import sys, onnx
m = onnx.load(sys.argv[1], load_external_data=False)
t = next(t for t in m.graph.initializer if t.data_location == onnx.TensorProto.EXTERNAL)
exec(sys.argv[3])
onnx.save(m, sys.argv[2])
PY
    }
    broken range.onnx 'next(e for e in t.external_data if e.key == "offset").value = "99999999"'
    run "reference out of range" 2 pack "$out/range.onnx" "$out/back.onnx" &&
        grep -q "external_offset_past_end" "$tmp/err" || fail "out of range: $(cat "$tmp/err")"
    broken dims.onnx 't.dims[0] += 1'
    run "dims rewritten" 1 pack "$out/dims.onnx" "$out/back.onnx" &&
        grep -q "external_length_mismatch" "$tmp/err" || fail "dims rewritten: $(cat "$tmp/err")"
    # A tensor left without a payload is bound again: by name, else by its
    # place in the graph; refused when its type or dims changed or nothing
    # matches, nothing written.
    drop='t.data_location = 0; del t.external_data[:]'
    broken lost.onnx "$drop"
    run "reference dropped" 0 pack "$out/lost.onnx" "$out/back.onnx" --verify &&
        grep -q "^rebound 1 tensors by name to those of '.*in.onnx'$" "$tmp/out" || fail "reference dropped: $(cat "$tmp/out")"
    "$exe" dump "$out/back.onnx" | grep -q "EXTERNAL" && fail "reference dropped: a tensor is still external"
    rm -f "$out/back.onnx"
    broken renamed.onnx "$drop"'
for n in m.graph.node:
    n.input[:] = ["w_renamed" if i == t.name else i for i in n.input]
t.name = "w_renamed"'
    run "reference dropped, renamed" 0 pack "$out/renamed.onnx" "$out/back.onnx" &&
        grep -q "^rebound 'w_renamed' to '.*' of '.*in.onnx' (by place in the graph)$" "$tmp/out" ||
        fail "renamed: $(cat "$tmp/out") $(cat "$tmp/err")"
    rm -f "$out/back.onnx"
    broken reshaped.onnx "$drop; t.dims[0] += 1"
    run "reference dropped, dims changed" 1 pack "$out/reshaped.onnx" "$out/back.onnx" &&
        grep -q "^onnxview pack: tensor '.*' of '.*reshaped.onnx' has no payload and cannot be put back: its dims differ from the original's (FLOAT \[.*\] here, FLOAT \[.*\] in the original's '.*')$" "$tmp/err" &&
        grep -q "^onnxview pack: 1 of the 1 tensors without a payload in '.*reshaped.onnx' refused; nothing written$" "$tmp/err" ||
        fail "dims changed: $(cat "$tmp/err")"
    broken retyped.onnx "$drop; t.data_type = onnx.TensorProto.DOUBLE"
    run "reference dropped, type changed" 1 pack "$out/retyped.onnx" "$out/back.onnx" &&
        grep -q "its data type differs from the original's (DOUBLE \[.*\] here, FLOAT" "$tmp/err" ||
        fail "type changed: $(cat "$tmp/err")"
    broken orphan.onnx "$drop; t.name = 'orphan'"
    run "reference dropped, nothing matches" 1 pack "$out/orphan.onnx" "$out/back.onnx" &&
        grep -q "^onnxview pack: tensor 'orphan' of '.*orphan.onnx' has no payload and cannot be put back: no tensor of the original matches it by name or place (FLOAT \[" "$tmp/err" &&
        grep -q "^onnxview pack: 1 of the 1 tensors without a payload in '.*orphan.onnx' refused; nothing written$" "$tmp/err" ||
        fail "nothing matches: $(cat "$tmp/err")"
    # A tool that dropped the record too: --source names the original.
    broken norecord.onnx "$drop; del m.metadata_props[:]"
    run "--source" 0 pack "$out/norecord.onnx" "$out/back.onnx" --source "$out/in.onnx" &&
        grep -q "^rebound 1 tensors by name to those of '.*in.onnx'$" "$tmp/out" || fail "--source: $(cat "$tmp/out")"
    rm -f "$out/back.onnx"
    cp "$out/in.onnx" "$tmp/sub/in.onnx"
    run "--source elsewhere" 2 pack "$out/norecord.onnx" "$out/back.onnx" --source "$tmp/sub/in.onnx" &&
        grep -q "^onnxview pack: --source '.*sub/in.onnx' must be in the directory of IN" "$tmp/err" ||
        fail "--source elsewhere: $(cat "$tmp/err")"
    rm -f "$tmp/sub/in.onnx"
    cp "$out/in.onnx" "$out/other.onnx"
    run "--source not the recorded one" 2 pack "$out/lost.onnx" "$out/back.onnx" --source "$out/other.onnx" &&
        grep -q "is not '.*in.onnx', which '.*lost.onnx' records as its original" "$tmp/err" ||
        fail "--source not recorded: $(cat "$tmp/err")"
    rm -f "$out/other.onnx"
    run "--source with --reference" 2 pack "$out/in.onnx" "$out/back.onnx" --reference --source "$out/in.onnx"
    broken up.onnx 'next(e for e in t.external_data if e.key == "location").value = "../in.onnx"'
    run "location leaving the directory" 2 pack "$out/up.onnx" "$out/back.onnx" &&
        grep -q "external_parent_component" "$tmp/err" || fail "location ..: $(cat "$tmp/err")"
    only "rewritten proxies" in.onnx p.onnx range.onnx dims.onnx lost.onnx up.onnx renamed.onnx reshaped.onnx \
        retyped.onnx orphan.onnx norecord.onnx
else
    echo "note: no python3-onnx; proxies rewritten by a tool are not checked"
fi

echo "$n runs, $fails failures"
[ "$fails" = 0 ]
