"""The package's warnings about the data being scored: :class:`NLGMetricsWarning`, shown every time and
attributed to the user's line that called the metric (:func:`warn`)."""

from __future__ import annotations

import functools
import importlib.util
import os
import sys
import warnings


class NLGMetricsWarning(UserWarning):
    """Warnings about the data being scored (empty texts, truncation)."""


# Shown every time, not once per process: each compute() call reports its own data.
warnings.filterwarnings("always", category=NLGMetricsWarning)


@functools.cache
def _internal_dirs() -> tuple[str, ...]:
    """Our package and evaluate's: frames there are skipped when attributing a warning."""
    spec = importlib.util.find_spec("evaluate")
    evaluate_dirs = list(spec.submodule_search_locations or []) if spec else []
    return (os.path.dirname(os.path.dirname(os.path.abspath(__file__))), *evaluate_dirs)


def warn(message: str) -> None:
    """Emit a :class:`NLGMetricsWarning` attributed to the user's line that called the metric."""
    frame, level = sys._getframe(1), 2
    while frame is not None and frame.f_code.co_filename.startswith(_internal_dirs()):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, NLGMetricsWarning, stacklevel=level)
