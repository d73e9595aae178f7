"""HHEM-2.1-Open (Vectara 2024) as a Hugging Face `evaluate` module.

The metric is implemented in the `nlgmetrics` package (`pip install nlgmetrics`); this
script only exposes its `evaluate.Metric` class, so `evaluate.load("<path-or-org>/hhem")`
and `nlgmetrics.load("hhem")` give the same module. See README.md for the metric card.
"""

from nlgmetrics.hhem.metric import Hhem

__all__ = ["Hhem"]
