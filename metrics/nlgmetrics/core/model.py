"""One base for the model wrappers (CTC's aligners, the masked LM, USR's classifier, UniEval's evaluator):
a model and its tokenizer from the process-wide weight cache, with the batch sizes and the device they
run on."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, ClassVar, TypedDict, TypeVar

import torch

from .batching import forward_in_batches
from .hub import load_model_and_tokenizer
from .precision import place
from .runtime import Runtime
from .weight_cache import slot

if TYPE_CHECKING:
    from typing_extensions import Self

T = TypeVar("T")


class WrapperArgs(TypedDict, total=False):
    """What :class:`ModelWrapper` takes besides the weights: the type of a subclass's ``**common``."""

    batch_size: int
    name: str
    max_batch_tokens: int | None


class ModelWrapper:
    """A loaded model (eval mode) and its tokenizer, shared through the process-wide weight cache: scoring
    reads them and never changes them.

    Args:
        model, tokenizer: the weights (``device`` is where the model's parameters are).
        batch_size: rows per forward pass.
        name: a short name for progress bars and reports.
        max_batch_tokens: padded tokens per forward pass instead (as many length-sorted rows as fit, at
            least one); None: ``batch_size`` rows.

    A subclass names its cache entry (``cache_kind``), how many rows one text makes (``rows_per_text``)
    and how its weights load: the transformers ``auto_class`` (and the trained ``head`` it needs), or its
    own :meth:`load_weights`; :meth:`load` does the rest.
    """

    cache_kind: ClassVar[str] = ""
    rows_per_text: ClassVar[int] = 1
    """Rows per forward pass per text when the user gives no batch size (a masked LM's are masked copies)."""
    auto_class: ClassVar[str] = ""
    """The transformers Auto class that loads the model, e.g. ``AutoModelForSeq2SeqLM``."""
    head: ClassVar[str | None] = None
    """The trained head the checkpoint must have, in words (None: no check)."""
    cpu_batch_tokens: ClassVar[int | None] = None
    """The padded tokens per forward pass on the CPU when the user gives neither ``batch_size`` nor
    ``max_batch_tokens`` (None: ``batch_size`` rows). A wrapper of long rows sets it where its measured cost
    per token grows with the batch (``benchmarks/cpu_batch_shapes.py``)."""

    def __init__(
        self, model, tokenizer, *, batch_size: int, name: str = "", max_batch_tokens: int | None = None
    ):
        self.model = model
        self.tokenizer = tokenizer
        self.batch_size = batch_size
        self.max_batch_tokens = max_batch_tokens
        self.name = name
        self.device = next(model.parameters()).device

    @classmethod
    def load_weights(cls, source: str, revision: str | None) -> tuple:
        """``(model, tokenizer, *extra constructor arguments)`` as loaded: :meth:`from_cache` puts the model
        where and how it runs."""
        import transformers

        auto_class = getattr(transformers, cls.auto_class)
        return load_model_and_tokenizer(auto_class, source, revision, head=cls.head)

    @classmethod
    def load(cls, source: str, revision: str | None, run: Runtime, *, name: str = "") -> Self:
        """The wrapper of ``source`` (a Hub repo at ``revision``, or a folder) on ``run``, a resolved
        :class:`~nlgmetrics.core.runtime.Runtime`; the weights load once per process per (kind, source,
        revision, device, dtype)."""
        return cls.from_cache(
            run,
            (cls.cache_kind, source, revision),
            lambda: cls.load_weights(source, revision),
            name=name or source,
        )

    @classmethod
    def from_cache(
        cls, run: Runtime, key: tuple[str, str, str | None], load: Callable[[], tuple], *, name: str
    ) -> Self:
        """The wrapper over ``load()``'s weights, cached under ``(kind, source, revision)`` and ``run``'s
        device, dtype and quantization: ``load()`` runs on a miss and returns the weights as loaded, then
        :func:`~nlgmetrics.core.precision.place` (the one cast) puts them on ``run``'s device in its dtype,
        quantized as it says; ``run`` gives the batch sizes (on the CPU with none given, the class's
        :attr:`cpu_batch_tokens`)."""
        with slot(run.cache_key(*key)) as entry:
            if entry.empty:
                entry.fill(place(load(), run.device, run.dtype, run.quantize))
            model, tokenizer, *extra = entry.value
        batch_size, max_tokens = run.rows(per_text=cls.rows_per_text), run.max_batch_tokens
        if max_tokens is None and run.batch_size is None and run.device.type == "cpu":
            max_tokens = cls.cpu_batch_tokens
        return cls(model, tokenizer, *extra, batch_size=batch_size, name=name, max_batch_tokens=max_tokens)

    def in_batches(
        self,
        rows: Sequence[Mapping[str, Sequence[int]]] | Sequence[Sequence[int]],
        forward: Callable[[list[int], dict[str, torch.Tensor]], T],
        *,
        name: str = "",
    ) -> Iterator[tuple[list[int], T]]:
        """``(batch, forward(batch, tensors))`` over the wrapper's batches of ``rows``: length-sorted, by
        count or by its token budget, each token field right-padded (``input_ids`` with the pad id, the
        others with 0) with ``attention_mask`` built; a batch that runs out of memory is retried in halves
        and a single row that does not fit is an error naming ``name``. A row is its token fields, or just
        its ``input_ids``. The loop under :meth:`per_row`, for a forward whose output is not one value per
        row (an aligner's token embeddings)."""
        rows = [row if isinstance(row, Mapping) else {"input_ids": row} for row in rows]
        return forward_in_batches(
            rows,
            self.batch_size,
            {"input_ids": self.tokenizer.pad_token_id or 0},
            self.device,
            forward,
            name=name or self.name,
            max_tokens=self.max_batch_tokens,
        )

    def per_row(
        self,
        rows: Sequence[Mapping[str, Sequence[int]]] | Sequence[Sequence[int]],
        forward: Callable[..., Sequence[float] | torch.Tensor],
        done: Callable[[int], None] = lambda n: None,
        *,
        name: str,
        sizes: Sequence[int] | None = None,
        with_batch: bool = False,
    ) -> list:
        """``forward(tensors)``'s value per row for every row, in the batches of :meth:`in_batches`: the one
        batching loop of every wrapper. ``done(n)`` after each batch of ``n`` rows.

        ``forward`` returns one value per row: floats, or a tensor of ``[rows]`` (floats back) or
        ``[rows, ...]`` (a tensor per row back); with ``sizes``, row ``i`` owns ``sizes[i]`` consecutive
        entries of it (a token classifier's words). ``with_batch``: ``forward(batch, tensors)``, for a forward
        that needs the batch's row indices. A tensor stays on the device until the next batch is queued, so
        the host prepares a batch while the device runs the last."""
        out: list = [math.nan] * len(rows)

        def collect(batch: list[int], values: Sequence[float] | torch.Tensor) -> None:
            if isinstance(values, torch.Tensor):
                values = values.cpu()
                if sizes is not None:
                    values = values.split([sizes[i] for i in batch])
                elif values.dim() == 1:
                    values = values.tolist()
            for i, value in zip(batch, values):
                out[i] = value
            done(len(batch))

        run = forward if with_batch else (lambda batch, tensors: forward(tensors))
        queued = None  # the last batch, its values possibly still on the device
        for batch, values in self.in_batches(rows, run, name=name):
            if queued is not None:
                collect(*queued)
            queued = (batch, values)
        if queued is not None:
            collect(*queued)
        return out
