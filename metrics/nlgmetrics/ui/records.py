"""Examples as records (one dict per example, keyed by the module's input fields): limits, files, results.

Uploads are parsed with the standard ``csv`` and ``json`` libraries only. Every limit is refused
with a message saying what was too big and what the limit is.

>>> limits = Limits(max_examples=2, max_chars=20)
>>> records_to_fields(["predictions", "sources"], [{"predictions": "a b", "sources": "a c"}], limits)
{'predictions': ['a b'], 'sources': ['a c']}
>>> records_to_fields(["predictions"], [{"prediction": "x"}], limits)
Traceback (most recent call last):
...
ValueError: record 0 has no field 'predictions' (its fields: prediction); the module's inputs are predictions
>>> records_to_fields(["predictions"], [{"predictions": "x" * 21}], limits)
Traceback (most recent call last):
...
ValueError: record 0: predictions has 21 characters; this Space takes at most 20 per text
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def _env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "")
    return int(value) if value.strip().isdigit() else default


@dataclass(frozen=True)
class Limits:
    """What one request may ask of the Space (each overridable by an environment variable)."""

    max_examples: int = 256
    max_chars: int = 4000
    max_upload_bytes: int = 2_000_000
    model_concurrency: int = 1
    """Requests scoring with one loaded model at the same time."""
    max_queue: int = 64
    """Requests waiting in Gradio's queue before new ones are turned away."""

    @classmethod
    def from_env(cls) -> Limits:
        """``NLGMETRICS_SPACE_MAX_EXAMPLES``, ``_MAX_CHARS``, ``_MAX_UPLOAD_BYTES``, ``_MODEL_CONCURRENCY``,
        ``_MAX_QUEUE`` override the defaults."""
        default = cls()
        return cls(
            **{
                name: _env_int(f"NLGMETRICS_SPACE_{name.upper()}", getattr(default, name))
                for name in cls.__dataclass_fields__
            }
        )

    def describe(self) -> str:
        return (
            f"at most {self.max_examples} examples per request, {self.max_chars} characters per text, "
            f"uploads up to {self.max_upload_bytes // 1000} kB"
        )


def _check_text(value: Any, where: str, limits: Limits) -> None:
    texts = value if isinstance(value, list) else [value]
    for text in texts:
        if isinstance(text, str) and len(text) > limits.max_chars:
            raise ValueError(
                f"{where} has {len(text)} characters; this Space takes at most {limits.max_chars} per text"
            )


def records_to_fields(
    inputs: Sequence[str], records: Any, limits: Limits, *, extra_ok: bool = False
) -> dict[str, list]:
    """Column lists ``{field: [...]}`` from records, after the limits and the shape are checked.

    The texts themselves (types, blanks) are checked by the module's compute(), which names the field
    and index. ``extra_ok`` lets records carry other fields (an uploaded file's extra columns).
    """
    if not isinstance(records, list):
        raise ValueError(f"records must be a JSON list of objects, got {type(records).__name__}")
    if len(records) > limits.max_examples:
        raise ValueError(
            f"{len(records)} examples given; this Space scores at most {limits.max_examples} per request "
            "(split the file, or run the package locally: pip install nlgmetrics)"
        )
    fields: dict[str, list] = {name: [] for name in inputs}
    for index, record in enumerate(records):
        if not isinstance(record, dict):
            raise ValueError(f"record {index} must be an object with fields {', '.join(inputs)}")
        for name in inputs:
            if name not in record:
                raise ValueError(
                    f"record {index} has no field {name!r} (its fields: {', '.join(map(str, record)) or 'none'}); "
                    f"the module's inputs are {', '.join(inputs)}"
                )
            _check_text(record[name], f"record {index}: {name}", limits)
            fields[name].append(record[name])
        unknown = sorted(set(map(str, record)) - set(inputs))
        if unknown and not extra_ok:
            raise ValueError(
                f"record {index} has unknown field(s) {', '.join(unknown)}; the module's inputs are "
                f"{', '.join(inputs)}"
            )
    return fields


def read_upload(path: str | os.PathLike, limits: Limits) -> list[dict]:
    """The records of an uploaded ``.csv`` (header row = field names) or ``.jsonl`` (one object per line)."""
    path = Path(path)
    size = path.stat().st_size
    if size > limits.max_upload_bytes:
        raise ValueError(
            f"{path.name} is {size} bytes; this Space takes uploads up to {limits.max_upload_bytes} bytes"
        )
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as err:
        raise ValueError(f"{path.name} is not UTF-8 text ({err.reason} at byte {err.start})") from None
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".json", ".ndjson"):
        records = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as err:
                raise ValueError(f"{path.name} line {number} is not JSON: {err.msg}") from None
        if len(records) == 1 and isinstance(records[0], list):  # a .json file holding one list
            records = records[0]
        return records
    if suffix in (".csv", ".tsv"):
        reader = csv.DictReader(io.StringIO(text, newline=""), delimiter="\t" if suffix == ".tsv" else ",")
        try:
            records = [dict(row) for row in reader]
        except csv.Error as err:
            raise ValueError(f"{path.name} is not valid CSV: {err}") from None
        for index, row in enumerate(records):
            if None in row or any(v is None for v in row.values()):
                raise ValueError(f"{path.name} row {index} does not have one value per header column")
        return records
    raise ValueError(f"{path.name}: upload a .csv or .jsonl file (columns named as the module's inputs)")


def per_example(result: dict, count: int) -> dict[str, list]:
    """The result's per-example number lists (``scores`` and any sub-scores), keyed by name."""
    columns = {}
    for key, value in result.items():
        if key == "details" or not isinstance(value, list) or len(value) != count:
            continue
        if all(v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)) for v in value):
            columns[key] = value
    return columns


def display(value: Any, digits: int = 4) -> Any:
    """A number as the Space shows it (rounded; NaN as None)."""
    if isinstance(value, float):
        return None if math.isnan(value) else round(value, digits)
    return value


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


def write_scored(rows: list[dict], folder: str | os.PathLike, stem: str) -> tuple[str, str]:
    """Write the scored rows as ``stem.csv`` and ``stem.jsonl`` in ``folder``; returns both paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    header: list[str] = []
    for row in rows:
        header += [k for k in row if k not in header]
    csv_path, jsonl_path = folder / f"{stem}.csv", folder / f"{stem}.jsonl"
    with csv_path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=header)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: json.dumps(v) if isinstance(v, list) else v for k, v in row.items()})
    with jsonl_path.open("w", encoding="utf-8") as handle:
        for row in rows:
            clean = {k: None if isinstance(v, float) and math.isnan(v) else v for k, v in row.items()}
            handle.write(json.dumps(clean, ensure_ascii=False) + "\n")
    return str(csv_path), str(jsonl_path)
