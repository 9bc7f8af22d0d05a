#!/usr/bin/env bash
# Usage: scripts/compile_time.sh [RUNS]   (default 3; the best run is kept)
#
# Compile time of one translation unit that opens a model from memory and
# walks its nodes, at -O0 and -O2 (-c; CPU time user+sys, so a busy machine
# matters less than with wall time):
#   onnxview       #include "onnxview/model.hpp"
#   single header  #include "onnxview.hpp" (its API part; no implementation)
#   protobuf       #include <onnx/onnx-ml.pb.h> (Debian libonnx-dev), ParseFromArray
# Prints seconds and the ratio protobuf / onnxview.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs="${1:-3}"
cxx="${CXX:-g++}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cat >"$work/ov.cpp" <<'CPP'
#include <cstddef>
#include "onnxview/model.hpp"
int open_model(const void* data, std::size_t size) {
    const onnxview::model_view m = onnxview::parse_model(data, size);
    if (!m.ok()) return -1;
    int inputs = 0;
    for (const onnxview::node_view& n : m.graph().node()) inputs += static_cast<int>(n.input().size());
    return inputs;
}
CPP
sed 's#"onnxview/model.hpp"#"onnxview.hpp"#' "$work/ov.cpp" >"$work/single.cpp"
cat >"$work/pb.cpp" <<'CPP'
#include <cstddef>
#define ONNX_API
#include <onnx/onnx-ml.pb.h>
int open_model(const void* data, std::size_t size) {
    onnx::ModelProto m;
    if (!m.ParseFromArray(data, static_cast<int>(size))) return -1;
    int inputs = 0;
    for (const onnx::NodeProto& n : m.graph().node()) inputs += n.input_size();
    return inputs;
}
CPP

cpu_seconds() {  # FILE FLAGS... -> the best user+sys seconds over $runs runs
    local file="$1" best="" t
    shift
    for _ in $(seq "$runs"); do
        if ! /usr/bin/time -f "%U %S" -o "$work/time" "$cxx" -std=c++17 "$@" -c "$file" -o "$work/out.o"; then
            echo FAIL
            return
        fi
        t=$(awk '{ printf "%.2f", $1 + $2 }' "$work/time")
        if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" -eq 1 ]; then best=$t; fi
    done
    echo "$best"
}

[ -f /usr/include/onnx/onnx-ml.pb.h ] || { echo "compile_time.sh: needs libonnx-dev" >&2; exit 1; }
printf '%-6s %10s %15s %10s %18s\n' flags onnxview single-header protobuf "protobuf/onnxview"
for opt in -O0 -O2; do
    ov=$(cpu_seconds "$work/ov.cpp" "$opt" -I "$root/include")
    single=$(cpu_seconds "$work/single.cpp" "$opt" -I "$root/single_include")
    pb=$(cpu_seconds "$work/pb.cpp" "$opt")
    ratio=$(echo "scale=1; $pb / $ov" | bc 2>/dev/null || echo "?")
    printf '%-6s %9ss %14ss %9ss %17sx\n' "$opt" "$ov" "$single" "$pb" "$ratio"
done
