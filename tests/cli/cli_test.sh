#!/bin/bash
# CLI tests: run the built `onnxview` on the testdata models and on inputs it
# must reject. Usage: cli_test.sh ONNXVIEW SOURCE_ROOT
set -u
exe=$1
root=$2
data=$root/testdata
py=/usr/bin/python3
[ -x $py ] || py=python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
n=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# run NAME EXPECTED_RC ARGS...: runs onnxview, keeps stdout/stderr in $tmp/out, $tmp/err.
run() {
    local name=$1 want=$2
    shift 2
    n=$((n + 1))
    "$exe" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" != "$want" ]; then
        fail "$name: exit $rc, expected $want (onnxview $*)"
        sed 's/^/    stderr: /' "$tmp/err" | head -5
        return 1
    fi
    return 0
}
# The last run wrote nothing that looks like success.
no_success() {
    if grep -qE '^ir_version|^0 errors|"valid": true|^file:' "$tmp/out"; then
        fail "$1: stdout looks like success:"; head -3 "$tmp/out"
    fi
}
one_line_error() {
    local lines
    lines=$(wc -l <"$tmp/err")
    [ "$lines" = 1 ] || fail "$1: expected one error line on stderr, got $lines"
    grep -q '^onnxview' "$tmp/err" || fail "$1: error line does not start with 'onnxview'"
}

# --- help and usage --------------------------------------------------------
run "help" 0 --help && grep -q 'exit status' "$tmp/out" || fail "--help lacks exit status"
for cmd in info check dump tensor; do
    run "$cmd --help" 0 $cmd --help && grep -q "^usage: onnxview $cmd" "$tmp/out" || fail "$cmd --help text"
    run "$cmd -h" 0 $cmd -h
    run "$cmd without file" 2 $cmd && one_line_error "$cmd without file"
    run "$cmd unknown option" 2 $cmd --bogus "$data/small_cnn.onnx" && one_line_error "$cmd unknown option"
done
run "no arguments" 2
run "unknown command" 2 frobnicate x.onnx && one_line_error "unknown command"
run "info two files" 2 info "$data/small_cnn.onnx" "$data/sparse.onnx"
run "check bad --max-findings" 2 check --max-findings x "$data/small_cnn.onnx"
run "dump bad --max-bytes" 2 dump --max-bytes -3 "$data/small_cnn.onnx"
run "dump unknown type" 2 dump --type onnx.NoSuchProto "$data/small_cnn.onnx"
run "tensor without name" 2 tensor "$data/small_cnn.onnx"

