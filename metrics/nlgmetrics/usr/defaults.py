"""USR's defaults (plain data: the package and its modules import them from here)."""

DEFAULT_CONFIG = "topical_chat"
"""The released checkpoints (trained on Topical-Chat); the PersonaChat ones were never released."""
SUB_METRICS = ("mlm", "dr_c", "dr_f")
