#!/usr/bin/env bash
# Usage: scripts/install-deps.sh [--cross]
#
# Installs everything onnxview needs to build and test on Debian 12
# (bookworm): compilers, Meson, Catch2, Google Benchmark, the protobuf peers
# used by the cross-checks and benchmarks, and ONNX's python package and test
# data for the oracle tests. With --cross (CI uses it), also what
# scripts/cross_test.sh needs: the s390x, i686 and mingw-w64 (posix threads)
# cross compilers, qemu-user and wine64 (about 270 MB to download). The i686
# compiler is Debian's g++-i686-linux-gnu: g++-multilib conflicts with the
# s390x cross compiler on Debian 12.
# Idempotent: apt-get skips what is installed. Recommended packages are not
# installed (--no-install-recommends). Run as root (or through sudo).
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
    echo "install-deps.sh: run as root (sudo scripts/install-deps.sh)" >&2
    exit 1
fi

packages=(
    meson ninja-build pkg-config cmake
    g++ clang clang-14 libclang-rt-14-dev
    catch2 libbenchmark-dev
    protobuf-compiler libprotobuf-dev libprotozero-dev
    libonnx-dev python3-onnx python3-protobuf libonnx-testdata python3-numpy
    python3-dev pybind11-dev python3-pybind11 python3-pytest python3-mesonpy python3-pip
    time bc libxxhash-dev python3-jsonschema python3-distributed graphviz libgraphviz-dev
    chromium chromium-driver python3-selenium
    libcurl4-openssl-dev nginx-light
)
for arg in "$@"; do
    case "$arg" in
        --cross)
            packages+=(
                g++-s390x-linux-gnu qemu-user
                g++-i686-linux-gnu
                g++-mingw-w64-x86-64-posix wine64
            ) ;;
        *) echo "usage: scripts/install-deps.sh [--cross]" >&2; exit 2 ;;
    esac
done

export DEBIAN_FRONTEND=noninteractive
apt_opts=(-y --no-install-recommends)
# On a throw-away CI machine dpkg need not fsync every unpacked file (the
# cross packages unpack to about 1.5 GB, wine64 alone 650 MB).
if [ "${CI:-}" = true ]; then apt_opts+=(-o Dpkg::Options::=--force-unsafe-io); fi
apt-get update
apt-get install "${apt_opts[@]}" "${packages[@]}"

# onnxruntime for the pack interop test (tests/oracle/pack_oracle.py): the
# npm package ships its CPU binaries; its install script would fetch GPU
# providers from a host CI cannot reach, so it is skipped.
# Machines that already have Node.js (from NodeSource, whose nodejs bundles
# npm and conflicts with Debian's npm package) keep it.
command -v node >/dev/null || apt-get install "${apt_opts[@]}" nodejs
command -v npm >/dev/null || apt-get install "${apt_opts[@]}" npm
ort_dir=${ONNXRUNTIME_NODE_DIR:-/opt/onnxruntime-node}
mkdir -p "$ort_dir"
(cd "$ort_dir" && npm install --ignore-scripts --no-audit --no-fund onnxruntime-node)

# s3rver, an S3-compatible server, for tests/remote/s3_test.py (pinned: the test uses its API).
s3rver_dir=${ONNXVIEW_S3RVER_DIR:-/opt/s3rver}
mkdir -p "$s3rver_dir"
(cd "$s3rver_dir" && npm install --ignore-scripts --no-audit --no-fund s3rver@3.7.1)
