"""Files of examples (JSONL, JSON, CSV, TSV), read and written the same way by the CLI and the Space.

One convention for several texts in one cell (several references per example): in JSON the value is a list; in
CSV and TSV the cell holds that list written as JSON (``["r1", "r2"]``). Reading keeps a CSV/TSV cell as its
text; :func:`field_value` turns the cell of a field that takes lists back into the list; a references text
that holds a JSON list, or starts with ``["``, must be a list of texts (a text like ``[Music] A cat sat.`` is
one reference). Other values that are not text (booleans, null, nested data) are written to CSV/TSV as JSON
too, NaN as ``nan``; JSON files write NaN as ``null``. What the CLI and the
Space write reads back identically: JSON lines are split at ``\\n`` only (a text keeps U+2028, U+2029,
U+0085), a CSV/TSV cell may be as long as its file, and a column or field named twice is refused
rather than one of them dropped. Line numbers in errors are 1-based, as in an editor.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "scored.csv")
>>> rows = [{"predictions": 'He said "hi",\\nthen left.', "references": ["r1", "r2"], "ok": True}]
>>> write_records(path, rows)
>>> read = read_records(path)
>>> read
[{'predictions': 'He said "hi",\\nthen left.', 'references': '["r1", "r2"]', 'ok': 'true'}]
>>> field_value(read[0]["references"], takes_list=True)
['r1', 'r2']
>>> read_records(path.replace(".csv", ".txt"))
Traceback (most recent call last):
...
ValueError: ...scored.txt: unknown file type '.txt'; use .jsonl, .ndjson, .json, .csv or .tsv
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .core.files import replaced_when_complete, written_through

FORMATS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".csv": "csv", ".tsv": "tsv"}
"""File suffix → format, for reading and writing."""
DELIMITERS = {"csv": ",", "tsv": "\t"}
MAX_DEPTH = 100
"""The deepest nesting of arrays and objects a JSON record may hold (the record itself is level 1). Deeper
data is refused in one line: Python's JSON reader and writer end in a RecursionError near 1,000 levels,
fewer in a deep call stack."""
TOO_DEEP = f"nested deeper than {MAX_DEPTH} levels of arrays and objects"


def file_format(path: str | os.PathLike) -> str:
    """The format of ``path`` from its suffix; another suffix is a ValueError naming the accepted ones."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(
            f"{path}: unknown file type {suffix or '(no suffix)'!r}; use .jsonl, .ndjson, .json, .csv or .tsv"
        )
    return FORMATS[suffix]


def read_records(path: str | os.PathLike, *, name: str | None = None) -> list[dict[str, Any]]:
    """The records (one dict per example) of a ``.jsonl``/``.ndjson`` file (one object a line), a
    ``.json`` file (a list of objects, or one object a line), or a ``.csv``/``.tsv`` file (a header row
    of column names; every cell is text). Problems are one-line ValueErrors naming the file (``name``,
    default: the path) and the line."""
    return read_numbered_records(path, name=name)[0]


def read_numbered_records(
    path: str | os.PathLike, *, name: str | None = None
) -> tuple[list[dict[str, Any]], list[int]]:
    """:func:`read_records`, and the file row each record is (from 1, as messages name it): its line in
    a JSON-lines file (empty lines counted), its item in a JSON list, its row after the header of a
    CSV/TSV file."""
    path = Path(path)
    shown = Path(name) if name is not None else path
    kind = file_format(shown)
    if not path.exists():
        raise ValueError(f"input file {str(path)!r} does not exist")
    if path.is_dir():
        raise ValueError(f"{str(path)!r} is a folder; give a {', '.join(FORMATS)} file")
    try:
        text = path.read_bytes().decode("utf-8-sig")  # no newline translation: a cell keeps its "\r\n"
    except UnicodeDecodeError as err:
        raise ValueError(f"{shown} is not UTF-8 text ({err.reason} at byte {err.start})") from None
    path = shown
    if kind in DELIMITERS:
        rows = _read_table(path, text, DELIMITERS[kind])
        return rows, list(range(1, len(rows) + 1))
    if kind == "json":
        try:
            whole = json.loads(text, object_pairs_hook=_object)
        except json.JSONDecodeError:
            pass  # JSONL in a .json file
        except RepeatedName as err:
            raise ValueError(f"{path}: {err}") from None
        except RecursionError:
            raise ValueError(f"{path}: {TOO_DEEP}") from None
        else:
            rows = _json_records(path, whole)
            return rows, list(range(1, len(rows) + 1))
    return _json_lines(path, text)


