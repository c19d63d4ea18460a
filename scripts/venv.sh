#!/usr/bin/env bash
# The virtual environment build-venv/ (of Debian's python3), made when missing, with the PyPI
# packages named as arguments installed unless they already import: nanobind for the binding
# casters' tests (scripts/test.sh); pyarrow, gguf and numpy for ci/python_peer_checks.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=build-venv
[ -x "$venv/bin/python" ] || /usr/bin/python3 -m venv "$venv"
if [ $# -gt 0 ]; then
  modules=$(IFS=,; echo "$*")
  "$venv/bin/python" -c "import $modules" 2>/dev/null || "$venv/bin/pip" install --quiet "$@"
fi
