"""Batching shared by every family: length-sorted batches, by count or by token budget, of any
tensor fields (encoder inputs, T5 decoder inputs, ...), right-padded per batch.

>>> length_sorted_batches([3, 9, 1, 7], batch_size=2)
[[1, 3], [0, 2]]
>>> token_budget_batches([3, 9, 1, 7], max_tokens=16)
[[1], [3, 0], [2]]
>>> batch, tensors = next(padded_batches([{"input_ids": [5, 6, 7]}, {"input_ids": [8]}], 2, {"input_ids": 0}))
>>> batch, tensors["input_ids"].tolist(), tensors["attention_mask"].tolist()
([0, 1], [[5, 6, 7], [8, 0, 0]], [[1, 1, 1], [1, 0, 0]])
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

import torch


def length_sorted_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indices grouped into batches of ``batch_size`` similar lengths, longest first (an OOM shows up at once)."""
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


def padded_batches(
    rows: Sequence[Mapping[str, Sequence[int]]],
    batch_size: int,
    pad_values: Mapping[str, int],
    device: torch.device | str = "cpu",
    *,
    length_field: str = "input_ids",
    mask_field: str | None = "attention_mask",
) -> Iterator[tuple[list[int], dict[str, torch.Tensor]]]:
    """Length-sorted batches of token rows, each field right-padded, as ``long`` tensors on ``device``.

    Every field of a row is a list of ids (``input_ids``, ``token_type_ids``, ``decoder_input_ids``, ...);
    ``pad_values`` gives each field's padding value (0 when not named). ``mask_field`` is built from
    ``length_field``. Yields the row indices of each batch with its tensors.
    """
    for batch in length_sorted_batches([len(row[length_field]) for row in rows], batch_size):
        tensors: dict[str, torch.Tensor] = {}
        for field in rows[batch[0]]:
            width = max(len(rows[i][field]) for i in batch)
            tensor = torch.full((len(batch), width), pad_values.get(field, 0), dtype=torch.long)
            for r, i in enumerate(batch):
                tensor[r, : len(rows[i][field])] = torch.tensor(rows[i][field], dtype=torch.long)
            tensors[field] = tensor
        if mask_field is not None:
            width = tensors[length_field].shape[1]
            lengths = torch.tensor([len(rows[i][length_field]) for i in batch])
            tensors[mask_field] = (torch.arange(width) < lengths[:, None]).long()
        yield batch, {key: value.to(device) for key, value in tensors.items()}
