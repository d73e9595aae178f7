"""Comparing two systems with one or more metrics, free of Gradio: which system each example's scores
prefer, the summary table, the counts the plot draws, the per-example table, and whether B differs from
A beyond chance (:func:`significance`: :func:`nlgmetrics.significance.compare`, seed 0, 1000 resamples).

>>> one = MetricComparison("m", "c", {"scores": [0.2, 0.5], "mean_score": 0.35, "higher_is_better": True},
...                        {"scores": [0.4, 0.5], "mean_score": 0.45, "higher_is_better": True})
>>> one.winners()
['B', 'tie']
>>> summary_table([one]).rows
[['m', 'c', 0.35, 0.45, 'B', 0, 1, 1]]
>>> per_example_table([one], [{"id": "d1", "predictions": "a"}, {"id": "d2", "predictions": "b"}]).rows
[['d1', 'm', 0.2, 0.4, 'B', 'a', ''], ['d2', 'm', 0.5, 0.5, 'tie', 'b', '']]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..records import display
from .tables import Table, cell, example_labels


def preferred(a: float | None, b: float | None, higher_is_better: bool | None) -> str:
    """Which of two scores the metric prefers: ``"A"``, ``"B"``, ``"tie"``, ``"n/a"`` (a score is missing)
    or ``"?"`` (the direction is unknown).

    >>> preferred(0.1, 0.3, True), preferred(0.1, 0.3, False), preferred(0.3, 0.3, None), preferred(None, 1, True)
    ('B', 'A', 'tie', 'n/a')
    """
    if a is None or b is None or math.isnan(a) or math.isnan(b):
        return "n/a"
    if a == b:
        return "tie"
    if higher_is_better is None:
        return "?"
    return "A" if (a > b) == higher_is_better else "B"


@dataclass(frozen=True)
class MetricComparison:
    """One metric's compute() results on system A and system B (the same inputs, in the same order)."""

    name: str
    config: str
    result_a: dict
    result_b: dict
    note: str = field(default="")
    """Why ``config`` is not the one asked for ("" when it is)."""

    @property
    def higher_is_better(self) -> bool | None:
        return self.result_a.get("higher_is_better")

    def pairs(self) -> list[tuple[float, float]]:
        """(score A, score B) per example."""
        return list(zip(self.result_a["scores"], self.result_b["scores"]))

    def winners(self) -> list[str]:
        """:func:`preferred` of each example."""
        return [preferred(a, b, self.higher_is_better) for a, b in self.pairs()]

    def counts(self) -> dict[str, int]:
        """Examples each system wins, and ties."""
        winners = self.winners()
        return {key: winners.count(key) for key in ("A", "B", "tie")}


SUMMARY_COLUMNS = ("metric", "config", "mean A", "mean B", "preferred", "A wins", "B wins", "ties")


def summary_table(comparisons: Sequence[MetricComparison]) -> Table:
    """One row per metric: the config, both means (rounded as shown), the preferred system, the counts."""
    rows = []
    for c in comparisons:
        mean_a, mean_b = c.result_a["mean_score"], c.result_b["mean_score"]
        counts = c.counts()
        rows.append(
            [
                c.name,
                c.config,
                display(mean_a),
                display(mean_b),
                preferred(mean_a, mean_b, c.higher_is_better),
                counts["A"],
                counts["B"],
                counts["tie"],
            ]
        )
    return Table(SUMMARY_COLUMNS, rows)


def counts_table(comparisons: Sequence[MetricComparison]) -> Table:
    """What the bar plot draws: examples preferring A, B or neither, per metric."""
    rows = [[c.name, key, count] for c in comparisons for key, count in c.counts().items()]
    return Table(("metric", "preferred", "examples"), rows)


