"""The alignscore module: its declaration (inputs, configs, options, direction); its evaluate class
``Alignscore`` is written in :mod:`.metric`.

>>> SPEC.configs, SPEC.default_config, SPEC.inputs
(('large', 'base'), 'large', ('predictions', 'sources'))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.modes import int8_unmeasured
from ..core.registry import WEIGHTS
from ..core.spec import ModuleSpec
from .options import COMPUTE_OPTIONS, LOAD_OPTIONS
from .weights import BASES, CONFIG_WEIGHTS

CITATION = """\
@inproceedings{zha-etal-2023-alignscore,
    title = "{A}lign{S}core: Evaluating Factual Consistency with A Unified Alignment Function",
    author = "Zha, Yuheng and Yang, Yichi and Li, Ruichen and Hu, Zhiting",
    booktitle = "Proceedings of the 61st Annual Meeting of the Association for Computational Linguistics
                 (Volume 1: Long Papers)",
    year = "2023",
    publisher = "Association for Computational Linguistics",
    url = "https://aclanthology.org/2023.acl-long.634",
    pages = "11328--11348",
}
"""

DESCRIPTION = (
    "AlignScore (Zha et al. 2023): how far a claim (the prediction) is supported by its context (the "
    "source). A RoBERTa alignment function trained on 4.7M examples of seven tasks (NLI, QA, paraphrase, "
    "fact verification, retrieval, semantic similarity, summarization) scores every pair of a context "
    "chunk (about 350 words) and a claim sentence; each sentence keeps its best chunk and the score is the "
    "mean over the claim's sentences. Higher is better."
)


def make_scorer(spec: ModuleSpec, config: str | None, **load_options: Any):
    """The AlignScoreScorer of the module: a config (``large``, ``base``) or ``model=`` a converted folder."""
    from .scorer import AlignScoreScorer  # torch: loaded when used (docs/architecture.md)

    return AlignScoreScorer(spec, config, **load_options)


def sentence_heat(details: dict) -> list[tuple[str, float | None]]:
    """Each claim sentence with its best chunk's score, for the heat map (the unsplit modes: the whole
    claim)."""
    return [
        (s, round(v, 3))
        for s, v in zip(details.get("claim_sentences", []), details.get("sentence_scores", []))
    ]


def config_weights(spec: ModuleSpec, config: str) -> list:
    """The registered checkpoint a config loads and the base it is converted with on first use (its config
    and tokenizer): both must be on the machine.

    >>> [w.repo_id for w in config_weights(SPEC, "large")]
    ['yzha/AlignScore', 'FacebookAI/roberta-large']
    """
    if config not in CONFIG_WEIGHTS:
        return []
    checkpoint = WEIGHTS[CONFIG_WEIGHTS[config]]
    return [checkpoint, WEIGHTS[BASES[checkpoint.base]]]


def weight_role(config: str, option: str) -> str:
    """``model=`` names a converted folder or Hub repo: the encoder of its checkpoint (and the heads)."""
    return "encoder"


SPEC = ModuleSpec(
    name="alignscore",
    family="alignscore",
    title="AlignScore",
    description=DESCRIPTION,
    citation=CITATION,
    inputs=("predictions", "sources"),
    configs=tuple(CONFIG_WEIGHTS),
    default_config="large",
    config_option="model",
    scorer=make_scorer,
    load_options=LOAD_OPTIONS,
    compute_options=COMPUTE_OPTIONS,
    higher_is_better=True,
    score_range="[0, 1] for the nli and bin modes (probabilities); reg: the regression head's output, "
    "about [0, 1] but unbounded",
    range_labels={"": "[0, 1] (reg: about [0, 1])"},
    details_range={"": (0.0, 1.0)},
    codebase_urls=("https://github.com/yuh-zha/AlignScore",),
    reference_urls=("https://arxiv.org/abs/2305.16739",),
    example={
        "predictions": ["The council approved a new library. It opens in May."],
        "sources": ["The city council voted on Monday to build a new library, which will open in May."],
    },
    details=sentence_heat,
    config_weights=config_weights,
    weight_role=weight_role,
    precision=int8_unmeasured("AlignScore's checkpoints"),
    default_why="The paper's best checkpoint (SummaC 88.6, TRUE 83.8 AUC); `base` is 3× smaller and 1-2 "
    "points behind.",
)

SPECS: dict[str, ModuleSpec] = {SPEC.name: SPEC}


def alignscore(
    predictions: Sequence[str], sources: Sequence[str], config: str | None = None, **options: Any
) -> dict:
    """Functional form: ``alignscore(claims, contexts, "base", mode="nli_sp")``; load options (``model``,
    ``device``, ...) and compute() options mix; the model comes from the process-wide cache."""
    return SPEC.call(config, predictions, sources, **options)
