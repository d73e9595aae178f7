"""UniEval (Zhong et al., EMNLP 2022): one Boolean-QA T5 evaluator per task, one question per dimension.

Every dimension is a yes/no question put to a T5 model; the score is ``p(Yes) / (p(Yes) + p(No))``
at the first decoder step. The task table (:mod:`.tasks`) is plain data (no model library is imported);
:class:`UniEvalScorer` loads on first use.

>>> TASKS["fact"].model, TASKS["data2text"].model
('unieval-fact', 'unieval-sum')
"""

from __future__ import annotations

from ..core.lazy import lazy_exports
from .tasks import (
    DEFAULT_TASK,
    MAX_LENGTH,
    MULTI_REFERENCE,
    PLACEHOLDERS,
    TASKS,
    Dimension,
    Task,
    placeholders,
)

_LAZY = {
    "UniEvalScorer": "scorer",
    "UniEvalModel": "scorer",
    "unieval": "module",
    "sent_tokenize": "sentences",
}


__getattr__ = lazy_exports(__name__, _LAZY)


__all__ = [
    "DEFAULT_TASK",
    "MAX_LENGTH",
    "MULTI_REFERENCE",
    "PLACEHOLDERS",
    "TASKS",
    "Dimension",
    "Task",
    "placeholders",
    *_LAZY,
]
