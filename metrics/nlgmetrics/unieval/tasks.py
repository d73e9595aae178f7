"""UniEval's task table: each task's evaluator and its dimensions (plain data, no model library).

>>> list(TASKS["summarization"].dimensions)
['coherence', 'consistency', 'fluency', 'relevance']
>>> engagingness = TASKS["dialogue"].dimensions["engagingness"]
>>> engagingness.fields, engagingness.per_sentence
(('predictions', 'sources', 'contexts'), 'sum')
>>> TASKS["fact"].model, TASKS["data2text"].model
('unieval-fact', 'unieval-sum')
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Any

PLACEHOLDERS = {
    "prediction": "predictions",
    "source": "sources",
    "reference": "references",
    "context": "contexts",
}
"""Question placeholder → the compute() field that fills it (the first reference of ``references``)."""

MAX_LENGTH = 1024
"""Input tokens kept (right truncation), as UniEval's ``--max_source_length``."""


def placeholders(template: str) -> tuple[str, ...]:
    """The placeholders a question reads, in order; an unknown one is a ValueError.

    >>> placeholders("question: Is this fine? </s> summary: {prediction} </s> document: {source}")
    ('prediction', 'source')
    """
    found = []
    try:
        parts = list(string.Formatter().parse(template))
    except (
        ValueError
    ) as err:  # "Single '}' encountered in format string", "expected '}' before end of string"
        raise ValueError(
            f"question {template!r} has an unmatched brace ({err}); write a literal brace as {{{{ or }}}}"
        ) from None
    for _, name, spec, conversion in parts:
        if name is None:
            continue
        if name not in PLACEHOLDERS or spec or conversion:
            raise ValueError(
                f"question {template!r}: {{{name}}} is not a placeholder; use "
                f"{', '.join('{' + p + '}' for p in PLACEHOLDERS)}"
            )
        if name not in found:
            found.append(name)
    return tuple(found)


@dataclass(frozen=True)
class Dimension:
    """One question: its template (``{prediction}``, ``{source}``, ``{reference}``, ``{context}``) and
    whether the prediction is asked about sentence by sentence (``"mean"`` or ``"sum"`` of the scores)."""

    name: str
    question: str
    per_sentence: str | None = None

    @property
    def fields(self) -> tuple[str, ...]:
        """The compute() fields the question reads."""
        return tuple(PLACEHOLDERS[p] for p in placeholders(self.question))

    def text(self, **values: str) -> str:
        """The model input: the template with the texts put in (plain concatenation, as UniEval)."""
        return self.question.format(**values)


@dataclass(frozen=True)
class Task:
    name: str
    model: str
    """Key of :data:`nlgmetrics.core.registry.WEIGHTS`."""
    dimensions: dict[str, Dimension]
    overall: bool = True
    headline: str = "overall"
    """What ``scores`` holds: ``overall`` or one dimension."""


def _task(name: str, model: str, *dims: tuple[str, str, str | None], **kwargs: Any) -> Task:
    return Task(name, model, {d: Dimension(d, q, s) for d, q, s in dims}, **kwargs)


_CONSISTENCY = (
    "question: Is this claim consistent with the document? </s> claim: {prediction} </s> document: {source}"
)

TASKS: dict[str, Task] = {
    task.name: task
    for task in (
        _task(
            "summarization",
            "unieval-sum",
            (
                "coherence",
                "question: Is this a coherent summary to the document? </s> summary: {prediction} </s> "
                "document: {source}",
                None,
            ),
            ("consistency", _CONSISTENCY, "mean"),
            ("fluency", "question: Is this a fluent paragraph? </s> paragraph: {prediction}", "mean"),
            (
                "relevance",
                "question: Is this summary relevant to the reference? </s> summary: {prediction} </s> "
                "reference: {reference}",
                None,
            ),
        ),
        _task(
            "dialogue",
            "unieval-dialog",
            (
                "naturalness",
                "question: Is this a natural response in the dialogue? </s> response: {prediction}",
                None,
            ),
            (
                "coherence",
                "question: Is this a coherent response given the dialogue history? </s> response: "
                "{prediction} </s> dialogue history: {source}",
                None,
            ),
            (
                "engagingness",
                "question: Is this an engaging and informative response according to the dialogue history "
                "and fact? </s> response: {prediction} </s> dialogue history: {source} </s> fact: {context}",
                "sum",
            ),
            (
                "groundedness",
                "question: Is this response consistent with knowledge in the fact? </s> response: "
                "{prediction} </s> fact: {context}",
                None,
            ),
            (
                "understandability",
                "question: Is this an understandable response in the dialogue? </s> response: {prediction}",
                None,
            ),
        ),
        _task(
            "data2text",
            "unieval-sum",
            ("naturalness", "question: Is this a fluent utterance? </s> utterance: {prediction}", None),
            (
                "informativeness",
                "question: Is this sentence informative according to the reference? </s> sentence: "
                "{prediction} </s> reference: {reference}",
                None,
            ),
        ),
        _task(
            "fact",
            "unieval-fact",
            ("consistency", _CONSISTENCY, "mean"),
            overall=False,
            headline="consistency",
        ),
    )
}
"""UniEval's tasks, each with its evaluator and its dimensions in UniEval's default order."""

DEFAULT_TASK = "summarization"
MULTI_REFERENCE = ("first", "mean", "max")
