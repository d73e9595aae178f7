"""Examples in: an uploaded file, or records (one dict per example, keyed by the module's input fields),
read and checked against the Space's :class:`~.limits.Limits` into the columns compute() takes.

Uploads are read by :mod:`nlgmetrics.records`, exactly as the command line reads files.

>>> limits = Limits(max_examples=2, max_chars=20)
>>> records_to_fields(["predictions", "sources"], [{"predictions": "a b", "sources": "a c"}], limits)
{'predictions': ['a b'], 'sources': ['a c']}
>>> records_to_fields(["predictions"], [{"prediction": "x"}], limits)
Traceback (most recent call last):
...
nlgmetrics.columns.MissingColumnError: row 1 has no column 'predictions' for predictions (its columns:
prediction; the inputs are predictions)
>>> records_to_fields(["predictions"], [{"predictions": "x" * 21}], limits)
Traceback (most recent call last):
...
ValueError: record 0: predictions has 21 characters; this Space takes at most 20 per text
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..columns import gather_columns
from ..records import read_records
from .limits import Limits


def _check_text(value: Any, where: str, limits: Limits) -> None:
    texts = value if isinstance(value, list) else [value]
    if len(texts) > limits.max_references:
        raise ValueError(
            f"{where} has {len(texts)} texts; this Space takes at most {limits.max_references} per example"
        )
    for text in texts:
        if isinstance(text, str) and len(text) > limits.max_chars:
            raise ValueError(
                f"{where} has {len(text)} characters; this Space takes at most {limits.max_chars} per text"
            )


def records_to_fields(
    inputs: Sequence[str],
    records: Any,
    limits: Limits,
    *,
    list_fields: Sequence[str] = ("references",),
    optional: Sequence[str] = (),
) -> dict[str, list]:
    """Column lists ``{field: [...]}`` from records, after the limits and the shape are checked; a text
    of a field in ``list_fields`` that holds a JSON list of texts (a CSV cell) is that list; a field in
    ``optional`` that no record has is left out.

    The texts themselves (types, blanks) are checked by the module's compute(), which names the field
    and index. Other fields of the records are ignored (as the command line ignores a file's other
    columns); :func:`nlgmetrics.columns.unused_columns` names them.
    """
    if not isinstance(records, list):
        raise ValueError(f"records must be a JSON list of objects, got {type(records).__name__}")
    if len(records) > limits.max_examples:
        raise ValueError(
            f"{len(records)} examples given; this Space scores at most {limits.max_examples} per request "
            "(split the file, or score it on your own machine with the nlgmetrics package: nlgmetrics "
            "score FILE)"
        )
    for index, record in enumerate(records):
        if not isinstance(record, dict):
            raise ValueError(f"record {index} must be an object with fields {', '.join(inputs)}")
    fix = f"the inputs are {', '.join(inputs)}"  # else the command line's wording (nlgmetrics.columns)
    fields = gather_columns(
        records, inputs, {}, list_fields, fix=fix, where="record {index}: {field}", optional=optional
    )
    for index in range(len(records)):
        for name in fields:
            _check_text(fields[name][index], f"record {index}: {name}", limits)
    return fields


def read_upload(path: str | os.PathLike, limits: Limits) -> list[dict]:
    """The records of an uploaded file, read as the command line reads it (:mod:`nlgmetrics.records`); a file
    without any (empty, or a header row alone) is refused as ``nlgmetrics score`` refuses it."""
    path = Path(path)
    size = path.stat().st_size
    if size > limits.max_upload_bytes:
        raise ValueError(
            f"{path.name} is {size} bytes; this Space takes uploads up to {limits.max_upload_bytes} bytes"
        )
    try:
        records = read_records(path, name=path.name)
    except ValueError as err:
        if path.suffix.lower() != ".txt":
            raise
        raise ValueError(  # the same words as the command line, and why plain lines cannot do
            f"{err}: a .txt of plain texts has no columns naming the fields; save it as a .csv with a header "
            "row, e.g. predictions,sources"
        ) from None
    if not records:  # empty, blank lines only, or a header row alone: the command line's words
        raise ValueError(f"{path.name} has no rows")
    return records
