"""``quantize="int8"``: the Linear layers of a model's transformer blocks in dynamic int8, on the CPU.

Each layer's weight is rounded once, per output channel, to int8 with a symmetric scale (its row's largest
magnitude / 127); each input row (one token) is rounded the same way when the layer runs, with its own
scale. The integer product is exact (int32 accumulation, ``torch._int_mm``, the CPU kernel torchao's int8
workflows call too), and the two scales bring it back to float32. So a token's output depends on that token
alone, never on the other texts of its batch, and the error of one layer is bounded by the two rounding
steps (:func:`int8_error_bound`). Embeddings, heads and poolers stay float32: they run on few rows, and a
head's outputs are the scores themselves.

>>> import torch
>>> linear = torch.nn.Linear(4, 2)
>>> quantized = Int8Linear.from_linear(linear)
>>> quantized.weight.dtype, tuple(quantized.weight.shape)
(torch.int8, (2, 4))
>>> x = torch.randn(3, 4)
>>> bool(((quantized(x) - linear(x)).abs() <= int8_error_bound(x, linear)).all())
True
"""

from __future__ import annotations

import functools
import re

import torch

from .hub import TRANSFORMER_BLOCK

BLOCK_LINEAR = re.compile(rf"(^|\.){TRANSFORMER_BLOCK}\.")
"""The names of the Linear layers inside transformer blocks (:data:`~nlgmetrics.core.hub.TRANSFORMER_BLOCK`):
the ones quantized."""

_TINY = torch.finfo(torch.float32).tiny
"""The scale floor of an all-zero row (its int8 values are then all 0)."""


@functools.cache
def int8_missing() -> str | None:
    """Why this torch cannot run the CPU int8 matmul (None: it can); asked once per process."""
    if not hasattr(torch, "_int_mm"):
        return f"torch {torch.__version__} has no int8 matmul (torch._int_mm)"
    try:
        torch._int_mm(torch.ones(2, 8, dtype=torch.int8), torch.ones(8, 8, dtype=torch.int8))
    except RuntimeError as err:
        return f"torch {torch.__version__} has no CPU int8 matmul ({str(err).splitlines()[0]})"
    return None


def symmetric_int8(values: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Each row of ``values`` as int8 and its float32 scale (``row ≈ int8 · scale``): the scale is the row's
    largest magnitude / 127, so each value is off by at most half a scale."""
    scale = torch.linalg.vector_norm(values, ord=float("inf"), dim=-1, keepdim=True).clamp_min_(_TINY) / 127
    return torch.div(values, scale).round_().to(torch.int8), scale


class Int8Linear(torch.nn.Module):
    """A Linear layer in dynamic int8: per-channel int8 weights, per-token int8 inputs, float32 outputs.

    ``weight`` is the int8 ``[out, in]`` matrix (so model code that checks a layer's ``weight.dtype``, as
    T5's does, sees int8), ``scale`` its per-row scales, ``bias`` the float32 bias (None without one).
    """

    def __init__(self, weight: torch.Tensor, scale: torch.Tensor, bias: torch.Tensor | None):
        super().__init__()
        self.in_features, self.out_features = weight.shape[1], weight.shape[0]
        self.register_buffer("weight", weight)
        self.register_buffer("scale", scale.reshape(-1))
        self.register_buffer("bias", bias)

    @classmethod
    def from_linear(cls, linear: torch.nn.Linear) -> Int8Linear:
        weight, scale = symmetric_int8(linear.weight.detach().float())
        bias = None if linear.bias is None else linear.bias.detach().float().clone()
        return cls(weight, scale, bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rows = x.reshape(-1, x.shape[-1])
        quantized, row_scale = symmetric_int8(rows)
        products = torch._int_mm(quantized, self.weight.t())  # exact: int32 sums of int8 products
        scaled = products * self.scale
        out = scaled.mul_(row_scale) if self.bias is None else torch.addcmul(self.bias, scaled, row_scale)
        return out.reshape(*x.shape[:-1], self.out_features)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, int8 (per token x channel)"


def quantize_blocks(model: torch.nn.Module) -> int:
    """Replace every ``torch.nn.Linear`` inside the transformer blocks of ``model`` (:data:`BLOCK_LINEAR`)
    by an :class:`Int8Linear`, in place; returns how many. A model with none is a ValueError (its
    architecture names its blocks otherwise: quantizing nothing would silently change nothing)."""
    chosen = [
        name
        for name, module in model.named_modules()
        if type(module) is torch.nn.Linear and BLOCK_LINEAR.search(name + ".")
    ]
    if not chosen:
        raise ValueError(
            f"quantize='int8' found no Linear layer inside the transformer blocks of this "
            f"{type(model).__name__} (blocks named layer.N, layers.N or block.N)"
        )
    for name in chosen:
        parent, _, child = name.rpartition(".")
        owner = model.get_submodule(parent)
        setattr(owner, child, Int8Linear.from_linear(getattr(owner, child)))
    return len(chosen)


def int8_error_bound(x: torch.Tensor, linear: torch.nn.Linear) -> torch.Tensor:
    """The largest |int8 output − float32 output| of ``linear`` on inputs ``x``, from the format alone.

    Each input value is off by at most half its row's step ``s_x`` and each weight by half its row's step
    ``s_w`` (plus float32 rounding of the division, at most 128·2^-24 of a step), so output ``j`` of a row
    moves by at most ``h·(s_w[j]·‖x̂‖₁ + s_x·‖w_j‖₁)`` (x̂ the rounded row, h that half step); add float32
    rounding of the reference's sum over ``in_features`` terms and of the four float32 operations that
    bring the exact integer sum back (``u = 2^-24`` of the sums of magnitudes)."""
    rows = x.detach().reshape(-1, x.shape[-1]).double()
    w = linear.weight.detach().double()
    bias = (
        torch.zeros(w.shape[0], dtype=torch.float64) if linear.bias is None else linear.bias.detach().double()
    )
    q, s_x = symmetric_int8(rows.float())
    q_w, s_w = symmetric_int8(w.float())
    half, u = 0.5 + 128 * 2.0**-24, 2.0**-24
    rounded, rounded_w = q.double() * s_x.double(), q_w.double() * s_w.double()
    bound = half * (s_w.double().reshape(1, -1) * rounded.abs().sum(-1, keepdim=True))
    bound += half * (s_x.double() * w.abs().sum(-1).reshape(1, -1))
    bound += (rows.shape[-1] + 1) * u * (rows.abs() @ w.abs().T + bias.abs())
    bound += 4 * u * (rounded.abs() @ rounded_w.abs().T + bias.abs())
    return bound.reshape(*x.shape[:-1], w.shape[0])
