#!/usr/bin/env bash
# Run the test suite from a fresh machine: make a virtual environment, install the package
# with its test extras, lint, then run pytest offline (tiny models are built on the fly).
#   TORCH_SPEC   what to install for torch first, e.g. "torch==2.13.0" for the CPU build
#   VENV         where the environment lives (default .venv-test)
# Extra arguments go to pytest, e.g. `bash scripts/test.sh -k parity`.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv-test}"
source scripts/venv.sh
install_package test
"$PY" -m ruff check .
"$PY" -m ruff format --check .
exec "$PY" -m pytest "$@"
