"""The alignscore module's evaluate class: :class:`~nlgmetrics.modules.metric.NLGMetric` with its declaration from
:mod:`.module` (importing this file imports evaluate; the declarations do not)."""

from __future__ import annotations

from ..modules.metric import NLGMetric
from .module import SPECS


class Alignscore(NLGMetric):
    """AlignScore: how far each claim is supported by its context (chunks × claim sentences)."""

    spec = SPECS["alignscore"]


__all__ = ["Alignscore"]
