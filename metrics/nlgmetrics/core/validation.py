"""Input checks shared by every metric, run before any model work.

Errors name the field and the example index:

>>> check_texts("predictions", ["a fine text", None])
Traceback (most recent call last):
...
ValueError: predictions[1] is None; every example needs a string
>>> check_texts("predictions", ["fine", "\\ud800"])
Traceback (most recent call last):
...
ValueError: predictions[1] cannot be encoded as UTF-8: '\\ud800' at character 0 is a lone surrogate
>>> check_references(["one reference", ["two", "references"]], n=2)
[['one reference'], ['two', 'references']]
>>> check_references([b"abc"])
Traceback (most recent call last):
...
ValueError: references[0] must be a string or a list of strings, got bytes; decode it first (e.g.
.decode("utf-8"))
>>> is_blank("\\u200b\\ufeff\\x00 \\n"), is_blank(" a ")
(True, False)

Any non-string sequence is a field: a list, a tuple, a numpy array, a pandas Series, a ``datasets``
column, converted to a list of plain strings once, here:

>>> import numpy as np
>>> check_inputs({"predictions": np.array(["a", "b"]), "references": np.array([["r1", "r2"], ["r3", "r4"]])})
{'predictions': ['a', 'b'], 'references': [['r1', 'r2'], ['r3', 'r4']]}
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any


def listed(labels: Sequence[str], limit: int = 8) -> str:
    """The first ``limit`` labels joined with commas, then how many more (for warnings).

    >>> listed([f"predictions[{i}]" for i in range(10)], limit=3)
    'predictions[0], predictions[1], predictions[2] and 7 more'
    """
    shown = ", ".join(labels[:limit])
    return shown + (f" and {len(labels) - limit} more" if len(labels) > limit else "")


def examples_at(indexes: Sequence[int]) -> str:
    """Examples named in a warning by their 0-based index, as Python indexes them (and as a check's
    ``predictions[3]`` does); the command line says rows from 1 instead (:data:`EXAMPLES_AT`).

    >>> examples_at([5, 1, 2]), examples_at([3])
    ('examples at 0-based indexes 1, 2, 5', 'example at 0-based index 3')
    """
    shown = sorted(set(indexes))
    many = len(shown) != 1
    return f"example{'s' * many} at 0-based index{'es' * many} {listed([str(i) for i in shown])}"


EXAMPLES_AT = re.compile(r"\bexamples? at 0-based index(?:es)? (\d+(?:, \d+)*)((?: and \d+ more)?)")
"""What :func:`examples_at` writes: group 1 the indexes, group 2 how many more (the command line's rows)."""


FIELDS = {
    "predictions": "the generated texts being judged (y)",
    "sources": "the inputs (x): article, source sentence or dialog history",
    "references": "one or several human references (r) per example: a string or a list of strings",
    "contexts": "the knowledge (c): fact or persona for each dialog turn",
    "questions": "the question each prediction answers (q), where the task has one",
}
"""The compute() input fields shared by every module (the CTC paper's notation)."""

_BYTES = (bytes, bytearray, memoryview)
_DECODE_HINT = 'decode it first (e.g. .decode("utf-8"))'


def as_list(values: Any) -> list | None:
    """A non-string sequence as a list, converted once: a list (itself), tuple, ``datasets`` column or any
    other Sequence, and array-likes with ``tolist`` (a numpy array of one or more dimensions, a pandas
    Series: their elements become Python objects). None for anything else: a string, bytes, a mapping, a
    set (no order), a table (pick one of its columns), a scalar or a 0-d array."""
    if isinstance(values, list):
        return values
    if isinstance(values, (str, *_BYTES, Mapping, AbstractSet)) or _is_table(values):
        return None
    if isinstance(values, Sequence):
        return list(values)
    tolist = getattr(values, "tolist", None)
    if callable(tolist) and getattr(values, "ndim", 0) >= 1:
        return tolist()
    return None


def _is_table(values: Any) -> bool:
    """A pandas DataFrame or a ``datasets.Dataset``: iterating one gives its column names or its rows."""
    return hasattr(values, "columns") or hasattr(values, "column_names")


def _check_is_list(field: str, values: Any) -> list:
    if values is None:
        raise ValueError(f"{field} is missing (None); pass a list with one entry per example")
    listed = as_list(values)
    if listed is None:
        hint = f'; pass one of its columns (e.g. data["{field}"])' if _is_table(values) else ""
        raise ValueError(
            f"{field} must be a list with one entry per example, got {type(values).__name__}{hint}"
        )
    return listed


def _check_length(field: str, values: list, n: int | None, first: str) -> None:
    if n is not None and len(values) != n:
        raise ValueError(f"{field} has {len(values)} examples but {first} has {n}; they must be aligned")


def _check_string(label: str, value: Any) -> str:
    if value is None:
        raise ValueError(f"{label} is None; every example needs a string")
    if isinstance(value, _BYTES):
        raise ValueError(f"{label} must be a string, got {type(value).__name__}; {_DECODE_HINT}")
    if not isinstance(value, str):
        if isinstance(value, float) and math.isnan(value):
            raise ValueError(f"{label} is NaN (a missing value); every example needs a string")
        raise ValueError(f"{label} must be a string, got {type(value).__name__}")
    if type(value) is not str:  # numpy.str_ and other subclasses: a plain string from here on
        value = str.__str__(value)
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as err:
            raise ValueError(
                f"{label} cannot be encoded as UTF-8: {value[err.start]!r} at character {err.start} is a "
                "lone surrogate"
            ) from None
    return value


def check_texts(field: str, values: Any, n: int | None = None, first: str = "predictions") -> list[str]:
    """A list of strings, one per example (``n`` of them when given), each encodable as UTF-8."""
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
            normalised.append([_check_string(f"{field}[{i}]", refs)])
            continue
        if refs is None:
            raise ValueError(f"{field}[{i}] is None; give a string or a list of strings")
        if isinstance(refs, _BYTES):
            raise ValueError(
                f"{field}[{i}] must be a string or a list of strings, got {type(refs).__name__}; "
                f"{_DECODE_HINT}"
            )
        listed = as_list(refs)
        if listed is None:
            raise ValueError(f"{field}[{i}] must be a string or a list of strings, got {type(refs).__name__}")
        if len(listed) == 0:
            what = "reference" if field == "references" else "text"
            raise ValueError(f"{field}[{i}] is an empty list; give at least one {what} per example")
        normalised.append([_check_string(f"{field}[{i}][{j}]", ref) for j, ref in enumerate(listed)])
    return normalised


def check_inputs(
    fields: dict[str, Any], reference_fields: Sequence[str] = ("references",)
) -> dict[str, list]:
    """Check every field (all required) against the first one, normally ``predictions``."""
    first = next(iter(fields))
    n = None
    checked = {}
    for name, values in fields.items():
        values = _check_is_list(name, values)  # converted once: the checks below take the list as it is
        n = len(values) if n is None else n
        if name in reference_fields:
            checked[name] = check_references(values, n, field=name, first=first)
        else:
            checked[name] = check_texts(name, values, n, first=first)
    return checked


_BLANK_CATEGORIES = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp"})
"""Control, format (zero-width space, BOM, ...) and separator characters: nothing a model can read."""


def is_blank(text: str) -> bool:
    """Empty, or made only of whitespace, control and format characters (``"\\u200b\\ufeff\\x00"``)."""
    return all(c.isspace() or unicodedata.category(c) in _BLANK_CATEGORIES for c in text)
