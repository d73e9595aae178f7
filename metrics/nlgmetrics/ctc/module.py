"""The five CTC modules' declarations (inputs, configs = aligner variants, options, direction); their evaluate
classes ``CTCConsistency`` ... ``CTCGroundedness`` are written in :mod:`.metric`.

>>> SPECS["ctc_groundedness"].inputs, SPECS["ctc_groundedness"].default_config
(('predictions', 'contexts'), 'E-minilm')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.modes import refused
from ..core.options import split_options
from ..core.spec import ModuleSpec
from .aspects import ASPECTS, aspect_named, variants_for
from .options import LOAD_OPTIONS, compute_options
from .variants import CTC_VARIANTS

CITATION = """\
@inproceedings{deng-etal-2021-compression,
    title = "Compression, Transduction, and Creation: A Unified Framework for Evaluating Natural
             Language Generation",
    author = "Deng, Mingkai and Tan, Bowen and Liu, Zhengzhong and Xing, Eric and Hu, Zhiting",
    booktitle = "Proceedings of the 2021 Conference on Empirical Methods in Natural Language Processing",
    year = "2021",
    pages = "7580--7605",
    url = "https://aclanthology.org/2021.emnlp-main.599",
}
"""

DESCRIPTIONS = {
    "consistency": "CTC consistency (Deng et al. 2021): how much of the summary is supported by the source, "
    "mean(align(predictions → sources)). Higher is better.",
    "relevance": "CTC relevance (Deng et al. 2021): mean(align(predictions → sources)) × "
    "mean over references of mean(align(reference → predictions)). Higher is better.",
    "preservation": "CTC preservation (Deng et al. 2021): the harmonic mean 2ab/(a+b) of "
    "a = mean(align(sources → predictions)) and b = mean(align(predictions → sources)). Higher is better.",
    "engagingness": "CTC engagingness (Deng et al. 2021): sum(align(predictions → contexts + sources)), the "
    "volume of the response's information that engages the fact and the dialog history. Higher is better.",
    "groundedness": "CTC groundedness (Deng et al. 2021): sum(align(predictions → contexts)), how much of "
    "the response uses the knowledge context. Higher is better.",
}

DEFAULT_WHY = {
    "consistency": "The best configuration whose weights load from the Hub: on SummEval (Table D.1) "
    "`E-bert` has the best correlations of the embedding aligners, sample level 0.4359 / 0.3744 / 0.2974 "
    "(Pearson / Spearman / Kendall; `E-roberta` 0.3315 / 0.3202 / 0.2518, our `E-minilm` 0.3388 Pearson) "
    "and system-level Pearson 0.7886 (`E-roberta` 0.6166, `E-minilm` 0.6965).",
    "relevance": "The paper's best variant for relevance (Pearson 0.5198 with 11 references): references "
    "and summaries carry similar volumes of information, which suits token matching. Its weights load from "
    "the Hub.",
    "preservation": "The paper's best variant for preservation (Pearson 0.5216). Its weights load from the "
    "Hub.",
    "engagingness": "The best configuration whose weights load from the Hub (and with no download at all "
    "when installed with `[embedded]`): on the USR annotations `E-minilm` correlates at least as well as "
    "the paper's embedding aligners, Pearson 0.5008 on PersonaChat and 0.5234 on Topical-Chat (`E-bert` "
    "0.5003 / 0.4937, `E-roberta` 0.4081 / 0.4471 in the paper). Its numbers are ours, on the same "
    "judgments and CTC's own test files (`benchmarks/minilm_layer_selection.py`, which also chose its "
    "layer, the last, on them).",
    "groundedness": "The best configuration whose weights load from the Hub (and with no download at all "
    "when installed with `[embedded]`): on the USR annotations `E-minilm` correlates better than the "
    "paper's embedding aligners, Pearson 0.6864 on PersonaChat and 0.4415 on Topical-Chat (`E-bert` 0.5761 "
    "/ 0.4293, `E-roberta` 0.3758 / 0.3122 in the paper). Its numbers are ours, on the same judgments and "
    "CTC's own test files (`benchmarks/minilm_layer_selection.py`, which also chose its layer, the last, "
    "on them).",
}
"""Why each aspect's default aligner is its default (the paper's appendix tables; ``ModuleSpec.default_why``,
completed by :func:`default_why` where the paper's best variant is not on the Hub yet)."""

