"""An unpublished weight's error ends with our advice (issue 27 §3): transformers' "check your internet
connection" is not shown (no network can fetch weights that are not on the Hub), neither in the message
nor in the traceback; the original exception stays on ``.cause``."""

from __future__ import annotations

import dataclasses
import pickle
import traceback
from pathlib import Path

import evaluate
import pytest

import nlgmetrics
from nlgmetrics.core import registry
from nlgmetrics.core.hub import WeightsUnavailableError
from nlgmetrics.core.registry import WEIGHTS, how_to_get, is_published
from nlgmetrics.ctc.weights import ctc_weight_name

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def unpublished_and_not_cached(monkeypatch) -> registry.WeightSpec:
    """CTC consistency's D-cnndm aligner (the paper's best, not published), at a revision the offline cache
    does not hold."""
    name = ctc_weight_name("D-cnndm", "doc_to_summ")
    spec = dataclasses.replace(WEIGHTS[name], revision="0" * 40)
    monkeypatch.setitem(registry.WEIGHTS, name, spec)
    assert not is_published(spec)
    return spec


@pytest.mark.parametrize(
    "load",
    [
        lambda: nlgmetrics.load("ctc_consistency", "D-cnndm", device="cpu"),
        lambda: evaluate.load(str(REPO / "metrics" / "ctc_consistency"), "D-cnndm", device="cpu"),
    ],
    ids=["nlgmetrics.load", "evaluate.load"],
)
def test_an_unpublished_weight_error_ends_with_our_advice(
    unpublished_and_not_cached, fresh_model_cache, load
):
    with pytest.raises(WeightsUnavailableError) as caught:
        load()
    err = caught.value
    message = str(err)
    assert message == err.summary and message.endswith(how_to_get(unpublished_and_not_cached))
    assert "internet" not in message.lower() and "Cause" not in message
    shown = "".join(traceback.format_exception(err))
    assert "internet connection" not in shown and "direct cause" not in shown
    assert isinstance(err.cause, OSError) and not isinstance(err.cause, WeightsUnavailableError)
    assert "internet connection" in str(err.cause)  # transformers' own error, kept for whoever needs it

    again = pickle.loads(pickle.dumps(err))  # worker processes report it
    assert str(again) == message and again.cause == str(err.cause)
