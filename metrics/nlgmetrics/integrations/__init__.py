"""Where users call the metrics from: each integration one file, every one naming a metric the same way
(:func:`~nlgmetrics.integrations.naming.metric_named`: a name, ``(name, config)``, ``(name, config,
options)`` or a loaded module of ours).

- ``for_trainer.py``: :func:`nlgmetrics.for_trainer`, a Trainer's ``compute_metrics`` (and a
  ``TrainerCallback``); ``evalsets.py``: which set an evaluation scores;
- ``combine.py``: :func:`nlgmetrics.combine`, one ``compute()`` beside other evaluate modules;
- ``reward.py``: :func:`nlgmetrics.reward`, a metric as a TRL reward function; ``rewards.py``: a ready reward
  per module of the family table, at TRL's dotted paths ``nlgmetrics.rewards.<module>``;
- ``naming.py``: the one way to name a metric.

The next integration is one more file here. Importing this package loads no model library; the users' names
are the package top's (``nlgmetrics.for_trainer``, ...), not this package's.
"""
