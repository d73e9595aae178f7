"""The layout of a converted AlignScore folder, as the scorer reads it and the converter writes it (the
encoder as a transformers folder beside these files), and the names of the authors' checkpoint it is made
from. Plain data: importing it loads nothing."""

from __future__ import annotations

from dataclasses import dataclass

METADATA = "alignscore.json"
"""What a converted folder records of its conversion."""
HEADS_FILE = "alignscore_heads.safetensors"
"""The three heads of a converted folder."""
ENCODER_PREFIX = "base_model."
"""The encoder's weights in the authors' checkpoint (beside ``mlm_head.*`` and the heads)."""


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
