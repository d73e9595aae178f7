"""Small helpers shared by the test modules."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

from tqdm.auto import tqdm

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
