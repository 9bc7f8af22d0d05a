#!/bin/bash
# CLI tests: run the built `onnxview` on the testdata models and on inputs it
# must reject. Usage: cli_test.sh ONNXVIEW SOURCE_ROOT
set -u
exe=$1
root=$2
data=$root/testdata
# shellcheck source=harness.sh
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

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
# hash and diff exist only in builds with libxxhash (docs/diff.md).
compare_cmds=
grep -q "^  hash " "$tmp/out" && compare_cmds="hash diff"
for cmd in info check stats dump tensor doctor scan pack edit merge profile graph $compare_cmds; do
    run "$cmd --help" 0 $cmd --help && grep -q "^usage: onnxview $cmd" "$tmp/out" || fail "$cmd --help text"
    run "$cmd -h" 0 $cmd -h
    run "$cmd without file" 2 $cmd && one_line_error "$cmd without file"
    run "$cmd unknown option" 2 $cmd --bogus "$data/small_cnn.onnx" && one_line_error "$cmd unknown option"
done
# Each command's usage line (written from its option table) is the one
# `onnxview --help` lists and the one the command tables of README.md and
# docs/cli.md show.
run "help for the overview" 0 --help && cp "$tmp/out" "$tmp/overview"
for cmd in info check stats dump tensor doctor scan pack edit merge profile graph $compare_cmds; do
    run "$cmd --help usage" 0 $cmd --help
    synopsis=$(sed -n '1s/^usage: onnxview //p' "$tmp/out")
    grep -qxF "  $synopsis" "$tmp/overview" || grep -qF "  $synopsis " "$tmp/overview" ||
        fail "onnxview --help does not list '$synopsis'"
    for page in README.md docs/cli.md; do
        grep -qF "| \`onnxview $synopsis\` |" "$root/$page" || fail "$page command table lacks '$synopsis'"
    done
done
# The README's command-line example, each line as written, from a directory
# laid out as after the README's first command (build/tools/onnxview,
# testdata/); every line must succeed.
ex=$tmp/readme_example
mkdir -p "$ex/build/tools" && ln -s "$root/testdata" "$ex/testdata" &&
    ln -s "$(cd "$(dirname "$exe")" && pwd)/$(basename "$exe")" "$ex/build/tools/onnxview"
example=$(sed -n '/^# BEGIN CLI EXAMPLE$/,/^# END CLI EXAMPLE$/p' "$root/README.md" | grep '^build/tools/onnxview ')
[ "$(printf '%s\n' "$example" | grep -c .)" -ge 5 ] || fail "README.md: no CLI example between its markers"
while IFS= read -r line; do
    n=$((n + 1))
    (cd "$ex" && eval "$line") >"$tmp/out" 2>"$tmp/err" ||
        { fail "README.md CLI example failed: $line"; sed 's/^/    stderr: /' "$tmp/err" | head -5; }
done <<<"$example"
# Option syntax: --name=VALUE, -- before operands, a flag given a value.
run "check --max-findings=1" 0 check --max-findings=1 "$data/small_cnn.onnx" &&
    grep -q '^0 errors' "$tmp/out" || fail "check --max-findings=1: output"
run "check --max-findings=0" 2 check --max-findings=0 "$data/small_cnn.onnx" && one_line_error "check --max-findings=0"
run "info -- MODEL" 0 info -- "$data/small_cnn.onnx" && grep -q '^ir_version: ' "$tmp/out" || fail "info -- MODEL: output"
run "info --json=1" 2 info --json=1 "$data/small_cnn.onnx" && one_line_error "info --json=1"
grep -q "option '--json' takes no value" "$tmp/err" || fail "info --json=1: message: $(cat "$tmp/err")"
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

