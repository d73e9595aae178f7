"""LettuceDetect (Kovács & Recski 2025) as a Hugging Face `evaluate` module.

The metric is implemented in the `nlgmetrics` package (`pip install nlgmetrics`); this
script only exposes its `evaluate.Metric` class, so `evaluate.load("<path-or-org>/lettucedetect")`
and `nlgmetrics.load("lettucedetect")` give the same module. See README.md for the metric card.
"""

from nlgmetrics.lettucedetect.metric import Lettucedetect

__all__ = ["Lettucedetect"]
