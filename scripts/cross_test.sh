#!/usr/bin/env bash
# Usage: scripts/cross_test.sh {s390x|mingw|m32} [BUILD_DIR]
#
# Cross-compiles the library, the CLI and the tests with a meson cross file of
# cross/ and runs the tests on the target:
#   s390x  big-endian 64-bit Linux (cross/s390x-linux-gnu.ini), under qemu-s390x
#   m32    32-bit x86 Linux, size_t of 32 bits (cross/i686-linux-gnu.ini)
#   mingw  Windows x64 (cross/x86_64-w64-mingw32.ini): the library, the CLI and
#          the examples must build; the tests that build for Windows run under
#          wine64 when it works, else only the build is checked (said on stderr)
# Catch2 2 is header-only, so the build machine's copy is used for the target
# (through a generated pkg-config file). Tests that need the build machine's
# libprotobuf are skipped (the cross build does not find it), and the `cli`
# suite is left out: it runs the cross-built `onnxview` from a bash script,
# outside meson's exe_wrapper. Prints `N passed, M failed` as scripts/test.sh.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target="${1:-}"
case "$target" in
    s390x) cross="$root/cross/s390x-linux-gnu.ini" ;;
    m32) cross="$root/cross/i686-linux-gnu.ini" ;;
    mingw) cross="$root/cross/x86_64-w64-mingw32.ini" ;;
    *) echo "usage: scripts/cross_test.sh {s390x|mingw|m32} [BUILD_DIR]" >&2; exit 2 ;;
esac
build="${2:-$root/build-cross-$target}"
case "$build" in /*) ;; *) build="$PWD/$build" ;; esac

summary() {  # passed failed
    echo "$1 passed, $2 failed"
    [ "$2" -eq 0 ]
}

# Machine-local settings as a second cross file: the Catch2 header for the
# target, and wine as the exe_wrapper when it can run a Windows program.
local_dir="$build-local"
mkdir -p "$local_dir/include" "$local_dir/pkgconfig"
ln -sfn /usr/include/catch2 "$local_dir/include/catch2"
cat >"$local_dir/pkgconfig/catch2.pc" <<PC
Name: Catch2
Description: header-only Catch2 of the build machine, for the target
Version: $(pkg-config --modversion catch2 2>/dev/null || echo 2.13.10)
Cflags: -I$local_dir/include
PC
wrapper=""
run_tests=1
if [ "$target" = mingw ]; then
    wine=""
    for w in wine64 wine /usr/lib/wine/wine64; do command -v "$w" >/dev/null && { wine="$(command -v "$w")"; break; }; done
    if [ -n "$wine" ] && WINEDEBUG=-all WINEPREFIX="$local_dir/wineprefix" "$wine" cmd /c exit 0 >/dev/null 2>&1; then
        wrapper="exe_wrapper = ['env', 'WINEDEBUG=-all', 'WINEPREFIX=$local_dir/wineprefix', '$wine']"
    else
        echo "cross_test.sh: wine cannot run Windows programs here: mingw is build-only" >&2
        run_tests=0
    fi
fi
{
    echo "[binaries]"
    echo "pkgconfig = 'pkg-config'"
    [ -n "$wrapper" ] && echo "$wrapper"
    echo "[properties]"
    echo "pkg_config_libdir = ['$local_dir/pkgconfig']"
} >"$local_dir/local.ini"

args=(--cross-file "$cross" --cross-file "$local_dir/local.ini"
      -Dbuildtype=plain -Dbenchmarks=disabled -Dfuzzing=disabled -Dtests=enabled)
if [ -f "$build/build.ninja" ]; then
    meson setup --reconfigure "$build" "$root" "${args[@]}" ||
        meson setup --wipe "$build" "$root" "${args[@]}" || { summary 0 1; exit 1; }
else
    meson setup "$build" "$root" "${args[@]}" || { summary 0 1; exit 1; }
fi
jobs="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
selected=()
if [ "$target" = mingw ]; then
    # The library, the CLI and the examples must build; some test programs
    # use POSIX-only calls (mkdtemp, fork, ...) and are left out when they do
    # not compile: the tests whose executables exist are run.
    if ! ninja -C "$build" -j"$jobs" libonnxview.a tools/onnxview.exe examples/read_model.exe \
            examples/vfs_callbacks.exe; then
        echo "cross_test.sh: the library, CLI or examples failed to build for Windows" >&2
        summary 0 1
        exit 1
    fi
    ninja -C "$build" -k 0 -j"$jobs" >"$build/ninja-k0.log" 2>&1 ||
        echo "cross_test.sh: some test programs do not build for Windows:" \
            "$(grep -c '^FAILED' "$build/ninja-k0.log") (see $build/ninja-k0.log)" >&2
    mapfile -t selected < <(meson introspect --tests "$build" | python3 -c '
import json, os, sys
for t in json.load(sys.stdin):
    if t["cmd"] and os.path.exists(t["cmd"][0]) and "cli" not in t["suite"][0]:
        print(t["name"])')
    missing=$(meson introspect --tests "$build" | python3 -c '
import json, os, sys
print(" ".join(t["name"] for t in json.load(sys.stdin) if t["cmd"] and not os.path.exists(t["cmd"][0])))')
    [ -n "$missing" ] && echo "cross_test.sh: not built for Windows: $missing" >&2
elif ! ninja -C "$build" -j"$jobs"; then
    echo "cross_test.sh: build failed in $build" >&2
    summary 0 1
    exit 1
fi
if [ "$run_tests" -eq 0 ]; then
    echo "cross_test.sh: built $(find "$build" -name '*.exe' | wc -l) Windows executables (library, CLI, tests, examples)" >&2
    summary 1 0  # the build itself
    exit 0
fi

meson test -C "$build" --no-rebuild --no-suite cli --print-errorlogs --num-processes "$jobs" \
    --timeout-multiplier "${TIMEOUT_MULTIPLIER:-4}" "${selected[@]}"
meson_rc=$?
counts="$(python3 - "$build/meson-logs/testlog.json" <<'PY'
# The counting rule of scripts/test.sh (Catch2 test cases; other tests count one).
import json, re, sys
passed = failed = 0
all_ok = re.compile(r"All tests passed \((\d+) assertions? in (\d+) test cases?\)")
some = re.compile(r"test cases:\s*(\d+)\s*\|\s*(\d+) passed\s*\|\s*(\d+) failed")
none = re.compile(r"test cases:\s*(\d+)\s*\|\s*(\d+) failed")
skipped = []
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    if not line.strip():
        continue
    t = json.loads(line)
    out, res = t.get("stdout") or "", t.get("result", "")
    if res == "SKIP":
        skipped.append(t.get("name", "?"))
        continue
    ok = res in ("OK", "EXPECTEDFAIL")
    a, s, n = all_ok.findall(out), some.findall(out), none.findall(out)
    if a and not s:
        p, f = int(a[-1][1]), 0
    elif s:
        p, f = int(s[-1][1]), int(s[-1][2])
    elif n:
        p, f = 0, int(n[-1][1])
    else:
        p, f = (1, 0) if ok else (0, 1)
    if not ok and f == 0:
        f = 1
    passed += p
    failed += f
if skipped:
    print("skipped: " + ", ".join(skipped), file=sys.stderr)
print(passed, failed)
PY
)" || { summary 0 1; exit 1; }
read -r passed failed <<<"$counts"
if [ "$meson_rc" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
summary "$passed" "$failed"
