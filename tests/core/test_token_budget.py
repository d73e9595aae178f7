"""The token-budget batching and the default budget rule (issue 12 §2); CI has no GPU, so the rule is a
pure function of a memory size and the cuda branch is checked with the device's properties stubbed."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch

from nlgmetrics.core import batching

GIB = 2**30


@pytest.mark.parametrize(
    ("memory", "budget"),
    [
        (80 * GIB, 65536),
        (79.6 * GIB, 65536),
        (24 * GIB, 24576),
        (16 * GIB, 16384),
        (6 * GIB, 6144),
        (2 * GIB, 4096),
    ],
)
def test_the_default_budget_is_1024_tokens_per_gib_within_bounds(memory, budget):
    assert batching.token_budget_for_memory(int(memory)) == budget


def test_the_default_budget_applies_only_on_cuda_when_the_user_gave_neither_option(monkeypatch):
    monkeypatch.setattr(
        torch.cuda, "get_device_properties", lambda device: SimpleNamespace(total_memory=16 * GIB)
    )
    cuda, cpu = torch.device("cuda"), torch.device("cpu")
    assert batching.resolve_token_budget(cuda, None, None) == 16384
    assert batching.resolve_token_budget(cuda, 32, None) is None  # the user's batch_size counts rows
    assert batching.resolve_token_budget(cuda, None, 1000) == 1000
    assert batching.resolve_token_budget(cpu, None, None) is None
    assert batching.resolve_token_budget(cpu, None, 1000) == 1000


def test_padded_batches_by_token_budget():
    rows = [{"input_ids": list(range(n))} for n in (3, 9, 1, 7, 2)]
    batches = list(batching.padded_batches(rows, 100, {"input_ids": 0}, max_tokens=16))
    assert [b for b, _ in batches] == [[1], [3, 0], [4, 2]]
    assert [tuple(t["input_ids"].shape) for _, t in batches] == [(1, 9), (2, 7), (2, 2)]
    assert batches[1][1]["attention_mask"].tolist() == [[1] * 7, [1, 1, 1, 0, 0, 0, 0]]
    assert [b for b, _ in batching.padded_batches(rows, 2, {"input_ids": 0})] == [[1, 3], [0, 4], [2]]


CPU_BUDGETS = {
    ("alignscore", "base"): 2048, ("minicheck", "flan-t5-large"): 1024, ("factcg", "deberta-v3-large"): 2048,
    ("hhem", "2.1-open"): 1024, ("lettucedetect", "base"): 2048,
}  # fmt: skip
"""The CPU budgets measured in benchmarks/results/cpu_batch_shapes.md."""


@pytest.mark.parametrize(("module", "config"), list(CPU_BUDGETS))
def test_a_wrapper_s_cpu_budget_applies_on_the_cpu_only_when_the_user_gave_neither_option(module, config):
    """The claim checkers' long rows batch by ``cpu_batch_tokens`` on the CPU; the user's ``batch_size`` or
    ``max_batch_tokens`` wins (benchmarks/results/cpu_batch_shapes.md)."""
    import nlgmetrics

    def wrapper(**where):
        scorer = nlgmetrics.load(module, config, device="cpu", **where).ready_scorer()
        return scorer.wrapper

    default = wrapper()
    assert default.max_batch_tokens == type(default).cpu_batch_tokens == CPU_BUDGETS[module, config]
    assert wrapper(batch_size=4).max_batch_tokens is None and wrapper(batch_size=4).batch_size == 4
    assert wrapper(max_batch_tokens=300).max_batch_tokens == 300
