"""Which column of a file feeds which input field, with one wording for a missing column: the command
line's ``--column FIELD=COLUMN`` and the Space's column choice after an upload both use it.

>>> rows = [{"summary": "a", "doc": "b"}]
>>> gather_columns(rows, ["predictions", "sources"], {"predictions": "summary", "sources": "doc"})
{'predictions': ['a'], 'sources': ['b']}
>>> gather_columns([{"text": "a"}], ["predictions"], {})
Traceback (most recent call last):
...
nlgmetrics.columns.MissingColumnError: row 1 has no column 'predictions' for predictions (its columns: text;
use --column predictions=NAME)
>>> parse_column_items(["predictions=summary"], ["predictions", "sources"], "ctc_consistency")
{'predictions': 'summary'}
>>> unused_columns([{"id": 1, "summary": "a", "doc": "b"}, {"judge": 2}], ["predictions", "sources"],
...                {"predictions": "summary", "sources": "doc"})
['id', 'judge']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .records import field_value


class MissingColumnError(ValueError):
    """A row without the column an input field reads (:func:`missing_column` says which)."""


CLI_FIX = "use --column {field}=NAME"
"""How the command line's user picks another column (``{field}``: the input field)."""
CLI_WHERE = "row {row} ({column})"
"""Where a cell is, as the command line says it (``{row}``: 1-based, ``{index}``: 0-based, ``{column}``,
``{field}``)."""


def missing_column(index: int, column: str, field: str, row: Mapping, fix: str = CLI_FIX) -> str:
    """The message for row ``index`` (0-based; shown 1-based, as in a file) without the column ``field``
    reads, naming the row's columns and how to pick another (``fix``)."""
    shown = ", ".join(map(str, row)) or "none"
    return (
        f"row {index + 1} has no column {column!r} for {field} (its columns: {shown}; "
        f"{fix.format(field=field)})"
    )


def parse_column_items(items: Sequence[str], inputs: Sequence[str], module: str) -> dict[str, str]:
    """``FIELD=COLUMN`` items as ``{field: column}``; each field must be one of ``inputs`` (ValueError)."""
    columns = {}
    for item in items:
        field, sep, column = item.partition("=")
        if not sep or not field or not column:
            raise ValueError(f"--column {item!r} must be FIELD=COLUMN, e.g. predictions=summary")
        if field not in inputs:
            reversed_hint = (
                f" (--column takes FIELD=COLUMN: --column {column}={field} reads {column} from the column "
                f"{field!r})"
                if column in inputs
                else ""
            )
            raise ValueError(
                f"{module} has no input {field!r}; its inputs are {', '.join(inputs)}{reversed_hint}"
            )
        if columns.get(field, column) != column:
            raise ValueError(
                f"--column {field} is given twice ({columns[field]!r}, then {column!r}); "
                "read each field from one column"
            )
        columns[field] = column
    return columns


def gather_columns(
    rows: Sequence[Mapping[str, Any]],
    fields: Sequence[str],
    columns: Mapping[str, str],
    list_fields: Sequence[str] = (),
    fix: str = CLI_FIX,
    where: str = CLI_WHERE,
    optional: Sequence[str] = (),
) -> dict[str, list]:
    """``{field: [value per row]}`` read from each field's column (``columns[field]``, else the field's own
    name); a cell of a field in ``list_fields`` holding a JSON list of texts is that list (else a ValueError
    starting with ``where``). A row without the column is a :class:`MissingColumnError`
    (:func:`missing_column`), fields checked in order, each over every row; a field in ``optional`` whose
    column no row has is left out. The command line and the Space
    (:func:`nlgmetrics.ui.uploads.records_to_fields`) both read their rows here.

    >>> gather_columns([{"a": "x"}], ["a", "q"], {}, optional=["q"])
    {'a': ['x']}
    """
    inputs: dict[str, list] = {}
    for field in fields:
        column = columns.get(field) or field
        if field in optional and not any(column in row for row in rows):
            continue
        values = []
        for index, row in enumerate(rows):
            if column not in row:
                raise MissingColumnError(missing_column(index, column, field, row, fix))
            at = where.format(index=index, row=index + 1, column=column, field=field)
            values.append(field_value(row[column], takes_list=field in list_fields, where=at))
        inputs[field] = values
    return inputs


def unused_columns(
    rows: Sequence[Mapping[str, Any]],
    fields: Sequence[str],
    columns: Mapping[str, str | None] | None = None,
    label: str | None = None,
) -> list[str]:
    """The rows' columns that feed none of ``fields`` (each read from ``columns[field]``, else the field's own
    name), in order of first appearance. One rule everywhere: the command line, the Space's batch tab and its
    ``/score`` endpoint score the fields, ignore these columns (a file's are kept in its output) and name
    them. The column ``label`` names the rows where they are shown (an ``id``): it is used, so it is not among
    them.

    >>> unused_columns([{"id": 1, "text": "a", "judge": 2}], ["predictions"], {"predictions": "text"}, "id")
    ['judge']
    """
    used = {(columns or {}).get(field) or field for field in fields} | {label}
    seen = dict.fromkeys(str(key) for row in rows if isinstance(row, Mapping) for key in row)
    return [column for column in seen if column not in used]
