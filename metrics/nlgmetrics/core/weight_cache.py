"""The process-wide weight cache (weights load once per key), what a holder's models are, and how they are
released or kept on the CPU between uses (:class:`Offload`)."""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import torch

T = TypeVar("T")

_CACHE: dict[tuple, Any] = {}
_CACHE_LOCK = threading.RLock()
LOAD_COUNT = {"loads": 0}
"""How many cache misses (real weight loads) this process made; tests read it."""


class Slot:
    """One key's place in the process-wide cache while :func:`slot` holds the cache's lock: ``empty`` until
    :meth:`fill` stores the weights loaded for it, ``value`` after."""

    def __init__(self, key: tuple):
        self.key = key

    @property
    def empty(self) -> bool:
        return self.key not in _CACHE

    @property
    def value(self) -> Any:
        return _CACHE[self.key]

    def fill(self, value: Any) -> None:
        _CACHE[self.key] = value
        LOAD_COUNT["loads"] += 1


@contextmanager
def slot(key: tuple) -> Iterator[Slot]:
    """The cache's place for ``key`` (e.g. kind, repo, revision, device, dtype, quantize), under the lock: the
    caller loads into an empty one, so weights load once per key and process, and the loading stays in the
    caller's frame (no callback)."""
    with _CACHE_LOCK:
        yield Slot(key)


def cached(key: tuple, factory: Callable[[], T]) -> T:
    """Process-wide cache: ``factory()`` once per key (:func:`slot` for a caller that loads itself)."""
    with slot(key) as place:
        if place.empty:
            place.fill(factory())
        return place.value


def clear_cache() -> None:
    """Drop every cached model (frees GPU memory once nothing else holds them)."""
    release()


def _reachable(obj: Any) -> Iterator[Any]:
    """``obj`` and what it holds, each once: the items of lists, tuples and dict values and the attributes of
    nlgmetrics objects (a scorer, its aligners and model wrappers; a cache entry's tuple); a torch model is
    yielded, not entered."""
    seen: set[int] = set()
    todo = [obj]
    while todo:
        item = todo.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        yield item
        if isinstance(item, torch.nn.Module):
            continue
        if isinstance(item, (list, tuple)):
            todo.extend(item)
        elif isinstance(item, dict):
            todo.extend(item.values())
        elif type(item).__module__.startswith("nlgmetrics.") and hasattr(item, "__dict__"):
            todo.extend(vars(item).values())


def models_in(obj: Any) -> list[torch.nn.Module]:
    """The torch models ``obj`` holds, each once: ``obj`` itself, or those reached through lists, tuples,
    dict values and the attributes of nlgmetrics objects (a scorer, its aligners; a cache entry's tuple)."""
    return [item for item in _reachable(obj) if isinstance(item, torch.nn.Module)]


def model_names(obj: Any) -> dict[int, str]:
    """A short name for each model ``obj`` holds through a wrapper that names it (a model wrapper's ``name``:
    the weight's registry name or its repo id), by the model's ``id``."""
    return {
        id(item.model): item.name
        for item in _reachable(obj)
        if isinstance(getattr(item, "model", None), torch.nn.Module)
        and isinstance(getattr(item, "name", None), str)
    }


class Offload:
    """The models ``holders`` hold (:func:`models_in`: scorers, modules' scorers) on the CPU between uses, on
    their own device only inside :meth:`on_accelerator` (a training run keeps the accelerator's memory).

    The models are the process's cached copies: every holder of the same weights sees them move."""

    def __init__(self, holders: list[Any]):
        self.models = list({id(m): m for h in holders for m in models_in(h)}.values())
        self.device = {id(m): next(m.parameters()).device for m in self.models}
        self._to_cpu()

    def _to_cpu(self) -> None:
        for model in self.models:
            model.to("cpu")
        if torch.cuda.is_available():
            torch.cuda.empty_cache()

    @contextmanager
    def on_accelerator(self) -> Iterator[None]:
        """The models on their own device inside the block, back on the CPU after it (also after an error)."""
        for model in self.models:
            model.to(self.device[id(model)])
        try:
            yield
        finally:
            self._to_cpu()


def weight_storages(models: list[torch.nn.Module]) -> dict[tuple[str, int], int]:
    """Bytes of each storage holding the models' parameters and buffers, keyed by (device, address): a
    weight shared or tied between models (or within one) is one storage, counted once."""
    storages: dict[tuple[str, int], int] = {}
    for model in models:
        for tensor in (*model.parameters(), *model.buffers()):
            storage = tensor.untyped_storage()
            storages[(str(tensor.device), storage.data_ptr())] = storage.nbytes()
    return storages


def weight_sets(holding: Any) -> dict[tuple, list[torch.nn.Module]]:
    """The sets of weights ``holding`` uses, each under the weight cache's key that loaded it (kind, source,
    revision, device, dtype: :meth:`Runtime.cached`) with the entry's models; a model of ``holding`` in no
    cache entry (the cache was released meanwhile) is a set of its own, keyed ``("uncached", id)``. Modules
    built on the same weights (five CTC aspects on one MiniLM) share a key."""
    mine = {id(m) for m in models_in(holding)}
    with _CACHE_LOCK:
        entries = list(_CACHE.items())
    sets: dict[tuple, list[torch.nn.Module]] = {}
    for key, value in entries:
        models = models_in(value)
        if any(id(m) in mine for m in models):
            sets[key] = models
    found = {id(m) for models in sets.values() for m in models}
    for model in models_in(holding):
        if id(model) not in found:
            sets[("uncached", id(model))] = [model]
    return sets


def release(holding: Any = None) -> int:
    """Drop weights from the process-wide cache: every entry (``holding`` None), or the entries holding a
    model of ``holding`` (a scorer, an evaluate module's ``scorer``); then :func:`free_memory`. Memory is
    freed once nothing else holds the models. Returns the entries dropped."""
    dropped = drop_cached(holding)
    free_memory()
    return dropped


def drop_cached(holding: Any = None) -> int:
    """:func:`release` without collecting: the entries are dropped, the memory freed when unreferenced."""
    wanted = None if holding is None else {id(m) for m in models_in(holding)}
    with _CACHE_LOCK:
        dropped = [
            key
            for key, value in _CACHE.items()
            if wanted is None or any(id(m) in wanted for m in models_in(value))
        ]
        for key in dropped:
            del _CACHE[key]
    return len(dropped)


def free_memory(alive: Callable[[], bool] | None = None) -> None:
    """Collect garbage (only when ``alive()`` says dropped models are still reachable, if given: reference
    cycles) and hand cached CUDA blocks back to the driver."""
    if alive is None or alive():
        gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
