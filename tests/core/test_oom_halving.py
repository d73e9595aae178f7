"""Issue 18: every model wrapper runs its model through core.batching, so a batch that runs out of
device memory is retried in halves the same way in all eight modules (CTC's E, D and R aligners, the
masked LMs of InfoLM and USR, USR's classifiers, UniEval's T5), with the same scores."""

from __future__ import annotations

import math

import pytest
import torch
from transformers import PreTrainedModel

from references.examples import examples
from tests.helpers import NAMES, load

MAX_ROWS = 2
"""The simulated device holds at most this many rows per forward pass."""


def simulate_small_device(monkeypatch, max_rows: int) -> list[int]:
    """Every transformers model called on more than ``max_rows`` rows raises CUDA's out-of-memory error;
    returns the list of refused batch sizes."""
    refused: list[int] = []
    original = torch.nn.Module.__call__

    def call(self, *args, **kwargs):
        if isinstance(self, PreTrainedModel):
            rows = next((a.shape[0] for a in (*args, *kwargs.values()) if isinstance(a, torch.Tensor)), 0)
            if rows > max_rows:
                refused.append(rows)
                raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB (simulated)")
        return original(self, *args, **kwargs)

    monkeypatch.setattr(torch.nn.Module, "__call__", call)
    return refused


@pytest.mark.filterwarnings("ignore::nlgmetrics.core.warnings.NLGMetricsWarning")
@pytest.mark.parametrize("name", NAMES)
def test_an_out_of_memory_batch_is_retried_in_halves_with_the_same_scores(name, monkeypatch):
    metric = load(name, batch_size=8)
    data = examples(name, 6)
    whole = metric.compute(**data)["scores"]
    refused = simulate_small_device(monkeypatch, MAX_ROWS)
    halved = metric.compute(**data)["scores"]
    assert refused and max(refused) > MAX_ROWS  # batches were refused, and then scored in halves
    # float32 (unit roundoff 2^-24) through a dozen layers, run with other padded shapes: 1e-5 relative
    assert all(math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-6) for a, b in zip(whole, halved)), (whole, halved)


@pytest.mark.filterwarnings("ignore::nlgmetrics.core.warnings.NLGMetricsWarning")
@pytest.mark.parametrize("name", NAMES)
def test_a_single_input_that_does_not_fit_says_what_to_do(name, monkeypatch):
    metric = load(name, batch_size=8)
    data = examples(name, 3)
    simulate_small_device(monkeypatch, 0)
    with pytest.raises(RuntimeError, match=r"out of memory on a single input of \d+ tokens on cpu"):
        metric.compute(**data)
