"""The set-up scripts' torch choice (scripts/venv.sh), read from their DRY_RUN=1 plan: no install runs."""

from __future__ import annotations

import os
import platform
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NVIDIA_HERE = Path("/proc/driver/nvidia/version").exists()


def _plan(tmp_path: Path, path: str, **env: str) -> subprocess.CompletedProcess:
    """What demo.sh/test.sh would do to install torch into a new environment (DRY_RUN=1)."""
    script = "source scripts/venv.sh && make_venv && install_torch"
    environ = {k: v for k, v in os.environ.items() if k != "TORCH"}
    environ.update(PATH=path, VENV=str(tmp_path / "venv"), DRY_RUN="1", **env)
    return subprocess.run(["bash", "-c", script], cwd=ROOT, env=environ, capture_output=True, text=True)


@pytest.mark.skipif(platform.system() != "Linux", reason="the NVIDIA-driver check is Linux's")
@pytest.mark.skipif(
    NVIDIA_HERE, reason="this machine has an NVIDIA driver: the no-driver case cannot be seen"
)
def test_no_torch_and_no_nvidia_driver_installs_the_cpu_build_and_says_so(tmp_path):
    plan = _plan(tmp_path, os.environ["PATH"])
    assert plan.returncode == 0, plan.stderr
    assert (
        plan.stderr.count("\n") == 1 and "no NVIDIA driver here; installing the CPU-only build" in plan.stderr
    )
    torch_line = next(line for line in plan.stdout.splitlines() if "--no-deps" in line)
    assert "--index-url https://download.pytorch.org/whl/cpu" in torch_line


@pytest.mark.skipif(platform.system() != "Linux", reason="the NVIDIA-driver check is Linux's")
def test_no_torch_and_an_nvidia_driver_installs_pypis_default_build(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "nvidia-smi").write_text("#!/bin/sh\nexit 0\n")
    (bin_dir / "nvidia-smi").chmod(0o755)
    plan = _plan(tmp_path, f"{bin_dir}:{os.environ['PATH']}")
    assert plan.returncode == 0, plan.stderr
    assert "installing PyPI's default build" in plan.stderr
    assert "download.pytorch.org" not in plan.stdout
