#!/usr/bin/env bash
# Usage: scripts/code_size.sh [MODEL]   (default: testdata/small_cnn_inline.onnx)
#
# What onnxview adds to a statically linked program. Builds
# examples/code_size/onnxview_min.cpp (read a file into memory, open it as a
# model, walk the graph, sum one float tensor) against a static libonnxview
# and against the single header, and the same program with the onnxview calls
# left out (-DBASELINE), all with
#   -Os -ffunction-sections -fdata-sections -Wl,--gc-sections -static -s
# and prints the .text difference (size -A). Then the same for
# examples/code_size/protobuf_min.cpp: libprotobuf-lite and code protoc
# generates from Debian's onnx.proto with optimize_for = LITE_RUNTIME (static
# libprotobuf-lite.a when installed, else the dynamic .text plus the size of
# the shared library's .text). Exits 1 if onnxview's contribution exceeds
# 32 KiB in either form (ONNXVIEW_SIZE_LIMIT bytes overrides).
#
# The C API: examples/code_size/capi_min.c (the same walk through
# onnxview.h, opening the bytes with onnxview_open_self_contained) against
# the same static library, a C program linked by the C++ driver (the C++
# runtime it needs is part of the figure); budget 32 KiB
# (ONNXVIEW_CAPI_SIZE_LIMIT). The same program opening with
# onnxview_open_memory, which brings the external-data resolver (path
# checks, file opening, SHA-1) and the metadata read-ahead along, is
# printed beside it with a budget of 40 KiB (ONNXVIEW_CAPI_EXTERNAL_SIZE_LIMIT).
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
model="${1:-$root/testdata/small_cnn_inline.onnx}"
limit="${ONNXVIEW_SIZE_LIMIT:-32768}"
capi_limit="${ONNXVIEW_CAPI_SIZE_LIMIT:-32768}"
capi_external_limit="${ONNXVIEW_CAPI_EXTERNAL_SIZE_LIMIT:-40960}"
cxx="${CXX:-g++}"
cc="${CC:-gcc}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
flags=(-std=c++17 -Os -ffunction-sections -fdata-sections -fno-exceptions -fno-rtti -DNDEBUG
       -Wl,--gc-sections -static -s)

text_of() { size -A "$1" | awk '$1 == ".text" { print $2 }'; }

