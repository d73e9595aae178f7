"""The evaluate modules: one declaration (:class:`~.spec.ModuleSpec`) per module, one shared base.

``SPECS`` is plain data (importing it loads no model library); ``MODULES`` and the module
classes (``CTCConsistency``, ``Infolm``, ...) import evaluate on first use.

>>> sorted(SPECS)
['ctc_consistency', 'ctc_engagingness', 'ctc_groundedness', 'ctc_preservation', 'ctc_relevance', 'infolm', 'unieval', 'usr']
"""

from __future__ import annotations

from ..core.lazy import lazy_exports
from .ctc import SPECS as _CTC_SPECS
from .infolm import SPEC as _INFOLM_SPEC
from .spec import ModuleSpec, Option
from .unieval import SPEC as _UNIEVAL_SPEC
from .usr import SPEC as _USR_SPEC

SPECS: dict[str, ModuleSpec] = {
    **_CTC_SPECS,
    _INFOLM_SPEC.name: _INFOLM_SPEC,
    _UNIEVAL_SPEC.name: _UNIEVAL_SPEC,
    _USR_SPEC.name: _USR_SPEC,
}
"""Module name → its declaration."""

_LAZY = (
    "MODULES",
    "NLGMetric",
    "CTCConsistency",
    "CTCRelevance",
    "CTCPreservation",
    "CTCEngagingness",
    "CTCGroundedness",
    "Infolm",
    "Unieval",
    "Usr",
)


__getattr__ = lazy_exports(__name__, dict.fromkeys(_LAZY, "metric"))


__all__ = ["SPECS", "ModuleSpec", "Option", *_LAZY]