def _json_records(path: Path, whole: Any) -> list[dict[str, Any]]:
    """The records of a whole ``.json`` file's value: an object, or a list of objects."""
    whole = whole if isinstance(whole, list) else [whole]
    for index, record in enumerate(whole):
        if not isinstance(record, dict):
            raise ValueError(f"{path}: item {index + 1} must be a JSON object, got {type(record).__name__}")
        if _deeper_than(record, MAX_DEPTH):
            raise ValueError(f"{path}: item {index + 1} is {TOO_DEEP}")
    return whole


def _json_lines(path: Path, text: str) -> tuple[list[dict[str, Any]], list[int]]:
    """The records of a JSONL text, one object a line (empty lines skipped), and their line numbers."""
    records, numbers = [], []
    for number, line in enumerate(text.split("\n"), 1):  # not splitlines(): a text may hold U+2028
        if not line.strip():
            continue
        try:
            record = json.loads(line, object_pairs_hook=_object)
        except json.JSONDecodeError as err:
            raise ValueError(
                f"{path}:{number}: not valid JSON ({err.msg}); use one object per line"
            ) from None
        except RepeatedName as err:
            raise ValueError(f"{path}:{number}: {err}") from None
        except RecursionError:
            raise ValueError(f"{path}:{number}: {TOO_DEEP}") from None
        if not isinstance(record, dict):
            raise ValueError(f"{path}:{number}: each line must be a JSON object, got {type(record).__name__}")
        if _deeper_than(record, MAX_DEPTH):
            raise ValueError(f"{path}:{number}: {TOO_DEEP}")
        records.append(record)
        numbers.append(number)
    return records, numbers


def _deeper_than(value: Any, depth: int) -> bool:
    """Whether ``value`` nests lists and dicts more than ``depth`` levels deep (counted without recursion).

    >>> _deeper_than({"a": [[1]]}, 3), _deeper_than({"a": [[1]]}, 2), _deeper_than("text", 0)
    (False, True, False)
    """
    stack = [(value, 1)] if isinstance(value, (list, dict)) else []
    while stack:
        item, level = stack.pop()
        if level > depth:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, level + 1) for child in children if isinstance(child, (list, dict)))
    return False