# --- tensor: sparse tensors, --json, subgraphs and functions ------------------
run "tensor sparse coordinates" 0 tensor "$data/sparse.onnx" sparse_2d &&
    { grep -q '^sparse: COO' "$tmp/out" && grep -q '^shape: \[4,5\] (dense)' "$tmp/out" &&
      grep -q '^nnz: 3$' "$tmp/out" && grep -q '^indices: coordinates \[3,2\] INT64' "$tmp/out" &&
      grep -q '^values storage: raw' "$tmp/out" && grep -q '^indices storage: raw' "$tmp/out" &&
      grep -q '\[0,1\] 1.5, \[2,3\] -2, \[3,4\] 3.25$' "$tmp/out" &&
      grep -q '^min: -2$' "$tmp/out" && grep -q '^max: 3.25$' "$tmp/out"; } ||
    { fail "tensor sparse coordinates: output"; cat "$tmp/out"; }
run "tensor sparse linear" 0 tensor "$data/sparse.onnx" sparse_linear -n 2 &&
    { grep -q '^indices: linear \[4\] INT64' "$tmp/out" && grep -q '^data_type: INT64' "$tmp/out" &&
      grep -q 'first 2 of 4 stored.*: \[0,0\] 10, \[1,1\] -20$' "$tmp/out" && grep -q '^mean: 15$' "$tmp/out"; } ||
    { fail "tensor sparse linear: output"; cat "$tmp/out"; }
run "tensor sparse Constant" 0 tensor "$data/sparse.onnx" sparse_const &&
    { grep -q '^name: sparse_const$' "$tmp/out" &&
      grep -q '^where: graph.node\[0\].attribute\[0\].sparse_tensor' "$tmp/out" &&
      grep -q '\[1\] 7, \[6\] 8$' "$tmp/out"; } || { fail "tensor sparse Constant: output"; cat "$tmp/out"; }
run "tensor in a subgraph" 0 tensor "$data/nested_subgraphs.onnx" half_trip &&
    grep -q "^where: graph.node\[[0-9]*\].attribute\[[0-9]*\].g.node\[[0-9]*\].attribute\[[0-9]*\].g.initializer\[0\]" "$tmp/out" ||
    { fail "tensor in a subgraph: where"; cat "$tmp/out"; }

# --json: strict JSON (NaN/Infinity literals refused), parsed and checked.
json_ok() {  # json_ok NAME PYTHON_ASSERTS: the last run's stdout against the asserts (d = the object)
    $py - "$tmp/out" "$2" <<'PY' || fail "$1: JSON content"
import json, sys
def strict(c):
    raise ValueError("non-standard JSON constant " + c)
d = json.loads(open(sys.argv[1]).read(), parse_constant=strict)
exec(sys.argv[2])
PY
}
run "tensor --json raw" 0 tensor --json "$data/small_cnn.onnx" conv1.weight -n 3 &&
    json_ok "tensor --json raw" '
assert d["name"] == "conv1.weight" and d["sparse"] is False, d
assert d["data_type"] == "FLOAT" and d["data_type_code"] == 1
assert d["dims"] == [8, 3, 3, 3] and d["element_count"] == 216 and d["values_total"] == 216
s = d["storage"]
assert s["kind"] == "raw" and s["bytes"] == 864 and s["offset"] > 0 and s["alignment"] >= 1, s
assert len(d["values"]) == 3 and all(isinstance(v, float) for v in d["values"])
st = d["stats"]
assert st["count"] == 216 and st["nan"] == 0 and st["min"] <= st["mean"] <= st["max"], st
assert d["where"] == "graph.initializer[0]" and d["also"] == []'
run "tensor --json external" 0 tensor "$data/small_cnn.onnx" fc.weight --json &&
    json_ok "tensor --json external" '
s = d["storage"]
assert s["kind"] == "external" and s["location"] == "small_cnn.weights", s
assert s["offset"] == 4608 and s["length"] == 10240 and s["offset_in"] == "external_file", s
assert s["external_data"]["location"] == "small_cnn.weights"
assert len(d["values"]) == 10 and d["stats"]["count"] == 2560'
run "tensor --json typed" 0 tensor --json "$data/tensors_all_types.onnx" float_typed -n 100 &&
    json_ok "tensor --json typed" '
