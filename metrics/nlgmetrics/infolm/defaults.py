"""InfoLM's defaults (plain data: the package and its modules import them from here)."""

DEFAULT_MODEL = "bert-base-uncased"
"""Key of :data:`nlgmetrics.core.registry.WEIGHTS`: the paper's and torchmetrics' masked LM."""
DEFAULT_MEASURE = "kl_divergence"
DEFAULT_TEMPERATURE = 0.25
"""torchmetrics' default (sharpening); the paper's experiments use 1.0 (its Appendix B.5)."""
