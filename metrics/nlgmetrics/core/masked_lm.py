"""One masked-LM engine for every family that reads a text through a masked language model.

Each text is turned into masked copies, one per position to score; copies of many texts are
packed into each forward pass (longest texts first, padded per batch), special positions are
never run, and the vocabulary head is applied only at the masked position of each copy. InfoLM
averages the resulting distributions into bags; USR-MLM reads the log-probability of the true
token. Nothing is registered on the shared model (no hooks), so one engine is safe to use from
several threads at once.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

import torch

from .batching import batches_of, halving_on_oom
from .hub import load_model, load_tokenizer, model_window
from .model import ModelWrapper
from .tokenize import encode_within_window

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .model import WrapperArgs


def load_masked_lm(source: str, revision: str | None):
    """A ``*ForMaskedLM`` with its trained vocabulary head, and its tokenizer, as loaded (core puts it where
    and how it runs)."""
    from transformers import AutoModelForMaskedLM

    tokenizer = load_tokenizer(source, revision)
    if tokenizer.mask_token_id is None:
        raise ValueError(f"{source!r} has no mask token: a masked language model is needed")
    head = "trained masked-LM head (a checkpoint saved with its vocabulary head)"
    model = load_model(AutoModelForMaskedLM, source, revision, head=head)
    return model, tokenizer


def _single_head(model) -> torch.nn.Module | None:
    """The one module that maps hidden states to vocabulary logits, when the model has exactly one
    (``cls`` for BERT, ``lm_head`` for RoBERTa, ``predictions`` for ALBERT); else None."""
    heads = [
        module
        for name, module in model.named_children()
        if name != model.base_model_prefix and any(True for _ in module.parameters())
    ]
    return heads[0] if len(heads) == 1 else None


class MaskedLMWrapper(ModelWrapper):
    """A masked LM (a loaded ``*ForMaskedLM``) from the process-wide cache, with its tokenizer and window;
    a batch row is a masked copy (``rows_per_text`` copies per text by default)."""

    cache_kind = "MLM"
    rows_per_text = 4
    load_weights = staticmethod(load_masked_lm)

    def __init__(self, model, tokenizer, **common: Unpack[WrapperArgs]):
        super().__init__(model, tokenizer, **common)
        self.window = model_window(tokenizer, model.config)
        self.special_ids = {tokenizer.pad_token_id, tokenizer.sep_token_id, tokenizer.cls_token_id} - {None}
        head = model.get_output_embeddings()
        self.vocab_size = head.weight.shape[0] if head is not None else model.config.vocab_size
        self._head = _single_head(model)

    def encode(self, texts: Sequence[str]) -> list[tuple[list[int], bool]]:
        """(token ids with special tokens, was it cut) per text, cut to the model window."""
        return encode_within_window(self.tokenizer, texts, self.window)

    def maskable_positions(self, ids: Sequence[int]) -> list[int]:
        """Positions of every token that is not a special token (padding, [CLS], [SEP])."""
        return [j for j, t in enumerate(ids) if t not in self.special_ids]

    def token_names(self, ids: Sequence[int]) -> list[str]:
        return self.tokenizer.convert_ids_to_tokens(list(ids))

    def _logits_at(
        self, input_ids: torch.Tensor, attention: torch.Tensor, columns: torch.Tensor
    ) -> torch.Tensor:
        """Vocabulary logits at one position per row, ``[rows, vocab]``."""
        rows = torch.arange(len(columns), device=columns.device)
        if self._head is None:  # a model whose head is not one module: run it whole
            return self.model(input_ids=input_ids, attention_mask=attention).logits[rows, columns]
        hidden = self.model.base_model(input_ids=input_ids, attention_mask=attention)[0]
        return self._head(hidden[rows, columns].unsqueeze(1))[:, 0]

    @torch.inference_mode()
    def masked_logits(
        self, sequences: Sequence[Sequence[int]], positions: Sequence[Sequence[int]]
    ) -> Iterator[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
        """Logits at every masked position: batches of ``(text index, copy index, logits [copies, vocab])``.

        Text ``i`` gives one copy per entry of ``positions[i]`` with that position replaced by the
        mask token; ``copy index`` k says it was ``positions[i][k]``. Copies of the longest texts come
        first, ``batch_size`` copies per forward pass (or as many as fit in ``max_batch_tokens`` padded
        tokens), each batch padded to its longest text. Indices are CPU tensors; logits stay on the
        model's device, in its dtype.
        """
        if not sequences:
            return
        lengths = torch.tensor([len(ids) for ids in sequences])
        width, pad = int(lengths.max()), self.tokenizer.pad_token_id or 0
        padded = torch.tensor([list(ids) + [pad] * (width - len(ids)) for ids in sequences], dtype=torch.long)
        order = sorted(range(len(sequences)), key=lambda i: (-len(sequences[i]), i))
        copies = [(i, k, j) for i in order for k, j in enumerate(positions[i])]
        copy_lengths = [len(sequences[i]) for i, _, _ in copies]

        def run(batch: list[int]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
            texts, ks, columns = (torch.tensor(c) for c in zip(*(copies[c] for c in batch)))
            width = int(lengths[texts].max())
            input_ids = padded[texts, :width]  # one masked copy per row
            input_ids[torch.arange(len(texts)), columns] = self.tokenizer.mask_token_id
            attention = (torch.arange(width) < lengths[texts, None]).long()
            logits = self._logits_at(
                input_ids.to(self.device), attention.to(self.device), columns.to(self.device)
            )
            return texts, ks, logits

        batches = batches_of(copy_lengths, self.batch_size, self.max_batch_tokens)
        for _, out in halving_on_oom(
            batches, run, device=self.device, name=self.name, length_of=copy_lengths.__getitem__
        ):
            yield out
