"""Issue 8 §3.10 and §4.3-§4.6 for InfoLM: what a fuzz run of compute() found, each with a test."""

from __future__ import annotations

import math

import pytest
from transformers import AutoModelForMaskedLM, AutoTokenizer

import nlgmetrics
from nlgmetrics.core import progress
from nlgmetrics.core.warnings import NLGMetricsWarning
from nlgmetrics.infolm import InfoLMScorer
from nlgmetrics.modules import SPECS
from tests.helpers import RecordingBar

ZERO_WIDTH = "\u200b\ufeff\x00"


@pytest.fixture(scope="module")
def byte_level_scorer(tiny_snapshots, tmp_path_factory):
    """A tiny RoBERTa masked LM: its byte-level BPE turns zero-width and control characters into tokens."""
    folder = tmp_path_factory.mktemp("roberta-mlm")
    AutoModelForMaskedLM.from_pretrained(tiny_snapshots["roberta-large"]).save_pretrained(folder)
    AutoTokenizer.from_pretrained(tiny_snapshots["roberta-large"]).save_pretrained(folder)
    return InfoLMScorer(SPECS["infolm"], str(folder), device="cpu")


# --- §3.10 ------------------------------------------------------------------------------------------------


def test_progress_counts_examples_batch_by_batch(scorer, monkeypatch, capsys):
    RecordingBar.bars = []
    monkeypatch.setattr(progress, "tqdm", RecordingBar)
    predictions = [f"the cat number {i} sat on the mat" for i in range(200)]
    references = [[f"a dog {i} slept", "a cat sat"] for i in range(200)]
    predictions[5] = ""  # an example without forward work still counts
    with pytest.warns(NLGMetricsWarning, match=r"predictions\[5\]"):
        scorer.score(predictions, references, idf=False, show_progress=True)
    [bar] = RecordingBar.bars
    assert bar.total == 200 and bar.unit == "example"
    assert len(bar.positions) > 2 and bar.positions == sorted(bar.positions) and bar.positions[-1] == 200
    assert "200/200" in capsys.readouterr().err


# --- §4.3 -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("batch_size", [-1, 0, 2.5, "16", True])
def test_bad_batch_size_is_a_value_error_at_construction(batch_size):
    with pytest.raises(ValueError, match="must be a positive int"):
        InfoLMScorer(SPECS["infolm"], device="cpu", batch_size=batch_size)
    with pytest.raises(ValueError, match="must be a positive int"):
        nlgmetrics.load("infolm", device="cpu", batch_size=batch_size)


# --- §4.4 / §4.5 ------------------------------------------------------------------------------------------


def test_a_lone_surrogate_names_field_and_index(scorer):
    with pytest.raises(ValueError, match=r"references\[1\]\[0\] cannot be encoded as UTF-8"):
        scorer.score(["a", "b"], [["fine"], ["\ud800"]])
    with pytest.raises(ValueError, match=r"idf\[1\] cannot be encoded as UTF-8"):
        scorer.score(["a"], ["b"], idf=["fine", "x\udfffy"])
    module = nlgmetrics.load("infolm", device="cpu")
    with pytest.raises(ValueError, match=r"predictions\[0\] cannot be encoded as UTF-8"):
        module.compute(predictions=["\ud800"], references=["x"])


def test_bytes_say_got_bytes(scorer):
    with pytest.raises(ValueError, match=r"references\[0\] must be a string or a list of strings, got bytes"):
        scorer.score(["a"], [b"abc"])
    module = nlgmetrics.load("infolm", device="cpu")
    with pytest.raises(ValueError, match=r"predictions\[1\] must be a string, got bytes"):
        module.compute(predictions=["a", b"b"], references=["x", "y"])


# --- §4.6 -------------------------------------------------------------------------------------------------


def test_zero_width_and_control_characters_count_as_blank(byte_level_scorer):
    assert byte_level_scorer.wrapper.tokenizer(ZERO_WIDTH, add_special_tokens=False)["input_ids"]  # tokens!
    with pytest.warns(NLGMetricsWarning) as caught:
        result = byte_level_scorer.score(
            [ZERO_WIDTH, "the cat sat", "the cat sat"],
            [["a cat sat"], ["a cat sat"], ["a cat sat", "\u2028\x07"]],
            idf=False,
        )
    scores = result["scores"]
    assert math.isnan(scores[0]) and math.isfinite(scores[1])
    assert scores[2] == scores[1]  # the blank reference among others is skipped
    [message] = [str(w.message) for w in caught]
    assert "predictions[0]" in message and "references[2][1]" in message and "zero-width" in message
    assert "1 of 3 examples score NaN" in message


# --- already done by the reshape ------------------------------------------------------------------------


@pytest.mark.parametrize("token_id", [10**9, -5])
def test_idf_token_ids_outside_the_vocabulary_are_rejected(scorer, token_id):
    with pytest.raises(ValueError, match=rf"idf\[{token_id}\]: not a token id of the model's vocabulary"):
        scorer.score(["a"], ["b"], idf={token_id: 1.0})
    with pytest.raises(ValueError, match="not a token id"):
        scorer.check_options(idf={token_id: 1.0})
