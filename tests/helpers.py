"""Small helpers shared by the test modules (the tiny cache's modules, parity records, rounding bounds)."""

from __future__ import annotations

import functools
import math
from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import pytest
import torch
from tqdm.auto import tqdm

import nlgmetrics
from nlgmetrics.core import precision
from nlgmetrics.core.hub import WeightsUnavailableError
from nlgmetrics.modules import MODULES, SPECS

NAMES = sorted(MODULES)


@functools.cache
def config_of(name: str) -> str | None:
    """The default config (None), or the first registered config whose weights the tiny cache holds."""
    for config in (None, *SPECS[name].configs):
        try:
            nlgmetrics.load(name, config, device="cpu")
        except WeightsUnavailableError:
            continue
        return config
    raise AssertionError(f"no config of {name} loads from the offline cache")


def load(name: str, **kwargs) -> nlgmetrics.modules.NLGMetric:
    return nlgmetrics.load(name, config_of(name), device="cpu", **kwargs)


PARITY: dict[str, float] = defaultdict(float)
"""Largest |ours - reference| per (metric, model, setting); printed at the end of the run."""

TOLERANCE = 1e-5


def assert_parity(
    name: str, ours: Sequence[float], reference: Sequence[float], tol: float = TOLERANCE
) -> float:
    """Every example within ``tol``; records the largest difference under ``name``."""
    assert len(ours) == len(reference), f"{name}: {len(ours)} scores vs {len(reference)}"
    deltas = [abs(a - b) for a, b in zip(ours, reference)]
    assert not any(math.isnan(d) for d in deltas), f"{name}: NaN in {ours} / {reference}"
    worst = max(deltas)
    PARITY[name] = max(PARITY[name], worst)
    assert worst <= tol, f"{name}: max |Δ| = {worst:.3g} > {tol} (ours {ours}, reference {reference})"
    return worst


class RecordingBar(tqdm):
    """A tqdm bar that remembers its position after every update (counts, not timing)."""

    bars: list[RecordingBar] = []

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.positions: list[float] = []
        RecordingBar.bars.append(self)

    def update(self, n=1):
        result = super().update(n)
        self.positions.append(self.n)
        return result


UNIT_ROUNDOFF = {"bfloat16": 2.0**-8, "tf32": 2.0**-11, "float16": 2.0**-11, "float32": 2.0**-24}
"""u = 2^-p for a format with p significand bits (bf16 keeps 8, TF32 and fp16 11, fp32 24)."""

ROUNDINGS_PER_LAYER = 12
"""Activations one transformer layer rounds in sequence: Q/K/V, scores, softmax, context, output
projection, residual, norm, FFN in, activation, FFN out, residual, norm."""


def rounding_bound(precision: str, layers: int, confidence_lambda: float = 6.0) -> float:
    """Bound on the relative error of a token's hidden state after ``layers`` transformer layers run in
    ``precision`` instead of float32, from the format's unit roundoff ``u`` and the depth alone.

    The path rounds ``n = 12·layers + 2`` times in sequence (the embeddings and their norm included). The
    worst case, ``n·u``, exceeds 1 past 20 layers of bf16 and says nothing there; rounding errors are
    independent and of mean zero, so the probabilistic bound of Higham & Mary (SIAM J. Sci. Comput. 2019,
    Theorem 2.4) applies: ``exp(λ·√n·u + n·u²/(1-u)) - 1``, exceeded with probability at most
    ``2·exp(-λ²(1-u)²/2)`` (3e-8 for λ = 6). Well-scaled layers do not amplify it. It bounds the model body,
    whose depth carries the error; a random head's probabilities near a tie are not bounded by it.

    >>> round(rounding_bound("bfloat16", 6), 3), round(rounding_bound("bfloat16", 24), 3)
    (0.225, 0.497)
    """
    n = ROUNDINGS_PER_LAYER * layers + 2
    u = UNIT_ROUNDOFF[precision]
    return math.expm1(confidence_lambda * math.sqrt(n) * u + n * u * u / (1 - u))


REORDERED_FLOAT32 = 2 * rounding_bound("float32", 24)
"""|Δ| allowed between float32 scores in [-1, 1] (cosines of unit vectors, probabilities) of the same inputs
computed in other batch shapes: kernels sum in another order per shape (and per CPU and thread count), so
the deepest tiny model's (24 layers) hidden states move within float32's rounding bound, doubled for
normalising (1.2e-5)."""


def bf16_refusal(device: str = "cpu") -> str | None:
    """The package's own refusal of ``dtype="bfloat16"`` on ``device`` on this machine (None: it runs it),
    the line ``nlgmetrics.load`` would raise."""
    try:
        precision.resolve_dtype("bfloat16", torch.device(device))
    except ValueError as refusal:
        return str(refusal)
    return None


@contextmanager
def bf16_as_the_package_allows(device: str = "cpu") -> Iterator[None]:
    """bfloat16 on ``device`` where the package runs it, with a CPU's missing bf16 units lifted
    (``benchmarks.precision.bfloat16_on_cpu``: emulated bf16 rounds as bf16 units do, only slower). Where the
    package still refuses it (torch's portable kernels under ``ATEN_CPU_CAPABILITY``, whose bf16 attention
    fails on CPUs with bf16 units), the test is skipped with the package's refusal as its reason."""
    from benchmarks.precision import bfloat16_on_cpu

    with bfloat16_on_cpu():
        if refusal := bf16_refusal(device):
            pytest.skip(refusal)
        yield
