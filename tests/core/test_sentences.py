"""Issue 48 §3: one sentence splitter and one Punkt model for every family (core/sentences.py), loaded once;
a family keeps only its own grouping of the sentences."""

from __future__ import annotations

import ast
from pathlib import Path

from nlgmetrics.alignscore.sentences import chunk_context
from nlgmetrics.core import sentences
from nlgmetrics.minicheck.sentences import sentences_with_newlines
from nlgmetrics.unieval import scorer as unieval_scorer

PACKAGE = Path(sentences.__file__).resolve().parents[1]
TEXT = "Mr. Smith paid $4.50 for it. He left at 5 p.m. Then he slept.\nThe U.S. team won. It rained."


def punkt_users() -> list[str]:
    """Package files that import NLTK's Punkt or its English parameters themselves."""
    found = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (
                node.module == "punkt.data" or any("Punkt" in alias.name for alias in node.names)
            ):
                found.add(path.relative_to(PACKAGE).as_posix())
    return sorted(found)


def test_only_core_loads_punkt():
    assert punkt_users() == ["core/sentences.py"]


def test_the_families_split_with_the_one_tokenizer_built_once():
    sentences._tokenizer.cache_clear()
    lines = TEXT.split("\n")
    expected = sentences.sent_tokenize(TEXT)
    assert chunk_context(TEXT, words_per_chunk=10_000) == [" ".join(expected)]
    assert sentences_with_newlines(TEXT) == [
        *sentences.sent_tokenize(lines[0]),
        "\n",
        *sentences.sent_tokenize(lines[1]),
    ]
    assert unieval_scorer.sent_tokenize is sentences.sent_tokenize
    assert sentences._tokenizer.cache_info().misses == 1  # one Punkt tokenizer for all of them
