"""The five CTC aspects (Deng et al. 2021): inputs, alignment directions, aggregation, defaults.

- consistency: ``mean(align(y → x))``; inputs predictions, sources.
- relevance: ``mean(align(y → x)) × mean over r of mean(align(r → y))``; + references.
- preservation: ``2ab/(a+b)`` with ``a = mean(align(x → y))``, ``b = mean(align(y → x))``.
- engagingness: ``sum(align(y → c + "\\n\\n\\n" + x))``, stopwords removed; predictions, sources, contexts.
- groundedness: ``sum(align(y → c))``, stopwords removed; predictions, contexts.

(y = prediction, x = source, c = context, r = reference.)

>>> variants_for("preservation")
['E-bert', 'E-roberta', 'E-roberta-mnli', 'E-minilm', 'D-yelp', 'R-yelp']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from .variants import CTC_VARIANTS

ENGAGINGNESS_JOIN = "\n\n\n"
"""How CTC joins the fact and the dialog history for engagingness: fact first."""


def harmonic_mean(a: float, b: float) -> float:
    """2ab/(a+b), the true harmonic mean (0 when both are 0).

    >>> harmonic_mean(0.5, 1.0)
    0.6666666666666666
    """
    return 0.0 if a + b == 0 else 2 * a * b / (a + b)


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


@dataclass(frozen=True)
class Aspect:
    """One CTC aspect: its inputs, the alignment directions it needs, its reference defaults."""

    name: str
    inputs: tuple[str, ...]
    directions: tuple[str, ...]
    aggregation: str
    remove_stopwords: bool
    default_variant: str
    combine: Callable[[Mapping[str, float]], float]


Y_X = "predictions→sources"
X_Y = "sources→predictions"
Y_CX = "predictions→contexts+sources"
Y_C = "predictions→contexts"

ASPECTS: dict[str, Aspect] = {
    aspect.name: aspect
    for aspect in [
        Aspect(
            "consistency",
            ("predictions", "sources"),
            ("doc_to_summ",),
            "mean",
            False,
            "D-cnndm",
            lambda s: s[Y_X],
        ),
        Aspect(
            "relevance",
            ("predictions", "sources", "references"),
            ("doc_to_summ", "summ_to_ref"),
            "mean",
            False,
            "E-roberta",
            lambda s: s[Y_X] * _mean([v for k, v in s.items() if k.startswith("references")]),
        ),
        Aspect(
            "preservation",
            ("predictions", "sources"),
            ("sent_to_sent",),
            "mean",
            False,
            "E-roberta-mnli",
            lambda s: harmonic_mean(s[X_Y], s[Y_X]),
        ),
        Aspect(
            "engagingness",
            ("predictions", "sources", "contexts"),
            ("fact_history_to_response",),
            "sum",
            True,
            "D-topical_chat",
            lambda s: s[Y_CX],
        ),
        Aspect(
            "groundedness",
            ("predictions", "contexts"),
            ("fact_to_response",),
            "sum",
            True,
            "R-topical_chat",
            lambda s: s[Y_C],
        ),
    ]
}


def variants_for(aspect: str) -> list[str]:
    """Registered aligner variants that have a checkpoint for every direction the aspect needs."""
    needed = ASPECTS[aspect].directions
    return [name for name, v in CTC_VARIANTS.items() if all(v.weight_for(d) is not None for d in needed)]
