"""LettuceDetect (Kovács & Recski, KRLabs 2025): the spans of an answer its context does not support.

Every name here is imported from its file on first use, so that the registry, reading this family's
``weights.py``, imports nothing else of it; the configs (:data:`CONFIGS`) are plain data, and
:class:`LettuceDetectScorer` loads torch.

>>> from nlgmetrics.lettucedetect import CONFIGS
>>> CONFIGS["base"]
'lettucedetect-base'
"""

from __future__ import annotations

from ..core.lazy import lazy_exports

_LAZY = {
    "CONFIGS": "options",
    "DEFAULT_CONFIG": "options",
    "LettuceDetectScorer": "scorer",
    "lettucedetect": "module",
}


__getattr__ = lazy_exports(__name__, _LAZY)


__all__ = [*_LAZY]
