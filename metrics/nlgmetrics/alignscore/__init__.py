"""AlignScore (Zha, Yang, Li & Hu, ACL 2023): factual consistency as the alignment of a claim with its context.

The context is split into chunks of about 350 words, the claim into sentences; a RoBERTa encoder with three
heads (binary, 3-way NLI, regression) scores every (chunk, sentence) pair; each sentence keeps its best chunk
and the claim's score is the mean over its sentences. The declarations here import no model library; the
scorer loads on first use.
"""

from __future__ import annotations

from ..core.lazy import lazy_exports
from .options import DEFAULT_MODE, MODES

_LAZY = {"AlignScoreScorer": "scorer", "alignscore": "module", "convert_checkpoint": "convert"}

__getattr__ = lazy_exports(__name__, _LAZY)

__all__ = ["DEFAULT_MODE", "MODES", *_LAZY]
