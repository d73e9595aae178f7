"""The layout of a converted AlignScore folder, as the scorer reads it and the converter writes it (the
encoder as a transformers folder beside these files), and the names of the authors' checkpoint it is made
from. Plain data: importing it loads nothing."""

METADATA = "alignscore.json"
"""What a converted folder records of its conversion."""
HEADS_FILE = "alignscore_heads.safetensors"
"""The three heads of a converted folder."""
HEADS = {"bin_layer": 2, "tri_layer": 3, "reg_layer": 1}
"""The heads of ``BERTAlignModel`` and their outputs."""
ENCODER_PREFIX = "base_model."
"""The encoder's weights in the authors' checkpoint (beside ``mlm_head.*`` and the heads)."""
