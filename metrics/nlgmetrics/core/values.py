"""One value checked or read the package's one way, whatever interface it came from: a boolean typed as text,
a numpy scalar as the Python value it holds, a positive integer, a choice, an optional string. Plain data: no
model library is imported here (the option table, :mod:`~nlgmetrics.core.options`, checks with these).

>>> check_positive_int("batch_size", 8)
8
>>> check_positive_int("batch_size", "16")
Traceback (most recent call last):
...
ValueError: batch_size='16' must be a positive integer
>>> check_bool("remove_stopwords", "no")
Traceback (most recent call last):
...
ValueError: remove_stopwords='no' must be True or False
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

TRUE_WORDS, FALSE_WORDS = ("true", "1", "yes", "y", "on"), ("false", "0", "no", "n", "off")


def parse_bool(text: str) -> bool:
    """true/false, 1/0, yes/no, on/off (any case): how every interface reads a boolean typed as text.

    >>> parse_bool("Yes"), parse_bool("off")
    (True, False)
    """
    lowered = text.strip().lower()
    if lowered in TRUE_WORDS:
        return True
    if lowered in FALSE_WORDS:
        return False
    raise ValueError(f"{text!r} is not a boolean (use true/false, 1/0, yes/no or on/off)")


def plain_scalar(value: Any) -> Any:
    """A numpy scalar or 0-d array as the Python value it holds, anything else as it is: the checks of a
    number or a boolean take numpy's wherever they take Python's (a value read from an array is numpy's).

    >>> import numpy as np
    >>> plain_scalar(np.int64(8)), plain_scalar(np.bool_(False)), plain_scalar(np.array(3)), plain_scalar([1])
    (8, False, 3, [1])
    """
    if type(value).__module__ == "numpy" and getattr(value, "shape", None) == ():
        return value.item()
    return value


def as_int(value: Any) -> int | None:
    """The Python int ``value`` holds (an int, a numpy integer or a 0-d integer array), else None: a
    boolean is not an integer here (``True`` is not a batch size), nor is a float (``8.0``)."""
    plain = plain_scalar(value)
    return plain if isinstance(plain, int) and not isinstance(plain, bool) else None


def as_bool(value: Any) -> bool | None:
    """The Python bool ``value`` holds (a bool, ``numpy.bool_`` or a 0-d boolean array), else None (1 and
    0 are not booleans here)."""
    plain = plain_scalar(value)
    return plain if isinstance(plain, bool) else None


def check_bool(name: str, value: Any) -> bool:
    """``value`` as a Python bool (numpy's taken too), else a ValueError in the package's one wording."""
    plain = as_bool(value)
    if plain is None:
        raise ValueError(f"{name}={value!r} must be True or False")
    return plain


def check_positive_int(name: str, value: Any) -> int:
    """``value`` as a Python int if it is a positive integer (numpy's taken too), else a ValueError in the
    package's one wording for it."""
    number = as_int(value)
    if number is None or number <= 0:
        raise ValueError(f"{name}={value!r} must be a positive integer")
    return number


def check_choice(choices: Sequence[str]) -> Callable[[str, Any], Any]:
    def check(name: str, value: Any) -> Any:
        if value not in choices:
            raise ValueError(f"{name}={value!r} is not one of {', '.join(map(repr, choices))}")
        return value

    check.choices = tuple(choices)  # read by user interfaces (a drop-down instead of a free text box)
    return check


def check_optional_str(name: str, value: Any) -> Any:
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{name}={value!r} must be a string")
    return value
