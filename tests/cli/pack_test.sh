#!/bin/bash
# `onnxview pack`: exit codes, what it writes, and that nothing is left
# behind when it fails. python3-onnx, protoc and onnxruntime check the
# outputs themselves in tests/oracle/pack_oracle.py.
# Usage: pack_test.sh ONNXVIEW SOURCE_ROOT
set -u
exe=$1
root=$2
data=$root/testdata
fixtures=$root/tests/cli/doctor_fixtures.py
# shellcheck source=harness.sh
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

out=$tmp/o
mkdir -p "$out"
# only NAME FILE...: the output directory holds exactly these files.
only() {
    local name=$1
    shift
    local want got
    want=$(printf '%s\n' "$@" | sort)
    got=$(cd "$out" && ls -A | sort)
    [ "$got" = "$want" ] || fail "$name: directory holds '$(echo $got)', expected '$(echo $want)'"
}
# aligned NAME FILE GROUP ALIGN: every payload of GROUP ("" embedded, else an
# external location) in FILE starts at a multiple of ALIGN, by onnxview doctor.
aligned() {
    "$exe" doctor --json "$2" >"$tmp/doctor" 2>&1 || { fail "$1: doctor $(cat "$tmp/doctor")"; return; }
    $py - "$tmp/doctor" "$3" "$4" <<'PY' || fail "$1: payloads not aligned to $4"
import json, sys
z = json.load(open(sys.argv[1]))["zero_copy"]
group = z["embedded"] if sys.argv[2] == "" else [e for e in z["external"] if e["location"] == sys.argv[2]][0]
a = group["aligned"][sys.argv[3]]["tensors"]
assert a == group["all"]["tensors"] == group["zero_copy"]["tensors"] and a > 0, group
PY
}

# --- writing -----------------------------------------------------------------
run "pack inline" 0 pack "$data/small_cnn_inline.onnx" "$out/a.onnx" --threshold 1 --verify &&
    grep -q "^verified: 11 tensors equal bit for bit$" "$tmp/out" &&
    grep -q "^packed '.*small_cnn_inline.onnx' -> '.*a.onnx': 11 tensors (" "$tmp/out" || fail "pack inline: $(cat "$tmp/out")"
aligned "pack inline --threshold 1" "$out/a.onnx" "" 64
[ -s "$tmp/err" ] && fail "pack inline: stderr is not a terminal, yet: $(cat "$tmp/err")"
run "pack inline checks" 0 check "$out/a.onnx"
only "pack inline" a.onnx

run "pack --external" 0 pack "$data/small_cnn_inline.onnx" "$out/b.onnx" --external b.data --align 65536 --verify
aligned "pack --external --align 65536" "$out/b.onnx" b.data 65536
only "pack --external" a.onnx b.onnx b.data
run "pack --internalize" 0 pack "$out/b.onnx" "$out/c.onnx" --internalize --inline-align 4096
cmp -s "$out/c.onnx" "$out/a.onnx" && fail "--inline-align 4096 wrote the 64-aligned file"
run "pack --internalize --verify" 0 pack "$out/b.onnx" "$out/d.onnx" --internalize --verify
run "pack of a packed model" 0 pack "$out/a.onnx" "$out/e.onnx" --threshold 1
cmp -s "$out/a.onnx" "$out/e.onnx" || fail "pack of a packed model changed it"
rm -f "$out"/[abcde].onnx "$out/b.data"
run "pack --keep-typed" 0 pack "$data/tensors_all_types.onnx" "$out/t.onnx" --keep-typed
grep -q " 0 converted from typed fields" "$tmp/out" || fail "--keep-typed: $(cat "$tmp/out")"
run "pack typed" 0 pack "$data/tensors_all_types.onnx" "$out/t.onnx" --verify
grep -q " 16 converted from typed fields" "$tmp/out" || fail "typed: $(cat "$tmp/out")"
rm -f "$out/t.onnx"

# --dedupe: testdata's small_cnn has no repeated weights, so it changes nothing there.
run "pack --dedupe" 0 pack "$data/small_cnn_inline.onnx" "$out/f.onnx" --external f.data --dedupe --verify &&
    grep -q "(0 sharing a range)" "$tmp/out" || fail "--dedupe: $(cat "$tmp/out")"
rm -f "$out/f.onnx" "$out/f.data"
run "--dedupe without --external" 2 pack "$data/small_cnn_inline.onnx" "$out/f.onnx" --dedupe

