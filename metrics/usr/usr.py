"""USR (Mehri & Eskenazi 2020) as a Hugging Face `evaluate` module.

The metric is implemented in the `nlgmetrics` package (`pip install nlgmetrics`); this
script only exposes its `evaluate.Metric` class, so `evaluate.load("<path-or-org>/usr")`
and `nlgmetrics.load("usr")` give the same module. See README.md for the metric card.
"""

from nlgmetrics.usr.metric import Usr

__all__ = ["Usr"]
