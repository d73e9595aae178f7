"""InfoLM (Colombo, Clavel & Piantanida, AAAI 2022): compare two texts through a masked language model.

Every name here is imported from its file on first use, so that the registry, reading this family's
``weights.py``, imports nothing else of it; the defaults import no model library, :class:`InfoLMScorer`
loads torch.
"""

from __future__ import annotations

from ..core.lazy import lazy_exports

_LAZY = {
    "DEFAULT_MEASURE": "options",
    "DEFAULT_MODEL": "options",
    "DEFAULT_TEMPERATURE": "options",
    "InfoLMScorer": "scorer",
    "InfoLMWrapper": "scorer",
    "IdfWeights": "scorer",
    "UNIFORM": "scorer",
    "infolm": "module",
    "MEASURES": "measures",
    "MeasureInfo": "measures",
    "InformationMeasure": "measures",
    "information_measure": "measures",
    "check_options": "measures",
}


__getattr__ = lazy_exports(__name__, _LAZY)


__all__ = [*_LAZY]