s = d["storage"]
assert s["kind"] == "typed" and s["field"] == "float_data" and s["entries"] == d["element_count"], s
v = d["values"]
assert "NaN" in v and "Infinity" in v and "-Infinity" in v, v
assert d["stats"]["nan"] >= 1 and d["stats"]["max"] == "Infinity" and d["stats"]["min"] == "-Infinity", d["stats"]'
run "tensor --json int64" 0 tensor --json "$data/tensors_all_types.onnx" int64_raw -n 100 &&
    json_ok "tensor --json int64" '
assert -2**63 in d["values"] and 2**63 - 1 in d["values"] and 2**53 + 1 in d["values"], d["values"]'
run "tensor --json uint64" 0 tensor --json "$data/tensors_all_types.onnx" uint64_typed -n 100 &&
    json_ok "tensor --json uint64" 'assert 2**64 - 1 in d["values"], d["values"]'
run "tensor --json double" 0 tensor --json "$data/tensors_all_types.onnx" double_raw -n 100 &&
    json_ok "tensor --json double" '
import struct
assert all(isinstance(x, (float, int, str)) for x in d["values"])
assert 1.7976931348623157e308 in d["values"] and 5e-324 in d["values"], d["values"]'
run "tensor --json complex" 0 tensor --json "$data/tensors_all_types.onnx" complex64_typed &&
    json_ok "tensor --json complex" 'assert [1.0, 2.0] in d["values"], d["values"]'
run "tensor --json bool" 0 tensor --json "$data/tensors_all_types.onnx" bool_raw &&
    json_ok "tensor --json bool" 'assert set(d["values"]) <= {True, False} and d["stats"]["count"] == d["element_count"]'
run "tensor --json string" 0 tensor --json "$data/tensors_all_types.onnx" string_typed -n 100 &&
    json_ok "tensor --json string" '
assert d["stats"] is None and all(isinstance(s, str) for s in d["values"]) and "" in d["values"], d'
run "tensor --json empty" 0 tensor --json "$data/tensors_all_types.onnx" empty_float_typed &&
    json_ok "tensor --json empty" '
assert d["element_count"] == 0 and d["values"] == [] and d["stats"]["count"] == 0 and d["stats"]["min"] is None, d'
run "tensor --json -n 0" 0 tensor --json "$data/small_cnn.onnx" conv1.bias -n 0 &&
    json_ok "tensor --json -n 0" 'assert d["values"] == [] and d["values_total"] == 8'
run "tensor --json sparse" 0 tensor --json "$data/sparse.onnx" sparse_2d &&
    json_ok "tensor --json sparse" '
assert d["sparse"] is True and d["nnz"] == 3 and d["dims"] == [4, 5] and d["element_count"] == 20, d
i = d["indices"]
assert i["layout"] == "coordinates" and i["dims"] == [3, 2] and i["name"] == "sparse_2d_indices", i
assert i["storage"]["kind"] == "raw" and i["storage"]["bytes"] == 48
assert d["storage"]["kind"] == "raw" and d["storage"]["bytes"] == 12
assert d["values"] == [{"index": [0, 1], "linear": 1, "value": 1.5}, {"index": [2, 3], "linear": 13, "value": -2.0},
                       {"index": [3, 4], "linear": 19, "value": 3.25}], d["values"]
assert d["stats"]["min"] == -2.0 and d["stats"]["max"] == 3.25 and d["stats"]["count"] == 3'
run "tensor --json sparse linear" 0 tensor --json "$data/sparse.onnx" sparse_linear &&
    json_ok "tensor --json sparse linear" '
assert d["indices"]["layout"] == "linear" and [v["linear"] for v in d["values"]] == [0, 5, 6, 11]
assert [v["index"] for v in d["values"]] == [[0, 0], [1, 1], [1, 2], [2, 3]]
assert [v["value"] for v in d["values"]] == [10, -20, 30, 40]'
run "tensor --json not found" 1 tensor --json "$data/small_cnn.onnx" no_such_tensor &&
    one_line_error "tensor --json not found"
