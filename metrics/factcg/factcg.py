"""FactCG (Lei et al. 2025) as a Hugging Face `evaluate` module.

The metric is implemented in the `nlgmetrics` package (`pip install nlgmetrics`); this
script only exposes its `evaluate.Metric` class, so `evaluate.load("<path-or-org>/factcg")`
and `nlgmetrics.load("factcg")` give the same module. See README.md for the metric card.
"""

from nlgmetrics.factcg.metric import Factcg

__all__ = ["Factcg"]
