"""Batching shared by every family: length-sorted batches, by count or by token budget, of any
tensor fields (encoder inputs, T5 decoder inputs, ...), right-padded per batch, and one rule for a batch
that runs out of device memory: it is retried in halves (:func:`halving_on_oom`).

>>> length_sorted_batches([3, 9, 1, 7], batch_size=2)
[[1, 3], [0, 2]]
>>> token_budget_batches([3, 9, 1, 7], max_tokens=16)
[[1], [3, 0], [2]]
>>> token_budget_for_memory(80 * 2**30), token_budget_for_memory(16 * 2**30), token_budget_for_memory(2**30)
(65536, 16384, 4096)
>>> batch, tensors = next(padded_batches([{"input_ids": [5, 6, 7]}, {"input_ids": [8]}], 2, {"input_ids": 0}))
>>> batch, tensors["input_ids"].tolist(), tensors["attention_mask"].tolist()
([0, 1], [[5, 6, 7], [8, 0, 0]], [[1, 1, 1], [1, 0, 0]])
>>> def forward(batch):  # a device that holds at most one row at a time
...     if len(batch) > 1:
...         raise torch.OutOfMemoryError("CUDA out of memory")
...     return batch
>>> list(halving_on_oom([[0, 1, 2], [3]], forward, device=torch.device("cpu"), name="demo", length_of=len))
[([0], [0]), ([1], [1]), ([2], [2]), ([3], [3])]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TypeVar

import torch

T = TypeVar("T")


def length_sorted_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indices grouped into batches of ``batch_size`` similar lengths, longest first (an OOM shows up at
    once)."""
    order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))
    return [order[start : start + batch_size] for start in range(0, len(order), batch_size)]


def token_budget_batches(lengths: Sequence[int], max_tokens: int) -> list[list[int]]:
    """Indices in length-sorted batches whose padded size (rows × longest) stays within ``max_tokens``.

    A row longer than the budget gets a batch of its own.
    """
    batches: list[list[int]] = []
    for i in sorted(range(len(lengths)), key=lambda i: (-lengths[i], i)):
        if batches and (len(batches[-1]) + 1) * lengths[batches[-1][0]] <= max_tokens:
            batches[-1].append(i)
        else:
            batches.append([i])
    return batches


TOKENS_PER_GIB = 1024
"""Padded tokens per GiB of device memory in the default token budget (see
:func:`token_budget_for_memory`)."""
BUDGET_RANGE = (4096, 65536)
"""The smallest and largest default token budget."""


def token_budget_for_memory(total_memory: int) -> int:
    """The default ``max_batch_tokens`` of a cuda device with ``total_memory`` bytes.

    1,024 padded tokens per whole GiB, kept within 4,096-65,536 tokens
    (an 80 GB H100: 65,536 = 128 rows of 512 tokens; a 16 GB card: 16,384). An fp32 encoder of
    roberta-large shape holds about 0.1 MB of activations per token of a 512-token row at once (one
    layer's attention scores and feed-forward under ``inference_mode``), so the budget takes about a
    tenth of the memory and leaves the rest to the weights and the allocator; past 65,536 tokens a batch
    runs no faster.
    """
    tokens = total_memory // 2**30 * TOKENS_PER_GIB
    return max(BUDGET_RANGE[0], min(BUDGET_RANGE[1], tokens))


def resolve_token_budget(
    device: torch.device, batch_size: int | None, max_batch_tokens: int | None
) -> int | None:
    """The token budget to batch by: the user's ``max_batch_tokens``; else, on cuda when the user gave no
    ``batch_size`` either, :func:`token_budget_for_memory` of the device; else None (batches by count)."""
    if max_batch_tokens is not None or batch_size is not None or device.type != "cuda":
        return max_batch_tokens
    return token_budget_for_memory(torch.cuda.get_device_properties(device).total_memory)


def batches_of(lengths: Sequence[int], batch_size: int, max_tokens: int | None = None) -> list[list[int]]:
    """Length-sorted batches: by padded tokens when ``max_tokens`` is given, else ``batch_size`` rows each."""
    if max_tokens is not None:
        return token_budget_batches(lengths, max_tokens)
    return length_sorted_batches(lengths, batch_size)


def pad_rows(
    rows: Sequence[Mapping[str, Sequence[int]]],
    batch: Sequence[int],
    pad_values: Mapping[str, int],
    device: torch.device | str = "cpu",
    *,
    length_field: str = "input_ids",
    mask_field: str | None = "attention_mask",
) -> dict[str, torch.Tensor]:
    """Rows ``batch`` of ``rows``, each field right-padded to the batch's longest (``pad_values``, 0 when a
    field is not named), as ``long`` tensors on ``device``, with ``mask_field`` built from
    ``length_field``."""
    tensors: dict[str, torch.Tensor] = {}
    for field in rows[batch[0]]:
        width = max(len(rows[i][field]) for i in batch)
        pad = pad_values.get(field, 0)
        padded = [list(rows[i][field]) + [pad] * (width - len(rows[i][field])) for i in batch]
        tensors[field] = torch.tensor(padded, dtype=torch.long)
    if mask_field is not None:
        width = tensors[length_field].shape[1]
        lengths = torch.tensor([len(rows[i][length_field]) for i in batch])
        tensors[mask_field] = (torch.arange(width) < lengths[:, None]).long()
    return {key: to_device(value, device) for key, value in tensors.items()}


