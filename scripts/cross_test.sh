#!/usr/bin/env bash
# Usage: scripts/cross_test.sh {s390x|mingw|m32} [BUILD_DIR]
#
# Cross-compiles the library, the CLI, the examples and the portability tests
# with a meson cross file of cross/ and runs them on the target:
#   s390x  big-endian 64-bit Linux (cross/s390x-linux-gnu.ini), under qemu-s390x
#   m32    32-bit x86 Linux, size_t of 32 bits (cross/i686-linux-gnu.ini)
#   mingw  Windows x64 (cross/x86_64-w64-mingw32.ini): the library, the CLI and
#          the examples must build; the tests that build for Windows run under
#          wine64 when it works, else only the build is checked (said on stderr)
# Catch2 2 is header-only, so the build machine's copy is used for the target
# (through a generated pkg-config file).
#
# Which tests run on the target: every meson test except
#   - text-oracle: compares the printers with protoc and python3-onnx run on
#     the build machine (about 150 s under qemu); the printers print tensor
#     bytes as bytes, and the element values are what model_corpus checks;
#   - wire_crosscheck: needs the build machine's libprotobuf (it is only a
#     "skipped" stub in a cross build);
#   - the `cli` suite: it runs the cross-built `onnxview` from a bash script,
#     outside meson's exe_wrapper.
# So the wire decoding, the views, the tensor values (model, model_summary and
# model_corpus: all 4,277 files of libonnx-testdata against python3-onnx),
# io and external data, the >4 GiB files, the hostile inputs, the
# no-allocation tests and the examples run on each target (model_corpus and io
# do not build for Windows), and the C API's C99 suite (capi). On Windows only wire, model,
# model_file, io_location, hostile, the embed tests and capi are built and run: linking each test executable with
# mingw's ld costs ~30 s of CPU, and CI has a 30-minute budget. Only those
# executables are built (plus the library and the CLI), without optimization
# (buildtype plain).
#
# Under qemu, one Catch2 case is left out: "mapped_file: a sparse file over
# 4 GiB maps with small RSS" measures the VmRSS of the process, which under
# qemu-user is the emulator's, and qemu's own bookkeeping of a 5 GiB mapping
# is ~30 MiB. (embed_large_file still opens a sparse file over 4 GiB there.)
#
# Prints `N passed, M failed` as scripts/test.sh (Catch2 test cases).
# CROSS_ALL_TESTS=1 builds and runs every test (but the cli and reencode suites) instead.
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

# Tests not run on the target (see above), and Catch2 cases left out per test.
excluded="text-oracle wire_crosscheck"
# Windows: each test executable takes ~30 s of CPU to link with mingw's ld, so
# only the tests of the code that differs there run (file mapping, paths of
# external data, >4 GiB offsets) plus the decoder and the views.
only=""
[ "$target" = mingw ] && only="wire model model_file io_location hostile embed_large_file embed_no_alloc capi"
[ "${CROSS_ALL_TESTS:-0}" = 1 ] && excluded="" && only=""
declare -A case_filter=()
if [ "$target" = s390x ]; then
    case_filter[io]='~"mapped_file: a sparse file over 4 GiB maps with small RSS"'
fi

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
force_wrapper=""
run_tests=1
if [ "$target" = mingw ]; then
    wine=""
    for w in wine64 wine /usr/lib/wine/wine64; do command -v "$w" >/dev/null && { wine="$(command -v "$w")"; break; }; done
    if [ -n "$wine" ] && WINEDEBUG=-all WINEPREFIX="$local_dir/wineprefix" "$wine" cmd /c exit 0 >/dev/null 2>&1; then
        wrapper="exe_wrapper = ['env', 'WINEDEBUG=-all', 'WINEPREFIX=$local_dir/wineprefix', '$wine']"
        echo "cross_test.sh: tests run under $wine" >&2
    else
        echo "cross_test.sh: wine cannot run Windows programs here: mingw is build-only" >&2
        run_tests=0
    fi
