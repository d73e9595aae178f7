"""InfoLM's options and defaults, declared once: the module, the command line, the Space and
:class:`InfoLMScorer` read them (plain data, so that the scorer and the package import them without a circle).

>>> [option.name for option in COMPUTE_OPTIONS]
['measure', 'alpha', 'beta', 'temperature', 'idf']
"""

from __future__ import annotations

from ..core.options import MODEL_REVISION, Option, name_option

DEFAULT_MODEL = "bert-base-uncased"
"""Key of :data:`nlgmetrics.core.registry.WEIGHTS`: the paper's and torchmetrics' masked LM."""
DEFAULT_MEASURE = "kl_divergence"
DEFAULT_TEMPERATURE = 0.25
"""torchmetrics' default (sharpening); the paper's experiments use 1.0 (its Appendix B.5)."""

MEASURE_NAMES = (
    "kl_divergence",
    "alpha_divergence",
    "beta_divergence",
    "ab_divergence",
    "renyi_divergence",
    "l1_distance",
    "l2_distance",
    "l_infinity_distance",
    "fisher_rao_distance",
)
"""The information measures, in the paper's order."""

LOAD_OPTIONS = (
    name_option(
        "model", "a registered masked LM (a config name), a Hub repo id or a folder of another masked LM"
    ),
    MODEL_REVISION,
)
COMPUTE_OPTIONS = (  # checked together by InfoLMScorer (the measure's parameters, idf against the vocabulary)
    Option(
        "measure",
        f"one of {', '.join(MEASURE_NAMES)} (default {DEFAULT_MEASURE!r})",
        DEFAULT_MEASURE,
        text_type=str,
    ),
    Option(
        "alpha",
        "for alpha_divergence, ab_divergence and renyi_divergence (checked with any measure: a finite real "
        "number, not 0 or 1 where unused)",
        text_type=float,
    ),
    Option(
        "beta",
        "for beta_divergence and ab_divergence (checked with any measure: a finite real number, not 0 or -1 "
        "where unused)",
        text_type=float,
    ),
    Option(
        "temperature",
        f"softmax temperature of the masked LM (default {DEFAULT_TEMPERATURE})",
        DEFAULT_TEMPERATURE,
        text_type=float,
    ),
    Option(
        "idf",
        "True (default: idf over the predictions for prediction tokens, over the references for reference "
        "tokens, as torchmetrics), False (uniform), a list of texts (one corpus for both) or a dict "
        "token → weight",
        True,
        text_type=bool,
    ),
)
