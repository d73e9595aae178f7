"""Issue 8 §3.10 and §4.3-§4.6 for CTC: what a fuzz run of compute() found, each with a test."""

from __future__ import annotations

import math
import warnings

import pytest

import nlgmetrics
from nlgmetrics.core import progress
from nlgmetrics.core.runtime import Runtime
from nlgmetrics.core.warnings import NLGMetricsWarning
from nlgmetrics.ctc import CTCScorer, aspect_spec
from nlgmetrics.ctc.aligners import ALIGNERS
from nlgmetrics.ctc.aligners.base import parse_custom_aligner
from references.examples import DIALOG, LONG_DOC, STYLE_TRANSFER, SUMMARIZATION
from tests.helpers import RecordingBar


@pytest.fixture
def bars(monkeypatch):
    RecordingBar.bars = []
    monkeypatch.setattr(progress, "tqdm", RecordingBar)
    return RecordingBar.bars


def _many(inputs: dict[str, list], n: int = 200) -> dict[str, list]:
    """``n`` examples cycling through ``inputs`` (texts made distinct, references kept)."""
    return {
        k: [v[i % len(v)] if k == "references" else v[i % len(v)] + f" ({i})" for i in range(n)]
        for k, v in inputs.items()
    }


SUMMARIES = {k: SUMMARIZATION[k] for k in ("predictions", "sources")}


# --- §3.10: the bar counts examples and advances per forward batch ------------------------------------


@pytest.mark.filterwarnings("ignore:.*cut as the reference:nlgmetrics.core.warnings.NLGMetricsWarning")
@pytest.mark.parametrize(
    ("aspect", "config", "inputs"),
    [
        ("consistency", "E-minilm", SUMMARIES),
        ("relevance", "E-minilm", SUMMARIZATION),  # 1 + 2 alignments per example
        ("consistency", "D-cnndm", SUMMARIES),
        ("groundedness", "R-topical_chat", {k: DIALOG[k] for k in ("predictions", "contexts")}),
        ("preservation", "E-bert", STYLE_TRANSFER),  # two alignments per example
    ],
)
def test_progress_counts_examples_batch_by_batch(bars, capsys, aspect, config, inputs):
    scorer = CTCScorer(aspect_spec(aspect), config, device="cpu", batch_size=8)
    data = _many(inputs)
    scorer.score(**data, show_progress=True)
    [bar] = bars
    assert bar.total == 200 and bar.unit == "example"
    assert len(bar.positions) > 2, bar.positions  # not 0% → 100% in one jump
    assert bar.positions == sorted(bar.positions) and bar.positions[-1] == 200
    assert all(p == int(p) for p in bar.positions)  # whole examples
    assert f"ctc_{aspect}" in capsys.readouterr().err


def test_progress_counts_blank_examples_and_stays_silent_unless_asked(bars, capsys):
    scorer = CTCScorer(aspect_spec("consistency"), "E-minilm", batch_size=8)
    predictions = [""] * 20 + [f"a summary {i}" for i in range(40)]
    with pytest.warns(NLGMetricsWarning):
        scorer.score(predictions, sources=["a document"] * 60, show_progress=True)
    assert bars[-1].total == 60 and bars[-1].positions[0] == 20 and bars[-1].positions[-1] == 60
    assert "60/60" in capsys.readouterr().err
    scorer.score(["a b c"], sources=["a b"])
    assert capsys.readouterr().err == ""


def test_an_aligner_reports_pairs_to_a_callback(minilm_dir):
    source = parse_custom_aligner(f"E:{minilm_dir}")
    aligner = ALIGNERS[source.kind].load(source, Runtime.resolve(batch_size=8))
    reports: list[float] = []
    pairs = [(f"claim {i}", f"document {i % 7}") for i in range(100)] + [("", "x")]
    aligner.align(pairs, aggregation="mean", remove_stopwords=False, progress=reports.append)
    assert len(reports) > 2 and sum(reports) == pytest.approx(101)


# --- §4.3: batch_size is a positive int at construction -------------------------------------------------


@pytest.mark.parametrize("batch_size", [-1, 0, 2.5, "16", True])
def test_bad_batch_size_is_a_value_error_at_construction(batch_size, minilm_dir):
    with pytest.raises(ValueError, match=rf"batch_size={batch_size!r} must be a positive int"):
        CTCScorer(aspect_spec("consistency"), "E-minilm", batch_size=batch_size)
    with pytest.raises(ValueError, match="must be a positive int"):
        Runtime.resolve(batch_size=batch_size)  # what every scorer's constructor resolves first
    with pytest.raises(ValueError, match="must be a positive int"):
        nlgmetrics.load("ctc_consistency", "E-minilm", batch_size=batch_size)


# --- §4.4 / §4.5: unencodable text and bytes name the field and index -----------------------------------


def test_a_lone_surrogate_names_field_and_index_before_model_work():
    scorer = CTCScorer(aspect_spec("consistency"), "E-minilm")
    with pytest.raises(ValueError, match=r"sources\[1\] cannot be encoded as UTF-8"):
        scorer.score(["a", "b"], sources=["fine", "bad \ud800 text"])
    module = nlgmetrics.load("ctc_consistency", "E-minilm")
    with pytest.raises(ValueError, match=r"predictions\[0\] cannot be encoded as UTF-8"):
        module.compute(predictions=["\ud800"], sources=["x"])
    assert module.compute(predictions=["fine"], sources=["x"])["scores"]  # the module still works