PAPER_BEST = {
    "consistency": "SummEval's best Spearman and Kendall, 0.4293 / 0.3422, and system-level correlations; "
    "`D-xsum`, with a slightly higher Pearson, 0.5314, suits abstractive, XSum-like summaries",
    "engagingness": "Pearson 0.5317 on PersonaChat and 0.5163 on Topical-Chat",
    "groundedness": "Pearson 0.6819 on PersonaChat and 0.5235 on Topical-Chat",
}
"""The paper's numbers for its best variant of the aspects whose best is a trained aligner."""


def default_why(aspect: str) -> str:
    """Why the aspect's default is its default and, where the paper found another variant best, which one
    and how to select it.

    >>> print(default_why("groundedness"))  # doctest: +ELLIPSIS
    The best configuration ... The paper found `R-topical_chat` best (...); select it with
    `evaluate.load("ctc_groundedness", "R-topical_chat")` once its weights are published, or convert the
    authors' checkpoint meanwhile (`docs/weights.md`). It becomes the default when the trained aligners are on
    the Hub.
    """
    best = ASPECTS[aspect].paper_variant
    if best == ASPECTS[aspect].default_variant:
        return DEFAULT_WHY[aspect]
    return (
        f"{DEFAULT_WHY[aspect]} The paper found `{best}` best ({PAPER_BEST[aspect]}); select it with "
        f'`evaluate.load("ctc_{aspect}", "{best}")` once its weights are published, or convert the authors\' '
        "checkpoint meanwhile (`docs/weights.md`). It becomes the default when the trained aligners are "
        "on the Hub."
    )


RANGES = {
    "mean": "[-1, 1] for E aligners (cosine similarities, mostly 0.3-1); [0, 1] for D (probabilities); "
    "unbounded for R (a regressor's output)",
    "sum": "unbounded: a sum over the response's non-stopword tokens, growing with its length (by design: "
    "volume of information); 0 or more for D, mostly positive for E, any real number for R",
}
RANGE_LABELS = {
    "mean": {"E": "[-1, 1]", "D": "[0, 1]", "R": "unbounded", "": "[-1, 1] (E), [0, 1] (D), unbounded (R)"},
    "sum": {"": "unbounded (a sum over tokens)"},
}
"""The range in a few words, by aggregation and aligner kind (``ModuleSpec.range_label``)."""
TOKEN_RANGES = {"E": (-1.0, 1.0), "D": (0.0, 1.0)}
"""The range of a token's alignment score (the heat map's values, whatever the aggregation), by aligner kind:
cosines for E, probabilities for D; R's regressor output is unbounded."""

PRECISION = {
    "int8": {
        "E": refused(
            "it gave E-minilm's MiniLM no speed-up worth its rounding (1.11-1.22× float32's speed on 64 "
            "SummEval pairs, 1 and 2 threads: benchmarks/results/int8_decision.md; the int8 matmul gains, "
            "the per-token rounding around it costs as much on a body this small)"
        ),
        "D": refused(
            "it moved the scores of a D aligner of roberta-large's shape past the bound that keeps "
            "correlations within 0.01 of float32's"
        ),
        "R": refused(
            "it moved the scores of an R aligner of bert-base's shape past the bound that keeps correlations "
            "within 0.01 of float32's"
        ),
    }
}
"""CTC's word on the opt-in precision modes (``ModuleSpec.precision``): int8 refused for every config, D and R
for their drift (``benchmarks/cpu_precision.py``), E for its speed (``benchmarks/int8_decision.py``)."""