fi
if [ "$target" = m32 ]; then
    # Natively through the i686 loader where the kernel runs 32-bit programs;
    # some kernels are built without that (exec fails with ENOEXEC): there,
    # under qemu-i386 (qemu-user), as s390x.
    probe="$local_dir/probe32"
    echo 'int main(void) { return 0; }' >"$probe.c"
    if i686-linux-gnu-gcc "$probe.c" -o "$probe" 2>/dev/null && ! "$probe" 2>/dev/null &&
        command -v qemu-i386 >/dev/null; then
        wrapper="exe_wrapper = ['qemu-i386', '-L', '/usr/i686-linux-gnu']"
        # Meson takes an x86-64 build machine to run x86 programs itself.
        force_wrapper="needs_exe_wrapper = true"
        echo "cross_test.sh: this kernel does not run 32-bit programs: tests run under qemu-i386" >&2
        # Under qemu-i386 the RSS is the emulator's (as on s390x), and a read
        # past a mapping truncated under it spins in the emulator instead of
        # raising SIGBUS.
        case_filter[io]='~"mapped_file: a sparse file over 4 GiB maps with small RSS" ~"mapped_file: a mapped file truncated under it raises SIGBUS (as documented)"'
        # A read of an inaccessible page spins there too instead of faulting.
        case_filter[model_file]='~"*a page never fetched faults"'
        # Some qemu-i386 builds lose futex wake-ups: two threads taking turns
        # on a condition variable hang there (a program of ten lines shows
        # it). The one test whose threads take turns is left out then.
        cat >"$probe.cpp" <<'CPP'
#include <condition_variable>
#include <mutex>
#include <thread>
int main() {
    std::mutex m;
    std::condition_variable cv;
    int turn = 0;
    std::thread t([&] {
        for (int i = 0; i < 200; ++i) {
            std::unique_lock<std::mutex> l(m);
            cv.wait(l, [&] { return turn % 2 == 1; });
            ++turn;
            cv.notify_all();
        }
    });
    for (int i = 0; i < 200; ++i) {
        std::unique_lock<std::mutex> l(m);
        ++turn;
        cv.notify_all();
        cv.wait(l, [&] { return turn % 2 == 0; });
    }
    t.join();
}
CPP
        if i686-linux-gnu-g++ -pthread "$probe.cpp" -o "$probe-threads" 2>/dev/null &&
            ! timeout 20 qemu-i386 -L /usr/i686-linux-gnu "$probe-threads" 2>/dev/null; then
            echo "cross_test.sh: qemu-i386 here hangs two threads taking turns: stats runs without its two-thread case" >&2
            case_filter[stats]='~"stats: a large mapped FLOAT weight counted by two threads gives the numbers of one"'
        fi
    fi
fi
{
    echo "[binaries]"
    echo "pkgconfig = 'pkg-config'"
    [ -n "$wrapper" ] && echo "$wrapper"
    echo "[properties]"
    echo "pkg_config_libdir = ['$local_dir/pkgconfig']"
    [ -n "$force_wrapper" ] && echo "$force_wrapper"
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

# The selected tests (name and ninja target of their executable) from meson.
tests_json="$build/cross-tests.json"
meson introspect --tests "$build" >"$tests_json" || { summary 0 1; exit 1; }
list_tests() {  # print "name target" of the selected tests; $1=all|built
    python3 - "$tests_json" "$build" "$excluded" "$1" "$only" <<'PY'
import json, os, sys
tests, build, excluded, which = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3].split(), sys.argv[4]
only = sys.argv[5].split()
for t in tests:
    if only and t["name"] not in only:
        continue
    # cli and reencode run the cross-built CLI from scripts, outside the exe_wrapper
    if t["name"] in excluded or any(s.endswith((":cli", ":reencode")) for s in t["suite"]) or not t["cmd"]:
        continue
    exe = t["cmd"][0]
    # Only programs built for the target (not e.g. python3 running a
    # generator check on the build machine).
    if not os.path.abspath(exe).startswith(os.path.abspath(build) + os.sep):
        continue
    if which == "built" and not os.path.exists(exe):
        continue
    print(t["name"], os.path.relpath(exe, build))
PY
}
mapfile -t test_targets < <(list_tests all | awk '{print $2}' | sort -u)
required=(libonnxview.a tools/onnxview examples/read_model examples/vfs_callbacks)
if [ "$target" = mingw ]; then
    required=(libonnxview.a tools/onnxview.exe examples/read_model.exe examples/vfs_callbacks.exe)
