"""Bare forwards: the model work of an exact implementation and nothing else, for the floor benchmarks."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from nlgmetrics.core.batching import batches_of


def masked_lm_forwards(lm, sequences: Sequence[Sequence[int]], positions: Sequence[Sequence[int]]) -> int:
    """The encoder (no vocabulary head) over the masked copies ``lm.masked_logits`` runs: one copy per
    position, longest texts first, in the same batches, padded per batch. Returns the copies run."""
    lengths = [len(ids) for ids in sequences]
    order = sorted(range(len(sequences)), key=lambda i: (-lengths[i], i))
    copies = [(i, j) for i in order for j in positions[i]]
    pad, mask = lm.tokenizer.pad_token_id or 0, lm.tokenizer.mask_token_id
    with torch.inference_mode():
        for batch in batches_of([lengths[i] for i, _ in copies], lm.batch_size, lm.max_batch_tokens):
            rows = [copies[c] for c in batch]
            width = max(lengths[i] for i, _ in rows)
            input_ids = torch.tensor([list(sequences[i]) + [pad] * (width - lengths[i]) for i, _ in rows])
            input_ids[torch.arange(len(rows)), torch.tensor([j for _, j in rows])] = mask
            attention = (torch.arange(width) < torch.tensor([lengths[i] for i, _ in rows])[:, None]).long()
            lm.model.base_model(input_ids=input_ids.to(lm.device), attention_mask=attention.to(lm.device))
    return len(copies)
