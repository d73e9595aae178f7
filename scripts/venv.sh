# Sourced by demo.sh, test.sh and release.sh: the virtual environment and the torch choice.
#
#   TORCH       which torch build goes into the environment, before the package:
#                 (unset)    keep the torch already installed there; if there is none, say on one line
#                            which build it installs: on Linux without an NVIDIA driver the CPU-only
#                            build (as TORCH=cpu), else PyPI's default build (on Linux x86_64 that is
#                            the CUDA build, a multi-GB download; CPU/MPS on macOS)
#                 cpu        the CPU-only build from PyTorch's index, https://download.pytorch.org/whl/cpu
#                            (replaces another build already installed; torch itself comes only from
#                            that index or pip's find-links, its dependencies from the usual index)
#                 cuda       PyPI's default build: CUDA on Linux x86_64, CPU/MPS on macOS (replaces a
#                            CPU-only "+cpu" build already installed)
#                 skip|none  leave torch alone: use the one already in the environment (error if none)
#                 <spec>     a pip requirement for torch, optionally followed by pip options, e.g.
#                            "torch==2.13.0" or "torch==2.5.1 --index-url https://download.pytorch.org/whl/cu121"
#   PIP_ARGS    extra arguments given to every pip install (split on spaces), e.g. "--no-cache-dir"
#   VENV        the environment; default .venv, shared by demo.sh and test.sh (the test extras
#               include the demo's, so whichever runs second installs little or nothing)
#   PYTHON      the interpreter that creates it (default python3; Python >= 3.10)
#   DRY_RUN=1   print the commands (and the torch decision) instead of running them
#   NO_CONSTRAINTS=1  test.sh installs the newest releases instead of scripts/constraints.txt's versions
#               (how the pins are updated: docs/development.md)
#
# install_package EXTRAS [CONSTRAINTS] does it all for the checkout (editable install); release.sh uses the parts:
# make_venv, install_torch, then installs its wheel. All set PY to the environment's python.

VENV="${VENV:-.venv}"
PYTHON="${PYTHON:-python3}"
read -r -a PIP_EXTRA <<<"${PIP_ARGS:-}"

note() { printf '%s\n' "$*" >&2; }

# torch is a big download: pip shows its progress bar on a terminal, and stays quiet in logs.
if [ -t 1 ]; then TORCH_QUIET=(); else TORCH_QUIET=(--quiet); fi

# Run a command, or only print it under DRY_RUN=1.
run() {
  if [ "${DRY_RUN:-0}" = 1 ]; then
    printf '+' && printf ' %q' "$@" && printf '\n'
  else
    "$@"
  fi
}

pip_install() { run "$PY" -m pip install ${PIP_EXTRA[@]+"${PIP_EXTRA[@]}"} "$@"; }

# Make $VENV unless it exists (then pip is upgraded once, at creation).
make_venv() {
  PY="$VENV/bin/python"
  if [ ! -x "$PY" ]; then
    if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
      note "error: nlgmetrics needs Python >= 3.10; '$PYTHON' is $("$PYTHON" --version 2>&1 || echo missing). Set PYTHON=python3.12 (or another)."
      exit 2
    fi
    run "$PYTHON" -m venv "$VENV"
    pip_install --quiet --upgrade pip
  fi
}

# The torch requirement of pyproject.toml's dependencies (its version bounds), "torch" if not found.
torch_requirement() {
  local req
  req=$(grep -o '"torch[<>=!~ ][^"]*"' pyproject.toml 2>/dev/null | head -n 1 | tr -d '"')
  printf '%s\n' "${req:-torch}"
}

# The version of the torch installed in $VENV ("2.13.0+cpu"), empty when there is none.
installed_torch() {
  [ -x "$PY" ] || return 0
  "$PY" -c 'import importlib.metadata as m
try:
    print(m.version("torch"))
except m.PackageNotFoundError:
    pass' 2>/dev/null || true
}

# TORCH_CHOICE from TORCH; an unknown value stops here, with exit 2, before anything is made or installed.
resolve_torch_choice() {
  TORCH_CHOICE="${TORCH:-}"
  case "$TORCH_CHOICE" in
    "" | cpu | cuda | skip | none) ;;
    *)
      local -a words
      local is_req='^torch($|[=<>!~;@[])' is_wheel='(^|/)torch-[^/]*\.whl$'
      read -r -a words <<<"$TORCH_CHOICE"
      if [[ ! "${words[0]:-}" =~ $is_req && ! "${words[0]:-}" =~ $is_wheel ]]; then
        note "error: TORCH='$TORCH_CHOICE' is not a choice: use cpu, cuda, skip (or none), or a pip requirement such as torch==2.13.0"
        exit 2
      fi
      ;;
  esac
}
resolve_torch_choice

