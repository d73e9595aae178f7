"""Where and how a scorer's models run: :class:`Runtime` (device, dtype, batch sizes, token budget, TF32,
quantization), resolved once at the public entry point from the load options.

>>> cpu = Runtime.resolve("cpu", batch_size=8)
>>> str(cpu.device), cpu.dtype_name, cpu.rows(), Runtime.resolve("cpu").rows(per_text=4), cpu.tf32
('cpu', 'float32', 8, 64, False)
>>> Runtime.resolve("cpu", batch_size=0)
Traceback (most recent call last):
...
ValueError: batch_size=0 must be a positive integer
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypedDict

import torch

from .batching import resolve_token_budget
from .device import default_batch_size, select_device
from .precision import resolve_dtype, resolve_quantize, tf32_in_effect
from .values import check_positive_int

__all__ = ["Runtime", "WhereToRun"]


class WhereToRun(TypedDict, total=False):
    """The load options that say where and how a scorer runs, as :meth:`Runtime.resolve` takes them: the
    type of ``**where`` (the names are :data:`~nlgmetrics.core.options.RUNTIME_OPTIONS`; a test keeps both
    the same)."""

    device: str | torch.device | None
    dtype: str | torch.dtype | None
    batch_size: int | None
    max_batch_tokens: int | None
    allow_tf32: bool | None
    quantize: str | None


@dataclass(frozen=True)
class Runtime:
    """Where and how a scorer's models run, decided once by :meth:`resolve` at the public entry point
    (a scorer's constructor); model wrappers take it as it is and check nothing again.

    ``batch_size`` is the user's (None: by device, see :meth:`rows`); ``max_batch_tokens`` the token
    budget in effect (the user's, or on cuda with neither given one from the GPU's memory); ``tf32``
    whether float32 matmuls run in TF32; ``quantize`` None or ``"int8"`` (the transformer blocks' Linear
    layers in dynamic int8, :mod:`~nlgmetrics.core.quantize`).
    """

    device: torch.device
    dtype: torch.dtype
    batch_size: int | None = None
    max_batch_tokens: int | None = None
    tf32: bool = False
    quantize: str | None = None

    @classmethod
    def resolve(
        cls,
        device: str | torch.device | None = None,
        dtype: str | torch.dtype | None = None,
        batch_size: int | None = None,
        max_batch_tokens: int | None = None,
        allow_tf32: bool | None = False,
        quantize: str | None = None,
    ) -> Runtime:
        """The one place the load options that say where and how to run are checked and resolved
        (a ValueError names the bad one): :func:`select_device`, :func:`resolve_dtype`, the batch sizes
        (positive ints), the token budget, :func:`tf32_in_effect` and :func:`resolve_quantize`."""
        if batch_size is not None:  # numpy's ints taken, as Python ints from here on
            batch_size = check_positive_int("batch_size", batch_size)
        if max_batch_tokens is not None:
            max_batch_tokens = check_positive_int("max_batch_tokens", max_batch_tokens)
        chosen = select_device(device)
        resolved = resolve_dtype(dtype, chosen)
        return cls(
            device=chosen,
            dtype=resolved,
            batch_size=batch_size,
            max_batch_tokens=resolve_token_budget(chosen, batch_size, max_batch_tokens),
            tf32=tf32_in_effect(allow_tf32, chosen),
            quantize=resolve_quantize(quantize, chosen, resolved),
        )

    @classmethod
    def of(cls, runtime: Runtime | None, **where: Any) -> Runtime:
        """``runtime`` when the caller resolved it already (an evaluate module does, at load), else
        :meth:`resolve` of ``where`` (device, dtype, batch_size, max_batch_tokens, allow_tf32, quantize); both
        is a TypeError."""
        if runtime is None:
            return cls.resolve(**where)
        given = [name for name, value in where.items() if value not in (None, False)]
        if given:
            raise TypeError(f"give either runtime= or {', '.join(given)}, not both")
        return runtime

    @property
    def dtype_name(self) -> str:
        """``float32``, ``float16`` or ``bfloat16``, as result signatures write it."""
        return str(self.dtype).removeprefix("torch.")

    def rows(self, per_text: int = 1) -> int:
        """Rows per forward pass: the user's ``batch_size``, else the device's default times ``per_text``
        (a masked LM's rows are masked copies: 4 per text)."""
        return self.batch_size or per_text * default_batch_size(self.device)

    @property
    def reduced(self) -> bool:
        """Whether the numbers are not float32's (bf16/fp16 weights, or int8 Linear layers): their rounding
        then depends on the device's kernels, so the signature names the device."""
        return self.dtype != torch.float32 or self.quantize is not None

    def cache_key(self, kind: str, source: str, revision: str | None) -> tuple:
        """The weight cache's key of ``source``'s weights of ``kind`` on this runtime: (kind, source,
        revision, device, dtype, quantize) (a quantized model is its own entry)."""
        return (kind, source, revision, str(self.device), str(self.dtype), self.quantize)
