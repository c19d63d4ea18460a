#!/usr/bin/env bash
# Installs the Debian packages named on the command line that are not installed yet.
# Usage: scripts/deps.sh core|test|bench|fuzz|all   (all: what CI needs, ccache too)
set -euo pipefail

core=(cmake make g++ libeigen3-dev libboost-dev nlohmann-json3-dev libsimdjson-dev libhwy-dev)
test=(libboost-test-dev libdlpack-dev libtorch-dev python3-numpy python3-venv)
bench=(libbenchmark-dev)
# libFuzzer and the sanitizer runtimes come with clang's runtime package; llvm gives
# llvm-symbolizer, which names the lines of a crash's stack.
fuzz=(clang libclang-rt-14-dev llvm)
# CI compiles every configuration through one compiler cache.
ci=(ccache)

case "${1:-core}" in
  core) wanted=("${core[@]}") ;;
  test) wanted=("${core[@]}" "${test[@]}") ;;
  bench) wanted=("${core[@]}" "${bench[@]}") ;;
  fuzz) wanted=("${core[@]}" "${fuzz[@]}") ;;
  all) wanted=("${core[@]}" "${test[@]}" "${bench[@]}" "${fuzz[@]}" "${ci[@]}") ;;
  *) echo "usage: $0 core|test|bench|fuzz|all" >&2; exit 2 ;;
esac

missing=()
for package in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing: ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
