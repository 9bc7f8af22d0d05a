#!/usr/bin/env bash
# Usage: scripts/consumers_check.sh [WORK_DIR]
#
# onnxview as another project uses it, three ways, each building
# examples/consumer.cpp and running it on testdata/small_cnn_inline.onnx:
#   1. Meson subproject: examples/meson_subproject (dependency('onnxview'),
#      subprojects/onnxview a symlink to this repository)
#   2. pkg-config: `meson install` into a temporary prefix, then
#      c++ consumer.cpp $(pkg-config --cflags --libs onnxview)
#   3. CMake: examples/cmake (pkg_check_modules) against the same prefix
#   4. the C API from the same prefix: examples/read_model_c.c built as C99
#      with $(pkg-config --cflags --libs onnxview_c) against the installed
#      shared library (its SONAME libonnxview_c.so.1, onnxview_* the only
#      symbols it exports), run on testdata/small_cnn.onnx
# Prints one line per way and a last line "N passed, M failed".
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="${1:-$(mktemp -d)}"
mkdir -p "$work"
model="$root/testdata/small_cnn_inline.onnx"
passed=0
failed=0
report() {  # name status
    if [ "$2" -eq 0 ]; then echo "ok   $1"; passed=$((passed + 1)); else echo "FAIL $1"; failed=$((failed + 1)); fi
}
quiet() {  # runs a command, showing its output only when it fails
    local log="$work/last.log"
    "$@" >"$log" 2>&1 || { tail -n 30 "$log" >&2; return 1; }
}
opts=(-Dbuildtype=plain -Dtests=disabled -Dbenchmarks=disabled -Dfuzzing=disabled)

# 1. Meson subproject.
rm -rf "$work/subproject"
quiet meson setup "$work/subproject" "$root/examples/meson_subproject" -Dbuildtype=plain &&
    quiet ninja -C "$work/subproject" consumer &&
    quiet "$work/subproject/consumer" "$model"
report "meson subproject (dependency('onnxview'))" $?

# 2. pkg-config after meson install.
prefix="$work/prefix"
rm -rf "$work/install-build" "$prefix"
quiet meson setup "$work/install-build" "$root" --prefix "$prefix" "${opts[@]}" &&
    quiet ninja -C "$work/install-build" &&
    quiet meson install -C "$work/install-build"
installed=$?
pc_dir="$(dirname "$(find "$prefix" -name onnxview.pc 2>/dev/null | head -n 1)")"
export PKG_CONFIG_PATH="$pc_dir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
[ "$installed" -eq 0 ] && [ -f "$pc_dir/onnxview.pc" ] &&
    quiet bash -c "${CXX:-c++} -std=c++17 '$root/examples/consumer.cpp' -o '$work/pkgconfig-consumer' \$(pkg-config --cflags --libs onnxview)" &&
    quiet "$work/pkgconfig-consumer" "$model"
report "pkg-config after meson install ($pc_dir/onnxview.pc)" $?

# 3. CMake with pkg_check_modules.
rm -rf "$work/cmake"
[ "$installed" -eq 0 ] &&
    quiet cmake -S "$root/examples/cmake" -B "$work/cmake" &&
    quiet cmake --build "$work/cmake" &&
    quiet "$work/cmake/consumer" "$model"
report "CMake pkg_check_modules(onnxview)" $?

# 4. The C API: pkg-config onnxview_c, the shared library.
c_api() {
    local libdir so
    libdir="$(pkg-config --variable=libdir onnxview_c)" || return 1
    so="$(ls "$libdir"/libonnxview_c.so.1 2>/dev/null)" || return 1
    readelf -d "$so" | grep -q 'SONAME.*\[libonnxview_c.so.1\]' || { echo "no SONAME libonnxview_c.so.1" >&2; return 1; }
    if nm -D --defined-only "$so" | awk '{ print $3 }' | grep -v '^onnxview_' | grep -q .; then
        echo "symbols other than onnxview_* exported:" >&2
        nm -D --defined-only "$so" | awk '{ print $3 }' | grep -v '^onnxview_' | head >&2
        return 1
    fi
    quiet bash -c "${CC:-cc} -std=c99 -Wall -Wextra -Wpedantic -Werror '$root/examples/read_model_c.c' -o '$work/c-consumer' \$(pkg-config --cflags --libs onnxview_c)" &&
        quiet env LD_LIBRARY_PATH="$libdir" "$work/c-consumer" "$root/testdata/small_cnn.onnx" conv2.weight
}
[ "$installed" -eq 0 ] && [ -f "$pc_dir/onnxview_c.pc" ] && c_api
report "C API: pkg-config onnxview_c, libonnxview_c.so.1" $?

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
