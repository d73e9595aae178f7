"""UniEval (Zhong et al. 2022) as a Hugging Face `evaluate` module; the config is the task.

The metric is implemented in the `nlgmetrics` package (`pip install nlgmetrics`); this
script only exposes its `evaluate.Metric` class, so `evaluate.load("<path-or-org>/unieval", "dialogue")`
and `nlgmetrics.load("unieval", "dialogue")` give the same module. See README.md for the metric card.
"""

from nlgmetrics.unieval.metric import Unieval

__all__ = ["Unieval"]
