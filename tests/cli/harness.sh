# What the CLI test scripts share (sourced after they set exe, root and
# data): a scratch directory, the failure count, and run().
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