# --- the testdata models -----------------------------------------------------
for f in "$data"/*.onnx; do
    b=$(basename "$f")
    run "info $b" 0 info "$f" && grep -q '^ir_version: ' "$tmp/out" || fail "info $b: no ir_version line"
    grep -q '^opset_import: ' "$tmp/out" || fail "info $b: no opset_import line"
    run "info --json $b" 0 info --json "$f" &&
        { $py -m json.tool <"$tmp/out" >/dev/null || fail "info --json $b: not JSON"; }
    run "check $b" 0 check "$f" && grep -q '^0 errors' "$tmp/out" || fail "check $b: no '0 errors' line"
    run "check --json $b" 0 check --json "$f" &&
        { $py -m json.tool <"$tmp/out" >/dev/null || fail "check --json $b: not JSON"; }
    run "dump $b" 0 dump "$f" && grep -q '^ir_version: ' "$tmp/out" || fail "dump $b: no ir_version"
    run "dump --json $b" 0 dump --json "$f" &&
        { $py -m json.tool <"$tmp/out" >/dev/null || fail "dump --json $b: not JSON"; }
done
# small_cnn.onnx: details of the summary.
run "info small_cnn" 0 info "$data/small_cnn.onnx"
grep -q 'image: FLOAT\[N,3,32,32\]' "$tmp/out" || fail "info small_cnn: input with symbolic dim"
grep -q 'small_cnn.weights: 2 tensors' "$tmp/out" || fail "info small_cnn: external file"
grep -q 'onnxview.local::Swish' "$tmp/out" || fail "info small_cnn: function"
run "info --json small_cnn" 0 info --json "$data/small_cnn.onnx"
$py - "$tmp/out" <<'PY' || fail "info --json small_cnn: content"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["ir_version"] == 8, d["ir_version"]
assert d["inputs"][0]["shape"][0] == "N", d["inputs"][0]
assert d["external_data"][0]["location"] == "small_cnn.weights"
assert d["external_data"][0]["file_size"] > 0
assert d["nodes"]["total"] >= d["nodes"]["main_graph"] > 0
assert d["functions"][0]["name"] == "Swish"
PY

# --- tensor ------------------------------------------------------------------
run "tensor raw" 0 tensor "$data/small_cnn.onnx" conv1.weight -n 3 &&
    { grep -q '^storage: raw' "$tmp/out" && grep -q '^shape: \[8,3,3,3\]' "$tmp/out" &&
      grep -q '^values (first 3 of 216)' "$tmp/out" && grep -q '^mean: ' "$tmp/out"; } ||
    fail "tensor raw: output"
run "tensor external" 0 tensor "$data/small_cnn.onnx" conv2.weight &&
    { grep -q '^storage: external' "$tmp/out" && grep -q '^location: small_cnn.weights' "$tmp/out"; } ||
    fail "tensor external: output"
run "tensor typed string" 0 tensor "$data/tensors_all_types.onnx" string_typed &&
    grep -q '^storage: typed (string_data' "$tmp/out" || fail "tensor typed string: output"
run "tensor complex" 0 tensor "$data/tensors_all_types.onnx" complex64_typed &&
    grep -q '(1+2j)' "$tmp/out" || fail "tensor complex: output"
run "tensor not found" 1 tensor "$data/small_cnn.onnx" no_such_tensor && one_line_error "tensor not found"
run "tensor bad -n" 2 tensor "$data/small_cnn.onnx" conv1.weight -n x

# --- inputs that must be rejected -------------------------------------------
: >"$tmp/empty.onnx"
head -c 4096 /dev/urandom >"$tmp/random.onnx"
printf '\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff' >"$tmp/badvarint.onnx"
# A TensorProto (dims packed [3], FLOAT, 12 bytes of raw_data): parses as an
# empty ModelProto, since none of its fields fit ModelProto's.
printf '\x0a\x01\x03\x10\x01\x4a\x0c\x00\x00\x80\x3f\x00\x00\x00\x40\x00\x00\x40\x40' >"$tmp/tensor.pb"
for cmd in info check dump; do
    run "$cmd missing file" 2 $cmd "$tmp/nope.onnx" && one_line_error "$cmd missing file"
    no_success "$cmd missing file"
    run "$cmd zero-byte file" 2 $cmd "$tmp/empty.onnx" && one_line_error "$cmd zero-byte file"
    no_success "$cmd zero-byte file"
    run "$cmd directory" 2 $cmd "$tmp" && one_line_error "$cmd directory"
    no_success "$cmd directory"
    run "$cmd bad varint" 1 $cmd "$tmp/badvarint.onnx" && one_line_error "$cmd bad varint"
    no_success "$cmd bad varint"
    [ -s "$tmp/out" ] && [ $cmd != check ] && fail "$cmd bad varint: wrote to stdout"
done
# Random bytes almost never parse; whatever happens, exit 1 or 2 and no success.
for cmd in info check dump; do
    n=$((n + 1))
    "$exe" $cmd "$tmp/random.onnx" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    case $rc in 1|2) ;; *) fail "$cmd random bytes: exit $rc" ;; esac
    no_success "$cmd random bytes"
done
run "info tensor as model" 1 info "$tmp/tensor.pb" && one_line_error "info tensor as model"
no_success "info tensor as model"
run "check tensor as model" 1 check "$tmp/tensor.pb"
no_success "check tensor as model"
grep -q 'missing_ir_version' "$tmp/out" || fail "check tensor as model: no missing_ir_version finding"
run "dump --type TensorProto" 0 dump --type onnx.TensorProto "$tmp/tensor.pb" &&
    grep -q '^data_type: 1' "$tmp/out" || fail "dump --type TensorProto: no data_type"
run "dump --type TensorProto --json" 0 dump --json --type TensorProto "$tmp/tensor.pb" &&
    { $py -m json.tool <"$tmp/out" >/dev/null || fail "dump --type TensorProto --json: not JSON"; }

# Truncated prefixes of a model: a clean 0 or 1, never a crash (exit >= 128).
size=$(wc -c <"$data/small_cnn.onnx")
for ((len = 1; len < size; len += 37)); do
    head -c $len "$data/small_cnn.onnx" >"$tmp/prefix.onnx"
    for cmd in info check dump; do
        n=$((n + 1))
        "$exe" $cmd "$tmp/prefix.onnx" >/dev/null 2>"$tmp/err"
        rc=$?
        case $rc in 0|1) ;; *) fail "$cmd prefix $len: exit $rc" ;; esac
    done
    n=$((n + 1))
    "$exe" tensor "$tmp/prefix.onnx" conv1.weight >/dev/null 2>&1
    rc=$?
    case $rc in 0|1) ;; *) fail "tensor prefix $len: exit $rc" ;; esac
done

# --- check: findings name the path -----------------------------------------
if $py -c 'import onnx' 2>/dev/null; then
    $py - "$tmp/undef.onnx" <<'PY'
import sys
from onnx import TensorProto, helper
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
g = helper.make_graph([helper.make_node("Relu", ["x"], ["t"], name="r"),
                       helper.make_node("Add", ["t", "missing"], ["y"], name="conv1")], "g", [x], [y])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
m.ir_version = 8
open(sys.argv[1], "wb").write(m.SerializeToString())
PY
    run "check undefined input" 1 check "$tmp/undef.onnx"
    grep -q "graph.node\[1\] 'conv1'.input\[1\]: input 'missing'" "$tmp/out" ||
        fail "check undefined input: path/message: $(head -1 "$tmp/out")"
else
    echo "note: python onnx absent; path test skipped"
fi

# --- JSON escaping on the corpus (names with any bytes) ----------------------
corpus=/usr/share/libonnx-testdata/data
if [ -d "$corpus" ]; then
    k=0
    for f in $(find "$corpus" -name model.onnx | sort | awk 'NR % 20 == 1'); do
        "$exe" info --json "$f" >"$tmp/out" 2>"$tmp/err" || { fail "info --json $f: exit $?"; continue; }
        $py -m json.tool <"$tmp/out" >/dev/null || fail "info --json $f: not JSON"
        k=$((k + 1))
    done
    echo "info --json parsed on $k corpus models"
else
    echo "note: $corpus absent; corpus JSON check skipped"
fi

echo "$n runs, $fails failures"
[ "$fails" = 0 ]