fi
if ! ninja -C "$build" -j"$jobs" "${required[@]}"; then
    echo "cross_test.sh: the library, the CLI or the examples failed to build for $target" >&2
    summary 0 1
    exit 1
fi
if [ "$target" = mingw ]; then
    # Some test programs use POSIX-only calls (mkdtemp, fork, nftw, ...) and
    # are left out when they do not compile: the tests whose executables exist
    # are run.
    ninja -C "$build" -k 0 -j"$jobs" "${test_targets[@]}" >"$build/ninja-k0.log" 2>&1 ||
        echo "cross_test.sh: some test programs do not build for Windows:" \
            "$(grep -c '^FAILED' "$build/ninja-k0.log") (see $build/ninja-k0.log)" >&2
elif ! ninja -C "$build" -j"$jobs" "${test_targets[@]}"; then
    echo "cross_test.sh: build failed in $build" >&2
    summary 0 1
    exit 1
fi
mapfile -t selected < <(list_tests built | awk '{print $1}')
missing="$(comm -23 <(list_tests all | awk '{print $1}' | sort) <(printf '%s\n' "${selected[@]}" | sort) | tr '\n' ' ')"
[ -n "${missing// /}" ] && echo "cross_test.sh: not built for $target: $missing" >&2
if [ "$run_tests" -eq 0 ]; then
    echo "cross_test.sh: built $(find "$build" -name '*.exe' | wc -l) Windows executables (library, CLI, tests, examples)" >&2
    summary 1 0  # the build itself
    exit 0
fi

# One meson test run for the tests without a case filter, one per filtered
# test; each writes its own log (--logbase), all are counted.
logs=()
meson_rc=0
plain=()
for t in "${selected[@]}"; do [ -n "${case_filter[$t]:-}" ] || plain+=("$t"); done
if [ "${#plain[@]}" -gt 0 ]; then
    meson test -C "$build" --no-rebuild --print-errorlogs --num-processes "$jobs" \
        --timeout-multiplier "${TIMEOUT_MULTIPLIER:-4}" --logbase cross-tests "${plain[@]}" || meson_rc=1
    logs+=("$build/meson-logs/cross-tests.json")
fi
for t in "${selected[@]}"; do
    [ -n "${case_filter[$t]:-}" ] || continue
    echo "cross_test.sh: $t without the Catch2 cases $(printf '%s' "${case_filter[$t]}")" >&2
    meson test -C "$build" --no-rebuild --print-errorlogs --num-processes "$jobs" \
        --timeout-multiplier "${TIMEOUT_MULTIPLIER:-4}" --logbase "cross-$t" \
        --test-args "${case_filter[$t]}" "$t" || meson_rc=1
    logs+=("$build/meson-logs/cross-$t.json")
done
counts="$(python3 - "${logs[@]}" <<'PY'
# The counting rule of scripts/test.sh (Catch2 test cases; other tests count one).
import json, re, sys
passed = failed = 0
all_ok = re.compile(r"All tests passed \((\d+) assertions? in (\d+) test cases?\)")
some = re.compile(r"test cases:\s*(\d+)\s*\|\s*(\d+) passed\s*\|\s*(\d+) failed")
none = re.compile(r"test cases:\s*(\d+)\s*\|\s*(\d+) failed")
skipped = []
for path in sys.argv[1:]:
    for line in open(path, encoding="utf-8", errors="replace"):
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
