"""Bad input is a clear ValueError before any model work; odd but valid input is scored as documented."""

from __future__ import annotations

import math
import warnings

import pytest
import torch

import nlgmetrics
from nlgmetrics.core.warnings import NLGMetricsWarning
from nlgmetrics.ctc import CTCScorer, aspect_spec
from references.examples import DIALOG, LONG_DOC, SUMMARIZATION
from tests.helpers import REORDERED_FLOAT32


@pytest.fixture(scope="module")
def consistency():
    return nlgmetrics.load("ctc_consistency", "E-bert", device="cpu")


@pytest.fixture
def forward_calls(consistency, monkeypatch):
    """Counts forward passes of the aligner model behind ``consistency``."""
    model = next(iter(consistency.scorer.wrappers.values())).model
    calls = []
    original = model.forward
    monkeypatch.setattr(model, "forward", lambda *a, **k: calls.append(1) or original(*a, **k))
    return calls


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"predictions": ["fine", None, "fine"], "sources": ["a", "b", "c"]}, r"predictions\[1\] is None"),
        ({"predictions": ["fine", "fine"], "sources": ["a", 7]}, r"sources\[1\] must be a string, got int"),
        (
            {"predictions": ["a", "b", "c"], "sources": ["a", "b"]},
            "sources has 2 examples but predictions has 3",
        ),
        ({"predictions": "one string", "sources": ["a"]}, "predictions must be a list"),
        ({"predictions": ["a"], "sources": None}, "sources is missing"),
        ({"predictions": ["a"], "sources": ["b"], "references": ["c"]}, "does not take references"),
    ],
)
def test_bad_input_is_a_value_error_before_model_work(consistency, forward_calls, inputs, message):
    with pytest.raises(ValueError, match=message):
        consistency.compute(**inputs)
    assert forward_calls == []


def test_one_bad_example_in_a_batch_names_it(consistency, forward_calls):
    predictions = [f"summary {i}" for i in range(20)]
    predictions[13] = 3.5
    with pytest.raises(ValueError, match=r"predictions\[13\] must be a string, got float"):
        consistency.add_batch(predictions=predictions, sources=["doc"] * 20)
    assert forward_calls == []
    assert len(consistency.compute(predictions=["fine"], sources=["doc"])["scores"]) == 1


def test_bad_references_name_example_and_position():
    relevance = nlgmetrics.load("ctc_relevance", "E-minilm")
    with pytest.raises(ValueError, match=r"references\[1\] is an empty list"):
        relevance.compute(predictions=["a", "b"], sources=["x", "y"], references=[["r"], []])
    with pytest.raises(ValueError, match=r"references\[0\]\[1\] is None"):
        CTCScorer(aspect_spec("relevance"), "E-minilm").score(["a"], sources=["x"], references=[["r", None]])
    with pytest.raises(ValueError, match=r"contexts\[2\] is None"):
        nlgmetrics.load("ctc_groundedness", "E-minilm").compute(
            predictions=["a"] * 3, contexts=["c", "c", None]
        )


def test_bad_options_are_value_errors(monkeypatch):
    scorer = CTCScorer(aspect_spec("consistency"), "E-minilm")
    with pytest.raises(ValueError, match="aggregation='median'"):
        scorer.score(["a"], sources=["b"], aggregation="median")
    with pytest.raises(ValueError, match="unknown CTC aspect"):
        CTCScorer(aspect_spec("fluency"))
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)  # the message, also on a GPU machine
    with pytest.raises(ValueError, match="CUDA is not available"):
        CTCScorer(aspect_spec("consistency"), "E-minilm", device="cuda")
    with pytest.raises(ValueError, match=r"^dtype='float16' is not supported on the cpu"):
        CTCScorer(aspect_spec("consistency"), "E-minilm", dtype="float16", device="cpu")


def test_empty_texts_score_nan_with_a_warning_and_are_left_out_of_the_mean(consistency):
    predictions = ["The library opens in 2027.", "", "   \n", "Flooding hit Kirkby."]
    sources = [SUMMARIZATION["sources"][0], SUMMARIZATION["sources"][0], "doc", "\t"]
    with pytest.warns(NLGMetricsWarning) as caught:
        result = consistency.compute(predictions=predictions, sources=sources)
    scores = result["scores"]
    assert math.isfinite(scores[0]) and all(math.isnan(s) for s in scores[1:])
    assert result["mean_score"] == scores[0]
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1
    assert "predictions[1], predictions[2], sources[3]" in messages[0] and "NaN" in messages[0]


def test_all_empty_gives_nan_mean_and_empty_details():
    with pytest.warns(NLGMetricsWarning, match="1 of 1 examples"):
        result = CTCScorer(aspect_spec("groundedness"), "E-minilm").score(
            [""], contexts=["a fact"], return_details=True
        )
    assert math.isnan(result["scores"][0]) and math.isnan(result["mean_score"])
    assert result["details"][0]["predictions→contexts"]["tokens"] == []


def test_engagingness_with_an_empty_fact_is_nan_as_the_card_says():
    """Issue 8 §4.6: every input is required; a blank fact is not scored against the history alone."""
    with pytest.warns(NLGMetricsWarning, match=r"contexts\[0\]"):
        result = CTCScorer(aspect_spec("engagingness"), "E-minilm").score(
            ["I love jazz too!"], sources=["Do you like jazz?"], contexts=[""]
        )
    assert math.isnan(result["scores"][0])


def test_long_inputs_warn_once_per_compute_and_score(consistency):
    inputs = {
        "predictions": ["Costs rose.", "Costs rose a lot.", LONG_DOC],
        "sources": [LONG_DOC, LONG_DOC, "x"],
    }
    for _ in range(2):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("default")
            result = consistency.compute(**inputs)
        truncation = [w for w in caught if "cut as the reference" in str(w.message)]
        assert len(truncation) == 1
        assert "3 examples" in str(truncation[0].message) and "512 tokens" in str(truncation[0].message)
        assert all(math.isfinite(s) for s in result["scores"])


def test_huge_and_non_english_texts_never_crash_a_batch():
    huge = "word " * 20_000
    predictions = ["短い要約です。", "Ein kurzer Satz.", huge, "🙂 emoji only 🙂", "ok"]
    sources = [huge, "日本語の文書です。", "x", "y", "ok"]
    with pytest.warns(NLGMetricsWarning, match="examples at 0-based indexes 0, 2"):
        result = CTCScorer(aspect_spec("consistency"), "E-minilm").score(predictions, sources=sources)
    assert all(math.isfinite(s) for s in result["scores"])


def test_scores_come_back_in_input_order_whatever_the_batching():
    scorer = CTCScorer(aspect_spec("engagingness"), "E-minilm", batch_size=2)
    together = scorer.score(DIALOG["predictions"], sources=DIALOG["sources"], contexts=DIALOG["contexts"])
    one_by_one = [
        scorer.score([y], sources=[x], contexts=[c])["scores"][0]
        for y, x, c in zip(DIALOG["predictions"], DIALOG["sources"], DIALOG["contexts"])
    ]
    assert together["scores"] == pytest.approx(one_by_one, abs=REORDERED_FLOAT32)


def test_progress_bar_on_request(capsys):
    scorer = CTCScorer(aspect_spec("consistency"), "E-minilm")
    scorer.score(["a b c"], sources=["a b"], show_progress=True)
    assert "all-MiniLM-L6-v2" in capsys.readouterr().err
    scorer.score(["a b c"], sources=["a b"])
    assert capsys.readouterr().err == ""
