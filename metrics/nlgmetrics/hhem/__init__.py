"""HHEM-2.1-Open (Vectara): is a hypothesis supported by its premise, read with transformers' own T5 classes
(no remote code).

Every name here is imported from its file on first use, so that the registry, reading this family's
``weights.py``, imports nothing else of it; :class:`HHEMScorer` loads torch.

>>> from nlgmetrics.hhem import CONFIGS
>>> CONFIGS["2.1-open"].weight
'hhem-2.1-open'
"""

from __future__ import annotations

from ..core.lazy import lazy_exports

_LAZY = {
    "CONFIGS": "options",
    "DEFAULT_CONFIG": "options",
    "PROMPT": "options",
    "PREFIX": "options",
    "THRESHOLD": "options",
    "HHEMScorer": "scorer",
    "HHEMWrapper": "scorer",
    "load_checkpoint": "scorer",
    "hhem": "module",
}


__getattr__ = lazy_exports(__name__, _LAZY)


__all__ = [*_LAZY]
