"""Issue 17 §3, §4 and §11 for UniEval: reserved result names, blank texts, broken question braces."""

from __future__ import annotations

import math
import warnings

import pytest

import nlgmetrics
from nlgmetrics.core.warnings import NLGMetricsWarning
from nlgmetrics.unieval import TASKS
from tests.unieval.test_unieval import inputs_of

CLEAR = "question: Is this a clear summary? </s> summary: {prediction}"


@pytest.fixture(scope="module")
def summarization():
    return nlgmetrics.load("unieval", device="cpu")


def scored(metric, **inputs) -> tuple[dict, list[str]]:
    """compute() and the texts of the nlgmetrics warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = metric.compute(**inputs)
    return result, [str(w.message) for w in caught if issubclass(w.category, NLGMetricsWarning)]


@pytest.mark.parametrize(
    "name",
    [
        "mean_coherence",
        "mean_score",
        "mean_overall",
        "mean_clear",
        "scores",
        "score",
        "overall",
        "signature",
        "higher_is_better",
        "details",
    ],
)
def test_a_question_named_like_a_result_key_is_refused(summarization, name):
    with pytest.raises(ValueError, match=f"questions\\[{name!r}\\].*reserved") as err:
        summarization.compute(**inputs_of("summarization", 1), questions={name: CLEAR})
    assert "\n" not in str(err.value)


def test_a_question_with_a_broken_brace_names_the_question(summarization):
    for question in ("{prediction} }", "{prediction} {", "{prediction} {source"):
        with pytest.raises(ValueError, match=r"questions\['clarity'\].*brace") as err:
            summarization.compute(**inputs_of("summarization", 1), questions={"clarity": question})
        assert "\n" not in str(err.value)
    # a literal brace written twice is fine
    result = summarization.compute(
        predictions=["A text."], dimensions=[], questions={"clarity": "{{note}} {prediction}"}
    )
    assert 0 < result["clarity"][0] < 1


BLANKS = ["", "  \n", "\u200b\ufeff"]
CLOSE = {"rel": 1e-5, "abs": 1e-6}
"""float32 answers of the same question in differently composed (padded) batches: the parity tolerance."""


@pytest.mark.parametrize("task", list(TASKS))
def test_every_blank_input_field_makes_the_dimensions_that_read_it_nan_with_one_warning(task):
    metric = nlgmetrics.load("unieval", task, device="cpu")
    data = inputs_of(task, 3)
    fine, fine_warnings = scored(metric, **data)
    assert not fine_warnings
    for field in data:
        for blank in BLANKS:
            odd = {**data, field: [data[field][0], blank, data[field][2]]}
            result, messages = scored(metric, **odd)
            assert len(messages) == 1, (field, messages)
            assert f"{field}[1]" in messages[0] and "empty" in messages[0]
            assert ("overall" in messages[0]) == TASKS[task].overall, messages[0]
            for name, dim in TASKS[task].dimensions.items():
                if field in dim.fields:
                    assert math.isnan(result[name][1]), (field, name)
                else:
                    assert result[name][1] == pytest.approx(fine[name][1], **CLOSE), (field, name)
                for i in (0, 2):  # the other examples are untouched
                    assert result[name][i] == pytest.approx(fine[name][i], **CLOSE)
                kept = [v for v in result[name] if not math.isnan(v)]
                assert result[f"mean_{name}"] == pytest.approx(sum(kept) / len(kept))
            assert math.isnan(result["scores"][1])
            assert not math.isnan(result["mean_score"])


def test_a_blank_data2text_prediction_is_nan_not_a_high_score():
    metric = nlgmetrics.load("unieval", "data2text", device="cpu")
    result, messages = scored(metric, predictions=[""], references=["The cat sat on the mat."])
    assert math.isnan(result["scores"][0]) and math.isnan(result["mean_score"])
    assert all(math.isnan(result[d][0]) for d in TASKS["data2text"].dimensions)
    assert len(messages) == 1 and "predictions[0]" in messages[0]


def test_a_blank_reference_among_several_is_skipped_by_mean_and_max(summarization):
    data = inputs_of("summarization", 2)
    refs = [[data["references"][0], " "], [data["references"][1]]]
    alone = summarization.compute(
        predictions=data["predictions"], references=[r[0] for r in refs], dimensions=["relevance"]
    )["relevance"]
    for how in ("mean", "max"):
        result, messages = scored(
            summarization,
            predictions=data["predictions"],
            references=refs,
            dimensions=["relevance"],
            multi_reference=how,
        )
        assert result["relevance"] == pytest.approx(alone, **CLOSE)
        assert len(messages) == 1 and "references[0][1]" in messages[0]
    # the first reference is the one read by default: a blank second one is not read at all
    result, messages = scored(
        summarization, predictions=data["predictions"], references=refs, dimensions=["relevance"]
    )
    assert result["relevance"] == pytest.approx(alone, **CLOSE) and not messages
    result, messages = scored(
        summarization,
        predictions=data["predictions"],
        references=[["", data["references"][0]], [data["references"][1]]],
        dimensions=["relevance"],
    )
    assert math.isnan(result["relevance"][0]) and "references[0][0]" in messages[0]


def test_a_blank_field_no_computed_dimension_reads_is_not_reported(summarization):
    data = inputs_of("summarization", 2)
    result, messages = scored(
        summarization, predictions=data["predictions"], sources=["", ""], dimensions=["fluency"]
    )
    assert not messages and all(math.isfinite(v) for v in result["fluency"])
