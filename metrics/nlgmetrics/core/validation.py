"""Input checks shared by every metric, run before any model work.

Errors name the field and the example index:

>>> check_texts("predictions", ["a fine text", None])
Traceback (most recent call last):
...
ValueError: predictions[1] is None; every example needs a string
>>> check_references(["one reference", ["two", "references"]], n=2)
[['one reference'], ['two', 'references']]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def _check_is_list(field: str, values: Any) -> list:
    if values is None:
        raise ValueError(f"{field} is missing (None); pass a list with one entry per example")
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise ValueError(f"{field} must be a list with one entry per example, got {type(values).__name__}")
    return list(values)


def _check_length(field: str, values: list, n: int | None, first: str) -> None:
    if n is not None and len(values) != n:
        raise ValueError(f"{field} has {len(values)} examples but {first} has {n}; they must be aligned")


def _check_string(label: str, value: Any) -> str:
    if value is None:
        raise ValueError(f"{label} is None; every example needs a string")
    if not isinstance(value, str):
        raise ValueError(f"{label} must be a string, got {type(value).__name__}")
    return value


def check_texts(field: str, values: Any, n: int | None = None, first: str = "predictions") -> list[str]:
    """A list of strings, one per example (``n`` of them when given)."""
    values = _check_is_list(field, values)
    _check_length(field, values, n, first)
    return [_check_string(f"{field}[{i}]", value) for i, value in enumerate(values)]


def check_references(
    values: Any, n: int | None = None, field: str = "references", first: str = "predictions"
) -> list[list[str]]:
    """One reference string or a non-empty list of them per example, normalised to lists."""
    values = _check_is_list(field, values)
    _check_length(field, values, n, first)
    normalised = []
    for i, refs in enumerate(values):
        if isinstance(refs, str):
            normalised.append([refs])
            continue
        if refs is None:
            raise ValueError(f"{field}[{i}] is None; give a string or a list of strings")
        if not isinstance(refs, Sequence):
            raise ValueError(f"{field}[{i}] must be a string or a list of strings, got {type(refs).__name__}")
        if len(refs) == 0:
            raise ValueError(f"{field}[{i}] is an empty list; give at least one reference per example")
        normalised.append([_check_string(f"{field}[{i}][{j}]", ref) for j, ref in enumerate(refs)])
    return normalised


def check_inputs(
    fields: dict[str, Any], reference_fields: Sequence[str] = ("references",)
) -> dict[str, list]:
    """Check every field (all required) against the first one, normally ``predictions``."""
    first, first_values = next(iter(fields.items()))
    n = len(_check_is_list(first, first_values))
    return {
        name: check_references(values, n, field=name, first=first)
        if name in reference_fields
        else check_texts(name, values, n, first=first)
        for name, values in fields.items()
    }


def is_blank(text: str) -> bool:
    """Empty or whitespace-only."""
    return not text.strip()
