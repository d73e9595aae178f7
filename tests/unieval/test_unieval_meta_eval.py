"""meta_evaluate reproduces UniEval's published correlations from its released predictions, to 6 decimals."""

from __future__ import annotations

import pytest

from benchmarks.unieval_meta_eval import PUBLISHED, reproduce


def test_the_released_unieval_predictions_give_the_published_correlations():
    rows = reproduce()
    assert {(r["dataset"], r["dimension"]) for r in rows} == set(PUBLISHED)
    for r in rows:
        for k in ("pearson", "spearman", "kendall"):
            assert round(r[k], 6) == pytest.approx(r["published"][k], abs=1e-12), (
                r["dataset"],
                r["dimension"],
                k,
            )
