#!/usr/bin/env bash
# Installs the Debian packages named on the command line that are not installed yet.
# Usage: scripts/deps.sh core|test|bench|fuzz|aarch64|all   (all: what CI needs, ccache too)
# aarch64: the cross compiler and qemu-user, and the arm64 build dependencies unpacked into
# build-aarch64-sysroot/ (see ci/aarch64.sh).
set -euo pipefail

core=(cmake make g++ libeigen3-dev libboost-dev nlohmann-json3-dev libsimdjson-dev libhwy-dev)
# The binding casters' tests: Python's headers, pybind11, and Debian's PyTorch 1.13 for Python.
test=(libboost-test-dev libdlpack-dev libtorch-dev python3-numpy python3-venv python3-dev pybind11-dev python3-torch)
bench=(libbenchmark-dev)
# libFuzzer and the sanitizer runtimes come with clang's runtime package; llvm gives
# llvm-symbolizer, which names the lines of a crash's stack.
fuzz=(clang libclang-rt-14-dev llvm)
# CI compiles every configuration through one compiler cache, with Ninja, which schedules a
# build's objects across targets (a test compiles while the library still does).
ci=(ccache ninja-build)
# The arm64 cross build: compiler and emulator on the host. The arm64 libraries are not
# installed as packages (libsimdjson-dev:arm64 would remove the amd64 one): their .debs are
# unpacked into a folder of their own, which cmake/toolchains/aarch64-linux-gnu.cmake searches.
aarch64=(g++-aarch64-linux-gnu qemu-user)
aarch64_debs=(libboost1.74-dev:arm64 libboost-test1.74-dev:arm64 libboost-test1.74.0:arm64
              libsimdjson-dev:arm64 libsimdjson14:arm64 libhwy-dev:arm64 libhwy1:arm64
              libeigen3-dev nlohmann-json3-dev)
aarch64_sysroot="$(cd "$(dirname "$0")/.." && pwd)/build-aarch64-sysroot"

case "${1:-core}" in
  core) wanted=("${core[@]}") ;;
  test) wanted=("${core[@]}" "${test[@]}") ;;
  bench) wanted=("${core[@]}" "${bench[@]}") ;;
  fuzz) wanted=("${core[@]}" "${fuzz[@]}") ;;
  aarch64) wanted=(cmake make "${aarch64[@]}") ;;
  all) wanted=("${core[@]}" "${test[@]}" "${bench[@]}" "${fuzz[@]}" "${ci[@]}") ;;
  *) echo "usage: $0 core|test|bench|fuzz|aarch64|all" >&2; exit 2 ;;
esac

missing=()
for package in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The arm64 .debs, downloaded (apt knows arm64 once it is a foreign architecture) and unpacked
# once; a folder left half-done by an interrupted run is started again.
if [ "${1:-core}" = aarch64 ] && [ ! -f "$aarch64_sysroot/complete" ]; then
  echo "unpacking into $aarch64_sysroot: ${aarch64_debs[*]}"
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    $sudo dpkg --add-architecture arm64
    $sudo apt-get update -qq
  fi
  rm -rf "$aarch64_sysroot"
  mkdir -p "$aarch64_sysroot/debs"
  (cd "$aarch64_sysroot/debs" && apt-get download -qq "${aarch64_debs[@]}")
  for deb in "$aarch64_sysroot"/debs/*.deb; do dpkg-deb -x "$deb" "$aarch64_sysroot"; done
  rm -r "$aarch64_sysroot/debs"
  touch "$aarch64_sysroot/complete"
fi
