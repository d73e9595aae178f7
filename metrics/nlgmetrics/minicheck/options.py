"""MiniCheck's configs and options, declared once: the module, the command line, the Space and
:class:`~.scorer.MiniCheckScorer` read them (plain data, no torch).

>>> CONFIGS["flan-t5-large"].chunk_size, CONFIGS["roberta-large"].max_model_len
(500, 512)
>>> [option.name for option in COMPUTE_OPTIONS]
['chunk_size', 'max_model_len']
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.options import MODEL_REVISION, Option, name_option
from ..core.values import check_positive_int


@dataclass(frozen=True)
class Layout:
    """One config: its registered weight and the reference's defaults for it."""

    weight: str
    seq2seq: bool
    """Flan-T5: the first decoder step's logits at ids 3 and 209; else a 2-way sequence classifier."""
    chunk_size: int
    """Words (Flan-T5) or tokens (the classifiers, counted by their tokenizer) per document chunk."""
    max_model_len: int
    """Tokens of a (chunk, claim) pair the model reads; the rest is cut at the end, as the reference does."""


CONFIGS: dict[str, Layout] = {
    "flan-t5-large": Layout("minicheck-flan-t5-large", True, 500, 2048),
    "roberta-large": Layout("minicheck-roberta-large", False, 400, 512),
    "deberta-v3-large": Layout("minicheck-deberta-v3-large", False, 400, 2048),
}
"""The reference's three transformers models (``MiniCheck(model_name=...)``), in its order of preference."""
DEFAULT_CONFIG = "flan-t5-large"
SUPPORTED_ID, UNSUPPORTED_ID = 209, 3
"""Flan-T5's answer tokens at the first decoder step ("▁1" and "▁"), as the reference reads them."""
THRESHOLD = 0.5
"""A claim is labelled supported (1) when its score is above this, as the reference's ``pred_label``."""


LOAD_OPTIONS = (
    name_option(
        "model",
        "the config's registered classifier by default; a Hub repo id or a folder of another MiniCheck "
        "checkpoint of the config's layout",
    ),
    MODEL_REVISION,
)
COMPUTE_OPTIONS = (
    Option(
        "chunk_size",
        "words (flan-t5-large, default 500) or tokens (roberta-large and deberta-v3-large, default 400) per "
        "document chunk",
        None,
        check_positive_int,
        text_type=int,
    ),
    Option(
        "max_model_len",
        "tokens of a (chunk, claim) pair the model reads, the rest cut at the end (default 2048; 512 for "
        "roberta-large, its position limit)",
        None,
        check_positive_int,
        text_type=int,
    ),
)
