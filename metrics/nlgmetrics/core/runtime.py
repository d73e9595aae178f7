"""Where models run: :class:`Runtime` (device, dtype, batch sizes, TF32, resolved once), the process-wide
weight cache, warnings and progress bars.

>>> str(select_device("cpu"))
'cpu'
>>> resolve_dtype(None, select_device("cpu"))
torch.float32
>>> cpu = Runtime.resolve("cpu", batch_size=8)
>>> str(cpu.device), cpu.dtype_name, cpu.rows(), Runtime.resolve("cpu").rows(per_text=4), cpu.tf32
('cpu', 'float32', 8, 64, False)
>>> Runtime.resolve("cpu", batch_size=0)
Traceback (most recent call last):
...
ValueError: batch_size=0 must be a positive integer
"""

from __future__ import annotations

import functools
import gc
import importlib.util
import os
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypedDict, TypeVar

import torch
from tqdm.auto import tqdm

from .batching import resolve_token_budget
from .options import QUANTIZE_MODES, check_bool, check_choice, check_dtype, check_positive_int
from .quantize import int8_missing

T = TypeVar("T")

_DTYPES = {
    "float32": torch.float32,
    "fp32": torch.float32,
    "float16": torch.float16,
    "fp16": torch.float16,
    "half": torch.float16,
    "bfloat16": torch.bfloat16,
    "bf16": torch.bfloat16,
}
"""Every name :func:`~nlgmetrics.core.options.check_dtype` takes, as a torch dtype."""


_RUNNABLE = ("cpu", "cuda", "mps")
"""Device types the models run on (``meta`` and the other torch types are refused at load)."""


class NLGMetricsWarning(UserWarning):
    """Warnings about the data being scored (empty texts, truncation)."""


# Shown every time, not once per process: each compute() call reports its own data.
warnings.filterwarnings("always", category=NLGMetricsWarning)


@functools.cache
def _internal_dirs() -> tuple[str, ...]:
    """Our package and evaluate's: frames there are skipped when attributing a warning."""
    spec = importlib.util.find_spec("evaluate")
    evaluate_dirs = list(spec.submodule_search_locations or []) if spec else []
    return (os.path.dirname(os.path.dirname(os.path.abspath(__file__))), *evaluate_dirs)


def warn(message: str) -> None:
    """Emit a :class:`NLGMetricsWarning` attributed to the user's line that called the metric."""
    frame, level = sys._getframe(1), 2
    while frame is not None and frame.f_code.co_filename.startswith(_internal_dirs()):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, NLGMetricsWarning, stacklevel=level)


def requested_device(device: str | torch.device | None = None) -> str | None:
    """The device asked for: ``device``, else ``$NLGMETRICS_DEVICE``; None when neither is given (then
    :func:`select_device` chooses)."""
    return str(device) if device else (os.environ.get("NLGMETRICS_DEVICE") or None)


def wants_cuda(device: str | torch.device | None = None) -> bool:
    """Whether the models will run on CUDA GPUs: the device asked for (:func:`requested_device`) is a cuda
    one, or none is asked for and a GPU is here (what the launchers and ``--num-processes`` plan by)."""
    asked = requested_device(device)
    return torch.cuda.is_available() if asked is None else asked.startswith("cuda")


def process_device() -> str | None:
    """This process's accelerator under a launcher (``torchrun``, ``accelerate launch``): ``cuda:<LOCAL_RANK>``,
    so that every rank loads its models on its own GPU, not all on ``cuda:0``; the device asked for
    (:func:`requested_device`) when it is not plain ``cuda``; None where there is no GPU (the default choice).
    ``for_trainer`` and ``reward`` load with it."""
    chosen = requested_device()
    if chosen not in (None, "cuda") or not torch.cuda.is_available():
        return chosen
    return f"cuda:{os.environ.get('LOCAL_RANK', torch.cuda.current_device())}"