# Whether this machine has an NVIDIA driver (so PyPI's CUDA build of torch can use a GPU): Linux only.
has_nvidia_driver() {
  [ -e /proc/driver/nvidia/version ] || command -v nvidia-smi >/dev/null 2>&1
}

# The CPU-only torch: torch itself only from PyTorch's CPU index (or pip's find-links; an extra index
# configured for pip could otherwise offer a CUDA build of a newer release), then its dependencies
# from the usual index.
install_cpu_torch() {
  local req
  req=$(torch_requirement)
  PIP_EXTRA_INDEX_URL=" " pip_install ${TORCH_QUIET[@]+"${TORCH_QUIET[@]}"} --no-deps "$req" \
    --index-url https://download.pytorch.org/whl/cpu
  local version
  version=$(installed_torch)
  pip_install --quiet "torch==${version:-<the version installed>}"
}

# Install torch into $VENV as TORCH says (see the top of this file).
install_torch() {
  local choice="$TORCH_CHOICE" have req label
  have=$(installed_torch)
  req=$(torch_requirement)
  label=""
  [[ "$have" == *+* ]] && label="${have#*+}"
  case "$choice" in
    "")
      if [ -n "$have" ]; then
        note "torch: keeping torch $have in $VENV (TORCH=cpu|cuda|<spec> to change it)"
      elif [ "$(uname -s)" = Linux ] && ! has_nvidia_driver; then
        note "torch: none in $VENV and no NVIDIA driver here; installing the CPU-only build (as TORCH=cpu; TORCH=cuda for PyPI's multi-GB CUDA build)"
        install_cpu_torch
      else
        note "torch: none in $VENV; installing PyPI's default build (CUDA on Linux, a multi-GB download). For the CPU-only build: TORCH=cpu; choices: TORCH=cpu|cuda|skip|<pip spec>"
        pip_install ${TORCH_QUIET[@]+"${TORCH_QUIET[@]}"} "$req"
      fi
      ;;
    cpu)
      if [ -n "$have" ] && { [ "$label" = cpu ] || [ "$(uname -s)" = Darwin ]; }; then
        note "torch: keeping the CPU build torch $have in $VENV (TORCH=cpu)"
      else
        if [ -n "$have" ]; then
          note "torch: replacing torch $have in $VENV by the CPU-only build (TORCH=cpu)"
          run "$PY" -m pip uninstall --yes torch
        else
          note "torch: installing the CPU-only build from https://download.pytorch.org/whl/cpu (TORCH=cpu)"
        fi
        install_cpu_torch
      fi
      ;;
    cuda)
      if [ -n "$have" ] && { [ -z "$label" ] || [[ "$label" == cu* ]] || [ "$(uname -s)" = Darwin ]; }; then
        note "torch: keeping torch $have in $VENV (TORCH=cuda)"
      else
        if [ -n "$have" ]; then
          note "torch: replacing torch $have in $VENV by PyPI's default build (TORCH=cuda)"
          run "$PY" -m pip uninstall --yes torch
        else
          note "torch: installing PyPI's default build (TORCH=cuda)"
        fi
        pip_install ${TORCH_QUIET[@]+"${TORCH_QUIET[@]}"} "$req"
      fi
      ;;
    skip | none)
      if [ -z "$have" ] && [ "${DRY_RUN:-0}" != 1 ]; then
        note "error: TORCH=$choice but $VENV has no torch; install one there first, or use TORCH=cpu|cuda|<pip spec>"
        exit 2
      fi
      note "torch: leaving torch ${have:-(none yet)} in $VENV as it is (TORCH=$choice)"
      ;;
    *)
      local -a spec
      read -r -a spec <<<"$choice"
      note "torch: pip install ${choice} (TORCH=<spec>; torch ${have:-none} in $VENV now)"
      pip_install ${TORCH_QUIET[@]+"${TORCH_QUIET[@]}"} "${spec[@]}"
      ;;
  esac
}

# The checkout, editable, with the extras $1 (e.g. "test" or "embedded"), torch first; with $2, a
# constraints file (pip install -c) that holds the versions it installs, unless NO_CONSTRAINTS=1.
install_package() {
  make_venv
  install_torch
  local -a pinned=()
  if [ -n "${2:-}" ] && [ "${NO_CONSTRAINTS:-0}" != 1 ]; then pinned=(-c "$2"); fi
  pip_install --quiet ${pinned[@]+"${pinned[@]}"} -e ".[$1]"
}
