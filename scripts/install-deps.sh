#!/usr/bin/env bash
# Installs everything onnxview needs to build and test on Debian 12
# (bookworm): compilers, Meson, Catch2, Google Benchmark, the protobuf peers
# used by the cross-checks and benchmarks, and ONNX's python package and test
# data for the oracle tests. Idempotent: apt-get skips what is installed.
# Run as root (or through sudo).
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
)

export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends "${packages[@]}"
