"""LettuceDetect against the authors' own ``TransformerDetector`` (github.com/KRLabsOrg/LettuceDetect at
``102f7f2``, read from a checkout given by ``NLGMETRICS_LETTUCEDETECT_SRC``), on the tiny models of both
configs: per example the score and each answer token's probability within 1e-5 (float32 rounding of the same
forward, batched here and one at a time there), and the spans equal, their confidences within 1e-5.

Without the variable (CI has no GitHub) the tests skip, saying so.

    mkdir /tmp/lettucedetect_src && git clone https://github.com/KRLabsOrg/LettuceDetect /tmp/ld && git -C
    /tmp/ld archive 102f7f2 | tar -x -C /tmp/lettucedetect_src
    NLGMETRICS_LETTUCEDETECT_SRC=/tmp/lettucedetect_src pytest tests/lettucedetect/test_parity.py
"""

from __future__ import annotations

import functools
import os
import warnings

import pytest

import nlgmetrics
from nlgmetrics.core.registry import WEIGHTS
from nlgmetrics.core.warnings import NLGMetricsWarning
from nlgmetrics.lettucedetect import CONFIGS
from references.lettucedetect import authors_detector, authors_outputs
from tests.helpers import TOLERANCE, assert_parity
from tests.lettucedetect.examples import ANSWERS, CONTEXTS, QUESTIONS

SOURCE = os.environ.get("NLGMETRICS_LETTUCEDETECT_SRC")
pytestmark = pytest.mark.skipif(
    not SOURCE,
    reason="NLGMETRICS_LETTUCEDETECT_SRC is not set: it names a checkout of "
    "github.com/KRLabsOrg/LettuceDetect (102f7f2), which CI cannot fetch (no GitHub)",
)

# max_length: the default (the longest contexts split into groups of passages) and a small one (most contexts
# split, a passage longer than the room a group of its own, cut at the end); both prompts at the small one


@functools.cache
def detector(config: str, max_length: int):
    spec = WEIGHTS[CONFIGS[config]]
    return authors_detector(SOURCE, spec.repo_id, max_length, revision=spec.revision)


@pytest.mark.parametrize(
    ("max_length", "with_questions"),
    [(4096, True), (400, True), (400, False)],
    ids=["qa", "qa400", "summary400"],
)
@pytest.mark.parametrize("config", list(CONFIGS))
def test_scores_and_spans_equal_the_authors_detector(config, max_length, with_questions):
    questions = QUESTIONS if with_questions else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the prompts cut at max_length=400 are said in a warning
        got = nlgmetrics.load("lettucedetect", config, device="cpu").compute(
            predictions=ANSWERS,
            sources=CONTEXTS,
            questions=questions,
            max_length=max_length,
            return_details=True,
        )
    reference = detector(config, max_length)
    theirs = [
        authors_outputs(reference, a, c, q) for a, c, q in zip(ANSWERS, CONTEXTS, questions or [None] * 6)
    ]
    name = f"lettucedetect {config} vs authors' TransformerDetector max_length={max_length}"
    assert_parity(name, got["scores"], [t["score"] for t in theirs])
    for i, (details, spans, t) in enumerate(zip(got["details"], got["spans"], theirs)):
        assert_parity(f"{name} per token", details["probabilities"], t["probabilities"])
        assert [(s["start"], s["end"], s["text"]) for s in spans] == [
            (s["start"], s["end"], s["text"]) for s in t["spans"]
        ], f"{name}: example {i}"
        confidences = [s["confidence"] for s in spans], [s["confidence"] for s in t["spans"]]
        assert all(abs(a - b) <= TOLERANCE for a, b in zip(*confidences)), f"{name}: example {i}"
        assert got["labels"][i] == int(not t["spans"])
    # what parity is about is exercised: spans present and absent, contexts split into groups of passages
    assert any(got["spans"]) and not all(got["spans"])
    assert any(details["prompts"] > 1 for details in got["details"])


def test_an_answer_too_long_for_max_length_is_nan_where_the_reference_fails():
    answer, max_length = ANSWERS[2], 30
    with pytest.raises(Exception, match="Truncation error"):
        detector("base", max_length).predict([CONTEXTS[0][0]], answer, output_format="spans")
    with pytest.warns(NLGMetricsWarning, match="no context fits beside it"):
        got = nlgmetrics.load("lettucedetect", device="cpu").compute(
            predictions=[answer], sources=[CONTEXTS[0]], max_length=max_length
        )
    assert got["scores"][0] != got["scores"][0] and got["labels"] == [None] and got["spans"] == [[]]
