"""LettuceDetect's configs and options, declared once (plain data, no torch).

>>> CONFIGS, DEFAULT_CONFIG, MAX_LENGTH
({'base': 'lettucedetect-base', 'large': 'lettucedetect-large'}, 'base', 4096)
"""

from __future__ import annotations

from ..core.options import MODEL_REVISION, Option, name_option
from ..core.values import check_positive_int

CONFIGS: dict[str, str] = {"base": "lettucedetect-base", "large": "lettucedetect-large"}
"""Config → its registered token classifier."""
DEFAULT_CONFIG = "base"
MAX_LENGTH = 4096
"""Tokens of a (prompt, answer) pair the model reads, as the reference's ``TransformerDetector`` default:
a longer context is split into groups of passages, each group a prompt of its own."""
SPECIALS = 3
"""Special tokens of a (prompt, answer) pair: ``[CLS] prompt [SEP] answer [SEP]``."""

LOAD_OPTIONS = (
    name_option(
        "model",
        "the config's registered token classifier by default; a Hub repo id or a folder of another "
        "LettuceDetect checkpoint (a 2-label token classifier)",
    ),
    MODEL_REVISION,
)
COMPUTE_OPTIONS = (
    Option(
        "max_length",
        "tokens of a (prompt, answer) pair the model reads (default 4096, as the reference); a longer "
        "context is split into groups of passages that fit, and each answer token keeps its largest "
        "probability",
        MAX_LENGTH,
        check_positive_int,
        text_type=int,
    ),
)
