"""MiniCheck (Tang et al. 2024) as a Hugging Face `evaluate` module.

The metric is implemented in the `nlgmetrics` package (`pip install nlgmetrics`); this
script only exposes its `evaluate.Metric` class, so `evaluate.load("<path-or-org>/minicheck")`
and `nlgmetrics.load("minicheck")` give the same module. See README.md for the metric card.
"""

from nlgmetrics.minicheck.metric import Minicheck

__all__ = ["Minicheck"]