# --- refusals: usage (2), and nothing written ---------------------------------
cp "$data/small_cnn_inline.onnx" "$out/in.onnx"
run "OUT is IN" 2 pack "$out/in.onnx" "$out/in.onnx" && grep -q "is the input" "$tmp/err" || fail "OUT is IN: $(cat "$tmp/err")"
run "OUT is IN by another path" 2 pack "$out/in.onnx" "$out/../o/in.onnx"
cmp -s "$out/in.onnx" "$data/small_cnn_inline.onnx" || fail "OUT is IN: the input changed"
run "--align 3" 2 pack "$out/in.onnx" "$out/x.onnx" --align 3 && grep -q "power of two" "$tmp/err" || fail "--align 3"
run "--inline-align 0" 2 pack "$out/in.onnx" "$out/x.onnx" --inline-align 0
run "--external is OUT" 2 pack "$out/in.onnx" "$out/x.onnx" --external x.onnx &&
    grep -q "is OUT; choose another name" "$tmp/err" || fail "--external is OUT: $(cat "$tmp/err")"
run "external data of IN as OUT's data" 0 pack "$out/in.onnx" "$out/ext.onnx" --external ext.data
cp "$out/ext.data" "$tmp/ext.data.before"
run "--external is IN's data" 2 pack "$out/ext.onnx" "$out/x.onnx" --external ext.data &&
    grep -q "holds the external data 'ext.data' of" "$tmp/err" || fail "--external is IN's data: $(cat "$tmp/err")"
run "OUT is IN's data" 2 pack "$out/ext.onnx" "$out/ext.data"
cmp -s "$out/ext.data" "$tmp/ext.data.before" || fail "IN's external data changed"
rm -f "$out/ext.onnx" "$out/ext.data"
run "--external with a directory" 2 pack "$out/in.onnx" "$out/x.onnx" --external sub/x.data
run "--external and --internalize" 2 pack "$out/in.onnx" "$out/x.onnx" --external x.data --internalize
run "unwritable directory" 2 pack "$out/in.onnx" "$tmp/missing/x.onnx" &&
    grep -q "^onnxview pack: cannot create a file in the directory of '.*x.onnx': .*(No such file or directory)$" "$tmp/err" ||
    fail "unwritable directory: $(cat "$tmp/err")"
printf 'not a model at all' >"$tmp/text.onnx"
run "not a model" 1 pack "$tmp/text.onnx" "$out/x.onnx"
run "missing input" 2 pack "$tmp/none.onnx" "$out/x.onnx"
only "refusals" in.onnx

# External references kept as they are would break in another directory.
run "external kept, other directory" 2 pack "$data/small_cnn.onnx" "$out/x.onnx" &&
    grep -q "^onnxview pack: 2 external tensors would keep locations relative to the directory of '.*small_cnn.onnx', not of OUT: write OUT there, or use --internalize or --external NAME$" "$tmp/err" ||
    fail "external kept: $(cat "$tmp/err")"
run "external kept, internalized" 0 pack "$data/small_cnn.onnx" "$out/x.onnx" --internalize --verify
rm -f "$out/x.onnx"

# An external file that cannot be read.
cp "$data/small_cnn.onnx" "$out/ext.onnx"
# The system's reason is said once (it was appended twice).
run "missing external file" 2 pack "$out/ext.onnx" "$out/x.onnx" --internalize &&
    grep -q "^onnxview pack: cannot read the external data of '.*ext.onnx': " "$tmp/err" &&
    [ "$(grep -o "No such file or directory" "$tmp/err" | wc -l)" = 1 ] || fail "missing external: $(cat "$tmp/err")"
only "missing external file" in.onnx ext.onnx
rm -f "$out/ext.onnx"

# An EXTERNAL tensor without elements still names a place in a file, and every
# command resolves it (fuzz_pack finding 7: pack moved it without reading it).
cp "$root/fuzz/corpus/fuzz_pack/finding-empty-external-offset-near-2-64" "$out/empty.onnx"
head -c 100 /dev/zero >"$out/weights.bin"
past_end="offset past the end of the file"
run "empty external: check" 1 check "$out/empty.onnx" &&
    cat "$tmp/out" "$tmp/err" | grep -q "'w': location 'weights.bin': $past_end \[external_offset_past_end\]" ||
    fail "empty external: check: $(cat "$tmp/out" "$tmp/err")"
