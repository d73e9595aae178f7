"""InfoLM's max_batch_tokens: masked copies batched by padded tokens give the default scores (issue 12 §2)."""

from __future__ import annotations

import pytest

import nlgmetrics
from nlgmetrics.infolm.scorer import InfoLMScorer
from nlgmetrics.modules import SPECS

PREDICTIONS = [f"sentence number {i} about cats and the weather in the hills" for i in range(10)] + ["rain"]
REFERENCES = [[f"a text {i} about dogs", "another reference here"] for i in range(10)] + [["heavy rain"]]


def test_a_small_token_budget_gives_the_default_scores_and_details(monkeypatch):
    default = InfoLMScorer(SPECS["infolm"], device="cpu")
    budget = InfoLMScorer(SPECS["infolm"], device="cpu", max_batch_tokens=60)
    widths: list[tuple[int, int]] = []
    original = budget.wrapper._logits_at

    def recording(input_ids, attention, columns):
        widths.append(tuple(input_ids.shape))
        return original(input_ids, attention, columns)

    monkeypatch.setattr(budget.wrapper, "_logits_at", recording)
    for measure in ("kl_divergence", "fisher_rao_distance"):
        ours = budget.score(PREDICTIONS, REFERENCES, measure=measure, return_details=True)
        theirs = default.score(PREDICTIONS, REFERENCES, measure=measure, return_details=True)
        assert ours["scores"] == pytest.approx(theirs["scores"], abs=1e-6)
        for a, b in zip(ours["details"], theirs["details"]):
            assert a["best_reference"] == b["best_reference"]
            assert [t["token"] for t in a["top_tokens"]] == [t["token"] for t in b["top_tokens"]]
            assert [t["difference"] for t in a["top_tokens"]] == pytest.approx(
                [t["difference"] for t in b["top_tokens"]], abs=1e-9
            )
    assert len(widths) > 2 and all(rows == 1 or rows * width <= 60 for rows, width in widths)


@pytest.mark.parametrize("value", [-1, 0, 2.5, "512", True])
def test_a_bad_max_batch_tokens_is_a_value_error_naming_it(value):
    with pytest.raises(ValueError, match=r"max_batch_tokens=.* must be a positive int"):
        InfoLMScorer(SPECS["infolm"], device="cpu", max_batch_tokens=value)
    with pytest.raises(ValueError, match=r"max_batch_tokens=.* must be a positive int"):
        nlgmetrics.load("infolm", device="cpu", max_batch_tokens=value)
