"""Device and dtype selection, the process-wide weight cache, warnings and progress bars.

>>> str(select_device("cpu"))
'cpu'
>>> resolve_dtype(None, select_device("cpu"))
torch.float32
"""

from __future__ import annotations

import functools
import importlib.util
import os
import sys
import threading
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

import torch
from tqdm.auto import tqdm

T = TypeVar("T")

_DTYPES = {
    "float32": torch.float32,
    "fp32": torch.float32,
    "float16": torch.float16,
    "fp16": torch.float16,
    "half": torch.float16,
    "bfloat16": torch.bfloat16,
    "bf16": torch.bfloat16,
}


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


def select_device(device: str | torch.device | None = None) -> torch.device:
    """The device to run on: ``device`` if given, else ``$NLGMETRICS_DEVICE``, else cuda, then mps, then cpu."""
    if device is None:
        device = os.environ.get("NLGMETRICS_DEVICE") or None
    if device is None:
        if torch.cuda.is_available():
            return torch.device("cuda")
        mps = getattr(torch.backends, "mps", None)
        if mps is not None and mps.is_available():
            return torch.device("mps")
        return torch.device("cpu")
    try:
        resolved = torch.device(device)
    except (RuntimeError, TypeError) as err:
        raise ValueError(f"device={device!r} is not a valid torch device ({err})") from None
    if resolved.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device={device!r} was requested but CUDA is not available here")
    if resolved.type == "mps" and not torch.backends.mps.is_available():
        raise ValueError(f"device={device!r} was requested but MPS is not available here")
    return resolved


def resolve_dtype(dtype: str | torch.dtype | None, device: torch.device) -> torch.dtype:
    """float32 by default; float16/bfloat16 only on accelerators."""
    if dtype is None:
        return torch.float32
    if isinstance(dtype, str):
        if dtype not in _DTYPES:
            raise ValueError(f"dtype={dtype!r} is not one of {sorted(_DTYPES)}")
        dtype = _DTYPES[dtype]
    if dtype not in (torch.float32, torch.float16, torch.bfloat16):
        raise ValueError(f"dtype={dtype} is not supported; use float32, float16 or bfloat16")
    if dtype != torch.float32 and device.type == "cpu":
        raise ValueError(f"dtype={dtype} is only supported on accelerators; use float32 on cpu")
    return dtype


def default_batch_size(device: torch.device) -> int:
    """Texts per forward pass when the user gives none: small on cpu, larger on accelerators."""
    return 16 if device.type == "cpu" else 64


_CACHE: dict[tuple, Any] = {}
_CACHE_LOCK = threading.RLock()
LOAD_COUNT = {"loads": 0}
"""How many cache misses (real weight loads) this process made; tests read it."""


def cached(key: tuple, factory: Callable[[], T]) -> T:
    """Process-wide cache: weights are loaded once per key, e.g. (repo, revision, device, dtype, ...)."""
    with _CACHE_LOCK:
        if key not in _CACHE:
            _CACHE[key] = factory()
            LOAD_COUNT["loads"] += 1
        return _CACHE[key]


def clear_cache() -> None:
    """Drop every cached model (frees GPU memory once nothing else holds them)."""
    with _CACHE_LOCK:
        _CACHE.clear()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def progress_bar(*, total: int, enabled: bool, desc: str, unit: str = "example") -> tqdm:
    """A tqdm bar for the ``show_progress`` option; a silent no-op bar when disabled."""
    return tqdm(total=total, desc=desc, unit=unit, disable=not enabled)


class Progress:
    """A bar over ``total`` whole items (examples, pairs) fed fractions of work as each forward batch ends.

    ``advance(amount)`` adds work (a share of an item is fine); the bar shows the whole items done,
    and ends at ``total`` when the ``with`` block ends without an error. ``n`` counts even when disabled.

    >>> with Progress(total=3, enabled=False, desc="demo") as progress:
    ...     progress.advance(0.5)
    ...     progress.advance(1.75)
    ...     progress.n
    2
    >>> progress.n
    3
    """

    def __init__(self, *, total: int, enabled: bool, desc: str, unit: str = "example"):
        self.total = total
        self.n = 0
        self._done = 0.0
        self.bar = progress_bar(total=total, enabled=enabled, desc=desc, unit=unit)

    def advance(self, amount: float) -> None:
        self._done = min(float(self.total), self._done + amount)
        whole = int(self._done + 1e-9)  # 0.1 + 0.2 + ... must not stop one short
        if whole > self.n:
            self.bar.update(whole - self.n)
            self.n = whole

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, error_type, *_) -> None:
        if error_type is None and self.n < self.total:
            self.bar.update(self.total - self.n)
            self.n = self.total
        self.bar.close()
