"""MiniCheck's registered weights: the authors' three classifiers on the Hub (not pinned yet).

>>> [w.repo_id for w in WEIGHTS.values()]
['lytang/MiniCheck-Flan-T5-Large', 'lytang/MiniCheck-RoBERTa-Large', 'lytang/MiniCheck-DeBERTa-v3-Large']
>>> sorted(AWAITING_PIN) == sorted(WEIGHTS)
True
"""

from __future__ import annotations

from ..core.registry import WeightSpec

_NOT_PINNED = (
    " NOT YET PINNED: the commit id of the Hub repo could not be looked up from this project's machines; "
    "it must be verified on the Hub and written here (a 40-hex commit) before release. Until then it loads "
    "'main'."
)

WEIGHTS: dict[str, WeightSpec] = {
    "minicheck-flan-t5-large": WeightSpec(
        name="minicheck-flan-t5-large",
        repo_id="lytang/MiniCheck-Flan-T5-Large",
        revision="main",
        architecture="T5ForConditionalGeneration",
        num_layers=24,  # encoder and decoder each
        test_layers=2,
        source="Tang et al. 2024 (MiniCheck), https://github.com/Liyan06/MiniCheck",
        license="mit",
        roles=("seq2seq",),
        families=("minicheck",),
        awaiting_pin=True,
        notes="Flan-T5-large (about 780M parameters) fine-tuned to answer a (document chunk, claim) pair "
        "with token 209 (supported) or 3 (unsupported) at the first decoder step." + _NOT_PINNED,
    ),
    "minicheck-roberta-large": WeightSpec(
        name="minicheck-roberta-large",
        repo_id="lytang/MiniCheck-RoBERTa-Large",
        revision="main",
        architecture="RobertaForSequenceClassification",
        num_layers=24,
        test_layers=2,
        source="Tang et al. 2024 (MiniCheck), https://github.com/Liyan06/MiniCheck; from AlignScore-large",
        license="mit",
        roles=("sequence_classifier",),
        families=("minicheck",),
        awaiting_pin=True,
        notes="RoBERTa-large (about 355M parameters) with a 2-way head (label 1: supported)." + _NOT_PINNED,
    ),
    "minicheck-deberta-v3-large": WeightSpec(
        name="minicheck-deberta-v3-large",
        repo_id="lytang/MiniCheck-DeBERTa-v3-Large",
        revision="main",
        architecture="DebertaV2ForSequenceClassification",
        num_layers=24,
        test_layers=2,
        source="Tang et al. 2024 (MiniCheck), https://github.com/Liyan06/MiniCheck",
        license="mit",
        roles=("sequence_classifier",),
        families=("minicheck",),
        awaiting_pin=True,
        notes="DeBERTa-v3-large (about 435M parameters) with a 2-way head (label 1: supported)."
        + _NOT_PINNED,
    ),
}
"""MiniCheck's entries of the registry (:data:`nlgmetrics.core.registry.WEIGHTS` gathers every family's)."""

AWAITING_PIN = frozenset(name for name, spec in WEIGHTS.items() if spec.awaiting_pin)
"""The classifiers whose Hub commit id could not be looked up when they were registered (no network)."""
