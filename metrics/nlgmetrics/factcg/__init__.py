"""FactCG (Lei et al., NAACL 2025): fact-check a claim against its grounding document.

Every name here is imported from its file on first use, so that the registry, reading this family's
``weights.py``, imports nothing else of it; :class:`FactCGScorer` loads torch.

>>> from nlgmetrics.factcg import CONFIGS
>>> CONFIGS["deberta-v3-large"].weight
'factcg-deberta-v3-large'
"""

from __future__ import annotations

from ..core.lazy import lazy_exports

_LAZY = {
    "CONFIGS": "options",
    "DEFAULT_CONFIG": "options",
    "THRESHOLD": "options",
    "TEMPLATE": "options",
    "Layout": "options",
    "FactCGScorer": "scorer",
    "FactCGWrapper": "scorer",
    "factcg": "module",
    "document_chunks": "chunks",
}


__getattr__ = lazy_exports(__name__, _LAZY)


__all__ = [*_LAZY]
