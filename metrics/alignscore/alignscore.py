"""AlignScore (Zha et al. 2023) as a Hugging Face `evaluate` module.

The metric is implemented in the `nlgmetrics` package (`pip install nlgmetrics`); this
script only exposes its `evaluate.Metric` class, so `evaluate.load("<path-or-org>/alignscore")`
and `nlgmetrics.load("alignscore")` give the same module. See README.md for the metric card.
"""

from nlgmetrics.alignscore.metric import Alignscore

__all__ = ["Alignscore"]