def select_device(device: str | torch.device | None = None) -> torch.device:
    """The device to run on: ``device`` if given, else ``$NLGMETRICS_DEVICE``, else cuda, then mps, then cpu.

    A device the models cannot run on (``meta``, another device type, cuda or mps where there is none, a
    cuda index past the GPUs present) is a ValueError naming it, so that a load fails before any work.
    """
    if device is None:
        device = requested_device()
    if device is None:
        if torch.cuda.is_available():
            return torch.device("cuda")
        mps = getattr(torch.backends, "mps", None)
        if mps is not None and mps.is_available():
            return torch.device("mps")
        return torch.device("cpu")
    try:
        resolved = torch.device(device)
    except (RuntimeError, TypeError) as err:
        raise ValueError(f"device={device!r} is not a valid torch device ({err})") from None
    if resolved.type not in _RUNNABLE:
        raise ValueError(
            f"device={device!r} cannot run the models: use 'cpu', 'cuda', 'cuda:<index>' or 'mps'"
            + (" (a meta tensor holds no data)" if resolved.type == "meta" else "")
        )
    if resolved.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device={device!r} was requested but CUDA is not available here")
    if resolved.type == "mps" and not torch.backends.mps.is_available():
        raise ValueError(f"device={device!r} was requested but MPS is not available here")
    count = torch.cuda.device_count() if resolved.type == "cuda" else 1
    if resolved.type != "cpu" and resolved.index is not None and resolved.index >= count:
        raise ValueError(
            f"device={device!r}: there is no {resolved.type} device {resolved.index} here "
            f"({count} found: {resolved.type}:0 to {resolved.type}:{count - 1})"
        )
    return resolved


def cpu_bf16_missing() -> str | None:
    """Why this CPU does not run bfloat16 as measured (None: it does): torch must report bf16 units, AVX512-BF16
    or AMX-BF16 (``torch.cpu.get_capabilities()``; without them every bf16 operation is emulated, slower than
    float32), and run its AVX512 kernels (``torch.backends.cpu.get_cpu_capability()``; lower under
    ``ATEN_CPU_CAPABILITY``, e.g. ``default``, which asks for torch's portable kernels)."""
    get_capabilities = getattr(torch.cpu, "get_capabilities", None)  # torch >= 2.10
    if get_capabilities is not None:
        features = get_capabilities()
        units = bool(features.get("avx512_bf16") or features.get("amx_bf16"))
    else:
        units = torch.cpu._is_avx512_bf16_supported() or torch.cpu._is_amx_tile_supported()
    if not units:
        return "needs bf16 units, and torch reports neither AVX512-BF16 nor AMX-BF16 on this CPU: bf16 would be emulated, slower than float32"
    capability = torch.backends.cpu.get_cpu_capability()
    if capability != "AVX512":
        return (
            f"needs torch's AVX512 kernels, and torch runs its {capability} kernels here (ATEN_CPU_CAPABILITY): "
            "bf16 is offered where torch runs it on bf16 units with its AVX512 kernels"
        )
    return None


def resolve_dtype(dtype: str | torch.dtype | None, device: torch.device) -> torch.dtype:
    """float32 by default; bfloat16 on accelerators and on CPUs with bf16 units (:func:`cpu_bf16_missing`);
    float16 on accelerators. Anything else is one ValueError line saying why and what to use instead."""
    if dtype is None:
        return torch.float32
    if isinstance(dtype, str):
        check_dtype("dtype", dtype)
        dtype = _DTYPES[dtype]
    if dtype not in (torch.float32, torch.float16, torch.bfloat16):
        raise ValueError(f"dtype={dtype} is not supported; use float32, bfloat16 or float16")
    if device.type == "cpu" and dtype == torch.float16:
        raise ValueError(
            "dtype='float16' is not supported on the cpu (emulated there, slower than float32); use float32, "
            "or bfloat16 on a CPU with bf16 units"
        )
    if device.type == "cpu" and dtype == torch.bfloat16 and (missing := cpu_bf16_missing()):
        raise ValueError(
            f"dtype='bfloat16' on the cpu {missing}; use float32 (the default) or quantize='int8'"
        )
    return dtype


