"""Scores out: each record with its scores, written as the CSV and JSONL files a visitor downloads (as
the command line writes them: :mod:`nlgmetrics.records`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..records import per_example, write_records


def scored_records(records: list[dict], result: dict) -> list[dict]:
    """Each record with its scores added (full precision; a score column named like an input is prefixed)."""
    columns = per_example(result, len(records))
    out = []
    for index, record in enumerate(records):
        row = dict(record)
        for key, values in columns.items():
            row[key if key not in record else f"score_{key}"] = values[index]
        out.append(row)
    return out


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""What makes a spreadsheet read a CSV cell as a formula (OWASP's CSV injection list)."""


def neutralized(value: Any) -> Any:
    """A CSV cell a spreadsheet shows as text, never runs: a text starting with one of
    :data:`FORMULA_STARTS` gets a leading ``'`` (OWASP's advice; spreadsheets hide it). Numbers (the scores,
    ``-0.5`` included) stay numbers; texts are all treated alike, "-0.5" too (it came as text).

    >>> neutralized("=1+1"), neutralized("-0.5"), neutralized(-0.5), neutralized("a = b")
    ("'=1+1", "'-0.5", -0.5, 'a = b')
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def write_scored(rows: list[dict], folder: str | os.PathLike, stem: str) -> tuple[str, str]:
    """Write the scored rows as ``stem.csv`` and ``stem.jsonl`` in ``folder`` (as the command line writes
    them: :func:`nlgmetrics.records.write_records`); returns both paths. The CSV, opened in spreadsheets, has
    its texts :func:`neutralized`; the JSONL keeps every text exactly."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    csv_path, jsonl_path = folder / f"{stem}.csv", folder / f"{stem}.jsonl"
    write_records(csv_path, [{k: neutralized(v) for k, v in row.items()} for row in rows])
    write_records(jsonl_path, rows)
    return str(csv_path), str(jsonl_path)
