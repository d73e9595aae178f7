"""The only place that reads or writes ``evaluate.Metric``'s private state (evaluate 0.4.x).

``NLGMetric`` and ``combine`` need seven things evaluate has no public API for: whether examples are being
streamed into its Arrow cache (``writer``) and how many, starting an empty shard so that a process with no
examples still joins a distributed ``compute()``, dropping the cache after a failed ``compute()``, cutting
it back to the examples held before a batch that stopped part-way, checking a
batch as ``add_batch`` would without storing it, and the keywords a module's ``_compute`` takes. Each is one
function here; ``tests/modules/test_evaluate_state.py`` pins the attribute names to the evaluate versions
``pyproject.toml`` allows, so an evaluate upgrade that renames them fails there, not in a user's training run.
"""

from __future__ import annotations

import inspect
import os
from typing import Any

PRIVATE_ATTRIBUTES = (
    "writer",
    "buf_writer",
    "data",
    "selected_feature_format",
    "cache_file_name",
    "filelock",
    "filelocks",
    "file_paths",
    "_infer_feature_from_batch",
    "_enforce_nested_string_type",
)
"""evaluate.Metric's private attributes used here (``_init_writer`` besides); the test checks them."""


def is_streaming(metric: Any) -> bool:
    """Examples were added with add/add_batch and wait in evaluate's cache."""
    return metric.writer is not None


def held_examples(metric: Any) -> int:
    """How many examples add/add_batch stored in evaluate's cache since the last compute() (0: none)."""
    return 0 if metric.writer is None else len(metric.writer)


def start_empty_shard(metric: Any, features: Any) -> None:
    """Open the cache of a process that adds zero examples, so that it still joins the rendez-vous of
    a distributed ``compute()`` (evaluate cannot store an empty batch)."""
    if metric.writer is None:
        metric.selected_feature_format = features
        metric._init_writer()


def discard_cache(metric: Any) -> None:
    """Release evaluate's locks and delete its cache files (the finalised ones and any being written)."""
    paths = [*(getattr(metric, "file_paths", None) or []), getattr(metric, "cache_file_name", None)]
    locks = [*(getattr(metric, "filelocks", None) or []), getattr(metric, "filelock", None)]
    metric.writer = metric.buf_writer = metric.data = None
    for path in filter(None, paths):
        if os.path.exists(path):
            os.remove(path)
    for lock in filter(None, locks):
        lock.release()
    metric.filelocks, metric.file_paths = [], []
    metric.cache_file_name = metric.filelock = None


def keep_first(metric: Any, rows: int) -> bool:
    """Cut evaluate's cache back to its first ``rows`` examples (what it held before a batch that stopped
    part-way), read back from the cache itself: the module's own ``add_batch``, which may fail again, is not
    called. False when the cache cannot show them (the module dropped it, or a distributed cache): the
    caller then puts them back another way."""
    import pyarrow as pa

    writer = metric.writer
    held = 0 if writer is None else len(writer)
    if held == rows:
        return True
    if held < rows or metric.num_process > 1:
        return False
    if rows == 0:
        discard_cache(metric)
        return True
    writer.write_examples_on_file()  # what add() staged, so that the cache holds every example
    writer.write_rows_on_file()
    if metric.buf_writer is not None:
        source = metric.buf_writer.getvalue()
    else:
        writer.stream.flush()
        source = pa.OSFile(metric.cache_file_name)
    with pa.ipc.open_stream(source) as reader:
        table = reader.read_all().slice(0, rows)
    if metric.buf_writer is None:
        source.close()
        writer.stream.close()
    features = metric.selected_feature_format
    discard_cache(metric)
    metric.selected_feature_format = features
    metric._init_writer()
    metric.writer.write_table(table)
    return True


def check_batch(metric: Any, batch: dict[str, list]) -> None:
    """Raise what ``metric.add_batch(**batch)`` would (a ValueError, TypeError or pyarrow error), storing
    nothing: the batch is encoded with the features add_batch would pick (those of the examples added
    before, else inferred from this batch) and written to a throwaway in-memory Arrow writer, as evaluate's
    ``keep_in_memory`` mode writes it."""
    import pyarrow as pa
    from datasets.arrow_writer import ArrowWriter

    if metric.writer is not None:
        features = metric.selected_feature_format
    else:
        features = metric._infer_feature_from_batch(batch)
    for name, column in batch.items():
        if len(column) > 0:
            metric._enforce_nested_string_type(features[name], column[0])
    writer = ArrowWriter(features=features, stream=pa.BufferOutputStream())
    writer.write_batch(features.encode_batch(batch))
    writer.finalize()


def compute_keywords(metric: Any) -> set[str] | None:
    """The keyword arguments a module's ``_compute`` takes (its inputs among them); None when it takes any
    (``**kwargs``)."""
    parameters = inspect.signature(metric._compute).parameters.values()
    if any(p.kind is p.VAR_KEYWORD for p in parameters):
        return None
    return {p.name for p in parameters}