[ -s "$tmp/out" ] && fail "tensor --json not found: wrote to stdout"
run "tensor --json missing file" 2 tensor --json "$tmp/nope.onnx" x && one_line_error "tensor --json missing file"
run "tensor --help mentions --json" 0 tensor --help && grep -q -- '--json' "$tmp/out" &&
    grep -q 'sparse' "$tmp/out" || fail "tensor --help: no --json/sparse"

# Models made with python onnx: functions, duplicate names in If branches
# (helper.make_node sorts attributes: else_branch, holding [5, 6], comes
# first), a non-tensor Constant, sparse indices out of order.
if $py -c 'import onnx' 2>/dev/null; then
    $py - "$tmp" <<'PY'
import sys
import numpy as np
from onnx import TensorProto, helper, numpy_helper, save
d = sys.argv[1]
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
c = helper.make_tensor_value_info("cond", TensorProto.BOOL, [])
def branch(name, value):
    k = helper.make_node("Constant", [], ["k"], value=numpy_helper.from_array(np.array(value, np.float32)))
    return helper.make_graph([k, helper.make_node("Add", ["x", "k"], ["o"])], name, [],
                             [helper.make_tensor_value_info("o", TensorProto.FLOAT, [2])])
f = helper.make_function("local", "Scale", ["a"], ["b"],
    [helper.make_node("Constant", [], ["fk"], value=numpy_helper.from_array(np.array([3, 4], np.int32))),
     helper.make_node("Cast", ["fk"], ["fkf"], to=TensorProto.FLOAT),
     helper.make_node("Mul", ["a", "fkf"], ["b"])], [helper.make_opsetid("", 13)])
nodes = [helper.make_node("If", ["cond"], ["t"], then_branch=branch("then", [1, 2]), else_branch=branch("else", [5, 6])),
         helper.make_node("Scale", ["t"], ["u"], domain="local"),
         helper.make_node("Constant", [], ["vf"], value_float=2.5),
         helper.make_node("Add", ["u", "vf"], ["y"])]
bad = helper.make_sparse_tensor(numpy_helper.from_array(np.array([1, 2], np.float32), "bad_sparse"),
                                numpy_helper.from_array(np.array([3, 1], np.int64), "bad_idx"), [4])
g = helper.make_graph(nodes, "g", [x, c], [y])
g.sparse_initializer.extend([bad])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("local", 1)], functions=[f])
m.ir_version = 8
save(m, d + "/scoped.onnx")
PY
    run "tensor in a function" 0 tensor "$tmp/scoped.onnx" fk &&
        { grep -q '^where: functions\[0\].node\[0\].attribute\[0\].t' "$tmp/out" &&
          grep -q '^values (first 2 of 2): 3, 4' "$tmp/out"; } || { fail "tensor in a function: output"; cat "$tmp/out"; }
    run "tensor in both If branches" 0 tensor "$tmp/scoped.onnx" k &&
        { grep -q "^where: graph.node\[0\].attribute\[0\].g.node\[0\].attribute\[0\].t" "$tmp/out" &&
          grep -q "^also: graph.node\[0\].attribute\[1\].g.node\[0\].attribute\[0\].t" "$tmp/out" &&
          grep -q '^values (first 2 of 2): 5, 6' "$tmp/out"; } || { fail "tensor in both If branches: output"; cat "$tmp/out"; }
    run "tensor --json in both If branches" 0 tensor --json "$tmp/scoped.onnx" k &&
        json_ok "tensor --json in both If branches" 'assert len(d["also"]) == 1 and d["values"] == [5.0, 6.0], d'
    run "tensor value_float Constant" 1 tensor "$tmp/scoped.onnx" vf && one_line_error "tensor value_float Constant"
    grep -q "value_float" "$tmp/err" || fail "tensor value_float Constant: error does not name value_float"
    run "tensor sparse bad order" 1 tensor "$tmp/scoped.onnx" bad_sparse && one_line_error "tensor sparse bad order"
    grep -q 'invalid indices' "$tmp/err" || fail "tensor sparse bad order: error text: $(cat "$tmp/err")"
    grep -q '^nnz: 2' "$tmp/out" || fail "tensor sparse bad order: no description before the error"
    run "tensor --json sparse bad order" 1 tensor --json "$tmp/scoped.onnx" bad_sparse &&
        one_line_error "tensor --json sparse bad order"
    [ -s "$tmp/out" ] && fail "tensor --json sparse bad order: wrote to stdout"
