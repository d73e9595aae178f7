"""MiniCheck (Tang, Laban & Durrett, EMNLP 2024): fact-check a claim against its grounding document.

The configs (:data:`CONFIGS`) are plain data (no model library is imported); :class:`MiniCheckScorer` and
:func:`minicheck` load on first use.

>>> CONFIGS["flan-t5-large"].weight
'minicheck-flan-t5-large'
"""

from __future__ import annotations

from ..core.lazy import lazy_exports
from .options import CONFIGS, DEFAULT_CONFIG, THRESHOLD, Layout

_LAZY = {
    "MiniCheckScorer": "scorer",
    "MiniCheckModel": "scorer",
    "minicheck": "module",
    "sentences_with_newlines": "sentences",
}


__getattr__ = lazy_exports(__name__, _LAZY)


__all__ = ["CONFIGS", "DEFAULT_CONFIG", "THRESHOLD", "Layout", *_LAZY]