def resolve_quantize(quantize: str | None, device: torch.device, dtype: torch.dtype) -> str | None:
    """None (no quantization) or ``"int8"``: dynamic int8 Linear layers, on the CPU, over a float32 model,
    where this torch has the CPU int8 matmul (:func:`~nlgmetrics.core.quantize.int8_missing`)."""
    if quantize is None:
        return None
    check_choice(QUANTIZE_MODES)("quantize", quantize)
    if device.type != "cpu":
        raise ValueError(
            f"quantize={quantize!r} runs on the cpu only (dynamic int8 matmuls); on {device.type} use "
            "dtype='bfloat16' or 'float16'"
        )
    if dtype != torch.float32:
        raise ValueError(
            f"quantize={quantize!r} quantizes a float32 model; with it leave dtype at float32 (int8 Linear "
            f"layers with {str(dtype).removeprefix('torch.')} between them are not supported)"
        )

    if missing := int8_missing():
        raise ValueError(f"quantize={quantize!r} cannot run here: {missing}; use float32 or dtype='bfloat16'")
    return quantize


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
            f"allow_tf32=True has no effect on {device.type}: TF32 is a CUDA matmul mode; scores are plain float32"
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


def default_batch_size(device: torch.device) -> int:
    """Texts per forward pass when the user gives none: small on cpu, larger on accelerators."""
    return 16 if device.type == "cpu" else 64


_CACHE: dict[tuple, Any] = {}
_CACHE_LOCK = threading.RLock()
LOAD_COUNT = {"loads": 0}
"""How many cache misses (real weight loads) this process made; tests read it."""


def cached(key: tuple, factory: Callable[[], T]) -> T:
    """Process-wide cache: weights are loaded once per key, e.g. (repo, revision, device, dtype, ...)."""
    with _CACHE_LOCK:
        if key not in _CACHE:
            _CACHE[key] = factory()
            LOAD_COUNT["loads"] += 1
        return _CACHE[key]


def clear_cache() -> None:
    """Drop every cached model (frees GPU memory once nothing else holds them)."""
    release()


def _reachable(obj: Any) -> Iterator[Any]:
    """``obj`` and what it holds, each once: the items of lists, tuples and dict values and the attributes of
    nlgmetrics objects (a scorer, its aligners and model wrappers; a cache entry's tuple); a torch model is
    yielded, not entered."""
    seen: set[int] = set()
    todo = [obj]
    while todo:
        item = todo.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        yield item
        if isinstance(item, torch.nn.Module):
            continue
        if isinstance(item, (list, tuple)):
            todo.extend(item)
        elif isinstance(item, dict):
            todo.extend(item.values())
        elif type(item).__module__.startswith("nlgmetrics.") and hasattr(item, "__dict__"):
            todo.extend(vars(item).values())


def models_in(obj: Any) -> list[torch.nn.Module]:
    """The torch models ``obj`` holds, each once: ``obj`` itself, or those reached through lists, tuples,
    dict values and the attributes of nlgmetrics objects (a scorer, its aligners; a cache entry's tuple)."""
    return [item for item in _reachable(obj) if isinstance(item, torch.nn.Module)]


def model_names(obj: Any) -> dict[int, str]:
    """A short name for each model ``obj`` holds through a wrapper that names it (a model wrapper's ``name``:
    the weight's registry name or its repo id), by the model's ``id``."""
    return {
        id(item.model): item.name
        for item in _reachable(obj)
        if isinstance(getattr(item, "model", None), torch.nn.Module)
        and isinstance(getattr(item, "name", None), str)
    }


class Offload:
    """The models ``holders`` hold (:func:`models_in`: scorers, modules' scorers) on the CPU between uses, on
    their own device only inside :meth:`on_accelerator` (a training run keeps the accelerator's memory).

    The models are the process's cached copies: every holder of the same weights sees them move."""

    def __init__(self, holders: list[Any]):
        self.models = list({id(m): m for h in holders for m in models_in(h)}.values())
        self.device = {id(m): next(m.parameters()).device for m in self.models}
        self._to_cpu()

    def _to_cpu(self) -> None:
        for model in self.models:
            model.to("cpu")
        if torch.cuda.is_available():
            torch.cuda.empty_cache()

    @contextmanager
    def on_accelerator(self) -> Iterator[None]:
        """The models on their own device inside the block, back on the CPU after it (also after an error)."""
        for model in self.models:
            model.to(self.device[id(model)])
        try:
            yield
        finally:
            self._to_cpu()