run "empty external: tensor" 1 tensor "$out/empty.onnx" w && grep -q "$past_end" "$tmp/err" ||
    fail "empty external: tensor: $(cat "$tmp/err")"
run "empty external: doctor" 1 doctor "$out/empty.onnx" && grep -q "too_short: tensor 'w': .*$past_end" "$tmp/out" ||
    fail "empty external: doctor: $(cat "$tmp/out")"
for moved in "--external x.data" --internalize; do
    # shellcheck disable=SC2086
    run "empty external: pack $moved" 2 pack "$out/empty.onnx" "$out/x.onnx" $moved &&
        grep -q "^onnxview pack: cannot read the external data of '.*empty.onnx': $past_end (external_offset_past_end)" "$tmp/err" ||
        fail "empty external: pack $moved: $(cat "$tmp/err")"
done
only "empty external" in.onnx empty.onnx weights.bin
rm -f "$out/empty.onnx" "$out/weights.bin"

# Disk full: a file-size limit makes write() fail (EFBIG) part way.
(ulimit -f 8 && trap '' XFSZ && "$exe" pack "$data/small_cnn_inline.onnx" "$out/x.onnx" --inline-align 4096 --threshold 1) \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
n=$((n + 1))
[ "$rc" = 2 ] && grep -q "^onnxview pack: cannot write '.*x.onnx': cannot write the file (File too large)$" "$tmp/err" ||
    fail "file size limit: exit $rc, $(cat "$tmp/err")"
only "file size limit" in.onnx


# --- edit ----------------------------------------------------------------------
run "edit" 0 edit "$data/small_cnn_inline.onnx" "$out/e.onnx" --metadata k=v --producer p:3 --strip-doc-strings &&
    grep -q "^edited '.*small_cnn_inline.onnx' -> '.*e.onnx': [0-9]* bytes$" "$tmp/out" || fail "edit: $(cat "$tmp/out")"
run "edit info" 0 info --json "$out/e.onnx" &&
    $py -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["producer_name"] == "p" and d["producer_version"] == "3", d' "$tmp/out" ||
    fail "edit: producer not set"
run "edit keeps the tensors" 0 pack "$out/e.onnx" "$out/e2.onnx" --verify
rm -f "$out/e.onnx" "$out/e2.onnx"
run "edit --set-dim" 0 edit "$data/small_cnn_inline.onnx" "$out/e.onnx" --set-dim image:0=batch --set-dim image:2=64
run "edit --set-dim info" 0 info "$out/e.onnx" && grep -q "^  image: FLOAT\[batch,3,64,32\]$" "$tmp/out" ||
    fail "--set-dim: $(cat "$tmp/out")"
rm -f "$out/e.onnx"
run "edit --set-dim: no such dim" 2 edit "$data/small_cnn_inline.onnx" "$out/e.onnx" --set-dim image:4=1
run "edit --set-dim: malformed" 2 edit "$data/small_cnn_inline.onnx" "$out/e.onnx" --set-dim image=1
run "edit --rename" 0 edit "$data/small_cnn_inline.onnx" "$out/e.onnx" --rename image=pixels --rename conv1.weight=w1
run "edit --rename info" 0 info "$out/e.onnx" && grep -q "^  pixels: FLOAT\[N,3,32,32\]$" "$tmp/out" ||
    fail "--rename: $(cat "$tmp/out")"
run "edit --rename tensor" 0 tensor "$out/e.onnx" w1 && grep -q "^name: w1$" "$tmp/out" && grep -q "^shape: \[8,3,3,3\]$" "$tmp/out" ||
    fail "--rename: the initializer: $(cat "$tmp/out")"
run "edit --rename keeps the payloads" 0 pack "$out/e.onnx" "$out/e2.onnx" --inline-align 1 --keep-typed
rm -f "$out/e.onnx" "$out/e2.onnx"
run "edit --rename: no such name" 2 edit "$data/small_cnn_inline.onnx" "$out/e.onnx" --rename nothing=x &&
    grep -q "^onnxview edit: --rename nothing=x: renames a name that is not a value name of the main graph$" "$tmp/err" ||
    fail "--rename: $(cat "$tmp/err")"
run "edit --rename: name in use" 2 edit "$data/small_cnn_inline.onnx" "$out/e.onnx" --rename image=conv1 &&
    grep -q "^onnxview edit: --rename image=conv1: gives a name already used .* (at byte [0-9]* in graph.node\[0\].output\[0\])$" "$tmp/err" ||
    fail "--rename: $(cat "$tmp/err")"