else
    echo "note: python onnx absent; function/If/sparse-error tensor tests skipped"
fi

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
run "dump --type=TensorProto" 0 dump --type=TensorProto "$tmp/tensor.pb" &&
    grep -q '^data_type: 1' "$tmp/out" || fail "dump --type=TensorProto: no data_type"
run "dump --type TensorProto --json" 0 dump --json --type TensorProto "$tmp/tensor.pb" &&
    { $py -m json.tool <"$tmp/out" >/dev/null || fail "dump --type TensorProto --json: not JSON"; }

# A model libprotobuf parses but onnxview cannot print: a TypeProto whose
# sequence_type occurs twice at every level, 12 merged levels (more than the
# 8 the printers follow). dump refuses it before printing anything.
$py - "$tmp/merges.onnx" <<'PYEOF'
import sys
def varint(n):
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)
def field(number, payload):
    return varint(number << 3 | 2) + varint(len(payload)) + payload
t = field(1, b"\x08\x01")                # TypeProto { tensor_type { elem_type: 1 } }
for _ in range(6):
    t = field(4, field(1, t))              # TypeProto { sequence_type { elem_type: t } }
vi = field(1, b"x") + field(2, t + t)      # ValueInfoProto { name, type: t merged with t }
open(sys.argv[1], "wb").write(b"\x08\x08" + field(7, field(11, vi)))
PYEOF
for json in "" --json; do
    run "dump $json merges too deep" 1 dump $json "$tmp/merges.onnx" && one_line_error "dump $json merges too deep"
    [ -s "$tmp/out" ] && fail "dump $json merges too deep: wrote to stdout"
    grep -q merge "$tmp/err" || fail "dump $json merges too deep: error does not name the merge"
done

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

# --- profile (its figures are checked by tests/oracle/profile_oracle.py) ----
run "profile small_cnn" 0 profile "$data/small_cnn.onnx" && grep -q '^nodes: 12, covered 12 ' "$tmp/out" &&
    grep -q "^  #13 'scale_loop' (Loop): body x M = 2 iterations" "$tmp/out" &&
    grep -q "^#5 \[swish2/onnxview.local::Swish\] 'sigmoid' (Sigmoid)" "$tmp/out" || fail "profile small_cnn: output"
run "profile --dim N=2" 0 profile --dim N=2 "$data/small_cnn.onnx" && grep -qx 'MACs: 595 k' "$tmp/out" &&
    grep -qx 'params: 3.97 k (15.5 KiB)' "$tmp/out" && grep -qx 'peak activations: 152 KiB, after #1 .relu1. (Relu)' "$tmp/out" &&
    grep -qx "  Conv	2 nodes	590 k	99.1%" "$tmp/out" || fail "profile --dim N=2: readable summary"
run "profile --dim N=2 --full" 0 profile --dim N=2 --full "$data/small_cnn.onnx" && grep -qx 'MACs: 594944' "$tmp/out" &&
    grep -qx 'params: 3968 (15881 bytes)' "$tmp/out" || fail "profile --dim N=2 --full: exact summary"
run "profile --json" 0 profile --json "$data/small_cnn.onnx" && $py -m json.tool <"$tmp/out" >/dev/null &&
    grep -q '"version": 2' "$tmp/out" && grep -q '"scope": "choose_flatten/then_branch"' "$tmp/out" ||
    fail "profile --json: not version 2 JSON with scopes"
run "profile --by op --csv" 0 profile --by op --csv "$data/small_cnn.onnx" &&
    grep -qx 'op_type,nodes,not_covered,macs,flops,params' "$tmp/out" || fail "profile --by op --csv: header"
