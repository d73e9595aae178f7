"""InfoLM (Colombo, Clavel & Piantanida, AAAI 2022): compare two texts through a masked language model.

The defaults below import no model library; :class:`InfoLMScorer`, :func:`infolm` and the
measures load on first use.
"""

from __future__ import annotations

from ..core.lazy import lazy_exports
from .options import DEFAULT_MEASURE, DEFAULT_MODEL, DEFAULT_TEMPERATURE

_LAZY = {
    "InfoLMScorer": "scorer",
    "InfoLMModel": "scorer",
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


__all__ = ["DEFAULT_MEASURE", "DEFAULT_MODEL", "DEFAULT_TEMPERATURE", *_LAZY]