run "edit --rename: a swap" 2 edit "$data/small_cnn_inline.onnx" "$out/e.onnx" --rename image=conv1 --rename conv1=image &&
    grep -q "^onnxview edit: --rename image=conv1: gives a name that another change renames .* (--rename conv1=image)$" "$tmp/err" ||
    fail "--rename: $(cat "$tmp/err")"
run "edit --rename: the empty name" 2 edit "$data/small_cnn_inline.onnx" "$out/e.onnx" --rename =x
run "edit --rename: no NEW" 2 edit "$data/small_cnn_inline.onnx" "$out/e.onnx" --rename image
# --extract: the subgraph and its summary; python3-onnx and onnxruntime check
# the cuts themselves in tests/oracle/extract_oracle.py.
run "edit --extract" 0 edit "$data/small_cnn_inline.onnx" "$out/e.onnx" --extract image:pool2 &&
    grep -q "^extracted 6 of 12 nodes, 4 initializers, 1 functions, 2 opset imports$" "$tmp/out" ||
    fail "--extract: $(cat "$tmp/out")"
run "edit --extract info" 0 info "$out/e.onnx" && grep -q "^  pool2: FLOAT\[N,16,4,4\]$" "$tmp/out" &&
    grep -q "^nodes: 6 in the main graph, 6 in all$" "$tmp/out" || fail "--extract info: $(cat "$tmp/out")"
run "edit --extract check" 0 check "$out/e.onnx"
run "edit --extract keeps the tensors' bytes" 0 tensor "$out/e.onnx" conv2.weight
rm -f "$out/e.onnx"
run "edit --extract, two inputs, with other edits" 0 edit "$data/small_cnn_inline.onnx" "$out/e.onnx" \
    --extract image,pool1:probs --set-dim pool1:0=batch --strip-doc-strings &&
    grep -q "^extracted 9 of 12 nodes" "$tmp/out" || fail "--extract two inputs: $(cat "$tmp/out")"
run "edit --extract two inputs info" 0 info "$out/e.onnx" && grep -q "^  pool1: FLOAT\[batch,8,16,16\]$" "$tmp/out" ||
    fail "--extract with --set-dim: $(cat "$tmp/out")"
rm -f "$out/e.onnx"
extract_refused() {  # NAME SPEC MESSAGE: exit 2, that one-line message, nothing written
    run "edit --extract $1" 2 edit "$data/small_cnn_inline.onnx" "$out/e.onnx" --extract "$2" &&
        grep -qxF "onnxview edit: --extract: $3" "$tmp/err" || fail "--extract $1: $(cat "$tmp/err")"
}
extract_refused "unknown name" image:nothing "'nothing' is no graph input, output, value_info, initializer or node output of the main graph"
extract_refused "missing input" pool1:probs "'image', a graph input, is needed by node 'image_sum' but is not among INPUTS"
extract_refused "given twice" image,image:pool2 "'image' is given twice"
extract_refused "no type" image:relu1 "'relu1' has no complete type in the model (a graph input, output or value_info whose type has elem_type and shape), which onnx.checker requires of a graph input or output: add its value_info first (onnx.shape_inference.infer_shapes infers them), or cut at another value"
for spec in image 'image:' 'image::pool2' 'image,:pool2' ; do
    run "edit --extract '$spec'" 2 edit "$data/small_cnn_inline.onnx" "$out/e.onnx" --extract "$spec" &&
        grep -q "^onnxview edit: --extract needs INPUTS:OUTPUTS (names separated by ','), not '" "$tmp/err" ||
        fail "--extract '$spec': $(cat "$tmp/err")"
done
# '\' escapes ':' and ',' inside a name: 'image\:x' is one (unknown) name.
extract_refused "escaped" 'image\:x:pool2' "'image:x' is no graph input, output, value_info, initializer or node output of the main graph"
run "edit: nothing to change" 2 edit "$data/small_cnn_inline.onnx" "$out/e.onnx"
run "edit: --rename with --extract" 2 edit "$data/small_cnn_inline.onnx" "$out/e.onnx" --rename image=x --extract image:pool2 &&
    grep -q "^onnxview edit: --rename and --extract are made in two edits: extract first, then rename$" "$tmp/err" ||
    fail "--rename with --extract: $(cat "$tmp/err")"
