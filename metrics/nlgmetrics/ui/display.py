"""How the Space shows a score: rounded to :data:`DIGITS` decimals in a table, printed with all of them; and
where a heat map's values sit on the range their module declares (:func:`centred`)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from typing import Any

DIGITS = 4
"""Decimals of every score the Space shows (text, tables, notes, heat-map values)."""


def display(value: Any, digits: int = DIGITS) -> Any:
    """A number as the Space keeps it in a table (rounded; NaN as None)."""
    if isinstance(value, float):
        return None if math.isnan(value) else round(value, digits)
    return value


def score_text(value: Any) -> str:
    """A score as the Space prints it: always :data:`DIGITS` decimals, so that 0.512 is not shown beside
    0.5123; a missing score (NaN, None) as "NaN"; a whole number (a row, a count) as it is.

    >>> score_text(0.512), score_text(-0.0), score_text(float("nan")), score_text(None), score_text(3)
    ('0.5120', '0.0000', 'NaN', 'NaN', '3')
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "NaN"
    if isinstance(value, float):
        return f"{value + 0.0:.{DIGITS}f}".replace("-0.0000", "0.0000")
    return str(value)


def code_span(text: str) -> str:
    """``text`` as one Markdown code span that shows it as it is: fenced by more backticks than its longest
    run of them (padded with a space when it starts or ends with one); a name that is empty, or holds line
    breaks or other control characters, is shown as a JSON string, escapes and all.

    >>> code_span("id"), code_span("a`b"), code_span("`x"), code_span("a\\nb")
    ('`id`', '``a`b``', '`` `x ``', '`"a\\\\nb"`')
    """
    text = str(text)
    if not text or any(not c.isprintable() for c in text):
        text = json.dumps(text, ensure_ascii=False)
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text[0] == "`" or text[-1] == "`" or (text[0] == " " and text[-1] == " ") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


SIGNED = (-1.0, 1.0)
"""The scale of values that are signed around 0 (cosines, InfoLM's scaled differences)."""


def centred(value: float, scale: tuple[float, float] = SIGNED) -> float:
    """``value`` on the scale (low, high) moved to −1 … +1, the scale's middle at 0, clipped to it.

    >>> centred(0.23, (0.0, 1.0)), centred(0.5, (0.0, 1.0)), centred(2.0), centred(-0.25, (-1.0, 0.0))
    (-0.54, 0.0, 1.0, 0.5)
    """
    low, high = scale
    return max(-1.0, min(1.0, (2 * value - (low + high)) / (high - low)))  # on −1 … +1: the value itself


def scale_of(declared: tuple[float, float] | None, values: Sequence[float | None]) -> tuple[float, float]:
    """A heat map's colour scale: the module's declared range (``ModuleSpec.details_scale``), else (values
    without bounds) ±the largest magnitude among ``values`` (±1 when there is none)."""
    if declared is not None:
        return declared
    finite = [abs(v) for v in values if v is not None and not math.isnan(v)]
    largest = max(finite, default=0.0) or 1.0
    return (-largest, largest)
