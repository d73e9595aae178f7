"""FactCG against its reference loop (``references/factcg.py``: the authors' ``Inferencer`` step by step) on
the tiny classifier; and, where ``NLGMETRICS_FACTCG_SRC`` names a checkout of github.com/derenlei/FactCG,
against the authors' ``Inferencer`` itself."""

from __future__ import annotations

import functools
import os
import warnings

import pytest
from transformers import AutoModelForSequenceClassification, AutoTokenizer

import nlgmetrics
from nlgmetrics.core.registry import WEIGHTS
from nlgmetrics.core.warnings import NLGMetricsWarning
from nlgmetrics.factcg import CONFIGS, document_chunks
from references import factcg as reference
from tests.helpers import assert_parity

PARAGRAPH = (
    "The city council of Riverton voted on Monday to build a new public library on Elm Street. The project "
    "will cost {n} million dollars and is expected to open in 2027. Mr. Ruiz, the mayor, said the library "
    "would include a children's wing and a free computer lab. Heavy rain caused flooding in the region in "
    "{n} places, and thousands of homes lost power."
)
LONG = "\n".join(PARAGRAPH.format(n=i) for i in range(20))  # about 1,400 NLTK tokens: three chunks of 550
DOCUMENTS = [
    LONG,
    "A group of students gather in the school library to study for their upcoming final exams.",
    "Scientists discovered a new species of frog.\nIt lives in the rainforest of Peru. Dr. Lee named it.\n\n"
    + PARAGRAPH.format(n=7),
    "Ein kurzer Text über Äpfel und Birnen. Die Äpfel sind rot.",
    "The harbour project ran late. "
    + " ".join(["it cost more than planned and the committee met again"] * 8),
    LONG,
]
CLAIMS = [
    "The library will cost 12 million dollars. It opens in 2027.",
    "The students are preparing for an examination.",
    "A frog was found in Peru.",
    "Die Äpfel sind grün.",
    "The harbour project was cheap.",
    "Flooding cut power to thousands of homes.",
]
SETTINGS = [{}, {"chunk_size": 40}, {"chunk_size": 40, "max_model_len": 48}]
CONFIG = "deberta-v3-large"


@functools.cache
def reference_model():
    """The tiny classifier and its tokenizer, loaded as the reference does."""
    spec = WEIGHTS[CONFIGS[CONFIG].weight]
    tokenizer = AutoTokenizer.from_pretrained(spec.repo_id, revision=spec.revision, use_fast=True)
    model = AutoModelForSequenceClassification.from_pretrained(spec.repo_id, revision=spec.revision)
    return model.eval(), tokenizer


@functools.cache
def reference_results(chunk_size: int = 550, max_model_len: int = 2048) -> list[dict]:
    model, tokenizer = reference_model()
    return reference.score(model, tokenizer, DOCUMENTS, CLAIMS, chunk_size, max_model_len)


def ours(batch_size: int = 7, **options) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NLGMetricsWarning)  # max_model_len=48 cuts prompts
        metric = nlgmetrics.load("factcg", device="cpu", batch_size=batch_size)
        return metric.compute(predictions=CLAIMS, sources=DOCUMENTS, return_details=True, **options)


@pytest.mark.parametrize("options", SETTINGS, ids=["defaults", "chunk40", "chunk40-len48"])
def test_scores_chunks_and_probabilities_equal_the_reference_loop(options):
    expected = reference_results(**options)
    got = ours(**options)
    name = f"factcg {'-'.join(f'{k}={v}' for k, v in options.items()) or 'defaults'}"
    assert_parity(name, got["scores"], [r["score"] for r in expected])
    for mine, theirs in zip(got["details"], expected):
        assert mine["chunks"] == theirs["chunks"]
        assert_parity(f"{name} per chunk", mine["probabilities"], theirs["probabilities"])
    assert got["labels"] == [r["label"] for r in expected]


def test_the_probabilities_spread_so_parity_can_fail():
    """The tiny head gives probabilities that differ from chunk to chunk and stay inside (0, 1)."""
    probabilities = [p for r in reference_results(40) for p in r["probabilities"]]
    assert max(probabilities) - min(probabilities) > 0.02, probabilities
    assert all(1e-4 < p < 1 - 1e-4 for p in probabilities)


def test_the_long_document_makes_several_chunks_at_the_defaults():
    assert len(reference_results()[0]["chunks"]) >= 2


@pytest.mark.parametrize(
    "text", [LONG, DOCUMENTS[2], DOCUMENTS[4], "a\n\nb. c.\n", "Dr. J. Smith left at 5 p.m. He slept. \n Ok."]
)
@pytest.mark.parametrize("chunk_size", [3, 40, 550])
def test_chunks_equal_nltk_s_as_the_reference_makes_them(text, chunk_size):
    """NLTK's own ``sent_tokenize`` and ``word_tokenize`` (punkt_tab files), with the reference's quirks: an
    empty first chunk before a sentence over the budget."""
    assert document_chunks(text, chunk_size) == reference.chunking_src(text, chunk_size)


# ---- the authors' own code ------------------------------------------------------------------------------

SOURCE = os.environ.get("NLGMETRICS_FACTCG_SRC")


@pytest.mark.skipif(
    not SOURCE,
    reason="NLGMETRICS_FACTCG_SRC is not set: it names a checkout of github.com/derenlei/FactCG (41f1854), "
    "which CI cannot fetch (no GitHub); references/factcg.py's step-by-step parity runs instead",
)
def test_scores_and_chunks_equal_the_authors_inferencer():
    spec = WEIGHTS[CONFIGS[CONFIG].weight]
    inferencer = reference.authors_inferencer(SOURCE, spec.repo_id, revision=spec.revision)
    theirs, best = inferencer.eval(DOCUMENTS, CLAIMS)
    got = ours()
    assert_parity("factcg vs authors' Inferencer", got["scores"], theirs.tolist())
    for mine, document, index in zip(got["details"], DOCUMENTS, best):
        assert mine["chunks"] == inferencer.chunking_src(document)
        assert mine["probabilities"].index(max(mine["probabilities"])) == index
    assert max(len(d["chunks"]) for d in got["details"]) >= 2
