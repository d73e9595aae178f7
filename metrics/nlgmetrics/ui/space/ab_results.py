"""What the *Compare A/B* mode (:mod:`.compare`, the tab) shows, computed free of Gradio: which system each
example's scores prefer, the summary table, the per-example table, whether B differs from A beyond chance
(:func:`significance`: :func:`nlgmetrics.significance.compare`, seed 0, 1000 resamples), and the plot that
decision rests on (:func:`delta_plot`: each example's difference B − A, the mean Δ and its interval).

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

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..display import display
from .tables import Table, cell, example_labels


def preferred(a: float | None, b: float | None, higher_is_better: bool | None) -> str:
    """Which of two scores the metric prefers: ``"A"``, ``"B"``, ``"tie"``, ``"n/a"`` (a score is missing)
    or ``"?"`` (the direction is unknown).

    >>> (preferred(0.1, 0.3, True), preferred(0.1, 0.3, False), preferred(0.3, 0.3, None),
    ...  preferred(None, 1, True))
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
        "Paired bootstrap percentile interval and two-sided approximate randomization test "
        f"(`nlgmetrics.compare`, {RESAMPLES} resamples, seed {SEED}); B wins where its score is better in "
        "the metric's direction."
    ]
    if dropped:
        notes.append(f"Pairs with a NaN score were left out ({', '.join(dropped)}).")
    if short:
        notes.append(
            f"{', '.join(f'`{n}`' for n in short)}: the interval and the p-value need at least 2 examples "
            "scored on both sides (compare two system files)."
        )
    return "\n".join([*lines, "", *notes]).strip()


PLOT_WIDTH, ROW_HEIGHT, LEFT, RIGHT = 720, 92, 170, 24
"""The difference plot's size in pixels: its width, one row per metric, the metric names' margin."""


def differences(comparison: MetricComparison) -> list[tuple[int, float]]:
    """(0-based example, score B − score A) of every example scored on both sides.

    >>> one = MetricComparison("m", "c", {"scores": [0.2, float("nan")]}, {"scores": [0.5, 0.1]})
    >>> [(i, round(d, 6)) for i, d in differences(one)]
    [(0, 0.3)]
    """
    return [(i, b - a) for i, (a, b) in enumerate(comparison.pairs()) if not (_missing(a) or _missing(b))]


def _svg_row(comparison: MetricComparison, labels: Sequence[Any], stats: dict | None, top: int) -> list[str]:
    """One metric's row of :func:`delta_plot`: the zero line, a dot per example, the mean Δ and its
    interval."""
    diffs = differences(comparison)
    values = [d for _, d in diffs] + ([stats["ci_low"], stats["ci_high"]] if stats else [])
    reach = max((abs(v) for v in values), default=0.0) or 1.0
    half = (PLOT_WIDTH - LEFT - RIGHT) / 2
    zero, mid = LEFT + half, top + 38

    def x(value: float) -> float:
        return round(zero + value / reach * half * 0.95, 1)

    better = {True: ("A better", "B better"), False: ("B better", "A better")}.get(
        comparison.higher_is_better
    )
    out = [
        f'<text x="8" y="{mid + 4}" font-weight="bold">{html.escape(comparison.name)}</text>',
        f'<text x="8" y="{mid + 20}" fill="#555">{html.escape(comparison.config)}</text>',
        f'<line x1="{zero}" y1="{top + 10}" x2="{zero}" y2="{top + 66}" stroke="#888" stroke-dasharray="4 '
        '3"/>',
        f'<text x="{LEFT}" y="{top + 84}" fill="#555">{_signed(-reach)}</text>',
        f'<text x="{zero}" y="{top + 84}" fill="#555" text-anchor="middle">0</text>',
        f'<text x="{PLOT_WIDTH - RIGHT}" y="{top + 84}" fill="#555" '
        f'text-anchor="end">{_signed(reach)}</text>',
    ]
    if better:
        out.append(f'<text x="{zero - 6}" y="{top + 12}" fill="#555" text-anchor="end">← {better[0]}</text>')
        out.append(f'<text x="{zero + 6}" y="{top + 12}" fill="#555">{better[1]} →</text>')
    for k, (i, d) in enumerate(diffs):
        y = mid - 14 + (k * 7) % 22  # a little vertical spread so that equal differences stay visible
        out.append(
            f'<circle class="nlgm-diff" cx="{x(d)}" cy="{y}" r="4" fill="#1f77b4" fill-opacity="0.6">'
            f"<title>{html.escape(str(labels[i]))}: B − A = {_signed(d)}</title></circle>"
        )
    if stats:
        low, high, delta = stats["ci_low"], stats["ci_high"], stats["delta"]
        cells = significance_cells(stats)
        out.append(
            f'<g class="nlgm-mean"><title>mean Δ {cells[0]}, 95% interval {cells[1]}</title>'
            f'<line x1="{x(low)}" y1="{mid + 16}" x2="{x(high)}" y2="{mid + 16}" stroke="#d62728" '
            f'stroke-width="4"/><circle cx="{x(delta)}" cy="{mid + 16}" r="6" fill="#d62728"/></g>'
        )
    elif diffs:
        delta = sum(d for _, d in diffs) / len(diffs)
        out.append(
            f'<g class="nlgm-mean"><title>mean Δ {_signed(delta)} (no interval: fewer than 2 '
            f'examples)</title><circle cx="{x(delta)}" cy="{mid + 16}" r="6" fill="#d62728"/></g>'
        )
    return out


def delta_plot(comparisons: Sequence[MetricComparison], records: Sequence[dict]) -> str:
    """What "is B better?" rests on, one row per metric (each on its own scale): every example's difference
    B − A as a dot (its label and value on hover), and in red the mean Δ with its 95% interval
    (:func:`significance`), beside the zero line; a caption and an inline SVG ("" with no comparisons)."""
    if not comparisons:
        return ""
    _, labels = example_labels(records)
    height = ROW_HEIGHT * len(comparisons) + 4
    rows = []
    for k, c in enumerate(comparisons):
        rows += _svg_row(c, labels, significance(c), 4 + k * ROW_HEIGHT)
    caption = (
        '<p class="nlgm-caption" style="margin:0 0 4px;font-size:13px">Each blue dot: one example, score B − '
        f"score A (hover for the example). Red: the mean Δ and its 95% interval ({RESAMPLES} paired "
        "bootstrap resamples); an interval that crosses the dashed zero line is no clear difference.</p>"
    )
    return (
        f'{caption}<svg class="nlgm-delta" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {PLOT_WIDTH} '
        f'{height}" width="100%" style="max-width:{PLOT_WIDTH}px;font:12px '
        f'sans-serif">{"".join(rows)}</svg>'
    )