def per_example_table(
    comparisons: Sequence[MetricComparison],
    records_a: Sequence[dict],
    records_b: Sequence[dict] | None = None,
) -> Table:
    """One row per example and metric: the example (the records' ``id``, else its 1-based row), the
    metric, both scores (rounded as shown), the preferred system, then both predictions (cut to a
    cell's length, the full text on hover)."""
    label, labels = example_labels(records_a)
    texts_a = [r.get("predictions", "") for r in records_a]
    texts_b = [r.get("predictions", "") for r in records_b] if records_b is not None else [""] * len(texts_a)
    rows = []
    for c in comparisons:
        for name, (a, b), winner, text_a, text_b in zip(labels, c.pairs(), c.winners(), texts_a, texts_b):
            rows.append([name, c.name, display(a), display(b), winner, cell(text_a), cell(text_b)])
    columns = (label, "metric", "A", "B", "preferred", "prediction A", "prediction B")
    return Table(columns, rows, ("prediction A", "prediction B"))


RESAMPLES = 1000
SEED = 0


def significance(comparison: MetricComparison) -> dict[str, Any] | None:
    """:func:`nlgmetrics.significance.compare` of B against A on this metric's per-example scores (the
    direction from the result's ``higher_is_better``; seed :data:`SEED`, :data:`RESAMPLES` resamples), or
    None with fewer than 2 pairs of scores."""
    from ...significance import compare

    a, b = comparison.result_a["scores"], comparison.result_b["scores"]
    usable = sum(1 for x, y in zip(a, b) if not (_missing(x) or _missing(y)))
    if usable < 2:
        return None
    return compare(a, b, higher_is_better=comparison.higher_is_better, resamples=RESAMPLES, seed=SEED)


def _missing(value: float | None) -> bool:
    return value is None or math.isnan(value)


def _signed(value: float) -> str:
    return f"{value:+.4f}".replace("-", "−")


def significance_cells(stats: dict[str, Any]) -> list[str]:
    """One metric's row of :func:`significance_markdown`: Δ, the interval, the p-value, wins/ties/losses.

    >>> significance_cells({"delta": 0.01234, "ci_low": -0.002, "ci_high": 0.03, "p_value": 0.0999,
    ...                     "wins": 2, "ties": 0, "losses": 1, "confidence": 0.95})
    ['+0.0123', '[−0.0020, +0.0300]', '0.0999', '2 / 0 / 1']
    """
    return [
        _signed(stats["delta"]),
        f"[{_signed(stats['ci_low'])}, {_signed(stats['ci_high'])}]",
        f"{stats['p_value']:.3g}",
        f"{stats['wins']} / {stats['ties']} / {stats['losses']}",
    ]


def significance_markdown(comparisons: Sequence[MetricComparison]) -> str:
    """Under the paired plot: per metric Δ (mean B − mean A), its 95% interval, the p-value and B's
    wins/ties/losses, with how they were computed; a metric with fewer than 2 examples says so."""
    lines = [
        "| metric | Δ (mean B − mean A) | 95% interval | p-value | B wins / ties / losses |",
        "|---|---|---|---|---|",
    ]
    short, dropped = [], []
    for c in comparisons:
        stats = significance(c)
        if stats is None:
            short.append(c.name)
            continue
        lines.append(f"| `{c.name}` | " + " | ".join(significance_cells(stats)) + " |")
        if stats["dropped"]:
            dropped.append(f"`{c.name}`: {stats['dropped']}")
    lines = ["**B against A: a difference beyond chance?**", "", *lines] if len(lines) > 2 else []
    notes = [
        f"Paired bootstrap percentile interval and two-sided approximate randomization test "
        f"(`nlgmetrics.compare`, {RESAMPLES} resamples, seed {SEED}); B wins where its score is better in the "
        "metric's direction."
    ]
    if dropped:
        notes.append(f"Pairs with a NaN score were left out ({', '.join(dropped)}).")
    if short:
        notes.append(
            f"{', '.join(f'`{n}`' for n in short)}: the interval and the p-value need at least 2 examples "
            "scored on both sides (compare two system files)."
        )
    return "\n".join([*lines, "", *notes]).strip()
