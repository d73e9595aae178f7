#!/usr/bin/env bash
# Run the test suite from a fresh machine: make (or reuse) the virtual environment .venv, shared
# with demo.sh, install the package with its test extras, lint, check that the metric cards are up to
# date (python -m nlgmetrics.cards --check), then run pytest offline (tiny models are built on the fly).
# Every package but torch installs at the version scripts/constraints.txt pins (NO_CONSTRAINTS=1: the newest).
# TORCH (cpu|cuda|skip|<pip spec>), PIP_ARGS, VENV, PYTHON and DRY_RUN=1: see scripts/venv.sh.
# Extra arguments go to pytest, e.g. `bash scripts/test.sh -k parity`.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh
install_package test scripts/constraints.txt
run "$PY" -m ruff check .
run "$PY" -m ruff format --check .
run "$PY" -m nlgmetrics.cards --check
run exec "$PY" -m pytest "$@"