def test_bytes_say_got_bytes():
    scorer = CTCScorer(aspect_spec("relevance"), "E-minilm")
    with pytest.raises(ValueError, match=r"references\[0\] must be a string or a list of strings, got bytes"):
        scorer.score(["a"], sources=["x"], references=[b"abc"])
    with pytest.raises(ValueError, match=r"references\[0\]\[1\] must be a string, got bytes"):
        scorer.score(["a"], sources=["x"], references=[["r", b"abc"]])
    with pytest.raises(ValueError, match=r"sources\[0\] must be a string, got bytes"):
        scorer.score(["a"], sources=[b"x"], references=["r"])


# --- §4.6: blank fields score NaN with one warning naming them ------------------------------------------


@pytest.mark.parametrize("field", ["sources", "contexts"])
@pytest.mark.parametrize("config", ["E-minilm", "D-topical_chat", "R-topical_chat"])
def test_engagingness_with_a_blank_source_or_context_is_nan(field, config, monkeypatch):
    scorer = CTCScorer(aspect_spec("engagingness"), config, device="cpu")
    data = {k: list(v[:3]) for k, v in DIALOG.items()}
    data[field][1] = "  \n "
    aligner = next(iter(scorer.wrappers.values()))
    seen = []
    original = aligner.align
    monkeypatch.setattr(aligner, "align", lambda pairs, **k: seen.append(len(pairs)) or original(pairs, **k))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scores = scorer.score(**data)["scores"]
    assert math.isnan(scores[1]) and math.isfinite(scores[0]) and math.isfinite(scores[2])
    assert seen == [2]  # the blank example never reached the aligner
    [warning] = [w for w in caught if issubclass(w.category, NLGMetricsWarning)]
    assert f"{field}[1]" in str(warning.message) and "1 of 3 examples" in str(warning.message)


ZERO_WIDTH = "\u200b\ufeff\x00"


@pytest.mark.parametrize("config", ["E-minilm", "E-roberta"])
def test_zero_width_and_control_characters_count_as_blank(config):
    """E-roberta's byte-level BPE would read them as tokens; E-minilm's tokenizer drops them (NaN, no
    name)."""
    scorer = CTCScorer(aspect_spec("consistency"), config, device="cpu")
    with pytest.warns(NLGMetricsWarning) as caught:
        result = scorer.score(["fine text", ZERO_WIDTH], sources=["a fine source", "a source"])
    assert math.isfinite(result["scores"][0]) and math.isnan(result["scores"][1])
    [message] = [str(w.message) for w in caught]
    assert "predictions[1]" in message and "zero-width" in message


def test_a_blank_reference_among_others_makes_the_example_nan_without_model_work():
    scorer = CTCScorer(aspect_spec("relevance"), "E-minilm")
    with pytest.warns(NLGMetricsWarning, match=r"references\[0\]\[1\]"):
        result = scorer.score(["a b"], sources=["a b c"], references=[["a", ZERO_WIDTH]], return_details=True)
    assert math.isnan(result["scores"][0])
    assert all(math.isnan(a["score"]) for a in result["details"][0].values())


@pytest.mark.parametrize("config", ["E-minilm", "D-yelp", "R-yelp"])
def test_the_window_warning_says_what_windowing_covers(config):
    """Preservation aligns the source too (x → y): windowing reads long contexts, the aligned text is cut."""
    scorer = CTCScorer(aspect_spec("preservation"), config, device="cpu")
    with pytest.warns(NLGMetricsWarning) as caught:
        scorer.score(["A short rewrite."], sources=[LONG_DOC], long_inputs="window")
    [message] = [str(w.message) for w in caught]
    assert "only the context side b" in message and "the aligned text a is always cut" in message
    assert "sources→predictions" in message and "predictions→sources" not in message
    assert ("otherwise the pair is cut longest-first" in message) == config.startswith("R")
    assert "only the context side" in CTCScorer.__doc__.replace("\n    ", " ")
    with pytest.warns(NLGMetricsWarning, match="reads the context side b of each alignment a→b"):
        scorer.score(["A short rewrite."], sources=[LONG_DOC])


# --- already done by the reshape: tested here where nothing else tests it -------------------------------


def test_aligner_must_be_a_string():
    with pytest.raises(ValueError, match="aligner=5 must be a string"):
        CTCScorer(aspect_spec("consistency"), 5)
    with pytest.raises(ValueError, match="aligner=5 must be a string"):
        nlgmetrics.load("ctc_consistency", aligner=5)


def test_remove_stopwords_must_be_a_bool():
    scorer = CTCScorer(aspect_spec("groundedness"), "E-minilm")
    with pytest.raises(ValueError, match="remove_stopwords='no' must be True or False"):
        scorer.score(["a"], contexts=["b"], remove_stopwords="no")
    module = nlgmetrics.load("ctc_groundedness", "E-minilm")
    with pytest.raises(ValueError, match="remove_stopwords='no' must be True or False"):
        module.compute(predictions=["a"], contexts=["b"], remove_stopwords="no")


@pytest.mark.parametrize(("kind", "head"), [("D", "token-classification head"), ("R", "regression head")])
def test_trained_aligners_refuse_a_folder_without_their_head(kind, head, tiny_snapshots):
    folder = tiny_snapshots["roberta-large"] if kind == "D" else tiny_snapshots["bert-base-uncased"]
    with pytest.raises(ValueError, match=f"has no trained {head}"):
        CTCScorer(aspect_spec("consistency"), f"{kind}:{folder}", device="cpu")


def test_a_missing_folder_says_so():
    with pytest.raises(ValueError, match="the folder './nope' does not exist"):
        CTCScorer(aspect_spec("consistency"), "E:./nope")
