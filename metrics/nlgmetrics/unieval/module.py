"""The unieval module: its declaration (one config per UniEval task, each with its own inputs); its
evaluate class ``Unieval`` is written in :mod:`.metric`.

>>> SPEC.configs, SPEC.default_config
(('summarization', 'dialogue', 'data2text', 'fact'), 'summarization')
>>> SPEC.inputs_for("dialogue"), SPEC.inputs_for("fact")
(('predictions', 'sources', 'contexts'), ('predictions', 'sources'))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..core.modes import refused
from ..core.registry import WEIGHTS
from ..core.spec import ModuleSpec
from .options import COMPUTE_OPTIONS, LOAD_OPTIONS
from .tasks import DEFAULT_TASK, TASKS

CITATION = """\
@inproceedings{zhong2022unieval,
    title = "Towards a Unified Multi-Dimensional Evaluator for Text Generation",
    author = "Zhong, Ming and Liu, Yang and Yin, Da and Mao, Yuning and Jiao, Yizhu and Liu, Pengfei and
      Zhu, Chenguang and Ji, Heng and Han, Jiawei",
    booktitle = "Proceedings of the 2022 Conference on Empirical Methods in Natural Language Processing",
    year = "2022",
    url = "https://arxiv.org/abs/2210.07197",
}
"""

DESCRIPTION = (
    "UniEval (Zhong et al. 2022): every quality dimension is a yes/no question put to a T5 evaluator "
    "(unieval-sum, unieval-dialog or unieval-fact); the score of a dimension is p(Yes) / (p(Yes) + p(No)) "
    "at the first decoder step, asked per sentence of the prediction for consistency, fluency and "
    "engagingness (a sum), and `overall` is the mean of the computed dimensions. The config is the task: "
    "summarization (default), dialogue, data2text or fact."
)


def _inputs(task: str) -> tuple[str, ...]:
    fields = {f for dim in TASKS[task].dimensions.values() for f in dim.fields}
    return tuple(f for f in ("predictions", "sources", "references", "contexts") if f in fields)


def config_weights(spec: ModuleSpec | None, config: str) -> list:
    """The registered evaluator a task loads (for user interfaces that check availability).

    >>> [w.repo_id for w in config_weights(None, "data2text")]
    ['MingZhong/unieval-sum']
    """
    return [WEIGHTS[TASKS[config].model]]


def make_scorer(spec: ModuleSpec, config: str | None, **load_options: Any):
    """The UniEvalScorer of the task ``config`` (default summarization)."""
    from .scorer import UniEvalScorer  # torch: loaded when used (docs/architecture.md)

    return UniEvalScorer(spec, config, **load_options)


def parts(task: str, options: Mapping[str, Any]) -> tuple[str, ...]:
    """The sub-scores a call returns: the chosen dimensions (all of the task's by default), the custom
    questions, then ``overall`` (unless ``overall=False``, or the task has none: fact).

    >>> parts("fact", {}), parts("summarization", {"dimensions": "fluency", "questions": {"clarity": "..."}})
    (('consistency',), ('fluency', 'clarity', 'overall'))
    """
    known = TASKS[task].dimensions
    chosen = options.get("dimensions")
    chosen = list(known) if chosen is None else [chosen] if isinstance(chosen, str) else list(chosen)
    chosen += list(options.get("questions") or ())
    with_overall = options.get("overall") is not False and TASKS[task].overall
    return (*chosen, *(("overall",) if with_overall else ()))


def sentence_scores(details: dict) -> list[tuple[str, float | None]]:
    """(sentence, score) pairs of the first per-sentence dimension of one example, for a heat map."""
    for sentences in details.values():
        return [(s["sentence"], round(s["score"], 3)) for s in sentences]
    return []


SPEC = ModuleSpec(
    name="unieval",
    family="unieval",
    title="UniEval",
    description=DESCRIPTION,
    citation=CITATION,
    inputs=_inputs(DEFAULT_TASK),
    inputs_by_config={task: _inputs(task) for task in TASKS},
    configs=tuple(TASKS),
    config_weights=config_weights,
    weight_role=lambda task, option: "seq2seq",
    config_decides="the task (its inputs and questions)",
    default_config=DEFAULT_TASK,
    config_option="model",
    scorer=make_scorer,
    load_options=LOAD_OPTIONS,
    compute_options=COMPUTE_OPTIONS,
    higher_is_better=True,
    range_labels={"": "(0, 1)", "dialogue": "(0, 1); engagingness and overall can exceed 1"},
    details_range={"": (0.0, 1.0)},  # each sentence's score, every task
    precision={
        "int8": {
            "": refused(
                "it moved the dimension scores of an evaluator of t5-v1_1-large's shape past the bound that "
                "keeps correlations within 0.01 of float32's"
            )
        }
    },
    score_range="every dimension and the summarization/data2text overall in (0, 1); dialogue engagingness "
    "is a sum over sentences in (0, number of sentences), so the dialogue overall can exceed 1",
    codebase_urls=("https://github.com/maszhongming/UniEval",),
    reference_urls=("https://arxiv.org/abs/2210.07197",),
    example={
        "predictions": ["Peter and Elizabeth attend party city. Elizabeth rushed hospital."],
        "sources": [
            "Peter and Elizabeth took a taxi to attend the night party in the city. While in the party, "
            "Elizabeth collapsed and was rushed to the hospital."
        ],
        "references": ["Elizabeth was hospitalized after attending a party with Peter."],
    },
    details=sentence_scores,
    parts=parts,
    default_why="The configs are UniEval's tasks, not variants of one measurement: pick your task's. "
    "Summarization comes first, as in UniEval's code and paper (SummEval), and its evaluator `unieval-sum` "
    "also serves data2text.",
)

SPECS: dict[str, ModuleSpec] = {SPEC.name: SPEC}


def unieval(predictions: Sequence[str], *texts: Sequence, task: str | None = None, **options: Any) -> dict:
    """Functional form: ``unieval(summaries, documents, references, task="summarization")``; the other
    texts follow ``predictions`` in the order of the task's inputs (``SPEC.inputs_for(task)``; or give them
    by name); load options (``model``, ``device``, ...) and compute() options mix; the evaluator comes from
    the process-wide cache."""
    return SPEC.call(task, predictions, *texts, **options)
