"""InfoLM (Colombo et al. 2022) as a Hugging Face `evaluate` module.

The metric is implemented in the `nlgmetrics` package (`pip install nlgmetrics`); this
script only exposes its `evaluate.Metric` class, so `evaluate.load("<path-or-org>/infolm")`
and `nlgmetrics.load("infolm")` give the same module. See README.md for the metric card.
"""

from nlgmetrics.infolm.metric import Infolm

__all__ = ["Infolm"]