def padded_batches(
    rows: Sequence[Mapping[str, Sequence[int]]],
    batch_size: int,
    pad_values: Mapping[str, int],
    device: torch.device | str = "cpu",
    *,
    max_tokens: int | None = None,
    length_field: str = "input_ids",
    mask_field: str | None = "attention_mask",
) -> Iterator[tuple[list[int], dict[str, torch.Tensor]]]:
    """Length-sorted batches of token rows, each field right-padded, as ``long`` tensors on ``device``.

    Every field of a row is a list of ids (``input_ids``, ``token_type_ids``, ``decoder_input_ids``, ...);
    ``pad_values`` gives each field's padding value (0 when not named). ``mask_field`` is built from
    ``length_field``. A batch holds ``batch_size`` rows, or with ``max_tokens`` as many rows as fit in
    that many padded tokens (at least one). Yields the row indices of each batch with its tensors.
    """
    for batch in batches_of([len(row[length_field]) for row in rows], batch_size, max_tokens):
        yield (
            batch,
            pad_rows(rows, batch, pad_values, device, length_field=length_field, mask_field=mask_field),
        )


def is_out_of_memory(error: BaseException) -> bool:
    """A device allocation failure (CUDA's ``OutOfMemoryError``, or MPS's and older CUDA's RuntimeError)."""
    return isinstance(error, torch.OutOfMemoryError) or "out of memory" in str(error).lower()


def halving_on_oom(
    batches: Sequence[list[int]],
    run: Callable[[list[int]], T],
    *,
    device: torch.device,
    name: str,
    length_of: Callable[[int], int],
) -> Iterator[tuple[list[int], T]]:
    """``(batch, run(batch))`` for every batch; a batch that runs out of device memory is retried in halves
    (the first half first), so every row gets its result and scores do not change. A single row that does
    not fit is a RuntimeError saying what to do (``length_of(row)`` tokens, for the message)."""
    pending = list(batches)[::-1]
    while pending:
        batch = pending.pop()
        try:
            out = run(batch)
        except (torch.OutOfMemoryError, RuntimeError) as error:
            if not is_out_of_memory(error):
                raise
            if device.type == "cuda":
                torch.cuda.empty_cache()
            if len(batch) == 1:
                raise RuntimeError(
                    f"{name}: out of memory on a single input of {length_of(batch[0])} tokens on {device}; "
                    "use a smaller dtype (dtype='bfloat16') or a device with more memory"
                ) from error
            half = len(batch) // 2
            pending += [batch[half:], batch[:half]]
            continue
        yield batch, out


def forward_in_batches(
    rows: Sequence[Mapping[str, Sequence[int]]],
    batch_size: int,
    pad_values: Mapping[str, int],
    device: torch.device,
    forward: Callable[[list[int], dict[str, torch.Tensor]], T],
    *,
    name: str,
    max_tokens: int | None = None,
    length_field: str = "input_ids",
    mask_field: str | None = "attention_mask",
) -> Iterator[tuple[list[int], T]]:
    """``(batch, forward(batch, tensors))`` over the batches :func:`padded_batches` makes, a batch that runs
    out of memory retried in halves (:func:`halving_on_oom`): how every model wrapper runs its model."""
    lengths = [len(row[length_field]) for row in rows]

    def run(batch: list[int]) -> T:
        tensors = pad_rows(rows, batch, pad_values, device, length_field=length_field, mask_field=mask_field)
        return forward(batch, tensors)

    batches = batches_of(lengths, batch_size, max_tokens)
    yield from halving_on_oom(
        batches, run, device=torch.device(device), name=name, length_of=lengths.__getitem__
    )


def to_device(tensor: torch.Tensor, device: torch.device | str) -> torch.Tensor:
    """A copy on ``device``; to CUDA from pinned memory without blocking, so the host can prepare the next
    batch while the GPU works."""
    if torch.device(device).type == "cuda":
        return tensor.pin_memory().to(device, non_blocking=True)
    return tensor.to(device)


K = TypeVar("K")


def distinct_rows(keys: Iterable[K]) -> tuple[list[K], list[int]]:
    """The distinct keys in order of first appearance, and each key's slot among them: score each distinct
    key once, then give every occurrence its value back with :func:`scatter`.

    >>> distinct_rows(["a", "b", "a"])
    (['a', 'b'], [0, 1, 0])
    """
    slots_of: dict[K, int] = {}
    slots = [slots_of.setdefault(key, len(slots_of)) for key in keys]
    return list(slots_of), slots


def scatter(values: Sequence[T] | torch.Tensor, slots: Sequence[int]) -> list[T] | torch.Tensor:
    """The value of each slot (a tensor indexed at once, a sequence item by item).

    >>> scatter([0.5, 0.9], [0, 1, 0])
    [0.5, 0.9, 0.5]
    """
    if isinstance(values, torch.Tensor):
        return values[list(slots)]
    return [values[slot] for slot in slots]
