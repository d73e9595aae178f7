"""USR (Mehri & Eskenazi, ACL 2020): an unsupervised, reference-free score for dialog responses.

Three RoBERTa-base models fine-tuned on Topical-Chat read a response: USR-MLM (how likely a
masked LM finds the last utterance and the response, token by token), USR-DR-c (a retrieval
model: is this response the right one for the context and fact?) and USR-DR-f (for the fact
alone); a linear regression combines them into one overall-quality score on the 1–5 scale.

The constants below import no model library; :class:`USRScorer` loads on first use.
"""

from __future__ import annotations

from ..core.lazy import lazy_exports
from .options import DEFAULT_CONFIG, SUB_METRICS
from .preprocess import DR_MAX_LENGTH, MLM_WINDOW
from .regression import COEFFICIENTS, INTERCEPT, NORMALISATION, usr_score

_LAZY = {"USRScorer": "scorer", "usr": "module", "SequenceClassifier": "scorer"}


__getattr__ = lazy_exports(__name__, _LAZY)


__all__ = [
    "COEFFICIENTS",
    "DEFAULT_CONFIG",
    "DR_MAX_LENGTH",
    "INTERCEPT",
    "MLM_WINDOW",
    "NORMALISATION",
    "SUB_METRICS",
    "usr_score",
    *_LAZY,
]
