"""HHEM against the published model's ``predict()`` transcribed step by step (``references/hhem.py``), on the
tiny checkpoint in the published layout: premises short and far over flan-t5's 512 tokens, read whole."""

from __future__ import annotations

import functools

import nlgmetrics
from references import hhem as reference
from tests.helpers import assert_parity

PARAGRAPH = (
    "The city council of Riverton voted on Monday to build a new public library on Elm Street. The project "
    "will cost {n} million dollars and is expected to open in 2027."
)
LONG = " ".join(PARAGRAPH.format(n=i) for i in range(40))  # about 1,700 tokens of the tiny tokenizer
PREMISES = [
    "The capital of France is Paris.",
    "The capital of France is Paris.",
    LONG,
    "A group of students gather in the school library to study for their upcoming final exams.",
    "Ein kurzer Text über Äpfel und Birnen. Die Äpfel sind rot.",
    LONG,
    "Scientists discovered a new species of frog.\nIt lives in the rainforest of Peru.",
]
HYPOTHESES = [
    "The capital of France is Berlin.",
    "The capital of France is Paris.",
    "The library will cost 12 million dollars.",
    "The students are preparing for an examination.",
    "Die Äpfel sind grün.",
    "The library opens in 2030.",
    "A frog was found in Peru.",
]


@functools.cache
def reference_scores(checkpoint: str, foundation: str) -> tuple[float, ...]:
    model, tokenizer, prompt = reference.load(checkpoint, foundation)
    return tuple(reference.predict(model, tokenizer, prompt, list(zip(PREMISES, HYPOTHESES))))


def expected(tiny_snapshots) -> tuple[float, ...]:
    return reference_scores(str(tiny_snapshots["hhem-2.1-open"]), str(tiny_snapshots["flan-t5-base"]))


def test_scores_equal_the_published_predict_step_by_step(tiny_snapshots):
    for batch_size in (1, 3, 16):
        got = nlgmetrics.load("hhem", device="cpu", batch_size=batch_size).compute(
            predictions=HYPOTHESES, sources=PREMISES
        )
        assert_parity(f"hhem 2.1-open batch_size={batch_size}", got["scores"], expected(tiny_snapshots))
        assert got["labels"] == [int(s > 0.5) for s in expected(tiny_snapshots)]


def test_the_scores_spread_so_parity_can_fail(tiny_snapshots):
    scores = expected(tiny_snapshots)
    assert max(scores) - min(scores) > 0.2, scores
    assert all(1e-4 < s < 1 - 1e-4 for s in scores)


def test_the_long_premises_are_read_whole_past_flan_t5_s_512_tokens(tiny_snapshots):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny_snapshots["flan-t5-base"])
    assert len(tokenizer(LONG)["input_ids"]) > 1024
    got = nlgmetrics.load("hhem", device="cpu").compute(predictions=HYPOTHESES[2:3], sources=[LONG + " Fin."])
    model, tok, prompt = reference.load(tiny_snapshots["hhem-2.1-open"], tiny_snapshots["flan-t5-base"])
    cut = reference.predict(model, tok, prompt, [(LONG, HYPOTHESES[2])])
    assert got["scores"][0] != cut[0]  # the premise's last words move the score: nothing is cut
