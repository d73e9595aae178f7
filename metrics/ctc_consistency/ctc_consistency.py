"""CTC consistency (Deng et al. 2021) as a Hugging Face `evaluate` module.

The metric is implemented in the `nlgmetrics` package (`pip install nlgmetrics`); this
script only exposes its `evaluate.Metric` class, so `evaluate.load("<path-or-org>/ctc_consistency")`
and `nlgmetrics.load("ctc_consistency")` give the same module. See README.md for the metric card.
"""

from nlgmetrics.ctc.metric import CTCConsistency

__all__ = ["CTCConsistency"]
