"""Per-example tables as the Space shows them, free of Gradio: the file's ``id`` (else the 1-based row)
first, then the scores, then the texts, each long text cut to :data:`TEXT_CHARS` characters with the full
text on hover (a Markdown cell holding ``<span title="...">``).

>>> cell("short <b>text</b>")
'short &lt;b&gt;text&lt;/b&gt;'
>>> cell("abcdefgh", limit=5)
'<span title="abcdefgh">abcd…</span>'
>>> example_labels([{"id": "d1"}, {"id": "d2"}]), example_labels([{"predictions": "a"}, {}])
(('id', ['d1', 'd2']), ('row', [1, 2]))
>>> t = scored_table([{"id": 7, "predictions": "a"}], {"scores": [0.51234], "mean_score": 0.51234})
>>> t.columns, t.rows
(('id', 'scores', 'predictions'), [[7, 0.5123, 'a']])
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...records import per_example
from ..display import display, score_text

TEXT_CHARS = 80
"""Characters of a text shown in a table cell; the rest is on hover."""

_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+!|~])")


@dataclass(frozen=True)
class Table:
    """Column names and rows (lists), ready for a data frame; ``text_columns`` hold Markdown cells."""

    columns: tuple[str, ...]
    rows: list[list[Any]]
    text_columns: tuple[str, ...] = ()

    def datatypes(self) -> list[str]:
        """Gradio's per-column datatype: Markdown for the text columns (their hover), numbers, else text."""
        return [
            "markdown"
            if column in self.text_columns
            else "number"
            if self.rows and all(isinstance(row[i], (int, float, type(None))) for row in self.rows)
            else "str"
            for i, column in enumerate(self.columns)
        ]


def column_widths(table: Table) -> list[str]:
    """Each column's share of the page's width, so that every column fits (none runs past the right edge; a
    text wraps in its cell): a label, a number or a name as wide as its longest entry (7% to 24%), the text
    columns sharing the rest ([]: a table without text columns sizes itself).

    >>> table = Table(
    ...     ("id", "scores", "predictions", "sources"), [["d1", 0.5, "a", "b"]], ("predictions", "sources")
    ... )
    >>> column_widths(table)
    ['7%', '10%', '41%', '41%']
    """
    texts = [c for c in table.columns if c in table.text_columns]
    if not texts:
        return []
    widths = {}
    for i, column in enumerate(table.columns):
        if column not in table.text_columns:
            chars = max([len(str(column)), *(len(score_text(row[i])) for row in table.rows)])
            widths[column] = min(24, max(7, round(chars * 1.3 + 2.5)))  # a character ~1.3% of 700 px
    share = max(10, (100 - sum(widths.values())) // len(texts))
    return [f"{widths.get(c, share)}%" for c in table.columns]


def styled(table: Table) -> Any:
    """The table as Gradio shows it: a pandas Styler whose number columns print :data:`..records.DIGITS`
    decimals (:func:`..records.score_text`; the values themselves stay numbers for sorting and the API), and
    whole numbers (a row, MiniCheck's 0/1 labels) as they are: each value keeps its own type
    (a column of 1, 0 and None, or of scores and a label, would otherwise become floats: ``1.0000``)."""
    import pandas as pd

    frame = pd.DataFrame(table.rows, columns=list(table.columns), dtype=object)
    numbers = [c for c, kind in zip(table.columns, table.datatypes()) if kind == "number"]
    return frame.style.format(score_text, subset=numbers).format(na_rep="", subset=list(table.text_columns))


def cell(value: Any, limit: int = TEXT_CHARS) -> str:
    """A text (or a list of texts, joined by " | ") as a Markdown cell: escaped, and when longer than
    ``limit`` characters cut to ``limit - 1`` with "…", the full text in the hover title."""
    text = " | ".join(map(str, value)) if isinstance(value, list) else str(value)
    text = " ".join(text.split())  # a table cell is one line
    shown = text if len(text) <= limit else text[: limit - 1] + "…"
    escaped = _MARKDOWN.sub(r"\\\1", html.escape(shown, quote=False))
    if shown == text:
        return escaped
    return f'<span title="{html.escape(text[:1000] + ("..." if len(text) > 1000 else ""))}">{escaped}</span>'


def example_labels(records: Sequence[dict]) -> tuple[str, list[Any]]:
    """The column naming each example: the records' ``id`` when every record has one, else 1-based rows."""
    if records and all(r.get("id") not in (None, "") for r in records):
        return "id", [r["id"] for r in records]
    label = "row" if not any("row" in r for r in records) else "#"
    return label, list(range(1, len(records) + 1))


def scored_table(records: Sequence[dict], result: dict) -> Table:
    """The scored file as shown: the label, the per-example scores (the headline ``scores`` first, rounded as
    displayed; a score named
    like a column of the file is prefixed ``score_``, as in the downloads), then the file's other columns."""
    label, labels = example_labels(records)
    scores = per_example(result, len(records))
    scores = {k: scores[k] for k in sorted(scores, key=lambda k: k != "scores")}  # the headline score first
    texts = [k for k in dict.fromkeys(k for r in records for k in r) if k != label]
    headers = [k if k not in texts else f"score_{k}" for k in scores]
    rows = [
        [name, *(display(scores[k][i]) for k in scores), *(cell(r.get(k, "")) for k in texts)]
        for i, (name, r) in enumerate(zip(labels, records))
    ]
    return Table((label, *headers, *texts), rows, tuple(texts))