run "edit: a metadata change without a key" 2 edit "$data/small_cnn_inline.onnx" "$out/e.onnx" --metadata =v
run "edit: OUT is IN" 2 edit "$out/in.onnx" "$out/in.onnx" --strip-doc-strings
run "edit: not a model" 1 edit "$tmp/text.onnx" "$out/e.onnx" --strip-doc-strings
only "edit refusals" in.onnx

# Bounded memory: pages of the input are given back once verified and once
# written, also where tensors are copied as they are (edit), so the peak
# resident set stays far below the model's size, for one large tensor and
# for a header every 128 KiB (4,096 tensors) alike.
# 0: not asserted (builds with sanitizers, whose shadow memory and allocator
# a peak RSS would measure instead of the program: gcc's ASan took a merge
# that peaks at 48 MiB to 264 MiB).
rss_limit=${ONNXVIEW_TEST_RSS_LIMIT_KIB:-131072}
rss_ok() { [ "$rss_limit" -eq 0 ] || [ "$(tail -1 "$tmp/rss")" -lt "$rss_limit" ]; }
if [ -x /usr/bin/time ] && $py "$fixtures" big "$tmp/large.onnx" 512 && $py "$fixtures" many "$tmp/many.onnx" 512; then
    for model in large many; do
        for args in "edit --metadata k=v" "pack --threshold 1" "pack --external x.data"; do
            n=$((n + 1))
            /usr/bin/time -f %M -o "$tmp/rss" "$exe" ${args%% *} "$tmp/$model.onnx" "$out/x.onnx" ${args#* } >/dev/null 2>"$tmp/err" ||
                fail "$args of $model.onnx: $(cat "$tmp/err")"
            rss_ok || fail "$args of $model.onnx: peak RSS $(tail -1 "$tmp/rss") KiB, over $rss_limit KiB"
            rm -f "$out/x.onnx" "$out/x.data"
        done
        n=$((n + 1))
        /usr/bin/time -f %M -o "$tmp/rss" "$exe" merge "$tmp/$model.onnx" "$tmp/$model.onnx" "$out/x.onnx" \
            --prefix-a a/ --prefix-b b/ --external x.data >/dev/null 2>"$tmp/err" ||
            fail "merge of $model.onnx with itself: $(cat "$tmp/err")"
        rss_ok || fail "merge of $model.onnx: peak RSS $(tail -1 "$tmp/rss") KiB, over $rss_limit KiB"
        rm -f "$out/x.onnx" "$out/x.data"
        rm -f "$tmp/$model.onnx"
    done
else
    echo "note: no /usr/bin/time (Debian: time) or no room for 512 MiB; peak memory is not checked"
fi

# A model over 2 GiB stays whole only when asked: libprotobuf cannot read it.
if $py "$fixtures" big "$tmp/big.onnx" 2>/dev/null; then
    run "over 2 GiB" 2 pack "$tmp/big.onnx" "$out/x.onnx" &&
        grep -q "^onnxview pack: OUT would be [0-9]* bytes, over 2 GiB, which libprotobuf-based readers cannot open; use --external NAME, or --allow-over-2gib$" "$tmp/err" ||
        fail "over 2 GiB: $(cat "$tmp/err")"
    only "over 2 GiB" in.onnx
    # SIGTERM part way through writing 2 GiB: the temporary files go with the process.
    n=$((n + 1))
    timeout -s TERM 0.5 "$exe" pack "$tmp/big.onnx" "$out/x.onnx" --external x.data >/dev/null 2>&1
    rc=$?
    if [ "$rc" = 124 ]; then
        only "SIGTERM while writing" in.onnx
    else
        echo "note: pack finished (exit $rc) before SIGTERM; the signal path is not checked"
        rm -f "$out/x.onnx" "$out/x.data"
    fi
    n=$((n + 1))
    timeout -s TERM 0.5 "$exe" merge "$tmp/big.onnx" "$tmp/big.onnx" "$out/x.onnx" --prefix-a a/ --prefix-b b/ \
        --external x.data >/dev/null 2>&1
    rc=$?
    if [ "$rc" = 124 ]; then
        only "SIGTERM while merging" in.onnx
    else
        echo "note: merge finished (exit $rc) before SIGTERM; the signal path is not checked"
        rm -f "$out/x.onnx" "$out/x.data"
    fi
    rm -f "$tmp/big.onnx"
else
    echo "note: cannot write a 2 GiB sparse file here; the over-2-GiB refusal is not checked"
fi

echo "$n runs, $fails failures"
[ "$fails" = 0 ]
