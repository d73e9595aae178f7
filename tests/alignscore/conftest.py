"""What the AlignScore tests share: the tiny checkpoints' files in the offline cache, and examples whose
contexts make two or more chunks and whose claims have several sentences."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from nlgmetrics.alignscore.weights import BASES, CHECKPOINT_FILES, CONFIG_WEIGHTS
from nlgmetrics.core.registry import WEIGHTS
from nlgmetrics.testing import CORPUS

_WORDS = sorted({w.strip(".,;:!?'") for s in CORPUS for w in s.split()} - {""})


def _document(seed: int, sentences: int) -> str:
    """``sentences`` different sentences (each 8-20 words from the tiny corpus' vocabulary), so that chunks
    differ."""
    rng = random.Random(seed)
    return " ".join(
        " ".join(rng.choice(_WORDS) for _ in range(rng.randint(8, 20))).capitalize() + "."
        for _ in range(sentences)
    )


CONTEXTS = [
    _document(1, 60),  # ~840 words: 3 chunks
    _document(2, 30),  # ~420 words: 2 chunks
    CORPUS[1] + " " + CORPUS[2],
    _document(3, 90),  # ~1,260 words: 4 chunks
    CORPUS[3],
]
CLAIMS = [
    "The council approved a new bridge. It opens next spring. Stocks rose in Tokyo.",
    "A cat sat on the mat. It stayed there all afternoon.",
    "The cat was sitting. Officials said the bridge would open.",
    "Scientists found a frog in Peru. The frog was green. It sang at night. Rain fell.",
    "The company reported a profit of 4.2 billion dollars.",
]


@pytest.fixture(scope="session")
def checkpoint_files(tiny_snapshots) -> dict[str, tuple[Path, Path]]:
    """Config → (its tiny .ckpt in the offline cache, the tiny base folder of its config and tokenizer)."""
    return {
        config: (
            tiny_snapshots[name] / CHECKPOINT_FILES[name],
            tiny_snapshots[BASES[WEIGHTS[name].base]],
        )
        for config, name in CONFIG_WEIGHTS.items()
    }
