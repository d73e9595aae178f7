"""CTC (Deng et al. 2021): five aspects over one information-alignment core with E, D and R aligners.

>>> from nlgmetrics.ctc import ASPECTS, variants_for
>>> ASPECTS["consistency"].default_variant, variants_for("groundedness")[:3]
('E-bert', ['E-bert', 'E-roberta', 'E-roberta-mnli'])

Every name here is imported from its file on first use, so that the registry, reading this family's
``weights.py``, imports nothing else of it; the table of aspects and variants imports no model library,
:class:`CTCScorer` loads torch.
"""

from __future__ import annotations

from ..core.lazy import lazy_exports

_LAZY = {
    "ASPECTS": "aspects",
    "ENGAGINGNESS_JOIN": "aspects",
    "Aspect": "aspects",
    "harmonic_mean": "aspects",
    "variants_for": "aspects",
    "CTC_VARIANTS": "variants",
    "AlignerVariant": "variants",
    "CTCScorer": "scorer",
    "resolve_aligner": "scorer",
    "aspect_spec": "module",  # the declarations: not needed by `nlgmetrics --help` (measured)
    "ctc_score": "module",
}


__getattr__ = lazy_exports(__name__, _LAZY)


__all__ = [*_LAZY]
