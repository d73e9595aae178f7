#!/usr/bin/env bash
# Release check: build the sdist and the wheel into dist/, check them with `twine check --strict`,
# install the wheel with its [embedded,usr] extras into a fresh virtual environment in a temporary
# folder, and from a folder outside the checkout score the embedded example and run the command
# line, offline (HF_HUB_OFFLINE=1 HF_EVALUATE_OFFLINE=1, an empty Hub cache, NLTK_DATA unset); then
# `nlgmetrics register` and bare evaluate.load of every module from that wheel (scripts/check_register.py),
# and the app Space written by `python -m hub_models.publish --dry-run --out` installed from its own
# folder into another fresh environment and serving /score (scripts/check_space.py).
#   TORCH (cpu|cuda|skip|<pip spec>), PIP_ARGS, PYTHON, DRY_RUN=1: as in scripts/venv.sh, for the
#               fresh environment's torch (CI: TORCH=torch==2.13.0, the CPU build)
#   KEEP_TMP=1  keep the temporary folder (its path is printed) instead of deleting it
# build and twine are the pinned versions of pyproject.toml's `release` extra. When the check
# passes, publishing is `python -m twine upload dist/nlgmetrics-<version>*` with a PyPI API token.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh
started=$SECONDS
checkout=$PWD

step() { printf '\n==> release check %s\n' "$*"; }

# "<version> <release requirements...>" from pyproject.toml (tomllib, or a regex on Python 3.10)
read -r -a meta <<<"$("$PYTHON" - <<'PY'
import re

text = open("pyproject.toml", encoding="utf-8").read()
try:
    import tomllib

    project = tomllib.loads(text)["project"]
    version, release = project["version"], project["optional-dependencies"]["release"]
except ImportError:
    version = re.search(r'^version = "([^"]+)"', text, re.M).group(1)
    release = re.findall(r'"([^"]+)"', re.search(r"^release = \[(.*?)\]", text, re.M | re.S).group(1))
print(version, *release)
PY
)"
version="${meta[0]}"
release_reqs=("${meta[@]:1}")
if [ -z "$version" ] || [ "${#release_reqs[@]}" = 0 ]; then
  note "error: could not read the version and the release extra from pyproject.toml"
  exit 1
fi
sdist="dist/nlgmetrics-$version.tar.gz"
wheel="dist/nlgmetrics-$version-py3-none-any.whl"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/nlgmetrics-release.XXXXXX")
cleanup() {
  if [ "${KEEP_TMP:-0}" = 1 ]; then
    note "kept $tmp"
  else
    rm -rf "$tmp"
  fi
}
trap cleanup EXIT

step "1/7: build tools ${release_reqs[*]} in a temporary environment"
VENV="$tmp/tools"
make_venv
pip_install --quiet "${release_reqs[@]}"
TOOLS_PY="$PY"

step "2/7: python -m build -> $sdist, $wheel"
run rm -f "dist/nlgmetrics-$version.tar.gz" "dist/nlgmetrics-$version-"*.whl
if [ "${DRY_RUN:-0}" = 1 ]; then
  run "$TOOLS_PY" -m build --outdir dist .
elif ! "$TOOLS_PY" -m build --outdir dist . >"$tmp/build.log" 2>&1; then
  cat "$tmp/build.log" >&2
  note "error: the build failed (log above)"
  exit 1
else
  ls -l "$sdist" "$wheel"
fi

step "3/7: twine check --strict"
run "$TOOLS_PY" -m twine check --strict "$sdist" "$wheel"

step "4/7: a fresh environment with the wheel and its [embedded,usr] extras (usr: check_register loads all 8)"
VENV="$tmp/venv"
make_venv
install_torch
pip_install --quiet "$checkout/${wheel}[embedded,usr]"

step "5/7: score the embedded example offline, from outside the checkout"
mkdir -p "$tmp/run" "$tmp/hf-home"
cd "$tmp/run"
offline=(env -u NLTK_DATA -u PYTHONPATH PYTHONNOUSERSITE=1 HF_HUB_OFFLINE=1 HF_EVALUATE_OFFLINE=1
  HF_HOME="$tmp/hf-home" NLGMETRICS_CHECKOUT="$checkout")
run "${offline[@]}" "$PY" -c '
import math, os, sys

import nlgmetrics

assert not nlgmetrics.__file__.startswith(os.environ["NLGMETRICS_CHECKOUT"] + os.sep), nlgmetrics.__file__
metric = nlgmetrics.load("ctc_consistency", "E-minilm")
result = metric.compute(
    predictions=["The council approved a new library on Elm Street."],
    sources=["The city council voted on Monday to build a new public library on Elm Street."],
)
print(result)
score = result["scores"][0]
assert math.isfinite(score) and 0.0 <= score <= 1.0, result
print(f"ctc_consistency E-minilm: {score:.4f} from {os.path.dirname(nlgmetrics.__file__)}")
'
run "${offline[@]}" "$VENV/bin/nlgmetrics" list
examples=$("$PY" -c 'import importlib.resources as r; print(r.files("nlgmetrics") / "examples" / "summaries.jsonl")' 2>/dev/null || echo "(installed nlgmetrics/examples/summaries.jsonl)")
run "${offline[@]}" "$VENV/bin/nlgmetrics" score "$examples" --metric ctc_consistency --config E-minilm \
  --table --output "$tmp/run/summaries.ctc_consistency.jsonl"

step "6/7: nlgmetrics register, then bare evaluate.load of all 8 (offline, and against a local 404 Hub)"
run "${offline[@]}" "$PY" "$checkout/scripts/check_register.py"
cd "$checkout"

step "7/7: the app Space's folder, alone, in a fresh environment from its own requirements, serves /score"
run env -u PYTHONPATH "$PY" -m hub_models.publish --wheel "$checkout/$wheel" --dry-run --out "$tmp/publish" \
  >"$tmp/publish.log"
space="$tmp/publish/spaces/nlgmetrics/nlgmetrics"
VENV="$tmp/space-venv"
make_venv
install_torch
(cd "$space" && pip_install --quiet -r requirements.txt)
run env -u NLTK_DATA -u PYTHONPATH PYTHONNOUSERSITE=1 "$PY" "$checkout/scripts/check_space.py" "$space"

elapsed=$((SECONDS - started))
step "passed in $((elapsed / 60))m$((elapsed % 60))s: $sdist and $wheel are ready"
echo "To publish (PyPI API token as the password, user __token__): python -m twine upload $sdist $wheel"
