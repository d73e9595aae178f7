"""The precision decisions that need torch: the dtype and quantization a device runs (from the table of
modes, :mod:`~nlgmetrics.core.modes`), what the machine allows (bf16 units, the CPU int8 matmul), the
process-wide TF32 switch, and the one place a model is put where and how it runs (:func:`place`).

>>> resolve_dtype(None, torch.device("cpu"))
torch.float32
>>> resolve_dtype("float16", torch.device("cpu"))
Traceback (most recent call last):
...
ValueError: dtype='float16' is not supported on the cpu (emulated there, slower than float32); use float32, \
or bfloat16 on a CPU with bf16 units
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import torch

from .modes import DTYPE_NAMES, MODE, MODES, QUANTIZE_MODES, PrecisionMode
from .options import check_dtype
from .quantize import int8_missing, quantize_blocks
from .values import check_bool, check_choice
from .warnings import warn

_DTYPES = {
    name: getattr(torch, mode.name)
    for mode in MODES
    if mode.option == "dtype"
    for name in (mode.name, *mode.aliases)
}
"""Every name :func:`~nlgmetrics.core.options.check_dtype` takes, as a torch dtype."""


def cpu_bf16_missing() -> str | None:
    """Why this CPU does not run bfloat16 as measured (None: it does): it lacks bf16 units
    (:func:`cpu_bf16_units_missing`), or torch does not run its AVX512 kernels
    (:func:`cpu_bf16_kernels_missing`)."""
    return cpu_bf16_units_missing() or cpu_bf16_kernels_missing()


def cpu_bf16_units_missing() -> str | None:
    """Why bfloat16 would be emulated here (None: it is not): torch must report bf16 units, AVX512-BF16 or
    AMX-BF16 (``torch.cpu.get_capabilities()``; without them every bf16 operation is emulated, slower than
    float32)."""
    get_capabilities = getattr(torch.cpu, "get_capabilities", None)  # torch >= 2.10
    if get_capabilities is not None:
        features = get_capabilities()
        units = bool(features.get("avx512_bf16") or features.get("amx_bf16"))
    else:
        units = torch.cpu._is_avx512_bf16_supported() or torch.cpu._is_amx_tile_supported()
    if not units:
        return (
            "needs bf16 units, and torch reports neither AVX512-BF16 nor AMX-BF16 on this CPU: bf16 "
            "would be emulated, slower than float32"
        )
    return None


def cpu_bf16_kernels_missing() -> str | None:
    """Why torch's kernels do not run bfloat16 here (None: they do): torch must run its AVX512 kernels
    (``torch.backends.cpu.get_cpu_capability()``; lower under ``ATEN_CPU_CAPABILITY``, e.g. ``default``,
    which asks for torch's portable kernels, whose bf16 attention fails with a padding mask on CPUs that
    have bf16 units: ``pack_vnni2 is only supported when avx512 is supported``)."""
    capability = torch.backends.cpu.get_cpu_capability()
    if capability != "AVX512":
        return (
            f"needs torch's AVX512 kernels, and torch runs its {capability} kernels here "
            "(ATEN_CPU_CAPABILITY): bf16 is offered where torch runs it on bf16 units with its AVX512 "
            "kernels"
        )
    return None


def resolve_dtype(dtype: str | torch.dtype | None, device: torch.device) -> torch.dtype:
    """float32 by default; else a ``dtype`` mode of the table (:data:`~nlgmetrics.core.modes.MODES`) on a
    device it runs on, with what it needs on the CPU (:func:`cpu_missing`). Anything else is one ValueError
    line saying why and what to use instead."""
    if dtype is None:
        return torch.float32
    if isinstance(dtype, str):
        check_dtype("dtype", dtype)
        dtype = _DTYPES[dtype]
    mode = MODE.get(str(dtype).removeprefix("torch."))
    if mode is None or mode.option != "dtype":
        raise ValueError(
            f"dtype={dtype} is not supported; use {', '.join(DTYPE_NAMES[:-1])} or {DTYPE_NAMES[-1]}"
        )
    refuse_on(mode, device, repr(mode.name))
    return dtype


def resolve_quantize(quantize: str | None, device: torch.device, dtype: torch.dtype) -> str | None:
    """None (no quantization) or a ``quantize`` mode of the table (``"int8"``: dynamic int8 Linear layers)
    on a device it runs on (the CPU), over the model dtype it replaces layers of (float32), where this
    machine has what it needs (:func:`cpu_missing`: the CPU int8 matmul)."""
    if quantize is None:
        return None
    check_choice(QUANTIZE_MODES)("quantize", quantize)
    mode = MODE[quantize]
    if device.type in mode.devices and dtype != getattr(torch, mode.over):
        raise ValueError(
            f"quantize={quantize!r} quantizes a {mode.over} model; with it leave dtype at {mode.over} "
            f"(int8 Linear layers with {str(dtype).removeprefix('torch.')} between them are not supported)"
        )
    refuse_on(mode, device, quantize)
    return quantize


def refuse_on(mode: PrecisionMode, device: torch.device, value: str) -> None:
    """``mode`` on a device type it does not run on, or on a CPU that lacks what it needs, is its refusal
    (the table's ``refused`` / ``unsupported`` line)."""
    if device.type not in mode.devices:
        raise ValueError(mode.refused.format(device=device.type, value=value))
    if device.type == "cpu" and (missing := cpu_missing(mode)):
        raise ValueError(mode.unsupported.format(missing=missing, value=value))


def cpu_missing(mode: PrecisionMode) -> str | None:
    """What this machine lacks to run ``mode`` on the CPU (None: nothing): bf16 units for bfloat16
    (:func:`cpu_bf16_missing`), the CPU int8 matmul for int8
    (:func:`~nlgmetrics.core.quantize.int8_missing`)."""
    check = {"bfloat16": cpu_bf16_missing, "int8": int8_missing}.get(mode.name)
    return check() if check else None


def tf32_in_effect(allow_tf32: Any, device: torch.device) -> bool:
    """Whether float32 matmuls of a scorer on ``device`` run in TF32: ``allow_tf32`` (a bool, else a
    ValueError) on a CUDA device. Elsewhere TF32 does not exist: one warning says the option has no effect
    (a configuration shared between a laptop and a GPU server keeps working) and the scores stay plain
    float32, as the signature then says."""
    if allow_tf32 is None:
        return False
    allow_tf32 = check_bool("allow_tf32", allow_tf32)
    if allow_tf32 and device.type != "cuda":
        warn(
            f"allow_tf32=True has no effect on {device.type}: TF32 is a CUDA matmul mode; scores are plain "
            "float32"
        )
        return False
    return allow_tf32


_TF32 = {"depth": 0, "saved": None}
_TF32_LOCK = threading.Lock()


def _enable_tf32() -> tuple | None:
    """Switch CUDA float32 matmuls to TF32; returns what restores the previous settings (None: they
    already were TF32, nothing to restore). Legacy and new flags are set together (through
    ``allow_tf32``) so that code reading either API sees a consistent state."""
    matmul = torch.backends.cuda.matmul
    if matmul.fp32_precision == "tf32":
        return None
    try:
        legacy = torch.get_float32_matmul_precision()
    except RuntimeError:  # the process mixed the two APIs: touch only the new, CUDA-matmul one
        saved = ("new", matmul.fp32_precision)
        matmul.fp32_precision = "tf32"
        return saved
    saved = ("legacy", legacy, matmul.fp32_precision, torch.backends.mkldnn.matmul.fp32_precision)
    matmul.allow_tf32 = True
    return saved


def _restore_tf32(saved: tuple | None) -> None:
    if saved is None:
        return
    if saved[0] == "new":
        torch.backends.cuda.matmul.fp32_precision = saved[1]
        return
    _, legacy, cuda, mkldnn = saved
    torch.set_float32_matmul_precision(legacy)
    torch.backends.cuda.matmul.fp32_precision = cuda
    torch.backends.mkldnn.matmul.fp32_precision = mkldnn


@contextmanager
def tf32_matmuls(enabled: bool) -> Iterator[None]:
    """CUDA float32 matmuls in TF32 inside the block (when ``enabled``), the previous settings restored
    after it, exactly. The switch is process-wide while a block runs (torch has no per-model or per-thread
    TF32 flag): nested and concurrent blocks share it and the last one out restores; strict float32 CUDA
    work in other threads during the block also runs in TF32."""
    if not enabled:
        yield
        return
    with _TF32_LOCK:
        if _TF32["depth"] == 0:
            _TF32["saved"] = _enable_tf32()
        _TF32["depth"] += 1
    try:
        yield
    finally:
        with _TF32_LOCK:
            _TF32["depth"] -= 1
            if _TF32["depth"] == 0:
                _restore_tf32(_TF32["saved"])
                _TF32["saved"] = None


_REPLACE = {"int8": quantize_blocks}
"""What each ``quantize`` mode of the table does to a placed model (:data:`~nlgmetrics.core.modes.MODES`)."""


def place(weights: tuple, device: torch.device, dtype: torch.dtype, quantize: str | None) -> tuple:
    """The one place a model is put where and how it runs: ``(model, tokenizer, *extra)`` as loaded, the model
    moved to ``device`` and cast to ``dtype`` (eval mode), then its layers replaced as ``quantize`` says
    (int8: the Linear layers of its transformer blocks, :func:`~nlgmetrics.core.quantize.quantize_blocks`)."""
    model, *rest = weights
    model = model.to(device=device, dtype=dtype).eval()
    if quantize is not None:
        _REPLACE[quantize](model)
    return (model, *rest)
