"""MiniCheck against its reference loop (``references/minicheck.py``: one document at a time, as the authors'
``Inferencer``), on the tiny models of every config layout; and, where ``NLGMETRICS_MINICHECK_SRC`` names a
checkout of github.com/Liyan06/MiniCheck, against the authors' own code."""

from __future__ import annotations

import functools
import os
import warnings

import pytest
from transformers import AutoModelForSeq2SeqLM, AutoModelForSequenceClassification, AutoTokenizer

import nlgmetrics
from nlgmetrics.core.registry import WEIGHTS
from nlgmetrics.core.warnings import NLGMetricsWarning
from nlgmetrics.minicheck import CONFIGS
from nlgmetrics.minicheck.sentences import sentences_with_newlines
from references import minicheck as reference
from references.unieval import nltk_sent_tokenize
from tests.helpers import assert_parity

PARAGRAPH = (
    "The city council of Riverton voted on Monday to build a new public library on Elm Street. The project "
    "will cost {n} million dollars and is expected to open in 2027. Mr. Ruiz, the mayor, said the library "
    "would include a children's wing and a free computer lab. Heavy rain caused flooding in the region in "
    "{n} places, and thousands of homes lost power."
)
LONG = "\n".join(PARAGRAPH.format(n=i) for i in range(28))  # about 1,300 words: several chunks at any default
DOCUMENTS = [
    LONG,
    "A group of students gather in the school library to study for their upcoming final exams.",
    "Scientists discovered a new species of frog.\nIt lives in the rainforest of Peru. Dr. Lee named it.\n\n"
    + PARAGRAPH.format(n=7),
    "Ein kurzer Text über Äpfel und Birnen. Die Äpfel sind rot.",
    " ".join(["the harbour project cost more than planned and the committee met again"] * 30),  # one sentence
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
SETTINGS = [{}, {"chunk_size": 30}, {"chunk_size": 30, "max_model_len": 48}]


@functools.cache
def reference_model(config: str):
    """The config's tiny model and tokenizer, loaded as the reference does."""
    spec = WEIGHTS[CONFIGS[config].weight]
    auto = AutoModelForSeq2SeqLM if CONFIGS[config].seq2seq else AutoModelForSequenceClassification
    tokenizer = AutoTokenizer.from_pretrained(spec.repo_id, revision=spec.revision)
    return auto.from_pretrained(spec.repo_id, revision=spec.revision).eval(), tokenizer


@functools.cache
def reference_results(
    config: str, chunk_size: int | None = None, max_model_len: int | None = None
) -> list[dict]:
    model, tokenizer = reference_model(config)
    layout = CONFIGS[config]
    return reference.score(
        model,
        tokenizer,
        layout.seq2seq,
        DOCUMENTS,
        CLAIMS,
        chunk_size or layout.chunk_size,
        max_model_len or layout.max_model_len,
    )


def ours(config: str, batch_size: int = 7, **options) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NLGMetricsWarning)  # the one-sentence document is cut
        metric = nlgmetrics.load("minicheck", config, device="cpu", batch_size=batch_size)
        return metric.compute(predictions=CLAIMS, sources=DOCUMENTS, return_details=True, **options)


@pytest.mark.parametrize("options", SETTINGS, ids=["defaults", "chunk30", "chunk30-len48"])
@pytest.mark.parametrize("config", list(CONFIGS))
def test_scores_chunks_and_probabilities_equal_the_reference_loop(config, options):
    expected = reference_results(config, **options)
    got = ours(config, **options)
    name = f"minicheck {config} {'-'.join(f'{k}={v}' for k, v in options.items()) or 'defaults'}"
    assert_parity(name, got["scores"], [r["score"] for r in expected])
    for mine, theirs in zip(got["details"], expected):
        assert mine["chunks"] == theirs["chunks"]
        assert_parity(f"{name} per chunk", mine["probabilities"], theirs["probabilities"])
    assert got["labels"] == [r["label"] for r in expected]
    assert max(len(r["chunks"]) for r in expected) >= 2  # the max over chunks is exercised


@pytest.mark.parametrize("config", list(CONFIGS))
def test_the_probabilities_spread_so_parity_can_fail(config):
    """The tiny heads give probabilities that differ from chunk to chunk and stay inside (0, 1)."""
    probabilities = [p for r in reference_results(config, 30) for p in r["probabilities"]]
    assert max(probabilities) - min(probabilities) > 0.02, probabilities
    assert all(1e-4 < p < 1 - 1e-4 for p in probabilities)


def test_every_default_run_has_several_chunks_for_the_long_document():
    for config in CONFIGS:
        assert len(reference_results(config)[0]["chunks"]) >= 2, config


@pytest.mark.parametrize(
    "text", [LONG, DOCUMENTS[2], "a\n\nb. c.\n", "  \n", "Dr. J. Smith left at 5 p.m. He slept."]
)
def test_sentence_splitting_equals_nltk_with_newlines(text):
    assert sentences_with_newlines(text) == reference.sentences_with_newlines(text)
    assert reference.sentences_with_newlines(text.replace("\n", " ")) == nltk_sent_tokenize(
        text.replace("\n", " ")
    )


# ---- the authors' own code ------------------------------------------------------------------------------

SOURCE = os.environ.get("NLGMETRICS_MINICHECK_SRC")


@functools.cache
def authors_inferencer(config: str):
    """The authors' ``Inferencer`` of ``config`` on the tiny model
    (``references.minicheck.authors_inferencer``: their repo read at the registered revision, NLTK's splitter
    offline)."""
    spec = WEIGHTS[CONFIGS[config].weight]
    return reference.authors_inferencer(SOURCE, config, spec.repo_id, revision=spec.revision)


@pytest.mark.skipif(
    not SOURCE,
    reason="NLGMETRICS_MINICHECK_SRC is not set: it names a checkout of github.com/Liyan06/MiniCheck "
    "(b58b9fa), which CI cannot fetch (no GitHub)",
)
@pytest.mark.parametrize("options", SETTINGS[:2], ids=["defaults", "chunk30"])
@pytest.mark.parametrize("config", list(CONFIGS))
def test_scores_equal_the_authors_inferencer(config, options):
    inferencer = authors_inferencer(config)
    inferencer.chunk_size = options.get("chunk_size") or CONFIGS[config].chunk_size
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outputs = inferencer.inference_example_batch(DOCUMENTS, CLAIMS)
    got = ours(config, **options)
    name = f"minicheck {config} vs authors' Inferencer {options or 'defaults'}"
    assert_parity(name, got["scores"], outputs["max_support_probs"])
    for mine, theirs in zip(got["details"], outputs["support_prob_per_chunk"]):
        assert_parity(f"{name} per chunk", mine["probabilities"], [float(p) for p in theirs])