def weight_storages(models: list[torch.nn.Module]) -> dict[tuple[str, int], int]:
    """Bytes of each storage holding the models' parameters and buffers, keyed by (device, address): a
    weight shared or tied between models (or within one) is one storage, counted once."""
    storages: dict[tuple[str, int], int] = {}
    for model in models:
        for tensor in (*model.parameters(), *model.buffers()):
            storage = tensor.untyped_storage()
            storages[(str(tensor.device), storage.data_ptr())] = storage.nbytes()
    return storages


def weight_sets(holding: Any) -> dict[tuple, list[torch.nn.Module]]:
    """The sets of weights ``holding`` uses, each under the weight cache's key that loaded it (kind, source,
    revision, device, dtype: :meth:`Runtime.cached`) with the entry's models; a model of ``holding`` in no
    cache entry (the cache was released meanwhile) is a set of its own, keyed ``("uncached", id)``. Modules
    built on the same weights (five CTC aspects on one MiniLM) share a key."""
    mine = {id(m) for m in models_in(holding)}
    with _CACHE_LOCK:
        entries = list(_CACHE.items())
    sets: dict[tuple, list[torch.nn.Module]] = {}
    for key, value in entries:
        models = models_in(value)
        if any(id(m) in mine for m in models):
            sets[key] = models
    found = {id(m) for models in sets.values() for m in models}
    for model in models_in(holding):
        if id(model) not in found:
            sets[("uncached", id(model))] = [model]
    return sets


def release(holding: Any = None) -> int:
    """Drop weights from the process-wide cache: every entry (``holding`` None), or the entries holding a
    model of ``holding`` (a scorer, an evaluate module's ``scorer``); then :func:`free_memory`. Memory is
    freed once nothing else holds the models. Returns the entries dropped."""
    dropped = drop_cached(holding)
    free_memory()
    return dropped


def drop_cached(holding: Any = None) -> int:
    """:func:`release` without collecting: the entries are dropped, the memory freed when unreferenced."""
    wanted = None if holding is None else {id(m) for m in models_in(holding)}
    with _CACHE_LOCK:
        dropped = [
            key
            for key, value in _CACHE.items()
            if wanted is None or any(id(m) in wanted for m in models_in(value))
        ]
        for key in dropped:
            del _CACHE[key]
    return len(dropped)


def free_memory(alive: Callable[[], bool] | None = None) -> None:
    """Collect garbage (only when ``alive()`` says dropped models are still reachable, if given: reference
    cycles) and hand cached CUDA blocks back to the driver."""
    if alive is None or alive():
        gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


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

    def cached(self, kind: str, source: str, revision: str | None, load: Callable[[], T]) -> T:
        """``load()`` once per process per (kind, source, revision, device, dtype, quantize): the weight cache
        (a quantized model is its own entry)."""
        return cached((kind, source, revision, str(self.device), str(self.dtype), self.quantize), load)


class Progress:
    """The package's one progress adapter: a tqdm bar (the ``show_progress`` option; silent when disabled)
    over ``total`` whole items (examples) fed fractions of work as each forward batch ends.

    ``advance(amount)`` adds work (a share of an item is fine); ``per(scale)`` is a callback for work
    counted in other units (an aligner's pairs, a model's rows): ``scale`` items per unit. The bar shows
    the whole items done, and ends at ``total`` when the ``with`` block ends without an error. ``n`` counts
    even when disabled.

    >>> with Progress(total=3, enabled=False, desc="demo") as progress:
    ...     progress.advance(0.5)
    ...     progress.per(0.25)(7)
    ...     progress.n
    2
    >>> progress.n
    3
    """

    def __init__(self, *, total: int, enabled: bool, desc: str, unit: str = "example"):
        self.total = total
        self.n = 0
        self._done = 0.0
        self.bar = tqdm(total=total, desc=desc, unit=unit, disable=not enabled)

    def per(self, scale: float) -> Callable[[float], None]:
        """A callback advancing ``scale`` items per unit of work it is told."""
        return lambda amount: self.advance(amount * scale)

    def advance(self, amount: float) -> None:
        self._done = min(float(self.total), self._done + amount)
        whole = int(self._done + 1e-9)  # 0.1 + 0.2 + ... must not stop one short
        if whole > self.n:
            self.bar.update(whole - self.n)
            self.n = whole

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, error_type, *_) -> None:
        if error_type is None and self.n < self.total:
            self.bar.update(self.total - self.n)
            self.n = self.total
        self.bar.close()
