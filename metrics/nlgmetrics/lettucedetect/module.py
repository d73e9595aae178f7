"""The lettucedetect module: its declaration (configs = KRLabs' two ModernBERT token classifiers, options,
direction); its evaluate class ``Lettucedetect`` is written in :mod:`.metric`.

>>> SPEC.configs, SPEC.default_config, SPEC.optional_inputs
(('base', 'large'), 'base', ('questions',))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.modes import int8_unmeasured
from ..core.registry import WEIGHTS
from ..core.spec import ModuleSpec
from .options import COMPUTE_OPTIONS, CONFIGS, DEFAULT_CONFIG, LOAD_OPTIONS

CITATION = """\
@misc{kovacs2025lettucedetect,
    title = "LettuceDetect: A Hallucination Detection Framework for RAG Applications",
    author = "Kov{\\'a}cs, {\\'A}d{\\'a}m and Recski, G{\\'a}bor",
    year = "2025",
    eprint = "2502.17125",
    archivePrefix = "arXiv",
    url = "https://arxiv.org/abs/2502.17125",
}
"""

DESCRIPTION = (
    "LettuceDetect (Kovács & Recski 2025): which words of an answer does its context not support? The "
    "context's passages are written into the reference's prompt (the QA prompt with the question where "
    "questions are given, the summary prompt otherwise), paired with the answer, and a ModernBERT token "
    "classifier gives each answer token a probability of being unsupported (a context too long for "
    "max_length is split into groups of passages and each token keeps its largest probability). The score "
    "is 1 minus the largest probability over the answer's tokens (higher is better); the label is 1 when no "
    "token is predicted unsupported; the spans are the unsupported stretches of the answer, with their "
    "confidence. Configs: base (default), large."
)


def config_weights(spec: ModuleSpec | None, config: str) -> list:
    """The registered model a config loads (for user interfaces that check availability)."""
    return [WEIGHTS[CONFIGS[config]]]


def make_scorer(spec: ModuleSpec, config: str | None, **load_options: Any):
    """The LettuceDetectScorer of ``config`` (default base)."""
    from .scorer import LettuceDetectScorer  # torch: loaded when used (docs/architecture.md)

    return LettuceDetectScorer(spec, config or spec.default_config, **load_options)


def unsupported_spans(details: dict) -> list[tuple[int, int, float]]:
    """The answer's unsupported spans, each marked with its confidence: the largest probability that a token
    of the span is not supported by the context."""
    return [(span["start"], span["end"], span["confidence"]) for span in details.get("spans", [])]


SPEC = ModuleSpec(
    name="lettucedetect",
    family="lettucedetect",
    title="LettuceDetect",
    description=DESCRIPTION,
    citation=CITATION,
    inputs=("predictions", "sources", "questions"),
    optional_inputs=("questions",),
    list_inputs=("sources",),
    configs=tuple(CONFIGS),
    config_weights=config_weights,
    weight_role=lambda config, option: "token_classifier",
    default_config=DEFAULT_CONFIG,
    config_option="model",
    scorer=make_scorer,
    load_options=LOAD_OPTIONS,
    compute_options=COMPUTE_OPTIONS,
    higher_is_better=True,
    range_labels={"": "(0, 1)"},
    precision=int8_unmeasured(
        "LettuceDetect's ModernBERT classifiers", keeps="the spans and scores within the bound of float32's"
    ),
    score_range="(0, 1): 1 minus the largest probability that a token of the answer is not supported",
    codebase_urls=("https://github.com/KRLabsOrg/LettuceDetect",),
    reference_urls=("https://arxiv.org/abs/2502.17125",),
    example={
        "predictions": ["The capital of France is Paris. Its population is 69 million."],
        "sources": [
            ["France is a country in Europe. The capital of France is Paris with 67 million people."]
        ],
        "questions": ["What is the capital of France? What is its population?"],
    },
    marks=unsupported_spans,
    default_why="The smaller of KRLabs' two English models (150M parameters), the one its README loads "
    "first; large (395M) scores higher on RAGTruth (79.22 against 76.07 answer-level F1) at about 2.6 times "
    "the cost.",
)

SPECS: dict[str, ModuleSpec] = {SPEC.name: SPEC}


def lettucedetect(
    predictions: Sequence[str],
    sources: Sequence[str | Sequence[str]],
    questions: Sequence[str] | None = None,
    *,
    config: str | None = None,
    **options: Any,
) -> dict:
    """Functional form: ``lettucedetect(answers, contexts, questions, config="large", max_length=...)``; load
    options (``model``, ``device``, ...) and compute() options mix; the model comes from the process-wide
    cache."""
    return SPEC.call(config, predictions, sources, questions, **options)
