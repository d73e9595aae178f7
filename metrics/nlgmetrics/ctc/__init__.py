"""CTC (Deng et al. 2021): five aspects over one information-alignment core with E, D and R aligners.

>>> from nlgmetrics.ctc import ASPECTS, variants_for
>>> ASPECTS["consistency"].default_variant, variants_for("groundedness")[:3]
('E-bert', ['E-bert', 'E-roberta', 'E-roberta-mnli'])

The table of aspects and variants imports no model library; :class:`CTCScorer` and
:func:`ctc_score` load on first use.
"""

from __future__ import annotations

from ..core.lazy import lazy_exports
from .aspects import ASPECTS, ENGAGINGNESS_JOIN, Aspect, harmonic_mean, variants_for
from .variants import CTC_VARIANTS, AlignerVariant

_LAZY = {
    "CTCScorer": "scorer",
    "resolve_aligner": "scorer",
    "aspect_spec": "module",  # the declarations: not needed by `nlgmetrics --help` (measured)
    "ctc_score": "module",
}


__getattr__ = lazy_exports(__name__, _LAZY)


__all__ = [
    "ASPECTS",
    "CTC_VARIANTS",
    "ENGAGINGNESS_JOIN",
    "AlignerVariant",
    "Aspect",
    "aspect_spec",
    "CTCScorer",
    "ctc_score",
    "harmonic_mean",
    "resolve_aligner",
    "variants_for",
]
