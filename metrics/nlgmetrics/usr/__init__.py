"""USR (Mehri & Eskenazi, ACL 2020): an unsupervised, reference-free score for dialog responses.

Three RoBERTa-base models fine-tuned on Topical-Chat read a response: USR-MLM (how likely a
masked LM finds the last utterance and the response, token by token), USR-DR-c (a retrieval
model: is this response the right one for the context and fact?) and USR-DR-f (for the fact
alone); a linear regression combines them into one overall-quality score on the 1–5 scale.

Every name here is imported from its file on first use, so that the registry, reading this family's
``weights.py``, imports nothing else of it; the constants import no model library, :class:`USRScorer`
loads torch.
"""

from __future__ import annotations

from ..core.lazy import lazy_exports

_LAZY = {
    "DEFAULT_CONFIG": "options",
    "SUB_METRICS": "options",
    "DR_MAX_LENGTH": "preprocess",
    "MLM_WINDOW": "preprocess",
    "COEFFICIENTS": "regression",
    "INTERCEPT": "regression",
    "NORMALISATION": "regression",
    "usr_score": "regression",
    "USRScorer": "scorer",
    "usr": "module",
    "SequenceClassifierWrapper": "scorer",
}


__getattr__ = lazy_exports(__name__, _LAZY)


__all__ = [*_LAZY]
