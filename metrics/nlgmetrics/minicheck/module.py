"""The minicheck module: its declaration (configs = the authors' three transformers models, options,
direction); its evaluate class ``Minicheck`` is written in :mod:`.metric`.

>>> SPEC.configs, SPEC.default_config
(('flan-t5-large', 'roberta-large', 'deberta-v3-large'), 'flan-t5-large')
>>> [w.repo_id for w in config_weights(SPEC, "roberta-large")]
['lytang/MiniCheck-RoBERTa-Large']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.modes import int8_unmeasured
from ..core.registry import WEIGHTS
from ..core.spec import ModuleSpec
from .options import COMPUTE_OPTIONS, CONFIGS, DEFAULT_CONFIG, LOAD_OPTIONS

CITATION = """\
@inproceedings{tang2024minicheck,
    title = "MiniCheck: Efficient Fact-Checking of LLMs on Grounding Documents",
    author = "Tang, Liyan and Laban, Philippe and Durrett, Greg",
    booktitle = "Proceedings of the 2024 Conference on Empirical Methods in Natural Language Processing",
    year = "2024",
    url = "https://arxiv.org/abs/2404.10774",
}
"""

DESCRIPTION = (
    "MiniCheck (Tang et al., EMNLP 2024): is a claim supported by its grounding document? The document is "
    "split into sentences and grouped into chunks (500 words for Flan-T5, 400 tokens for RoBERTa and "
    "DeBERTa), each chunk is paired with the whole claim, a fact-checking model gives each pair a "
    "probability that the chunk supports the claim, and the score is the largest over the chunks; the label "
    "is 1 (supported) above 0.5. Configs: flan-t5-large (default), roberta-large, deberta-v3-large."
)


def config_weights(spec: ModuleSpec | None, config: str) -> list:
    """The registered model a config loads (for user interfaces that check availability)."""
    return [WEIGHTS[CONFIGS[config].weight]]


def weight_role(config: str, option: str) -> str:
    """What ``model=`` must be on ``config``: a seq2seq model (flan-t5-large) or a sequence classifier."""
    return "seq2seq" if CONFIGS[config].seq2seq else "sequence_classifier"


def make_scorer(spec: ModuleSpec, config: str | None, **load_options: Any):
    """The MiniCheckScorer of ``config`` (default flan-t5-large)."""
    from .scorer import MiniCheckScorer  # torch: loaded when used (docs/architecture.md)

    return MiniCheckScorer(spec, config, **load_options)


def chunk_scores(details: dict) -> list[tuple[str, float | None]]:
    """(chunk, probability) pairs of one example, for a heat map."""
    return [
        (chunk, round(p, 3)) for chunk, p in zip(details.get("chunks", []), details.get("probabilities", []))
    ]


SPEC = ModuleSpec(
    name="minicheck",
    family="minicheck",
    title="MiniCheck",
    description=DESCRIPTION,
    citation=CITATION,
    inputs=("predictions", "sources"),
    configs=tuple(CONFIGS),
    config_weights=config_weights,
    weight_role=weight_role,
    config_decides="the architecture (the model type) and the chunking defaults",
    default_config=DEFAULT_CONFIG,
    config_option="model",
    scorer=make_scorer,
    load_options=LOAD_OPTIONS,
    compute_options=COMPUTE_OPTIONS,
    higher_is_better=True,
    range_labels={"": "(0, 1)"},
    details_range={"": (0.0, 1.0)},
    precision=int8_unmeasured("MiniCheck's models"),
    score_range="(0, 1): the probability that the document supports the claim (its best chunk's)",
    codebase_urls=("https://github.com/Liyan06/MiniCheck",),
    reference_urls=("https://arxiv.org/abs/2404.10774",),
    example={
        "predictions": ["The students are preparing for an examination."],
        "sources": [
            "A group of students gather in the school library to study for their upcoming final exams."
        ],
    },
    details=chunk_scores,
    default_why="The authors' best model under 1B parameters (LLM-AggreFact 75.0 balanced accuracy, GPT-4's "
    "level), and the reference's own first choice among its transformers models.",
)

SPECS: dict[str, ModuleSpec] = {SPEC.name: SPEC}


def minicheck(
    predictions: Sequence[str], sources: Sequence[str], *, config: str | None = None, **options: Any
) -> dict:
    """Functional form: ``minicheck(claims, documents, config="roberta-large", chunk_size=...)``; load options
    (``model``, ``device``, ...) and compute() options mix; the model comes from the process-wide cache."""
    return SPEC.call(config, predictions, sources, **options)
