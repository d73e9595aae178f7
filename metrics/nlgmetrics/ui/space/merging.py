"""Concurrent requests for the same model and options scored in one compute() and split back.

A request waits for its model's turn (:class:`~.pool.ModelPool`'s slot); whoever gets the turn scores
every request waiting with the same key at that moment (up to ``max_examples`` examples in all), so
that 32 visitors scoring one example each cost about one 32-example compute(), not 32. Nothing waits
for a collection window: a request that finds the model free is scored at once. Each request was
checked against the limits on its own before it got here; a merged compute() that fails scores its
requests one by one, so that each gets its own result or error.

>>> merged = {"scores": [0.5, 1.0, float("nan")], "mean_score": 0.75, "signature": "s"}
>>> split_result(merged, [1, 2])
[{'scores': [0.5], 'mean_score': 0.5, 'signature': 's'}, {'scores': [1.0, nan], 'mean_score': 1.0,
'signature': 's'}]
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field

from ...core.result import mean_key, mean_of


def split_result(result: dict, sizes: list[int]) -> list[dict]:
    """One result per request from the result of their examples scored together, in order: every
    per-example list sliced, its ``mean_*`` recomputed over the slice, everything else kept."""
    total = sum(sizes)
    per_example = [k for k, v in result.items() if isinstance(v, list) and len(v) == total]
    parts, start = [], 0
    for size in sizes:
        part = {k: (v[start : start + size] if k in per_example else v) for k, v in result.items()}
        for name in per_example:
            if mean_key(name) in result:
                part[mean_key(name)] = mean_of(part[name])
        parts.append(part)
        start += size
    return parts


@dataclass
class _Request:
    fields: dict[str, list]
    size: int
    taken: bool = False
    done: threading.Event = field(default_factory=threading.Event)
    result: dict | None = None
    error: BaseException | None = None


class Merger:
    """Requests with equal keys that wait for the same turn are scored together (FIFO, at most
    ``max_examples`` examples per compute())."""

    def __init__(self, max_examples: int):
        self.max_examples = max_examples
        self._pending: dict[Hashable, list[_Request]] = {}
        self._lock = threading.Lock()
        self.computes = 0
        """compute() calls made (merged or not); tests and benchmarks read it."""

    def run(
        self,
        key: Hashable,
        fields: dict[str, list],
        score: Callable[[dict[str, list]], dict],
        turn: Callable[[], AbstractContextManager],
    ) -> dict:
        """``score(fields)``'s result for this request, computed with the other waiting requests of
        ``key``."""
        request = _Request(fields, len(fields["predictions"]))
        with self._lock:
            self._pending.setdefault(key, []).append(request)
        while not request.taken:
            with turn():
                with self._lock:
                    batch = [] if request.taken else self._take(key)
                if batch:
                    self._score(batch, score)
        request.done.wait()
        if request.error is not None:
            raise request.error
        return request.result

    def _take(self, key: Hashable) -> list[_Request]:
        waiting = self._pending[key]
        batch = [waiting.pop(0)]
        while waiting and sum(r.size for r in batch) + waiting[0].size <= self.max_examples:
            batch.append(waiting.pop(0))
        if not waiting:
            del self._pending[key]
        for request in batch:
            request.taken = True
        return batch

    def _score(self, batch: list[_Request], score: Callable[[dict[str, list]], dict]) -> None:
        try:
            if len(batch) == 1:
                self._one(batch[0], score)
                return
            merged = {name: [v for r in batch for v in r.fields[name]] for name in batch[0].fields}
            try:
                self.computes += 1
                results = split_result(score(merged), [r.size for r in batch])
            except Exception:  # one request's examples broke the merged call: each on its own, own error
                for request in batch:
                    self._one(request, score)
                return
            for request, result in zip(batch, results):
                request.result = result
        finally:
            for request in batch:
                request.done.set()

    def _one(self, request: _Request, score: Callable[[dict[str, list]], dict]) -> None:
        try:
            self.computes += 1
            request.result = score(request.fields)
        except Exception as err:
            request.error = err
