"""AlignScore parity: every mode and both configs' layouts against an independent step-by-step computation of
the authors' method (references/alignscore.py: its own checkpoint reading, sentence split, chunking, one pair
at a time padded to 512, and aggregation), per example within 1e-5."""

from __future__ import annotations

import pytest

import nlgmetrics
from nlgmetrics.alignscore.sentences import chunk_context
from references.alignscore import MODES, ReferenceAlignScore
from tests.alignscore.conftest import CLAIMS, CONTEXTS
from tests.helpers import assert_parity


@pytest.fixture(scope="module", params=["base", "large"])
def pair(request, checkpoint_files):
    checkpoint, base = checkpoint_files[request.param]
    module = nlgmetrics.load("alignscore", request.param, device="cpu", batch_size=5)
    return request.param, module, ReferenceAlignScore(checkpoint, base)


def test_the_examples_make_several_chunks_and_sentences():
    chunks = [len(chunk_context(c)) for c in CONTEXTS]
    assert max(chunks) >= 4 and sum(n >= 2 for n in chunks) >= 3, chunks


@pytest.mark.filterwarnings("ignore::nlgmetrics.core.warnings.NLGMetricsWarning")
@pytest.mark.parametrize("mode", MODES)
def test_every_mode_matches_the_reference(pair, mode):
    config, module, reference = pair
    ours = module.compute(predictions=CLAIMS, sources=CONTEXTS, mode=mode)["scores"]
    theirs = reference.score(CONTEXTS, CLAIMS, mode)
    assert_parity(f"alignscore {config} {mode}", ours, theirs)
    assert max(ours) - min(ours) > 0.1, f"the tiny heads should spread the scores: {ours}"


@pytest.mark.filterwarnings("ignore::nlgmetrics.core.warnings.NLGMetricsWarning")
def test_a_wrong_chunk_or_sentence_would_show(pair):
    """The chunks of one context score differently, and so do the sentences of one claim: another chunk than
    the best, or another sentence aggregation than the mean, moves the score by far more than 1e-5."""
    _, module, _ = pair
    details = module.compute(predictions=CLAIMS, sources=CONTEXTS, return_details=True)["details"]
    several = [d["matrix"] for d in details if len(d["chunks"]) >= 2 and len(d["claim_sentences"]) >= 2]
    assert several
    for matrix in several:  # chunks (rows) score apart, and so do the sentences (columns) of a chunk
        assert max(abs(a - b) for a, b in zip(matrix[0], matrix[-1])) > 1e-2, matrix
        assert max(matrix[0]) - min(matrix[0]) > 1e-3, matrix
