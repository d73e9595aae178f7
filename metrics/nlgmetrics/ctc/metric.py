"""The five CTC modules' evaluate classes: each is :class:`~nlgmetrics.modules.metric.NLGMetric` with its
declaration from :mod:`.module` (importing this file imports evaluate; the declarations do not).

evaluate derives a module's name from its class name (``CTCConsistency`` → ``ctc_consistency``), so each class
is its module's name in CamelCase, "ctc" as "CTC"."""

from __future__ import annotations

from ..modules.metric import NLGMetric
from .module import SPECS


class CTCConsistency(NLGMetric):
    """CTC consistency: how much of the summary the source supports."""

    spec = SPECS["ctc_consistency"]


class CTCRelevance(NLGMetric):
    """CTC relevance: the summary's consistency times how much of the references it covers."""

    spec = SPECS["ctc_relevance"]


class CTCPreservation(NLGMetric):
    """CTC preservation: how much of the source the output keeps, and nothing more."""

    spec = SPECS["ctc_preservation"]


class CTCEngagingness(NLGMetric):
    """CTC engagingness: how much of a dialog response engages the fact and the history."""

    spec = SPECS["ctc_engagingness"]


class CTCGroundedness(NLGMetric):
    """CTC groundedness: how much of a dialog response uses the knowledge context."""

    spec = SPECS["ctc_groundedness"]


__all__ = ["CTCConsistency", "CTCEngagingness", "CTCGroundedness", "CTCPreservation", "CTCRelevance"]
