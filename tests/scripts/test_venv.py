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


def test_the_test_command_installs_the_pinned_versions_and_the_pins_hold_on_every_python(tmp_path):
    """scripts/test.sh installs with ``-c scripts/constraints.txt`` (NO_CONSTRAINTS=1: without it); the file
    pins exact versions, leaves torch to TORCH and platform-only wheels out, and limits a pin to the Pythons
    its release runs on."""
    import importlib.metadata

    from packaging.requirements import Requirement
    from packaging.specifiers import SpecifierSet

    environ = {k: v for k, v in os.environ.items() if k not in ("TORCH", "NO_CONSTRAINTS")}
    environ.update(VENV=str(tmp_path / "venv"), DRY_RUN="1", TORCH="skip")
    plans = [
        subprocess.run(
            ["bash", "scripts/test.sh", "-q"],
            cwd=ROOT,
            env={**environ, **extra},
            capture_output=True,
            text=True,
        )
        for extra in ({}, {"NO_CONSTRAINTS": "1"})
    ]
    installs = [[line for line in plan.stdout.splitlines() if " -e " in line] for plan in plans]
    assert all(plan.returncode == 0 for plan in plans) and all(len(lines) == 1 for lines in installs), plans
    assert " -c scripts/constraints.txt -e " in installs[0][0] and " -c " not in installs[1][0]
    pins = [
        Requirement(line)
        for line in (ROOT / "scripts" / "constraints.txt").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    names = {pin.name for pin in pins}
    assert {"transformers", "pytest", "ruff", "sentencepiece"} <= names, names
    assert not {"torch", "nlgmetrics", "triton"} & names and not any(n.startswith("nvidia") for n in names)
    assert all(str(pin.specifier).startswith("==") for pin in pins)
    checked = 0
    # where this environment holds the pinned release: that release runs on every Python the pin is for
    for pin in pins:
        try:
            dist = importlib.metadata.distribution(pin.name)
        except importlib.metadata.PackageNotFoundError:
            continue
        if pin.specifier.contains(dist.version, prereleases=True):
            checked += 1
            runs_on = SpecifierSet(dist.metadata.get("Requires-Python") or "")
            for python in (f"3.{minor}" for minor in range(10, 16)):
                applies = pin.marker is None or pin.marker.evaluate({"python_full_version": f"{python}.0"})
                assert not applies or runs_on.contains(f"{python}.0"), (str(pin), python, str(runs_on))
    assert checked, "no pinned release is installed here to check the markers with"
