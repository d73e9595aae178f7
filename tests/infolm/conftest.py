"""The InfoLM scorer the InfoLM tests share: the default bert-base-uncased on the tiny offline weights, 8
texts per batch so that a few dozen examples already run in several batches (one per test module)."""

from __future__ import annotations

import pytest

from nlgmetrics.infolm import InfoLMScorer
from nlgmetrics.modules import SPECS


@pytest.fixture(scope="module")
def scorer(tiny_snapshots):
    return InfoLMScorer(SPECS["infolm"], device="cpu", batch_size=8)
