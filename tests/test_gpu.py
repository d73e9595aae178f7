"""On a CUDA machine: every family on the GPU agrees with the CPU (fp32), and bf16 runs.

The rest of the suite runs on the CPU (conftest sets NLGMETRICS_DEVICE=cpu) because the parity
references do; these tests ask for cuda explicitly and are skipped, with the reason, elsewhere.
"""

from __future__ import annotations

import math

import pytest
import torch

import nlgmetrics
from nlgmetrics.modules import SPECS

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")

# (module, config) pairs whose weights are in the tiny offline cache or embedded
CASES = [("ctc_consistency", "E-minilm"), ("ctc_relevance", "E-bert"), ("infolm", None)]


@pytest.mark.parametrize(("name", "config"), CASES)
def test_cuda_fp32_equals_cpu(name, config):
    inputs = SPECS[name].example
    cpu = nlgmetrics.load(name, config, device="cpu").compute(**inputs)["scores"]
    gpu = nlgmetrics.load(name, config, device="cuda").compute(**inputs)["scores"]
    # fp32 on another device: other kernels, other rounding (TF32 stays off unless asked for)
    assert gpu == pytest.approx(cpu, rel=1e-4, abs=1e-6)


@pytest.mark.parametrize(("name", "config"), CASES)
def test_bf16_runs_on_cuda(name, config):
    result = nlgmetrics.load(name, config, device="cuda", dtype="bfloat16").compute(**SPECS[name].example)
    assert all(math.isfinite(s) for s in result["scores"]) and "dtype:bfloat16" in result["signature"]
