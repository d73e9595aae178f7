"""The batch mode's distribution of the scores, free of Gradio: the scores counted in bins whose edges are
round numbers (a width of 1, 2, 2.5 or 5 times a power of ten), drawn as an inline SVG whose count axis has
whole-number ticks (it counts examples); each bar's range and count on hover.

>>> nice_step(0.265), nice_step(3.0), nice_step(0.0)
(0.05, 0.5, 1.0)
>>> count_step(2), count_step(12), count_step(230)
(1, 5, 50)
>>> edges, counts = bins([0.446, 0.49, 0.512, 0.62, 0.667, 0.711])
>>> edge_labels(edges), counts
(['0.40', '0.45', '0.50', '0.55', '0.60', '0.65', '0.70', '0.75'], [1, 1, 1, 0, 1, 1, 1])
>>> bins([0.5, 0.5])
([0.5, 0.6], [2])
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

MANTISSAS = (1.0, 2.0, 2.5, 5.0, 10.0)
"""Bin widths are one of these times a power of ten."""
TARGET_BINS = 8
"""About how many bins the scores' range is cut into."""
WIDTH, HEIGHT, LEFT, BOTTOM, TOP, RIGHT = 720, 240, 48, 44, 12, 16
"""The plot's size in pixels and its margins (the count labels on the left, the edges and the axis title
below)."""
_EPS = 1e-9


def nice_step(span: float, target: int = TARGET_BINS) -> float:
    """A round bin width near ``span / target`` (1, 2, 2.5 or 5 times a power of ten, at least as wide); 1.0
    for a span of 0."""
    if span <= 0:
        return 1.0
    raw = span / target
    power = 10.0 ** math.floor(math.log10(raw))
    width = next(m * power for m in MANTISSAS if m * power >= raw * (1 - _EPS))
    return float(f"{width:.12g}")  # 0.05, not 0.05000000000000001


def count_step(most: int, ticks: int = 5) -> int:
    """A whole-number tick step for a count axis up to ``most`` (1, 2 or 5 times a power of ten, at most
    about ``ticks`` ticks): examples are never counted in halves."""
    step = 1
    while most / step > ticks:
        step = step * 5 // 2 if str(step)[0] == "2" else step * 2  # 1, 2, 5, 10, 20, 50, ...
    return step


def bins(values: Sequence[float]) -> tuple[list[float], list[int]]:
    """The edges (round numbers, one more than the bins) and each bin's count of ``values``; a bin holds
    [left, right), the last one its right edge too. Equal values make one bin a tenth of their size wide."""
    low, high = min(values), max(values)
    step = nice_step(high - low) if high > low else nice_step(max(abs(low), 1.0), target=10)
    start = math.floor(low / step + _EPS) * step
    count = max(1, math.ceil((high - start) / step - _EPS))
    edges = [float(f"{start + k * step:.12g}") for k in range(count + 1)]
    counts = [0] * count
    for value in values:
        counts[min(count - 1, math.floor((value - start) / step + _EPS))] += 1
    return edges, counts


def edge_labels(edges: Sequence[float]) -> list[str]:
    """The edges as printed: as many decimals as the bin width needs, the same for every edge."""
    step = float(f"{edges[1] - edges[0]:.12g}")
    decimals = max(0, -math.floor(math.log10(step) + _EPS))
    if f"{step / 10.0 ** math.floor(math.log10(step) + _EPS):.12g}" == "2.5":
        decimals += 1  # 0.25, 2.5
    return [f"{edge:.{decimals}f}".replace("-", "−") for edge in edges]


def histogram_svg(scores: Sequence[float | None]) -> str:
    """The distribution of the scores that are numbers (NaN and None left out, and said) as an inline SVG
    under a one-line caption ("" when no score is a number)."""
    values = [v for v in scores if isinstance(v, (int, float)) and not math.isnan(v)]
    if not values:
        return ""
    edges, counts = bins(values)
    labels = edge_labels(edges)
    most = max(counts)
    step = count_step(most)
    top = math.ceil(most / step) * step
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def y(count: float) -> float:
        return round(TOP + plot_h * (1 - count / top), 1)

    bar_w = plot_w / len(counts)
    parts = []
    for tick in range(0, top + 1, step):
        parts.append(
            f'<line x1="{LEFT}" y1="{y(tick)}" x2="{WIDTH - RIGHT}" y2="{y(tick)}" stroke="#ddd"/>'
            f'<text class="nlgm-count-tick" x="{LEFT - 6}" y="{y(tick) + 4}" text-anchor="end">{tick}</text>'
        )
    for k, count in enumerate(counts):
        x = round(LEFT + k * bar_w, 1)
        title = f"{labels[k]} to {labels[k + 1]}: {count} example{'' if count == 1 else 's'}"
        parts.append(
            f'<rect class="nlgm-bin" x="{x + 1}" y="{y(count)}" width="{round(bar_w - 2, 1)}" '
            f'height="{round(y(0) - y(count), 1)}" fill="#f97316"><title>{html.escape(title)}</title></rect>'
        )
    for k, label in enumerate(labels):
        x = round(LEFT + k * bar_w, 1)
        parts.append(f'<text class="nlgm-edge" x="{x}" y="{y(0) + 16}" text-anchor="middle">{label}</text>')
    parts.append(
        f'<text x="{LEFT + plot_w / 2}" y="{HEIGHT - 6}" text-anchor="middle" fill="#555">score</text>'
    )
    left_out = len(scores) - len(values)
    caption = f"Examples per score range ({len(values)} scored"
    caption += f"; {left_out} with no score (NaN) left out)" if left_out else ")"
    return (
        f'<p class="nlgm-caption" style="margin:0 0 4px;font-size:13px">{caption}; hover a bar for its range '
        f'and count.</p><svg class="nlgm-histogram" xmlns="http://www.w3.org/2000/svg" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" width="100%" style="max-width:{WIDTH}px;font:12px sans-serif">'
        f"{''.join(parts)}</svg>"
    )