class RepeatedName(ValueError):
    """A JSON object naming a field twice (json keeps the last one)."""


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object as a dict; a field named twice is a :class:`RepeatedName`."""
    record = dict(pairs)
    if len(record) != len(pairs):
        seen: set[str] = set()
        name = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise RepeatedName(f"the field {name!r} is named twice; give each field its own name")
    return record


_CSV_LIMIT = threading.Lock()
"""Held while a table is read with the csv module's cell limit (process-wide) raised to the file's size."""


def _read_table(path: Path, text: str, delimiter: str) -> list[dict[str, Any]]:
    """The rows of a CSV/TSV text. Any cell fits (the limit is the text's length, only while it is read;
    what limits uploads is the Space's ``max_upload_bytes``), and a header naming a column twice is
    refused."""
    with _CSV_LIMIT:
        previous = csv.field_size_limit(max(csv.field_size_limit(), len(text) + 1))
        try:
            return _table_rows(path, text, delimiter)
        finally:
            csv.field_size_limit(previous)


def _table_rows(path: Path, text: str, delimiter: str) -> list[dict[str, Any]]:
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter)
    records = []
    try:
        header = reader.fieldnames or []
        first: dict[str, int] = {}
        for number, name in enumerate(header, 1):
            if name in first:
                raise ValueError(
                    f"{path}:1: the column {name!r} is named twice (columns {first[name]} and {number}); "
                    "give each column its own name"
                )
            first[name] = number
        for row in reader:
            if None in row or any(value is None for value in row.values()):
                raise ValueError(
                    f"{path}:{reader.line_num}: the row does not have one value per header column "
                    f"({len(header)} columns)"
                )
            records.append(dict(row))
    except csv.Error as err:
        raise ValueError(f"{path}:{reader.line_num}: not valid {path.suffix[1:].upper()} ({err})") from None
    return records


def field_value(value: Any, *, takes_list: bool, where: str = "the value") -> Any:
    """An input field's value as read from a file: for a field that takes lists, a text that holds a JSON
    list, or starts with ``["`` (after spaces), is read as JSON (how CSV/TSV carry several references)
    and must be a list of texts, else a ValueError starting with ``where`` (the row and field). Any other
    text, ``[Music] A cat sat.`` included, is one text, as written; everything else is returned as read."""
    if not (takes_list and isinstance(value, str) and value.lstrip().startswith("[")):
        return value
    try:
        decoded = json.loads(value)
    except json.JSONDecodeError as err:
        if not value.lstrip()[1:].lstrip().startswith('"'):
            return value  # not JSON and not meant as JSON: one text that starts with "["
        problem = f"not valid JSON: {err.msg} at character {err.pos + 1}"
    except RecursionError:
        problem = TOO_DEEP
    else:
        if not isinstance(decoded, list):
            return value
        bad = next((i for i, item in enumerate(decoded) if not isinstance(item, str)), None)
        if bad is None:
            return decoded
        problem = f"item {bad + 1} is {type(decoded[bad]).__name__}, not a text"
    raise ValueError(
        f"{where} starts with '[' but is not a JSON list of texts ({problem}); write several references "
        'as ["first", "second"]'
    )


def _cell(value: Any) -> Any:
    """A value as CSV/TSV text: texts and numbers as they are (NaN as ``nan``), None as an empty cell,
    anything else as JSON."""
    if (
        value is None
        or isinstance(value, str)
        or (isinstance(value, (int, float)) and not isinstance(value, bool))
    ):
        return value
    return json.dumps(value, ensure_ascii=False)


def json_safe(value: Any) -> Any:
    """``value`` with every NaN (in lists, tuples and dicts too) as None, which JSON writes as ``null``:
    the files written here, the command line's ``--json`` and the Space's results.

    >>> json_safe({"scores": [0.5, float("nan")], "mean_score": float("nan"), "pair": (1, 2)})
    {'scores': [0.5, None], 'mean_score': None, 'pair': [1, 2]}
    """
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, (list, tuple)):
        return [json_safe(item) for item in value]
    if isinstance(value, dict):
        return {key: json_safe(item) for key, item in value.items()}
    return value


def per_example(result: Mapping[str, Any], count: int) -> dict[str, list]:
    """A compute() result's per-example number lists (``scores`` and any sub-scores), keyed by name, in the
    result's order: the columns a scored file gets (``details`` and other lists are not numbers).

    >>> per_example({"scores": [0.5, 0.75], "mean_score": 0.625, "mlm": [1.0, None], "details": [{}, {}]}, 2)
    {'scores': [0.5, 0.75], 'mlm': [1.0, None]}
    """
    columns = {}
    for key, value in result.items():
        if key == "details" or not isinstance(value, list) or len(value) != count:
            continue
        if all(v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)) for v in value):
            columns[key] = value
    return columns


def output_format(path: str | os.PathLike, fallback: str) -> str:
    """The format ``path`` is written in: its suffix's (:func:`file_format`); a named pipe or a device
    (``/dev/null``, ``/dev/stdout``: written into, :func:`~nlgmetrics.core.files.written_through`) without
    one takes ``fallback`` (the input's format).

    >>> output_format("/dev/null", "csv"), output_format("/dev/null.jsonl", "csv")
    ('csv', 'jsonl')
    """
    if written_through(path) and Path(path).suffix.lower() not in FORMATS:
        return fallback
    return file_format(path)


def write_records(path: str | os.PathLike, rows: list[dict[str, Any]], kind: str | None = None) -> None:
    """Write ``rows`` in the format ``kind`` (default: ``path``'s suffix's; the columns of CSV/TSV: every
    key, in order of first appearance), whole: to a temporary file renamed onto ``path`` once complete
    (:func:`nlgmetrics.core.files.replaced_when_complete`), so a failure leaves the earlier file."""
    kind = kind or file_format(path)
    with replaced_when_complete(path) as temporary:
        _write_rows(temporary, kind, rows)


def _write_rows(path: Path, kind: str, rows: list[dict[str, Any]]) -> None:
    if kind in DELIMITERS:
        header = list(dict.fromkeys(key for row in rows for key in row))
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=header, delimiter=DELIMITERS[kind])
            writer.writeheader()
            for row in rows:
                writer.writerow({key: _cell(value) for key, value in row.items()})
        return
    with path.open("w", encoding="utf-8") as handle:
        if kind == "json":
            json.dump([json_safe(row) for row in rows], handle, ensure_ascii=False, indent=1)
            handle.write("\n")
            return
        for row in rows:
            handle.write(json.dumps(json_safe(row), ensure_ascii=False) + "\n")
