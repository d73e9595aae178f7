"""AlignScore (Zha, Yang, Li & Hu, ACL 2023): factual consistency as the alignment of a claim with its
context.

The context is split into chunks of about 350 words, the claim into sentences; a RoBERTa encoder with three
heads (binary, 3-way NLI, regression) scores every (chunk, sentence) pair; each sentence keeps its best chunk
and the claim's score is the mean over its sentences. Every name here is imported from its file on first
use, so that the registry, reading this family's ``weights.py``, imports nothing else of it.
"""

from __future__ import annotations

from ..core.lazy import lazy_exports

_LAZY = {
    "DEFAULT_MODE": "options",
    "MODES": "options",
    "AlignScoreScorer": "scorer",
    "alignscore": "module",
    "convert_checkpoint": "convert",
}

__getattr__ = lazy_exports(__name__, _LAZY)

__all__ = [*_LAZY]
