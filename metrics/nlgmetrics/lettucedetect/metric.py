"""The lettucedetect module's evaluate class: :class:`~nlgmetrics.modules.metric.NLGMetric` with its
declaration from :mod:`.module` (importing this file imports evaluate; the declarations do not)."""

from __future__ import annotations

from ..modules.metric import NLGMetric
from .module import SPECS


class Lettucedetect(NLGMetric):
    """LettuceDetect."""

    spec = SPECS["lettucedetect"]


__all__ = ["Lettucedetect"]
