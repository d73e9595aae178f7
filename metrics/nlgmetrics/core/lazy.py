"""Lazy exports: a family package names its heavy classes without importing torch until they are used.

>>> __getattr__ = lazy_exports("json", {"JSONDecoder": "decoder"})
>>> __getattr__("JSONDecoder").__name__
'JSONDecoder'
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, table: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports ``package.<table[name]>`` on first access to ``name``."""

    def __getattr__(name: str) -> Any:
        if name in table:
            return getattr(importlib.import_module(f".{table[name]}", package), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
