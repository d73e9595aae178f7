"""The factcg module: its declaration (config = the authors' DeBERTa-v3-large classifier, options,
direction); its evaluate class ``Factcg`` is written in :mod:`.metric`.

>>> SPEC.configs, SPEC.default_config
(('deberta-v3-large',), 'deberta-v3-large')
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
@inproceedings{lei2025factcg,
    title = "FactCG: Enhancing Fact Checkers with Graph-Based Multi-Hop Data",
    author = "Lei, Deren and Li, Yaxi and Li, Siyao and Hu, Mengya and Xu, Rui and Archer, Ken and Wang, Mingyu and Ching, Emily and Deng, Alex",
    booktitle = "Proceedings of the 2025 Conference of the Nations of the Americas Chapter of the Association for Computational Linguistics",
    year = "2025",
    url = "https://arxiv.org/abs/2501.17144",
}
"""  # noqa: E501

DESCRIPTION = (
    "FactCG (Lei et al., NAACL 2025): is a claim supported by its grounding document? The document is split "
    "into NLTK sentences joined into chunks of up to 550 NLTK word tokens, each chunk is written with the "
    "whole claim into the authors' yes/no prompt, a DeBERTa-v3-large classifier gives each prompt a "
    "probability that the chunk supports the claim, and the score is the largest over the chunks; the label "
    "is 1 (supported) above 0.5. Config: deberta-v3-large (default)."
)


def config_weights(spec: ModuleSpec | None, config: str) -> list:
    """The registered model a config loads (for user interfaces that check availability)."""
    return [WEIGHTS[CONFIGS[config].weight]]


def weight_role(config: str, option: str) -> str:
    """What ``model=`` must be: a 2-way sequence classifier."""
    return "sequence_classifier"


def make_scorer(spec: ModuleSpec, config: str | None, **load_options: Any):
    """The FactCGScorer of ``config`` (default deberta-v3-large)."""
    from .scorer import FactCGScorer  # torch: loaded when used (docs/architecture.md)

    return FactCGScorer(spec, config or spec.default_config, **load_options)


SPEC = ModuleSpec(
    name="factcg",
    family="factcg",
    title="FactCG",
    description=DESCRIPTION,
    citation=CITATION,
    inputs=("predictions", "sources"),
    configs=tuple(CONFIGS),
    config_weights=config_weights,
    weight_role=weight_role,
    config_decides="the classifier and the chunking defaults",
    default_config=DEFAULT_CONFIG,
    config_option="model",
    scorer=make_scorer,
    load_options=LOAD_OPTIONS,
    compute_options=COMPUTE_OPTIONS,
    higher_is_better=True,
    range_labels={"": "(0, 1)"},
    details_range={"": (0.0, 1.0)},
    precision=int8_unmeasured("FactCG's released weights"),
    score_range="(0, 1): the probability that the document supports the claim (its best chunk's)",
    codebase_urls=("https://github.com/derenlei/FactCG",),
    reference_urls=("https://arxiv.org/abs/2501.17144",),
    example={
        "predictions": ["The students are preparing for an examination."],
        "sources": [
            "A group of students gather in the school library to study for their upcoming final exams."
        ],
    },
    details=chunk_scores,
    default_why="The authors' one released checkpoint: the best model under 1B parameters on LLM-AggreFact "
    "(75.6 balanced accuracy at a fixed 0.5 threshold).",
)

SPECS: dict[str, ModuleSpec] = {SPEC.name: SPEC}


def factcg(
    predictions: Sequence[str], sources: Sequence[str], *, config: str | None = None, **options: Any
) -> dict:
    """Functional form: ``factcg(claims, documents, chunk_size=...)``; load options (``model``, ``device``,
    ...) and compute() options mix; the model comes from the process-wide cache."""
    return SPEC.call(config, predictions, sources, **options)
