"""Device and dtype selection, the process-wide weight cache, batching and progress bars.

>>> str(select_device("cpu"))
'cpu'
>>> resolve_dtype(None, select_device("cpu"))
torch.float32
>>> length_sorted_batches([3, 9, 1, 7], batch_size=2)
[[1, 3], [0, 2]]
"""

from __future__ import annotations

import functools
import importlib.util
import os
import sys
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
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
    return (os.path.dirname(os.path.abspath(__file__)), *evaluate_dirs)


def warn(message: str) -> None:
    """Emit a :class:`NLGMetricsWarning` attributed to the user's line that called the metric."""
    frame, level = sys._getframe(1), 2
    while frame is not None and frame.f_code.co_filename.startswith(_internal_dirs()):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, NLGMetricsWarning, stacklevel=level)


def select_device(device: str | torch.device | None = None) -> torch.device:
    """The device to run on: ``device`` if given, else cuda, then mps, then cpu."""
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


class WeightsUnavailableError(OSError):
    """The weights are neither in the local cache nor reachable on the Hub."""


def offline_help(repo_id: str, revision: str | None) -> str:
    """How to make ``repo_id@revision`` available on a machine without network."""
    rev = f" --revision {revision}" if revision else ""
    return (
        f"Could not load {repo_id!r} at revision {revision or 'main'!r}: it is not in the local Hugging Face "
        f"cache and the Hub could not be reached. Pre-download it on a machine with network access with "
        f"`hf download {repo_id}{rev}` (or `huggingface-cli download {repo_id}{rev}`) into the same HF_HOME / "
        f"HF_HUB_CACHE, then run offline with HF_HUB_OFFLINE=1 (weights) and HF_EVALUATE_OFFLINE=1 "
        f"(evaluate's module scripts)."
    )


def from_pretrained(loader: Callable[..., T], source: str, revision: str | None, **kwargs: Any) -> T:
    """``loader(source, revision=revision)``, turning cache misses into a helpful error."""
    if os.path.isdir(source):
        return loader(source, **kwargs)
    try:
        return loader(source, revision=revision, **kwargs)
    except OSError as err:
        if isinstance(err, WeightsUnavailableError):
            raise
        raise WeightsUnavailableError(f"{offline_help(source, revision)}\nCause: {err}") from err


def load_model_and_tokenizer(auto_class, source: str, revision: str | None, device, dtype) -> tuple[Any, Any]:
    """``auto_class`` weights (on ``device`` in ``dtype``, eval mode) and the tokenizer from ``source``."""
    from transformers import AutoTokenizer

    tokenizer = from_pretrained(AutoTokenizer.from_pretrained, source, revision)
    model = from_pretrained(auto_class.from_pretrained, source, revision)
    return model.to(device=device, dtype=dtype).eval(), tokenizer


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


def length_sorted_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indices grouped into batches of similar length, longest first (an OOM shows up at once)."""
    order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))
    return [order[start : start + batch_size] for start in range(0, len(order), batch_size)]


def padded_batches(
    rows: Sequence[dict[str, list[int]]], batch_size: int, pad_id: int, device: torch.device
) -> Iterator[tuple[list[int], dict[str, torch.Tensor]]]:
    """Length-sorted batches of tokenizer outputs, right-padded, as model inputs on ``device``.

    Each row holds ``input_ids`` and optionally ``token_type_ids``; the attention mask is built here.
    Yields the row indices of each batch with its tensors.
    """
    for batch in length_sorted_batches([len(row["input_ids"]) for row in rows], batch_size):
        width = max(len(rows[i]["input_ids"]) for i in batch)
        tensors = {"input_ids": torch.full((len(batch), width), pad_id, dtype=torch.long)}
        tensors["attention_mask"] = torch.zeros((len(batch), width), dtype=torch.long)
        if "token_type_ids" in rows[batch[0]]:
            tensors["token_type_ids"] = torch.zeros((len(batch), width), dtype=torch.long)
        for r, i in enumerate(batch):
            n = len(rows[i]["input_ids"])
            tensors["attention_mask"][r, :n] = 1
            for key in ("input_ids", "token_type_ids"):
                if key in tensors:
                    tensors[key][r, :n] = torch.tensor(rows[i][key])
        yield batch, {key: value.to(device) for key, value in tensors.items()}


def progress_bar(*, total: int, enabled: bool, desc: str, unit: str = "pair") -> tqdm:
    """A tqdm bar for the ``show_progress`` option; a silent no-op bar when disabled."""
    return tqdm(total=total, desc=desc, unit=unit, disable=not enabled)
