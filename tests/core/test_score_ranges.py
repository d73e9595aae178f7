"""Scores stay inside their documented ranges when float rounding crosses a bound, and the warnings about
texts without words say what the text holds (issue 17)."""

from __future__ import annotations

import pytest
import torch

import nlgmetrics
from nlgmetrics.core.warnings import NLGMetricsWarning
from nlgmetrics.infolm.measures import information_measure
from nlgmetrics.testing import CORPUS


def near_identical_bags(seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """A prediction bag that differs from the reference bag by float64 rounding only."""
    generator = torch.Generator().manual_seed(seed)
    r = torch.softmax(torch.randn(4, 50, dtype=torch.float64, generator=generator), -1)
    p = r * (1 + 1e-15 * torch.randn(4, 50, dtype=torch.float64, generator=generator))
    return p / p.sum(-1, keepdim=True), r


@pytest.mark.parametrize(
    ("name", "alpha"), [("kl_divergence", None), ("alpha_divergence", 0.75), ("alpha_divergence", 2)]
)
def test_kl_and_alpha_divergences_never_round_above_zero(name, alpha):
    """−KL(r‖p) ≤ 0 and the alpha divergence ≤ 0 for any two distributions; rounding gave +5.9e-16."""
    measure = information_measure(name, alpha=alpha)
    raw_positive = 0
    for seed in range(10):
        p, r = near_identical_bags(seed)
        if name == "kl_divergence":
            raw = (torch.xlogy(r, p) - torch.xlogy(r, r)).sum(-1)
        else:
            raw = (1 - (r.pow(alpha) * p.pow(1 - alpha)).sum(-1)) / (alpha * (alpha - 1))
        raw_positive += int((raw > 0).sum())
        values = measure(p, r)
        assert (values <= 0).all(), values
        assert torch.allclose(values, raw.clamp(max=0), rtol=0, atol=0)  # nothing else changes
    assert raw_positive > 0  # the rounding this guards against does happen on these bags


def test_e_scores_stay_within_minus_one_and_one():
    """A text aligned with itself: cosines of unit vectors rounded to 1.0000005 in float32 (scores
    1.00000009); they are clamped to [-1, 1], the range of a cosine."""
    metric = nlgmetrics.load("ctc_consistency", "E-minilm", device="cpu")
    result = metric.compute(predictions=CORPUS, sources=CORPUS, return_details=True)
    assert all(-1 <= s <= 1 for s in result["scores"])
    assert max(result["scores"]) > 1 - 1e-6  # each text is aligned with itself
    tokens = [
        score
        for example in result["details"]
        for alignment in example.values()
        if isinstance(alignment, dict)
        for score in alignment.get("token_scores", [])
    ]
    assert tokens and all(-1 <= s <= 1 for s in tokens)


def test_infolm_says_a_text_of_only_special_tokens_has_only_special_tokens():
    metric = nlgmetrics.load("infolm", device="cpu")
    with pytest.warns(NLGMetricsWarning) as caught:
        metric.compute(predictions=["[SEP]", "", "the cat sat"], references=["a cat", "a dog", "the cat"])
    (message,) = [str(w.message) for w in caught if "have no words" in str(w.message)]
    assert "predictions[0] have no words (only special tokens such as [SEP])" in message
    assert "predictions[1] have no words (empty, or only whitespace" in message
    assert "2 of 3 examples score NaN" in message


def test_unieval_fact_warning_names_no_overall():
    """fact has one dimension and no overall: the warning about an empty prediction named "the overall"."""
    metric = nlgmetrics.load("unieval", "fact", device="cpu")
    with pytest.warns(NLGMetricsWarning) as caught:
        metric.compute(predictions=["", "The cat sat."], sources=["a cat sat", "a cat sat"])
    (message,) = [str(w.message) for w in caught if "is empty" in str(w.message)]
    assert "overall" not in message and "predictions[0] is empty" in message
    summary = nlgmetrics.load("unieval", device="cpu")
    with pytest.warns(NLGMetricsWarning) as caught:
        summary.compute(predictions=["", "The cat sat."], sources=["a", "a"], references=["b", "b"])
    (message,) = [str(w.message) for w in caught if "is empty" in str(w.message)]
    assert "predictions[0] is empty" in message and "(and the overall)" in message
