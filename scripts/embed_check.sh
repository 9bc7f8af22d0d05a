#!/usr/bin/env bash
# Usage: scripts/embed_check.sh
#
# The single-header promise: single_include/onnxview.hpp is up to date
# (scripts/amalgamate.py --check), and a two-file program using it
# (tests/embed/strict_main.cpp + strict_impl.cpp, which defines
# ONNXVIEW_IMPLEMENTATION) compiles with
#   -fno-exceptions -fno-rtti -Wall -Wextra -Wpedantic -Werror
# under g++ and clang++, -std=c++17 and -std=c++20, and runs on a test model.
# Then the C API from the single header: the C example of docs/c.md
# (examples/read_model_c.c, -std=c99 with the same warnings) linked with
# tests/embed/strict_impl.cpp, by gcc/g++ and clang/clang++.
# Prints one line per case and a last line "N passed, M failed".
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
passed=0
failed=0

report() {  # name status
    if [ "$2" -eq 0 ]; then
        echo "ok   $1"
        passed=$((passed + 1))
    else
        echo "FAIL $1"
        failed=$((failed + 1))
    fi
}

python3 "$root/scripts/amalgamate.py" --check
report "single_include/onnxview.hpp is up to date" $?

flags=(-O1 -fno-exceptions -fno-rtti -Wall -Wextra -Wpedantic -Werror)
for cxx in g++ clang++; do
    if ! command -v "$cxx" >/dev/null; then
        echo "skip $cxx (not installed)"
        continue
    fi
    for std in c++17 c++20; do
        exe="$work/strict-$cxx-$std"
        "$cxx" -std="$std" "${flags[@]}" -I "$root/single_include" \
            "$root/tests/embed/strict_main.cpp" "$root/tests/embed/strict_impl.cpp" -o "$exe" &&
            "$exe" "$root/testdata/small_cnn_inline.onnx" >/dev/null
        report "$cxx -std=$std ${flags[*]}" $?
    done
done

cflags=(-O1 -std=c99 -Wall -Wextra -Wpedantic -Werror)
for pair in gcc:g++ clang:clang++; do
    cc="${pair%%:*}" cxx="${pair##*:}"
    if ! command -v "$cc" >/dev/null || ! command -v "$cxx" >/dev/null; then
        echo "skip $cc (not installed)"
        continue
    fi
    exe="$work/c-api-$cc"
    "$cc" "${cflags[@]}" -I "$root/include" -c "$root/examples/read_model_c.c" -o "$exe.o" &&
        "$cxx" -std=c++17 "${flags[@]}" -I "$root/single_include" -c "$root/tests/embed/strict_impl.cpp" -o "$exe-impl.o" &&
        "$cxx" "$exe.o" "$exe-impl.o" -o "$exe" &&
        "$exe" "$root/testdata/small_cnn.onnx" conv2.weight >/dev/null
    report "C API from the single header: $cc ${cflags[*]}" $?
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