run "profile --by scope:1 --csv" 0 profile --by scope:1 --csv "$data/profile/lstm.onnx" &&
    grep -qx 'scope,nodes,not_covered,macs,flops,params' "$tmp/out" &&
    grep -qx 'lstm,1,0,786432\*batch\*seq,1572864\*batch\*seq,790528' "$tmp/out" || fail "profile --by scope:1 --csv"
run "profile --by scope:0" 2 profile --by scope:0 "$data/small_cnn.onnx" && one_line_error "profile --by scope:0"
run "profile without weights" 0 profile "$data/profile/lstm.onnx" && grep -qx 'MACs: 786 k\*batch\*seq + 5.12 k\*batch' "$tmp/out" ||
    fail "profile lstm without its weights: MACs"
run "profile --full" 0 profile --full "$data/profile/lstm.onnx" && grep -qx 'MACs: 786432\*batch\*seq + 5120\*batch' "$tmp/out" ||
    fail "profile lstm --full: MACs"
run "profile --input" 0 profile --input x=50x2x128 "$data/profile/lstm.onnx" && grep -qx 'MACs: 78.7 M' "$tmp/out" ||
    fail "profile --input x=50x2x128: MACs"
run "profile --input 129" 2 profile --input x=50x2x129 "$data/profile/lstm.onnx" && one_line_error "profile --input 129"
run "profile --input bad rank" 2 profile --input x=50x2 "$data/profile/lstm.onnx" && one_line_error "profile --input bad rank"
run "profile --input no such input" 2 profile --input y=1 "$data/profile/lstm.onnx" && one_line_error "profile --input y"
run "profile --input against --dim" 2 profile --input x=50x2x128 --dim seq=3 "$data/profile/lstm.onnx" &&
    one_line_error "profile --input against --dim"
run "profile --input 1xx2" 2 profile --input x=1xx2 "$data/profile/lstm.onnx" && one_line_error "profile --input 1xx2"
# Rank 0: `scalar` (a rank-0 input declared so, and one declared without a shape).
if /usr/bin/python3 -c 'import onnx' 2>/dev/null; then
    /usr/bin/python3 - "$tmp/scalar.onnx" <<'PY'
import sys
from onnx import TensorProto, helper
g = helper.make_graph([helper.make_node("Mul", ["x", "r"], ["y"], name="scale"),
                       helper.make_node("Add", ["y", "u"], ["z"], name="shift")], "scalar",
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N"]),
                       helper.make_tensor_value_info("r", TensorProto.FLOAT, []),
                       helper.make_tensor_value_info("u", TensorProto.FLOAT, None)],
                      [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)])
open(sys.argv[1], "wb").write(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())
PY
    run "profile --input scalar" 0 profile --input r=scalar --input u=scalar --input x=7 --json "$tmp/scalar.onnx" &&
        /usr/bin/python3 -c 'import json, sys
p = json.load(open(sys.argv[1]))
shapes = {n["name"]: n["output_shapes"] for n in p["nodes"]}
sys.exit(0 if shapes == {"scale": [[7]], "shift": [[7]]} and p["coverage"]["covered"] == 2 else 1)' "$tmp/out" ||
        fail "profile --input r=scalar: the rank-0 inputs broadcast to [7]"
    run "profile --input scalar on rank 1" 2 profile --input x=scalar "$tmp/scalar.onnx" &&
        one_line_error "profile --input x=scalar"
fi
run "profile --by bogus" 2 profile --by bogus "$data/small_cnn.onnx" && one_line_error "profile --by bogus"
run "profile --dim N" 2 profile --dim N "$data/small_cnn.onnx" && one_line_error "profile --dim N"
run "profile --dim N=-1" 2 profile --dim N=-1 "$data/small_cnn.onnx" && one_line_error "profile --dim N=-1"
run "profile --json --csv" 2 profile --json --csv "$data/small_cnn.onnx" && one_line_error "profile --json --csv"
run "profile not a model" 1 profile "$data/small_cnn.weights" && no_success "profile not a model"

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
