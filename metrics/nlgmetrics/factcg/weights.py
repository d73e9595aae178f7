"""FactCG's registered weights: the authors' DeBERTa-v3-large classifier on the Hub (not pinned yet).

>>> [w.repo_id for w in WEIGHTS.values()]
['yaxili96/FactCG-DeBERTa-v3-Large']
"""

from __future__ import annotations

from ..core.registry import WeightSpec

_NOT_PINNED = (
    " NOT YET PINNED: the commit id of the Hub repo could not be looked up from this project's machines; "
    "it must be verified on the Hub and written here (a 40-hex commit) before release. Until then it loads "
    "'main'."
)

WEIGHTS: dict[str, WeightSpec] = {
    "factcg-deberta-v3-large": WeightSpec(
        name="factcg-deberta-v3-large",
        repo_id="yaxili96/FactCG-DeBERTa-v3-Large",
        revision="main",
        architecture="DebertaV2ForSequenceClassification",
        num_layers=24,
        test_layers=2,
        source="Lei et al. 2025 (FactCG), https://github.com/derenlei/FactCG",
        license="mit",
        roles=("sequence_classifier",),
        families=("factcg",),
        awaiting_pin=True,
        notes="DeBERTa-v3-large (about 435M parameters) with a 2-way head (label 1: supported), trained on "
        "NLI, MiniCheck's synthetic data and CG2C multi-hop claims." + _NOT_PINNED,
    ),
}
"""FactCG's entries of the registry (:data:`nlgmetrics.core.registry.WEIGHTS` gathers every family's)."""
