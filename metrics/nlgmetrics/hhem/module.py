"""The hhem module: its declaration (config = Vectara's open checkpoint, direction); its evaluate class
``Hhem`` is written in :mod:`.metric`.

>>> SPEC.configs, SPEC.default_config
(('2.1-open',), '2.1-open')
>>> [w.repo_id for w in config_weights(SPEC, "2.1-open")]
['vectara/hallucination_evaluation_model', 'google/flan-t5-base']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.modes import int8_unmeasured
from ..core.registry import WEIGHTS
from ..core.result import chunk_scores
from ..core.spec import ModuleSpec
from .options import COMPUTE_OPTIONS, CONFIGS, DEFAULT_CONFIG, LOAD_OPTIONS

CITATION = """\
@misc{hhem-2.1-open,
    author = "Forrest Bao and Miaoran Li and Rogger Luo and Ofer Mendelevitch",
    title = "{HHEM-2.1-Open}",
    year = "2024",
    url = "https://huggingface.co/vectara/hallucination_evaluation_model",
    doi = "10.57967/hf/3240",
    publisher = "Hugging Face",
}
"""

DESCRIPTION = (
    "HHEM-2.1-Open (Vectara's Hughes Hallucination Evaluation Model): is a hypothesis supported by its "
    "premise? The pair is written into the model's prompt, a Flan-T5-base encoder with a 2-way token "
    "classification head reads it whole, and the score is the softmax of the first position's two logits, "
    "class 1 (consistent); the label is 1 above 0.5. Config: 2.1-open (default)."
)


def config_weights(spec: ModuleSpec | None, config: str) -> list:
    """The registered checkpoint a config loads and the foundation whose config and tokenizer it reads: both
    must be on the machine."""
    checkpoint = WEIGHTS[CONFIGS[config].weight]
    return [checkpoint, WEIGHTS[checkpoint.base]]


def weight_role(config: str, option: str) -> str:
    """What ``model=`` must be: a checkpoint whose config.json names its foundation (an HHEM repo)."""
    return "foundation_checkpoint"


def make_scorer(spec: ModuleSpec, config: str | None, **load_options: Any):
    """The HHEMScorer of ``config`` (default 2.1-open)."""
    from .scorer import HHEMScorer  # torch: loaded when used (docs/architecture.md)

    return HHEMScorer(spec, config or spec.default_config, **load_options)


SPEC = ModuleSpec(
    name="hhem",
    family="hhem",
    title="HHEM",
    description=DESCRIPTION,
    citation=CITATION,
    inputs=("predictions", "sources"),
    configs=tuple(CONFIGS),
    config_weights=config_weights,
    weight_role=weight_role,
    config_decides="",
    default_config=DEFAULT_CONFIG,
    config_option="model",
    scorer=make_scorer,
    load_options=LOAD_OPTIONS,
    compute_options=COMPUTE_OPTIONS,
    higher_is_better=True,
    range_labels={"": "(0, 1)"},
    details_range={"": (0.0, 1.0)},
    precision=int8_unmeasured("HHEM's released weights"),
    score_range="(0, 1): the probability that the premise supports the hypothesis (consistent)",
    codebase_urls=("https://huggingface.co/vectara/hallucination_evaluation_model",),
    reference_urls=("https://huggingface.co/vectara/hallucination_evaluation_model",),
    example={
        "predictions": ["The capital of France is Berlin."],
        "sources": ["The capital of France is Paris."],
    },
    details=chunk_scores,
    default_why="Vectara's one open checkpoint (HHEM-2.1-Open).",
)

SPECS: dict[str, ModuleSpec] = {SPEC.name: SPEC}


def hhem(
    predictions: Sequence[str], sources: Sequence[str], *, config: str | None = None, **options: Any
) -> dict:
    """Functional form: ``hhem(hypotheses, premises)``; load options (``model``, ``device``, ...) and
    compute() options mix; the model comes from the process-wide cache."""
    return SPEC.call(config, predictions, sources, **options)
