"""max_batch_tokens: batches by padded tokens give the scores of count-based batches (issue 12 §2)."""

from __future__ import annotations

import pytest

import nlgmetrics
from nlgmetrics.core import batching
from nlgmetrics.ctc import CTCScorer, aspect_spec
from nlgmetrics.ctc.aligners import embedding
from references.examples import SUMMARIZATION
from tests.helpers import REORDERED_FLOAT32

N = 12
INPUTS = {k: [v[i % len(v)] for i in range(N)] for k, v in SUMMARIZATION.items()}
INPUTS["predictions"] = [f"{p} ({i})" for i, p in enumerate(INPUTS["predictions"])]


@pytest.fixture
def forward_widths(monkeypatch):
    """The (rows, padded width) of every forward batch the aligners pad (core.batching.pad_rows)."""
    shapes: list[tuple[int, int]] = []
    original = batching.pad_rows

    def recording(*args, **kwargs):
        tensors = original(*args, **kwargs)
        shapes.append(tuple(tensors["input_ids"].shape))
        return tensors

    monkeypatch.setattr(batching, "pad_rows", recording)
    return shapes


@pytest.mark.filterwarnings("ignore:.*cut as the reference:nlgmetrics.core.warnings.NLGMetricsWarning")
@pytest.mark.parametrize("long_inputs", ["truncate", "window"])
@pytest.mark.parametrize(
    ("aspect", "config"), [("relevance", "E-roberta"), ("consistency", "D-cnndm"), ("relevance", "R-cnndm")]
)
def test_a_small_token_budget_gives_the_default_scores(
    aspect, config, long_inputs, forward_widths, monkeypatch
):
    inputs = {k: INPUTS[k] for k in CTCScorer(aspect_spec(aspect), config, device="cpu").aspect.inputs}
    default = CTCScorer(aspect_spec(aspect), config, device="cpu").score(
        **inputs, long_inputs=long_inputs, return_details=True
    )
    n_default = len(forward_widths)
    forward_widths.clear()
    monkeypatch.setattr(embedding, "SIMILARITY_ELEMENTS", 1)  # E: one pair per similarity product too
    budget = CTCScorer(aspect_spec(aspect), config, device="cpu", max_batch_tokens=200).score(
        **inputs, long_inputs=long_inputs, return_details=True
    )
    assert len(forward_widths) > n_default  # the budget forced more, smaller batches
    assert all(rows == 1 or rows * width <= 200 for rows, width in forward_widths)
    assert budget["scores"] == pytest.approx(default["scores"], abs=REORDERED_FLOAT32, nan_ok=True)
    for ours, theirs in zip(budget["details"], default["details"]):
        for label, alignment in ours.items():
            assert alignment["tokens"] == theirs[label]["tokens"]
            assert alignment["token_scores"] == pytest.approx(
                theirs[label]["token_scores"], abs=REORDERED_FLOAT32
            )


@pytest.mark.filterwarnings("ignore:.*cut as the reference:nlgmetrics.core.warnings.NLGMetricsWarning")
def test_the_option_reaches_the_aligners_through_load_and_leaves_the_signature_alone():
    metric = nlgmetrics.load("ctc_consistency", "E-minilm", device="cpu", max_batch_tokens=64)
    plain = nlgmetrics.load("ctc_consistency", "E-minilm", device="cpu")
    inputs = {k: INPUTS[k] for k in ("predictions", "sources")}
    ours, theirs = metric.compute(**inputs), plain.compute(**inputs)
    assert [a.max_batch_tokens for a in metric.scorer.wrappers.values()] == [64]
    assert ours["scores"] == pytest.approx(theirs["scores"], abs=REORDERED_FLOAT32)
    assert ours["signature"] == theirs["signature"]


@pytest.mark.parametrize("value", [-1, 0, 2.5, "512", True])
def test_a_bad_max_batch_tokens_is_a_value_error_naming_it(value):
    with pytest.raises(ValueError, match=r"max_batch_tokens=.* must be a positive int"):
        CTCScorer(aspect_spec("consistency"), "E-minilm", device="cpu", max_batch_tokens=value)
    with pytest.raises(ValueError, match=r"max_batch_tokens=.* must be a positive int"):
        nlgmetrics.load("ctc_consistency", "E-minilm", device="cpu", max_batch_tokens=value)
