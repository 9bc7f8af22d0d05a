#!/bin/bash
# `onnxview doctor` and the diagnosis the other commands append to their
# parse errors. Usage: doctor_test.sh ONNXVIEW SOURCE_ROOT
set -u
exe=$1
root=$2
data=$root/testdata
fixtures=$root/tests/cli/doctor_fixtures.py
# shellcheck source=harness.sh
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

# has NAME FILE LINE: FILE holds LINE exactly.
has() { grep -qxF -- "$3" "$2" || { fail "$1: no line '$3' in:"; sed 's/^/    /' "$2" | head -20; }; }

# --- healthy models ----------------------------------------------------------
for f in "$data"/*.onnx; do
    b=$(basename "$f")
    run "doctor $b" 0 doctor "$f" && has "doctor $b" "$tmp/out" "diagnosis: a valid ONNX model (ir_version 8)"
    has "doctor $b" "$tmp/out" "findings: 0"
    run "doctor --json $b" 0 doctor --json "$f" || continue
    # Alignment and zero-copy figures against the wire bytes, read independently.
    $py "$fixtures" payloads "$f" >"$tmp/expected" || { fail "payloads $b"; continue; }
    $py - "$tmp/out" "$tmp/expected" "$b" <<'PY' || fail "doctor --json $b: figures"
import json, sys
d = json.load(open(sys.argv[1]))
want = json.load(open(sys.argv[2]))
assert d["diagnosis"]["kind"] == "onnx_model" and d["diagnosis"]["healthy"] is True, d["diagnosis"]
z = d["zero_copy"]
got = {"": z["embedded"]}
for e in z["external"]:
    got[e["location"]] = e
for loc, w in want.items():
    g = got[loc]
    for k in ("all", "zero_copy", "copied"):
        assert g[k] == w[k], (sys.argv[3], loc, k, g[k], w[k])
    assert g["aligned"] == w["aligned"], (sys.argv[3], loc, g["aligned"], w["aligned"])
assert set(got) == set(want), (set(got), set(want))
PY
done
run "doctor small_cnn text" 0 doctor "$data/small_cnn.onnx"
has "doctor small_cnn text" "$tmp/out" "parameters: 3968 in 11 tensors, 15881 bytes"
grep -q "^  external small_cnn.weights (14848 bytes, under 64 KiB: read into memory, spans point into that copy): 2 tensors (14848 bytes)$" "$tmp/out" ||
    fail "doctor small_cnn: external group"
has "doctor small_cnn text" "$tmp/out" "external data: 1 file, no problems"

# --- parameters kept in Constant nodes (info and doctor) ---------------------
run "info sparse" 0 info "$data/sparse.onnx"
has "info sparse" "$tmp/out" "  Constant nodes: 2 in 2 tensors, 24 bytes"
has "info sparse" "$tmp/out" "parameters: 11 in 7 tensors, 156 bytes (initializers, Constant nodes, tensor attributes)"
run "info --json sparse" 0 info --json "$data/sparse.onnx" &&
    $py -c '
import json, sys
p = json.load(open(sys.argv[1]))["parameters"]
assert p["all"] == {"tensors": 7, "parameters": 11, "bytes": 156}, p["all"]
assert p["by_origin"]["constant"] == {"tensors": 2, "parameters": 2, "bytes": 24}, p["by_origin"]
' "$tmp/out" || fail "info --json sparse: parameters"

# --- duplicate tensors (--duplicates) -----------------------------------------
$py "$fixtures" tied "$tmp/tied"
for f in "$data"/*.onnx "$tmp/tied/tied.onnx"; do
    b=$(basename "$f")
    run "doctor --duplicates --json $b" 0 doctor --duplicates --json "$f" || continue
    # The groups python3-onnx finds (numpy_helper.to_array of every tensor).
    $py "$fixtures" duplicates "$f" >"$tmp/expected" || { fail "duplicates $b"; continue; }
    $py - "$tmp/out" "$tmp/expected" "$b" <<'PY' || fail "doctor --duplicates --json $b: groups"
import json, sys
d = json.load(open(sys.argv[1]))["duplicates"]
want = json.load(open(sys.argv[2]))
got = sorted([g["data_type"], g["dims"], len(g["tensors"]), g["bytes"]] for g in d["groups"])
assert got == want["groups"], (sys.argv[3], got, want["groups"])
assert d["wasted_bytes"] == want["wasted_bytes"], (sys.argv[3], d["wasted_bytes"], want["wasted_bytes"])
assert d["redundant_copies"] == sum(g[2] - 1 for g in got) and d["unreadable"] == 0, d
PY
done
run "doctor --duplicates tied" 0 doctor --duplicates "$tmp/tied/tied.onnx"
has "doctor --duplicates tied" "$tmp/out" "duplicates (same data type, dims and values; 688 payload bytes read): 2 groups, 5 redundant copies of 272 bytes"
has "doctor --duplicates tied" "$tmp/out" "  FLOAT [4,4], 64 bytes x 5: 'w_raw', 'w_typed', 'w_external', Constant 'c', attribute 'bias' of 'y' ('b')"
has "doctor --duplicates tied" "$tmp/out" "  INT64 [2], 16 bytes x 2: 'i1', 'i2'"
run "doctor --duplicates int4" 0 doctor --duplicates "$tmp/tied/int4.onnx"
has "doctor --duplicates int4" "$tmp/out" "  INT4 [3], 2 bytes x 3: 'q_a', 'q_b', 'q_c'"
run "doctor --duplicates small_cnn" 0 doctor --duplicates "$data/small_cnn.onnx"
has "doctor --duplicates small_cnn" "$tmp/out" "duplicates (same data type, dims and values; 0 payload bytes read): none"
# --- the pack commands doctor suggests, and that they do what it says -------------
cp "$data/small_cnn_inline.onnx" "$tmp/tied/inline.onnx"
run "doctor inline fix" 0 doctor "$tmp/tied/inline.onnx" &&
    has "doctor inline fix" "$tmp/out" "fix: onnxview pack $tmp/tied/inline.onnx $tmp/tied/inline.packed.onnx"
run "pack as doctor says" 0 pack "$tmp/tied/inline.onnx" "$tmp/tied/inline.packed.onnx" &&
    run "doctor after the fix" 0 doctor "$tmp/tied/inline.packed.onnx" &&
    ! grep -q "^fix:" "$tmp/out" || fail "doctor still suggests a fix after it: $(grep '^fix' "$tmp/out")"
run "doctor --duplicates tied_1k" 0 doctor --duplicates "$tmp/tied/tied_1k.onnx" &&
    has "doctor --duplicates tied_1k" "$tmp/out" "fix: onnxview pack $tmp/tied/tied_1k.onnx $tmp/tied/tied_1k.packed.onnx --external tied_1k.packed.data --dedupe"
run "pack --dedupe as doctor says" 0 pack "$tmp/tied/tied_1k.onnx" "$tmp/tied/tied_1k.packed.onnx" --external tied_1k.packed.data --dedupe &&
    run "doctor --duplicates after dedupe" 0 doctor --duplicates "$tmp/tied/tied_1k.packed.onnx" &&
    has "doctor --duplicates after dedupe" "$tmp/out" "  FLOAT [512], 2048 bytes x 2 (stored 1 time): 'a', 'b'" &&
    ! grep -q "^fix:" "$tmp/out" || fail "doctor suggests a fix after dedupe: $(grep '^fix' "$tmp/out")"
# Without --duplicates no payload is read and nothing is said of them.
run "doctor tied" 0 doctor --json "$tmp/tied/tied.onnx" &&
    $py -c 'import json, sys; assert "duplicates" not in json.load(open(sys.argv[1]))' "$tmp/out" ||
    fail "doctor without --duplicates reports duplicates"
# --- files that are not models ----------------------------------------------
printf 'version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n' >"$tmp/lfs.onnx"
lfs_line="a Git LFS pointer, not the model (oid 'sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393', 12345 bytes): fetch the file itself with \`git lfs pull\` in its repository"
run "doctor lfs" 1 doctor "$tmp/lfs.onnx" && has "doctor lfs" "$tmp/out" "diagnosis: $lfs_line"
has "doctor lfs" "$tmp/out" "findings: 1"
run "doctor --json lfs" 1 doctor --json "$tmp/lfs.onnx" &&
    $py -c '
import json, sys
d = json.load(open(sys.argv[1]))["diagnosis"]
assert d["kind"] == "git_lfs_pointer" and d["healthy"] is False and d["line"] == sys.argv[2], d
' "$tmp/out" "$lfs_line" || fail "doctor --json lfs"
# The other commands: one error line, the parse error then the diagnosis.
run "info lfs" 1 info "$tmp/lfs.onnx" &&
    has "info lfs" "$tmp/err" "onnxview info: '$tmp/lfs.onnx' is not a valid ONNX model: invalid wire type (bad_wire_type) at byte 0; $lfs_line"
run "check lfs" 1 check "$tmp/lfs.onnx" &&
    has "check lfs" "$tmp/err" "onnxview check: '$tmp/lfs.onnx' is not a valid ONNX model (1 error); $lfs_line"
run "dump lfs" 1 dump "$tmp/lfs.onnx" &&
    has "dump lfs" "$tmp/err" "onnxview dump: '$tmp/lfs.onnx' is not a valid onnx.ModelProto: invalid wire type (bad_wire_type) at byte 0; $lfs_line"
run "tensor lfs" 1 tensor "$tmp/lfs.onnx" w &&
    has "tensor lfs" "$tmp/err" "onnxview tensor: '$tmp/lfs.onnx' is not a valid ONNX model: invalid wire type (bad_wire_type) at byte 0; $lfs_line"

: >"$tmp/empty.onnx"
run "doctor empty" 1 doctor "$tmp/empty.onnx" &&
    has "doctor empty" "$tmp/out" "diagnosis: empty file (0 bytes): the download or copy wrote nothing"

printf '\x0a\x01\x03\x10\x01\x4a\x0c\x00\x00\x80\x3f\x00\x00\x00\x40\x00\x00\x40\x40' >"$tmp/tensor.pb"
run "doctor tensor.pb" 1 doctor "$tmp/tensor.pb" &&
    has "doctor tensor.pb" "$tmp/out" "diagnosis: a valid onnx.TensorProto (FLOAT [3]), not a ModelProto: read it with \`onnxview dump --type onnx.TensorProto $tmp/tensor.pb\`"
run "info tensor.pb" 1 info "$tmp/tensor.pb" &&
    has "info tensor.pb" "$tmp/err" "onnxview info: '$tmp/tensor.pb' is not an ONNX model: it has no graph; a valid onnx.TensorProto (FLOAT [3]), not a ModelProto: read it with \`onnxview dump --type onnx.TensorProto $tmp/tensor.pb\`"

gzip -c "$data/small_cnn.onnx" >"$tmp/gz.onnx"
run "doctor gzip" 1 doctor "$tmp/gz.onnx" &&
    has "doctor gzip" "$tmp/out" "diagnosis: gzip-compressed data, not a model: decompress it first (gunzip)"

# A cut copy: the expected size is where the first top-level field that
# runs past the end would end (here the graph, field 7).
head -c 1000 "$data/small_cnn_inline.onnx" >"$tmp/cut.onnx"
expected=$($py - "$data/small_cnn_inline.onnx" <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
def varint(i):
    v = s = 0
    while True:
        c = b[i]; i += 1; v |= (c & 0x7F) << s; s += 7
        if c < 0x80:
            return v, i
i = 0
while True:
    tag, i = varint(i)
    if tag & 7 == 0:
        _, i = varint(i)
        continue
    n, i = varint(i)
    if i + n > 1000:
        print(i + n)
        break
    i += n
PY
)
run "doctor cut" 1 doctor "$tmp/cut.onnx" &&
    has "doctor cut" "$tmp/out" "diagnosis: truncated: at least $expected bytes expected, 1000 present; the download or copy was interrupted"
run "info cut" 1 info "$tmp/cut.onnx" && grep -q "; truncated: at least $expected bytes expected, 1000 present" "$tmp/err" ||
    fail "info cut: $(cat "$tmp/err")"

# --- usage and I/O errors: exit 2 -----------------------------------------------
run "doctor missing file" 2 doctor "$tmp/nope.onnx"
run "doctor directory" 2 doctor "$tmp"
run "doctor without file" 2 doctor
run "doctor --bogus" 2 doctor --bogus "$data/small_cnn.onnx"

# --- external data problems ------------------------------------------------------
$py "$fixtures" external "$tmp/ext/models"
run "doctor missing external file" 1 doctor "$tmp/ext/models/missing.onnx" &&
    grep -q "^  missing: tensor 'w': location 'absent.bin': " "$tmp/out" || fail "missing external file: $(cat "$tmp/out")"
run "doctor short external file" 1 doctor "$tmp/ext/models/short.onnx" &&
    has "doctor short external file" "$tmp/out" "  too_short: tensor 'w': location 'short.bin': offset + length past the end of the file (the file has 8 bytes; the tensor needs bytes 0 to 16)"
grep -q "tensor 'v'" "$tmp/out" && fail "short external file: 'v' fits but is reported"
run "doctor external path escape" 1 doctor --json "$tmp/ext/models/escape.onnx" &&
    $py -c '
import json, sys
p = json.load(open(sys.argv[1]))["external_problems"]
assert len(p) == 1 and p[0]["kind"] == "unsafe_path" and p[0]["tensor"] == "w" and p[0]["location"] == "../w.bin", p
' "$tmp/out" || fail "external path escape"
run "doctor aligned external" 0 doctor --json "$tmp/ext/models/aligned.onnx" &&
    $py -c '
import json, sys
e = json.load(open(sys.argv[1]))["zero_copy"]["external"][0]
a = e["aligned"]
assert e["location"] == "w.bin" and e["read_into_memory"] is False and e["all"]["tensors"] == 5, e
assert a["element"]["tensors"] == 4 and a["64"]["tensors"] == 3 and a["4096"]["tensors"] == 2, a
assert a["65536"] == {"tensors": 1, "bytes": 65536}, a
assert e["zero_copy"]["tensors"] == 4 and e["copied"] == {"tensors": 1, "bytes": 16}, e
assert e["copy_reasons"] == {"unaligned for its type": 1}, e["copy_reasons"]
' "$tmp/out" "$tmp/expected" || fail "aligned external: figures"
$py "$fixtures" payloads "$tmp/ext/models/aligned.onnx" >"$tmp/expected"
$py -c '
import json, sys
w = json.load(open(sys.argv[2]))["w.bin"]
e = json.load(open(sys.argv[1]))["zero_copy"]["external"][0]
assert all(e[k] == w[k] for k in ("all", "aligned", "zero_copy", "copied")), (e, w)
' "$tmp/out" "$tmp/expected" || fail "aligned external: independent figures"

# --- a single file over 2 GiB (sparse on disk) ------------------------------------
if $py "$fixtures" big "$tmp/big.onnx" 2>/dev/null; then
    run "doctor over 2 GiB" 0 doctor "$tmp/big.onnx" &&
        grep -q "^size: the file is [0-9]* bytes, over 2 GiB: readers built on libprotobuf" "$tmp/out" ||
        fail "doctor over 2 GiB: $(cat "$tmp/out")"
    run "doctor --json over 2 GiB" 0 doctor --json "$tmp/big.onnx" &&
        $py -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["over_2gib"] is True and d["parameters"]["parameters"] == 2**31 + 16, d["parameters"]' "$tmp/out" ||
        fail "doctor --json over 2 GiB"
    rm -f "$tmp/big.onnx"
else
    echo "note: cannot write a 2 GiB sparse file here; the over-2-GiB check is skipped"
fi

echo "$n runs, $fails failures"
[ "$fails" = 0 ]
