"""HHEM's registered weights: Vectara's checkpoint and the foundation whose config and tokenizer it reads
(neither pinned yet).

>>> [w.repo_id for w in WEIGHTS.values()]
['vectara/hallucination_evaluation_model', 'google/flan-t5-base']
"""

from __future__ import annotations

from ..core.registry import WeightSpec

_NOT_PINNED = (
    " NOT YET PINNED: the commit id of the Hub repo could not be looked up from this project's machines; "
    "it must be verified on the Hub and written here (a 40-hex commit) before release. Until then it loads "
    "'main'."
)

WEIGHTS: dict[str, WeightSpec] = {
    "hhem-2.1-open": WeightSpec(
        name="hhem-2.1-open",
        repo_id="vectara/hallucination_evaluation_model",
        revision="main",
        architecture="HHEMv2ForSequenceClassification",
        num_layers=12,
        test_layers=2,
        source="Vectara 2024 (HHEM-2.1-Open), https://huggingface.co/vectara/hallucination_evaluation_model",
        license="apache-2.0",
        roles=("foundation_checkpoint",),
        families=("hhem",),
        base="flan-t5-base",
        cached_file="model.safetensors",
        awaiting_pin=True,
        notes="A T5ForTokenClassification over flan-t5-base (about 110M parameters in its encoder) with a "
        "2-way head read at the first position; published as remote code, read here into transformers' own "
        "class (its keys under 't5.')." + _NOT_PINNED,
    ),
    "flan-t5-base": WeightSpec(
        name="flan-t5-base",
        repo_id="google/flan-t5-base",
        revision="main",
        architecture="T5ForConditionalGeneration",
        num_layers=12,
        test_layers=2,
        source="Chung et al. 2022 (Flan-T5), https://huggingface.co/google/flan-t5-base",
        license="apache-2.0",
        roles=("base_model",),
        families=("hhem",),
        awaiting_pin=True,
        notes="The config and tokenizer HHEM-2.1-Open's checkpoint is read with (its weights are the "
        "checkpoint's)." + _NOT_PINNED,
    ),
}
"""HHEM's entries of the registry (:data:`nlgmetrics.core.registry.WEIGHTS` gathers every family's)."""
