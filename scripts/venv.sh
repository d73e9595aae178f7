# Sourced by demo.sh and test.sh: make the virtual environment $VENV once, install torch first when
# TORCH_SPEC asks for a particular build (e.g. "torch==2.13.0", the CPU one), then the package with
# the extras given as $1. Sets PY to the environment's python.
install_package() {
  if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
  fi
  PY="$VENV/bin/python"
  "$PY" -m pip install --quiet --upgrade pip
  if [ -n "${TORCH_SPEC:-}" ]; then
    "$PY" -m pip install --quiet "$TORCH_SPEC"
  fi
  "$PY" -m pip install --quiet -e ".[$1]"
}
