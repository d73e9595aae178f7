"""AlignScore's options and defaults, declared once (plain data, no torch): the module, the command line, the
Space, the scorer and the card read them.

>>> [option.name for option in COMPUTE_OPTIONS], DEFAULT_MODE
(['mode'], 'nli_sp')
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.options import MODEL_REVISION, Option, check_choice, name_option

MODES = ("nli_sp", "bin_sp", "reg_sp", "nli", "bin", "reg")
"""The reference's ``evaluation_mode`` values: the head (3-way NLI "aligned" probability, binary "aligned"
probability, regression output) and, with ``_sp``, the split: chunks × claim sentences; without, the whole
context (cut to the window) against the whole claim."""
DEFAULT_MODE = "nli_sp"
"""The paper's: the 3-way head over chunks and sentences."""


@dataclass(frozen=True)
class Head:
    """One of the three heads of the authors' ``BERTAlignModel``."""

    layer: str
    """Its layer's name in the checkpoint and in a converted folder's heads file."""
    outputs: int
    aligned: int | None
    """The index of "aligned" in its softmax; None: its one output as it is (regression)."""


HEADS = {"bin": Head("bin_layer", 2, 1), "nli": Head("tri_layer", 3, 0), "reg": Head("reg_layer", 1, None)}
"""Mode prefix → the head it reads, in the checkpoint's order: the one table of the heads (the converter,
the model and the modes read it)."""
CHUNK_WORDS = 350
"""The reference's chunk size: ``n_chunk = words // 350 + 1``."""

LOAD_OPTIONS = (
    name_option(
        "model",
        "a converted AlignScore folder (nlgmetrics convert alignscore) or a Hub repo holding one, instead "
        "of a config",
    ),
    MODEL_REVISION,
)
COMPUTE_OPTIONS = (
    Option(
        "mode",
        f"one of {', '.join(MODES)} (default {DEFAULT_MODE!r}: the 3-way head's 'aligned' probability over "
        "chunks × claim sentences; '_sp' splits, the others score the whole pair)",
        DEFAULT_MODE,
        check=check_choice(MODES),
        text_type=str,
    ),
)
