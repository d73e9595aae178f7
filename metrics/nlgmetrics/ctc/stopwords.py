"""The English stopword list CTC removes before summing (engagingness, groundedness).

The list ships inside the package (``core/data/english_stopwords.txt``, the package data folder), so
stopword removal needs no download and no ``NLTK_DATA``. Provenance: NLTK's ``stopwords`` corpus, file
``english`` (nltk_data, ``packages/corpora/stopwords.zip``; its README credits the Snowball
lists, with the English list augmented in nltk/nltk_data#22): the 179-word version that
CTC's released code read through ``nltk.corpus.stopwords.words("english")``, verified by
its sha256 below. Later NLTK releases changed that list; using the shipped copy keeps scores
equal to the paper's code whatever NLTK is installed.

>>> len(english_stopwords()), is_stopword(" The"), is_stopword("cat")
(179, True, False)
"""

from __future__ import annotations

import functools
import hashlib
from importlib.resources import files

PAPER_STOPWORDS_SHA256 = "2faef318155a30d7e91c39de3f51fde2eb44a3fe24e0adb0c504fd35c7add888"
"""sha256 of the 179-word list (joined by newlines) that CTC's released code used."""


@functools.cache
def english_stopwords() -> frozenset[str]:
    """The English stopword set, read once per process from the package data."""
    text = (files("nlgmetrics.core") / "data" / "english_stopwords.txt").read_text(encoding="utf-8")
    words = text.split("\n")
    words = words[:-1] if words and words[-1] == "" else words
    digest = hashlib.sha256("\n".join(words).encode()).hexdigest()
    if digest != PAPER_STOPWORDS_SHA256:
        raise RuntimeError(f"the packaged stopword list is damaged (sha256 {digest}); reinstall nlgmetrics")
    return frozenset(words)


def is_stopword(token: str) -> bool:
    """Whether a token is a stopword, ignoring case and surrounding spaces (RoBERTa's leading space)."""
    return token.strip().lower() in english_stopwords()
