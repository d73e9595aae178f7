"""The unieval module's evaluate class: :class:`~nlgmetrics.modules.metric.NLGMetric` with its declaration
from :mod:`.module` (importing this file imports evaluate; the declarations do not)."""

from __future__ import annotations

from ..modules.metric import NLGMetric
from .module import SPECS


class Unieval(NLGMetric):
    """UniEval: a T5 evaluator's yes-probability for each dimension's question."""

    spec = SPECS["unieval"]


__all__ = ["Unieval"]
