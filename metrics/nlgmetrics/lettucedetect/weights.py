"""LettuceDetect's registered weights: KRLabs' two ModernBERT token classifiers on the Hub (not pinned yet).

>>> [w.repo_id for w in WEIGHTS.values()]
['KRLabsOrg/lettucedect-base-modernbert-en-v1', 'KRLabsOrg/lettucedect-large-modernbert-en-v1']
"""

from __future__ import annotations

from ..core.registry import WeightSpec

_NOT_PINNED = (
    " NOT YET PINNED: the commit id of the Hub repo could not be looked up from this project's machines; "
    "it must be verified on the Hub and written here (a 40-hex commit) before release. Until then it loads "
    "'main'."
)


def _classifier(size: str, layers: int, parameters: str) -> WeightSpec:
    return WeightSpec(
        name=f"lettucedetect-{size}",
        repo_id=f"KRLabsOrg/lettucedect-{size}-modernbert-en-v1",
        revision="main",
        architecture="ModernBertForTokenClassification",
        num_layers=layers,
        test_layers=2,
        source="Kovács & Recski 2025 (LettuceDetect), https://github.com/KRLabsOrg/LettuceDetect",
        license="mit",
        roles=("token_classifier",),
        families=("lettucedetect",),
        awaiting_pin=True,
        notes=f"ModernBERT-{size} (about {parameters} parameters, 8,192 positions) fine-tuned on RAGTruth to "
        "label each answer token of a (context prompt, answer) pair: 1 = not supported by the context."
        + _NOT_PINNED,
    )


WEIGHTS: dict[str, WeightSpec] = {
    "lettucedetect-base": _classifier("base", 22, "150M"),
    "lettucedetect-large": _classifier("large", 28, "395M"),
}
"""LettuceDetect's entries of the registry (:data:`nlgmetrics.core.registry.WEIGHTS` gathers every
family's)."""
