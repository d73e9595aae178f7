"""The reference's chunking of a context: its sentences (``nltk.sent_tokenize``, English punkt, offline:
:func:`nlgmetrics.core.sentences.sent_tokenize`) grouped by words.

>>> chunk_context("One. Two. Three.", words_per_chunk=2)
['One.', 'Two.', 'Three.']
>>> chunk_context("   ")
['']
"""

from __future__ import annotations

from ..core.sentences import sent_tokenize
from .options import CHUNK_WORDS


def chunk_context(context: str, words_per_chunk: int = CHUNK_WORDS) -> list[str]:
    """The reference's chunks: ``n = words // 350 + 1`` chunks wanted, the sentences joined
    ``len(sentences) // n`` (at least 1) at a time with single spaces; a context with no sentence is one empty
    chunk."""
    sentences = sent_tokenize(context) or [""]
    wanted = len(context.strip().split()) // words_per_chunk + 1
    size = max(len(sentences) // wanted, 1)
    return [" ".join(sentences[i : i + size]) for i in range(0, len(sentences), size)]
