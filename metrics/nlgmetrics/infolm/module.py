"""The infolm module: its declaration (inputs, configs = registered masked LMs, options, direction); its
evaluate class ``Infolm`` is written in :mod:`.metric`.

>>> SPEC.configs, SPEC.default_config
(('bert-base-uncased',), 'bert-base-uncased')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.modes import allowed
from ..core.registry import weights_for
from ..core.spec import ModuleSpec
from .options import COMPUTE_OPTIONS, DEFAULT_MODEL, LOAD_OPTIONS

CITATION = """\
@inproceedings{colombo2022infolm,
    title = "InfoLM: A New Metric to Evaluate Summarization \\& Data2Text Generation",
    author = "Colombo, Pierre and Clavel, Chlo{\\'e} and Piantanida, Pablo",
    booktitle = "Proceedings of the AAAI Conference on Artificial Intelligence",
    year = "2022",
    url = "https://arxiv.org/abs/2112.01589",
}
"""

DESCRIPTION = (
    "InfoLM (Colombo et al. 2022): every word position of the prediction and of the reference is masked in "
    "turn, a masked language model's predicted vocabulary distributions (with a temperature) are averaged "
    "with idf weights into one bag of distributions per text, and the two bags are compared with an "
    "information measure (KL, alpha, beta, AB, Rényi, L1, L2, L∞ or Fisher-Rao). The direction depends on "
    "the measure: see `higher_is_better` in the output."
)


def make_scorer(spec: ModuleSpec, config: str | None, model: str | None = None, **load_options: Any):
    """The InfoLMScorer of the module: its config name or ``model=`` (both only where they agree:
    :meth:`~nlgmetrics.core.spec.ModuleSpec.check_weights`)."""
    from .scorer import InfoLMScorer  # torch: loaded when used (docs/architecture.md)

    return InfoLMScorer(spec, model, config=config, **load_options)


def top_tokens(details: dict) -> list[tuple[str, float | None]]:
    """The tokens whose probability differs most between the two bags, the difference scaled to [-1, 1]
    (positive: more likely given the prediction than the reference)."""
    tokens = details.get("top_tokens", [])
    scale = max((abs(t["difference"]) for t in tokens), default=0.0) or 1.0
    return [(t["token"], round(t["difference"] / scale, 3)) for t in tokens]


SPEC = ModuleSpec(
    name="infolm",
    family="infolm",
    title="InfoLM",
    description=DESCRIPTION,
    citation=CITATION,
    inputs=("predictions", "references"),
    configs=tuple(weights_for("masked_lm", "infolm")),
    default_config=DEFAULT_MODEL,
    config_option="model",
    weight_role=lambda config, option: "masked_lm",
    scorer=make_scorer,
    load_options=LOAD_OPTIONS,
    compute_options=COMPUTE_OPTIONS,
    higher_is_better=None,
    range_labels={"": "depends on the measure (KL ≤ 0; distances ≥ 0)"},
    details_range={"": (-1.0, 1.0)},  # the renderer scales the differences to [-1, 1]
    precision={
        "int8": {
            "": allowed(
                "its measured drift is within the bound that keeps correlations within 0.01 of float32's, "
                "and it ran 1.65-1.90× float32's speed on a bert-base MLM, 1 and 2 threads "
                "(benchmarks/results/int8_decision.md)"
            )
        }
    },
    score_range="depends on the measure: KL and alpha divergences ≤ 0 (higher is better); the other "
    "divergences and distances ≥ 0 (lower is better); Fisher-Rao in [0, π]",
    codebase_urls=(
        "https://github.com/PierreColombo/nlg_eval_via_simi_measures",
        "https://github.com/Lightning-AI/torchmetrics",
    ),
    reference_urls=("https://arxiv.org/abs/2112.01589",),
    example={
        "predictions": ["he read the book because he was interested in world history"],
        "references": [["he was interested in world history because he read the book"]],
    },
    details=top_tokens,
    default_why="The paper's and torchmetrics' model, so scores carry over to both.",
)

SPECS: dict[str, ModuleSpec] = {SPEC.name: SPEC}


def infolm(predictions: Sequence[str], references: Sequence[str | Sequence[str]], **options: Any) -> dict:
    """Functional form: ``infolm(preds, refs, measure="fisher_rao_distance", temperature=1.0)``; load options
    (``model``, ``device``, ...) and compute() options mix; the model comes from the process-wide cache."""
    return SPEC.call(None, predictions, references, **options)
