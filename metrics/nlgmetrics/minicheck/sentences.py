"""The reference's document splitter: NLTK's English Punkt per line
(:func:`nlgmetrics.core.sentences.sent_tokenize`, no download), the newlines kept as sentences; and its
chunks of those sentences by size.

>>> sentences_with_newlines("Mr. Smith paid $4.50. He left.\\nThen he slept.")
['Mr. Smith paid $4.50.', 'He left.', '\\n', 'Then he slept.']
>>> sentences_with_newlines("")
[]
"""

from __future__ import annotations

from ..core.sentences import sent_tokenize


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
