"""allow_tf32: a checked load option of every module, a scoped TF32 switch, recorded in the signature."""

from __future__ import annotations

import math

import pytest
import torch

import nlgmetrics
from nlgmetrics.core import runtime
from nlgmetrics.modules import SPECS
from tests.test_contract import config_of

NAMES = sorted(SPECS)
# InfoLM's idf over its one declared example is all zeros: it says so (tested elsewhere)
pytestmark = pytest.mark.filterwarnings(
    "ignore:infolm. every token of:nlgmetrics.core.runtime.NLGMetricsWarning"
)


def tf32_state() -> tuple:
    b = torch.backends
    return (
        b.cuda.matmul.fp32_precision,
        b.mkldnn.matmul.fp32_precision,
        torch.get_float32_matmul_precision(),
    )


@pytest.mark.parametrize("name", NAMES)
def test_allow_tf32_must_be_a_bool(name):
    assert SPECS[name].check_load_options({"allow_tf32": True}) == {"allow_tf32": True}
    with pytest.raises(ValueError, match="allow_tf32='yes' must be True or False"):
        nlgmetrics.load(name, config_of(name), device="cpu", allow_tf32="yes")


def test_tf32_block_switches_cuda_matmuls_and_restores_exactly():
    before = tf32_state()
    with runtime.tf32_matmuls(True):
        assert torch.backends.cuda.matmul.fp32_precision == "tf32"
        with runtime.tf32_matmuls(True):  # nested: the outer block still restores
            pass
        assert torch.backends.cuda.matmul.fp32_precision == "tf32"
    assert tf32_state() == before
    with runtime.tf32_matmuls(False):
        assert tf32_state() == before


def test_tf32_block_leaves_a_user_setting_alone():
    torch.backends.cuda.matmul.allow_tf32 = True
    try:
        before = tf32_state()
        with runtime.tf32_matmuls(True):
            pass
        assert tf32_state() == before
    finally:
        torch.backends.cuda.matmul.allow_tf32 = False


@pytest.mark.parametrize("name", NAMES)
def test_allow_tf32_on_cpu_warns_and_changes_nothing(name):
    inputs = SPECS[name].example
    plain = nlgmetrics.load(name, config_of(name), device="cpu").compute(**inputs)
    with pytest.warns(runtime.NLGMetricsWarning, match="allow_tf32=True has no effect on cpu"):
        metric = nlgmetrics.load(name, config_of(name), device="cpu", allow_tf32=True)
    result = metric.compute(**inputs)
    assert result["scores"] == plain["scores"] and result["signature"] == plain["signature"]
    assert "tf32" not in result["signature"]


@pytest.mark.parametrize("name", NAMES)
def test_with_tf32_in_effect_forward_passes_run_in_tf32_and_the_signature_says_so(name, monkeypatch):
    """On CUDA ``scorer.tf32`` is True; here it is forced, and every forward pass sees the switch."""
    metric = nlgmetrics.load(name, config_of(name), device="cpu")
    metric._ready_scorer().tf32 = True
    seen = []
    original = torch.nn.Module.__call__

    def recording(self, *args, **kwargs):
        seen.append(torch.backends.cuda.matmul.fp32_precision)
        return original(self, *args, **kwargs)

    before = tf32_state()
    monkeypatch.setattr(torch.nn.Module, "__call__", recording)
    try:
        result = metric.compute(**SPECS[name].example)
    finally:
        metric.scorer.tf32 = False
    assert seen and set(seen) == {"tf32"}
    assert "|dtype:float32|matmul:tf32|" in result["signature"]
    assert all(math.isfinite(s) for s in result["scores"])
    assert tf32_state() == before


@pytest.mark.parametrize("name", NAMES)
def test_bf16_scores_are_finite_and_within_the_documented_bound(name):
    """bf16 weights and activations (on the CPU for this check: refused there in normal use) stay within
    README.md's loose bound: |Δ| ≤ 10% of max(1, |fp32 score|) (see tests/test_gpu.py's BF16_BOUND)."""
    from benchmarks.precision import bfloat16_on_cpu, score_lists
    from tests.test_contract import examples

    inputs = examples(name, 4)
    fp32 = nlgmetrics.load(name, config_of(name), device="cpu").compute(**inputs)
    with bfloat16_on_cpu():
        bf16 = nlgmetrics.load(name, config_of(name), device="cpu", dtype="bfloat16").compute(**inputs)
    assert "dtype:bfloat16" in bf16["signature"]
    for key, values in score_lists(fp32).items():
        for a, b in zip(values, score_lists(bf16)[key], strict=True):
            assert math.isfinite(b) and abs(a - b) <= 0.1 * max(1.0, abs(a)), (key, a, b)
    with pytest.raises(ValueError, match="only supported on accelerators"):  # the lift ended with the block
        nlgmetrics.load(name, config_of(name), device="cpu", dtype="bfloat16")
