"""UniEval (Zhong et al., EMNLP 2022): one Boolean-QA T5 evaluator per task, one question per dimension.

Every dimension is a yes/no question put to a T5 model; the score is ``p(Yes) / (p(Yes) + p(No))``
at the first decoder step. The task table (:mod:`.tasks`) is plain data (no model library is imported).
Every name here is imported from its file on first use, so that the registry, reading this family's
``weights.py``, imports nothing else of it (:class:`UniEvalScorer` loads torch then).

>>> from nlgmetrics.unieval import TASKS
>>> TASKS["fact"].model, TASKS["data2text"].model
('unieval-fact', 'unieval-sum')
"""

from __future__ import annotations

from ..core.lazy import lazy_exports

_LAZY = {
    "DEFAULT_TASK": "tasks",
    "MAX_LENGTH": "tasks",
    "MULTI_REFERENCE": "tasks",
    "PLACEHOLDERS": "tasks",
    "TASKS": "tasks",
    "Dimension": "tasks",
    "Task": "tasks",
    "placeholders": "tasks",
    "UniEvalScorer": "scorer",
    "UniEvalWrapper": "scorer",
    "unieval": "module",
    "sent_tokenize": "sentences",
}


__getattr__ = lazy_exports(__name__, _LAZY)


__all__ = [*_LAZY]
