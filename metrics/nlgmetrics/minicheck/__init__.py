"""MiniCheck (Tang, Laban & Durrett, EMNLP 2024): fact-check a claim against its grounding document.

Every name here is imported from its file on first use, so that the registry, reading this family's
``weights.py``, imports nothing else of it; the configs (:data:`CONFIGS`) are plain data (no model library is
imported), :class:`MiniCheckScorer` loads torch.

>>> from nlgmetrics.minicheck import CONFIGS
>>> CONFIGS["flan-t5-large"].weight
'minicheck-flan-t5-large'
"""

from __future__ import annotations

from ..core.lazy import lazy_exports

_LAZY = {
    "CONFIGS": "options",
    "DEFAULT_CONFIG": "options",
    "THRESHOLD": "options",
    "Layout": "options",
    "MiniCheckScorer": "scorer",
    "MiniCheckWrapper": "scorer",
    "minicheck": "module",
    "sentences_with_newlines": "sentences",
}


__getattr__ = lazy_exports(__name__, _LAZY)


__all__ = [*_LAZY]
