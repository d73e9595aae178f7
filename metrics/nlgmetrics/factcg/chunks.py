"""The reference's document chunks (``Inferencer.chunking_src``): NLTK's sentences, joined with newlines
while their NLTK word tokens add up to at most ``chunk_size``.

The reference's quirks are kept, so that its chunks are exactly these: a first sentence longer than
``chunk_size`` makes an empty chunk before it (the empty chunk is scored, as the reference scores it), and
only the last chunk has ``" \\n "`` turned into ``"\\n"`` and its spaces stripped.

>>> document_chunks("The cat sat. The dog ran. It rained.", 8)
['The cat sat.\\nThe dog ran.', 'It rained.']
>>> document_chunks("A b c d e f g h i.", 3)
['', 'A b c d e f g h i.']
"""

from __future__ import annotations

import functools

from ..core.sentences import sent_tokenize


@functools.cache
def _words():
    from nltk.tokenize import NLTKWordTokenizer  # NLTK: loaded when used

    return NLTKWordTokenizer()


def count_words(text: str) -> int:
    """``len(nltk.word_tokenize(text))``: the words of each of its sentences, by NLTK's Treebank rules."""
    words = _words()
    return sum(len(words.tokenize(sentence)) for sentence in sent_tokenize(text))


def document_chunks(document: str, chunk_size: int) -> list[str]:
    """The reference's chunks of ``document`` (see the module's docstring)."""
    chunks: list[str] = []
    chunk, size = "", 0
    for sentence in sent_tokenize(document):
        count = count_words(sentence)
        if size + count <= chunk_size:
            chunk = f"{chunk}\n{sentence}".strip("\n")
            size += count
        else:
            chunks.append(chunk.strip("\n"))
            chunk, size = sentence, count
    if size > 0:
        chunks.append(chunk.replace(" \n ", "\n").strip("\n").strip())
    return chunks