_EXAMPLE = {
    "predictions": ["The cat sat on the mat."],
    "sources": ["A cat was sitting on the mat."],
    "references": [["A cat sat on a mat."]],
    "contexts": ["Cats like to sit on mats."],
}
DOCTEST_SCORES = {
    "consistency": "[0.92]",
    "relevance": "[0.88]",
    "preservation": "[0.91]",
    "engagingness": "[3.3]",
    "groundedness": "[2.9]",
}
"""What the docstring examples print with the embedded E-minilm (run as doctests)."""


def make_scorer(spec: ModuleSpec, config: str | None, aligner: str | None = None, **load_options: Any):
    """The CTCScorer of a module: its config name or ``aligner=`` (both only where they agree:
    :meth:`~nlgmetrics.core.spec.ModuleSpec.check_weights`)."""
    from .scorer import CTCScorer  # torch: loaded when used (docs/architecture.md)

    return CTCScorer(spec, config if aligner is None else aligner, **load_options)


def variant_weights(spec: ModuleSpec, config: str) -> list:
    """The registered weights aligner variant ``config`` loads for the aspect's directions.

    >>> [w.repo_id for w in variant_weights(SPECS["ctc_relevance"], "D-cnndm")]
    ['nlgmetrics/ctc-D-cnndm-doc_to_summ', 'nlgmetrics/ctc-D-cnndm-summ_to_ref']
    """
    variant = CTC_VARIANTS[config]
    weights = [variant.weight_for(d) for d in ASPECTS[spec.name.removeprefix("ctc_")].directions]
    return list({w.name: w for w in weights if w is not None}.values())


def prediction_tokens(details: dict) -> list[tuple[str, float | None]]:
    """(token, score) pairs of the first alignment that scores the prediction's tokens."""
    for label, alignment in details.items():
        if label.startswith("predictions→"):
            return [(t, round(s, 3)) for t, s in zip(alignment["tokens"], alignment["token_scores"])]
    return []


def _spec(aspect: str) -> ModuleSpec:
    return ModuleSpec(
        name=f"ctc_{aspect}",
        family="ctc",
        title=f"CTC {aspect}",
        description=DESCRIPTIONS[aspect],
        citation=CITATION,
        inputs=ASPECTS[aspect].inputs,
        configs=tuple(variants_for(aspect)),
        default_config=ASPECTS[aspect].default_variant,
        config_option="aligner",
        scorer=make_scorer,
        load_options=LOAD_OPTIONS,
        compute_options=compute_options(aspect),
        higher_is_better=True,
        score_range=RANGES[ASPECTS[aspect].aggregation],
        range_labels=RANGE_LABELS[ASPECTS[aspect].aggregation],
        details_range=TOKEN_RANGES,
        precision=PRECISION,
        codebase_urls=("https://github.com/tanyuqian/ctc-gen-eval",),
        reference_urls=("https://aclanthology.org/2021.emnlp-main.599",),
        example={name: _EXAMPLE[name] for name in ASPECTS[aspect].inputs},
        doctest_config="E-minilm",
        doctest_scores=DOCTEST_SCORES[aspect],
        details=prediction_tokens,
        config_weights=variant_weights,
        default_why=default_why(aspect),
    )


SPECS: dict[str, ModuleSpec] = {f"ctc_{aspect}": _spec(aspect) for aspect in ASPECTS}


def aspect_spec(aspect: str) -> ModuleSpec:
    """The declaration of CTC aspect ``aspect`` (for the functional form, which is given an aspect's name).

    >>> aspect_spec("consistency").name
    'ctc_consistency'
    """
    return SPECS[f"ctc_{aspect_named(aspect).name}"]


def ctc_score(aspect: str, predictions: Sequence[str], *texts: Sequence, **options: Any) -> dict:
    """Functional form: ``ctc_score("consistency", preds, sources=docs, aligner="E-minilm")``; load options
    (``aligner``, ``device``, ...) and compute() options mix; the weights come from the process-wide cache."""
    spec = aspect_spec(aspect)
    load, rest = split_options(spec.name, spec.load_options, spec.compute_options, options)
    return spec.build_scorer(None, **load).score(predictions, *texts, **rest)
