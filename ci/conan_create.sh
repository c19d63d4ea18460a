#!/usr/bin/env bash
# Builds the zerotensor Conan package and runs its test_package with no remote reachable:
# Eigen, Boost, nlohmann_json, simdjson and Highway are Debian's packages, wrapped as Conan
# packages by the recipes in ci/conan/debian-packages/. Conan lives in its own home under the
# build folder, so the user's Conan setup is neither read nor changed.
# Usage: ci/conan_create.sh [more `conan create` arguments, e.g. -o "&:shared=True"]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh core

build="${ZT_CONAN_BUILD_DIR:-build-conan}"
mkdir -p "$build"
if command -v conan >/dev/null 2>&1 && conan --version | grep -q "version 2\."; then
  conan=conan
else
  if [ ! -x "$build/venv/bin/conan" ]; then
    python3 -m venv "$build/venv"
    "$build/venv/bin/pip" install --quiet "conan>=2,<3"
  fi
  conan="$build/venv/bin/conan"
fi

export CONAN_HOME="$PWD/$build/conan-home"
"$conan" profile path default >/dev/null 2>&1 || "$conan" profile detect
# Every requirement is wrapped locally: no remote is asked, so none may stay configured.
for remote in $("$conan" remote list --format=json | python3 -c 'import json, sys; print(" ".join(r["name"] for r in json.load(sys.stdin)))'); do
  "$conan" remote remove "$remote"
done

profiles=(--profile:host ci/conan/cxx20.profile --profile:build default)
for wrapped in ci/conan/debian-packages/*/; do
  "$conan" create "$wrapped" "${profiles[@]}"
done
"$conan" create . "${profiles[@]}" --build=missing "$@"
