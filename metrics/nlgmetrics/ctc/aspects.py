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


CONTEXT_AND_SOURCE = "contexts+sources"
"""The text engagingness aligns against: the fact, ``ENGAGINGNESS_JOIN``, the dialog history (each
stripped)."""


@dataclass(frozen=True)
class Align:
    """One alignment an aspect runs for each example: ``align(a → b)`` with the checkpoint of ``direction``.

    ``a`` and ``b`` name input fields; ``a="references"`` aligns each reference in turn, and
    ``b="contexts+sources"`` is the fact and the history joined (:data:`CONTEXT_AND_SOURCE`).

    Its pairs of texts, per example, are the scorer's (:func:`nlgmetrics.ctc.scorer.alignment_pairs`): this
    file declares, it runs nothing.
    """

    direction: str
    a: str
    b: str


@dataclass(frozen=True)
class Aspect:
    """One CTC aspect: its inputs, the alignments it runs, how it combines them, its reference defaults."""

    name: str
    inputs: tuple[str, ...]
    alignments: tuple[Align, ...]
    aggregation: str
    remove_stopwords: bool
    default_variant: str
    """The default config: the best variant whose weights load from the Hub (docs/weights.md)."""
    paper_variant: str
    """The variant the paper found best for the aspect (the default once its weights are on the Hub)."""
    combine: Callable[[Mapping[str, float]], float]

    @property
    def directions(self) -> tuple[str, ...]:
        """The checkpoint directions the aspect needs, in order (a variant must have all of them)."""
        return tuple(dict.fromkeys(align.direction for align in self.alignments))


Y_X = "predictions→sources"
X_Y = "sources→predictions"
Y_CX = f"predictions→{CONTEXT_AND_SOURCE}"
Y_C = "predictions→contexts"

ASPECTS: dict[str, Aspect] = {
    aspect.name: aspect
    for aspect in [
        Aspect(
            "consistency",
            ("predictions", "sources"),
            (Align("doc_to_summ", "predictions", "sources"),),
            "mean",
            False,
            "E-bert",
            "D-cnndm",
            lambda s: s[Y_X],
        ),
        Aspect(
            "relevance",
            ("predictions", "sources", "references"),
            (
                Align("doc_to_summ", "predictions", "sources"),
                Align("summ_to_ref", "references", "predictions"),
            ),
            "mean",
            False,
            "E-roberta",
            "E-roberta",
            lambda s: s[Y_X] * _mean([v for k, v in s.items() if k.startswith("references")]),
        ),
        Aspect(
            "preservation",
            ("predictions", "sources"),
            (
                Align("sent_to_sent", "sources", "predictions"),
                Align("sent_to_sent", "predictions", "sources"),
            ),
            "mean",
            False,
            "E-roberta-mnli",
            "E-roberta-mnli",
            lambda s: harmonic_mean(s[X_Y], s[Y_X]),
        ),
        Aspect(
            "engagingness",
            ("predictions", "sources", "contexts"),
            (Align("fact_history_to_response", "predictions", CONTEXT_AND_SOURCE),),
            "sum",
            True,
            "E-minilm",
            "D-topical_chat",
            lambda s: s[Y_CX],
        ),
        Aspect(
            "groundedness",
            ("predictions", "contexts"),
            (Align("fact_to_response", "predictions", "contexts"),),
            "sum",
            True,
            "E-minilm",
            "R-topical_chat",
            lambda s: s[Y_C],
        ),
    ]
}


def aspect_named(name: str) -> Aspect:
    """The aspect called ``name``; another name is a ValueError listing the five."""
    if name not in ASPECTS:
        raise ValueError(f"unknown CTC aspect {name!r}; choose one of {sorted(ASPECTS)}")
    return ASPECTS[name]


def variants_for(aspect: str) -> list[str]:
    """Registered aligner variants that have a checkpoint for every direction the aspect needs."""
    needed = ASPECTS[aspect].directions
    return [name for name, v in CTC_VARIANTS.items() if all(v.weight_for(d) is not None for d in needed)]
