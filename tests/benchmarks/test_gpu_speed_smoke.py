"""benchmarks/gpu_speed.py's CPU smoke run: tiny shapes, every metric, every precision, in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[2]
METRICS = ("ctc D", "ctc E", "ctc R", "infolm", "unieval", "usr")


def test_gpu_speed_smoke_run_writes_every_row(tmp_path):
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'metrics'}{os.pathsep}{ROOT}"}
    command = [sys.executable, "-m", "benchmarks.gpu_speed", "--device", "cpu", "--smoke", "--examples", "2"]
    run = subprocess.run(
        [*command, "--out", str(tmp_path)], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads((tmp_path / "gpu_speed.json").read_text())
    rows = {(r["metric"].split(" (")[0], r["what"]) for r in report["results"]}
    for metric in METRICS:
        for precision in ("fp32", "fp32+tf32", "bf16"):
            assert (metric, f"ours {precision}") in rows
    for metric in METRICS:
        assert (metric, "bare forward bf16") in rows
    assert all(r["seconds"] > 0 for r in report["results"])
    assert (tmp_path / "gpu_speed.md").read_text().startswith("# GPU speed")


@pytest.mark.skipif(torch.cuda.is_available(), reason="the refusal only exists without CUDA")
def test_gpu_speed_without_cuda_fails_with_one_line():
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'metrics'}{os.pathsep}{ROOT}"}
    run = subprocess.run(
        [sys.executable, "-m", "benchmarks.gpu_speed"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert run.returncode == 2 and run.stderr.strip().count("\n") == 0 and "no CUDA" in run.stderr