# ---- onnxview ----------------------------------------------------------------
# (a) as a build system links it: every src/ file its own object in a static
#     library, so only the objects the program needs are linked;
# (b) the single header, implementation in the program's translation unit,
#     with the parts it does not use left out (ONNXVIEW_NO_IO, ONNXVIEW_NO_TEXT).
src="$root/examples/code_size/onnxview_min.cpp"
mkdir -p "$work/lib"
for f in "$root"/src/*/*.cpp; do
    o="$work/lib/$(basename "$(dirname "$f")")_$(basename "$f" .cpp).o"
    "$cxx" "${flags[@]:0:7}" -I "$root/include" -c "$f" -o "$o" || exit 1
done
ar rcs "$work/libonnxview.a" "$work"/lib/*.o
"$cxx" "${flags[@]}" -I "$root/include" "$src" "$work/libonnxview.a" -o "$work/ov_lib" || exit 1
"$cxx" "${flags[@]}" -DONNXVIEW_MIN_SINGLE_HEADER -DONNXVIEW_NO_IO -DONNXVIEW_NO_TEXT \
    -I "$root/single_include" "$src" -o "$work/ov_single" || exit 1
"$cxx" "${flags[@]}" -DBASELINE "$src" -o "$work/ov_base" || exit 1
for exe in ov_lib ov_single; do
    "$work/$exe" "$model" >/dev/null || { echo "code_size.sh: $exe failed on $model" >&2; exit 1; }
done
base=$(text_of "$work/ov_base")
lib=$(text_of "$work/ov_lib")
single=$(text_of "$work/ov_single")
ov_delta=$((lib - base))
single_delta=$((single - base))
kib() { echo "scale=1; $1 / 1024" | bc; }
echo "baseline (file read + printf, static glibc): .text $base bytes"
echo "onnxview, static library:   .text $lib bytes: +$ov_delta bytes ($(kib $ov_delta) KiB)"
echo "onnxview, single header:    .text $single bytes: +$single_delta bytes ($(kib $single_delta) KiB)"
[ "$single_delta" -gt "$ov_delta" ] && ov_delta_max=$single_delta || ov_delta_max=$ov_delta

# ---- the C API -----------------------------------------------------------------
csrc="$root/examples/code_size/capi_min.c"
cflags=(-std=c99 -Os -ffunction-sections -fdata-sections -DNDEBUG)
"$cc" "${cflags[@]}" -I "$root/include" -c "$csrc" -o "$work/capi_min.o" || exit 1
"$cxx" -static -s -Wl,--gc-sections "$work/capi_min.o" "$work/libonnxview.a" -o "$work/capi_lib" || exit 1
"$cc" "${cflags[@]}" -DBASELINE "$csrc" -static -s -Wl,--gc-sections -o "$work/capi_base" || exit 1
"$cc" "${cflags[@]}" -DEXTERNAL_DATA -I "$root/include" -c "$csrc" -o "$work/capi_ext.o" || exit 1
"$cxx" -static -s -Wl,--gc-sections "$work/capi_ext.o" "$work/libonnxview.a" -o "$work/capi_ext" || exit 1
for exe in capi_lib capi_ext; do
    "$work/$exe" "$model" >/dev/null || { echo "code_size.sh: $exe failed on $model" >&2; exit 1; }
done
capi_base=$(text_of "$work/capi_base")
capi=$(text_of "$work/capi_lib")
capi_delta=$((capi - capi_base))
capi_ext=$(text_of "$work/capi_ext")
capi_ext_delta=$((capi_ext - capi_base))
echo "C API, static library:      .text $capi bytes: +$capi_delta bytes ($(kib $capi_delta) KiB; C baseline $capi_base)"
echo "  with external data:       .text $capi_ext bytes: +$capi_ext_delta bytes ($(kib $capi_ext_delta) KiB; onnxview_open_memory)"

# ---- libprotobuf-lite --------------------------------------------------------
proto=/usr/include/onnx/onnx.proto
if command -v protoc >/dev/null && [ -f "$proto" ] && pkg-config --exists protobuf-lite; then
    mkdir -p "$work/pb"
    # A copy with optimize_for = LITE_RUNTIME (Debian's already says so).
    grep -v '^option optimize_for' "$proto" >"$work/pb/onnx.proto"
    echo 'option optimize_for = LITE_RUNTIME;' >>"$work/pb/onnx.proto"
    protoc --proto_path="$work/pb" --cpp_out="$work/pb" "$work/pb/onnx.proto" || exit 1
    psrc="$root/examples/code_size/protobuf_min.cpp"
    # libprotobuf-lite needs RTTI/exceptions off only where it was built so;
    # keep the defaults for its generated code.
    pflags=(-std=c++17 -Os -ffunction-sections -fdata-sections -DNDEBUG -Wl,--gc-sections -s)
    "$cxx" "${pflags[@]}" -static -DBASELINE "$psrc" -o "$work/pb_base" || exit 1
    pbase=$(text_of "$work/pb_base")
    libdir="$(pkg-config --variable=libdir protobuf-lite)"
    if [ -f "$libdir/libprotobuf-lite.a" ] &&
        "$cxx" "${pflags[@]}" -static -I "$work/pb" "$psrc" "$work/pb/onnx.pb.cc" \
            "$libdir/libprotobuf-lite.a" -pthread -o "$work/pb_static" 2>"$work/pb.log"; then
        "$work/pb_static" "$model" >/dev/null || echo "code_size.sh: the protobuf program failed" >&2
        pb=$(text_of "$work/pb_static")
        pb_delta=$((pb - pbase))
        echo "libprotobuf-lite (static):  .text $pb bytes: +$pb_delta bytes ($(kib $pb_delta) KiB; baseline $pbase)"
    else
        [ -s "$work/pb.log" ] && tail -n 5 "$work/pb.log" >&2
        "$cxx" "${pflags[@]}" -I "$work/pb" "$psrc" "$work/pb/onnx.pb.cc" \
            $(pkg-config --libs protobuf-lite) -o "$work/pb_dyn" || exit 1
        pbdyn=$(text_of "$work/pb_dyn")
        so="$(ls "$libdir"/libprotobuf-lite.so.* | head -n 1)"
        lib=$(text_of "$so")
        solib=$(text_of "$so")
        echo "libprotobuf-lite (dynamic): program .text $pbdyn bytes + $so .text $solib bytes"
        pb_delta=$((pbdyn + solib))
    fi
    echo "ratio: libprotobuf-lite / onnxview (static library) = $(echo "scale=1; $pb_delta / $ov_delta" | bc)"
else
    echo "libprotobuf-lite: skipped (needs protoc, libprotobuf-dev and $proto)"
fi

if [ "$ov_delta_max" -gt "$limit" ]; then
    echo "code_size.sh: onnxview adds $ov_delta_max bytes of .text, over the $limit-byte budget" >&2
    exit 1
fi
if [ "$capi_delta" -gt "$capi_limit" ]; then
    echo "code_size.sh: the C API adds $capi_delta bytes of .text, over the $capi_limit-byte budget" >&2
    exit 1
fi
if [ "$capi_ext_delta" -gt "$capi_external_limit" ]; then
    echo "code_size.sh: the C API with external data adds $capi_ext_delta bytes of .text, over the $capi_external_limit-byte budget" >&2
    exit 1
fi
