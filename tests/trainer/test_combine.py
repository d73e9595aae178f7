"""nlgmetrics.combine beside a module that is not ours, and evaluate.combine + add_batch with the keys it
really returns (the README shows both)."""

from __future__ import annotations

import evaluate
import pytest

import nlgmetrics
from tests.trainer.word_overlap import WordOverlap

DOCUMENTS = ["The city council voted on Monday to build a new public library on Elm Street."] * 2
SUMMARIES = ["The council approved a new library on Elm Street.", "A library was built."]
REFERENCES = ["The council will build a library on Elm Street.", "The council voted for a library."]


@pytest.fixture(scope="module")
def consistency():
    return nlgmetrics.load("ctc_consistency", "E-minilm")


@pytest.fixture(scope="module")
def alone(consistency) -> dict:
    """Each module's own result on the same examples."""
    return {
        "ctc": consistency.compute(predictions=SUMMARIES, sources=DOCUMENTS),
        "overlap": WordOverlap().compute(predictions=SUMMARIES, references=REFERENCES),
    }


def _prefixed(result: dict, prefix: str) -> dict:
    return {f"{prefix}_{key}": value for key, value in result.items()}


def test_one_compute_hands_each_module_its_own_inputs(consistency, alone):
    combined = nlgmetrics.combine([WordOverlap(), consistency])
    result = combined.compute(predictions=SUMMARIES, references=REFERENCES, sources=DOCUMENTS)
    assert result == {**alone["overlap"], **_prefixed(alone["ctc"], "ctc_consistency")}


def test_add_batch_then_compute_gives_the_same_keys(consistency, alone):
    combined = nlgmetrics.combine([WordOverlap(), consistency])
    combined.add_batch(predictions=SUMMARIES[:1], references=REFERENCES[:1], sources=DOCUMENTS[:1])
    combined.add(prediction=SUMMARIES[1], reference=REFERENCES[1], sources=DOCUMENTS[1])
    assert combined.compute() == {**alone["overlap"], **_prefixed(alone["ctc"], "ctc_consistency")}


def test_options_go_to_the_modules_that_take_them(consistency):
    combined = nlgmetrics.combine({"overlap": WordOverlap(), "ctc": consistency})
    result = combined.compute(
        predictions=SUMMARIES, references=REFERENCES, sources=DOCUMENTS, aggregation="sum", lowercase=False
    )
    summed = consistency.compute(predictions=SUMMARIES, sources=DOCUMENTS, aggregation="sum")
    cased = WordOverlap().compute(predictions=SUMMARIES, references=REFERENCES, lowercase=False)
    assert result == {**cased, **_prefixed(summed, "ctc")}
    with pytest.raises(
        ValueError, match="no module takes the option aggregatoin; options: overlap: lowercase"
    ):
        combined.compute(predictions=SUMMARIES, references=REFERENCES, sources=DOCUMENTS, aggregatoin="sum")
    with pytest.raises(ValueError, match="no module reads contexts"):
        combined.compute(predictions=SUMMARIES, references=REFERENCES, sources=DOCUMENTS, contexts=DOCUMENTS)


def test_other_modules_are_prefixed_on_a_collision_or_when_forced(alone):
    both = nlgmetrics.combine({"a": WordOverlap(), "b": WordOverlap()})
    result = both.compute(predictions=SUMMARIES, references=REFERENCES)
    assert result == {**_prefixed(alone["overlap"], "a"), **_prefixed(alone["overlap"], "b")}
    forced = nlgmetrics.combine([WordOverlap()], force_prefix=True)
    assert forced.compute(predictions=SUMMARIES, references=REFERENCES) == _prefixed(
        alone["overlap"], "word_overlap"
    )


def test_two_of_ours_keep_their_names(consistency):
    relevance = nlgmetrics.load("ctc_relevance", "E-minilm")
    combined = nlgmetrics.combine([consistency, relevance])
    result = combined.compute(predictions=SUMMARIES, references=REFERENCES, sources=DOCUMENTS)
    assert (
        result["ctc_relevance_mean_score"]
        == relevance.compute(predictions=SUMMARIES, references=REFERENCES, sources=DOCUMENTS)["mean_score"]
    )
    assert "ctc_consistency_mean_score" in result and "mean_score" not in result


def test_evaluate_combine_with_add_batch_and_its_true_keys(consistency, alone):
    """evaluate.combine passes every keyword to every module: compute(sources=...) fails on the other module;
    add_batch works, and our keys then come out bare (scores, mean_score) next to the other module's."""
    combined = evaluate.combine([WordOverlap(), consistency])
    with pytest.raises(TypeError, match="sources"):
        combined.compute(predictions=SUMMARIES, references=REFERENCES, sources=DOCUMENTS)
    combined = evaluate.combine([WordOverlap(), consistency])
    combined.add_batch(predictions=SUMMARIES, references=REFERENCES, sources=DOCUMENTS)
    assert combined.compute() == {**alone["overlap"], **alone["ctc"]}
