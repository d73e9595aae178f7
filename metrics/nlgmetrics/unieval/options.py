"""UniEval's options, declared once: the module, the command line, the Space and :class:`UniEvalScorer` read
them.

>>> [option.name for option in COMPUTE_OPTIONS]
['dimensions', 'overall', 'questions', 'multi_reference']
"""

from __future__ import annotations

from ..core.options import MODEL_REVISION, Option, name_option
from ..core.values import check_bool, check_choice
from .tasks import MULTI_REFERENCE

LOAD_OPTIONS = (
    name_option(
        "model",
        "the task's registered evaluator by default; a registered seq2seq name, a Hub repo id or a folder of "
        "a T5 Boolean-QA checkpoint",
    ),
    MODEL_REVISION,
)
COMPUTE_OPTIONS = (  # dimensions and questions are checked together, against the task, by UniEvalScorer
    Option(
        "dimensions",
        "the dimensions to compute, a list (default: all of the task's, in UniEval's order)",
        text_type=list,
    ),
    Option(
        "overall",
        "also return overall, the mean of the computed dimensions (not for fact)",
        True,
        check_bool,
        text_type=bool,
        changes_scores=False,
    ),
    Option(
        "questions",
        "custom dimensions: {name: question} with {prediction}, {source}, {reference}, {context}, e.g. "
        "'question: Is this a clear summary? </s> summary: {prediction}'",
        text_type=dict,
    ),
    Option(
        "multi_reference",
        "with several references per example: 'first' (default, as the paper), 'mean' or 'max' over them",
        "first",
        check_choice(MULTI_REFERENCE),
        text_type=str,
    ),
)
