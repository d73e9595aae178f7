"""The harness reproduces UniEval's published correlations from its released predictions."""

from __future__ import annotations

import pytest

from benchmarks.unieval_meta_eval import PUBLISHED, reproduce


def test_the_released_unieval_predictions_give_the_published_correlations():
    rows = reproduce()
    assert {(r["dataset"], r["dimension"]) for r in rows} == set(PUBLISHED)
    for r in rows:
        for k in ("pearson", "spearman", "kendall"):
            assert r[k] == pytest.approx(r["published"][k], abs=5e-7), (r["dataset"], r["dimension"], k)
