"""The precision modes as one table (:data:`MODES`), and a family's declaration of the opt-in ones.

A mode says what it casts or replaces, where it runs, what the result signature then says, and how it is
refused elsewhere; the options (the ``dtype`` and ``quantize`` rows), :mod:`~nlgmetrics.core.precision`
(the decisions with the device), the scorer base, the Space and the cards read it. An opt-in mode (int8)
runs only where the module's ``ModuleSpec.precision`` declares it :func:`allowed`, with the measurement
that allowed it; a family that declares nothing refuses it (:func:`refuse_undeclared`, called for every
family by the scorer base before any weights load). No torch here: the declarations read this table.

>>> [mode.name for mode in MODES], MODE["float16"].devices
(['float32', 'bfloat16', 'float16', 'int8'], ('cuda', 'mps'))
>>> DTYPE_NAMES, QUANTIZE_MODES
(('float32', 'bfloat16', 'float16'), ('int8',))
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PrecisionMode:
    """One way to run a model: a ``dtype`` (cast weights) or a ``quantize`` mode (replaced layers)."""

    name: str
    """What the option takes (``float32``, ``bfloat16``, ``float16``, ``int8``)."""
    option: str
    """The load option that chooses it: ``dtype`` or ``quantize``."""
    aliases: tuple[str, ...]
    """Other names the option takes for it (``bf16``)."""
    does: str
    """What it casts or replaces, in words."""
    devices: tuple[str, ...]
    """The device types it runs on (the CPU's bf16 also needs bf16 units: ``precision.cpu_bf16_missing``)."""
    signature: str
    """What the result signature then says (the device part where the numbers depend on its kernels)."""
    refused: str
    """The refusal on a device type it does not run on: a line with ``{device}`` (and ``{value}``)."""
    unsupported: str = ""
    """The refusal where this machine lacks what it needs on the CPU (bf16 units, the int8 matmul): a line
    with ``{missing}`` (and ``{value}``), from ``precision.cpu_missing``."""
    opt_in: bool = False
    """Whether a family must declare it (``ModuleSpec.precision``): refused where it is not declared."""
    over: str = "float32"
    """The dtype the model is in under it (int8 replaces the Linear layers of a float32 model)."""


MODES = (
    PrecisionMode(
        "float32",
        "dtype",
        ("fp32",),
        "nothing: the reference numbers",
        ("cpu", "cuda", "mps"),
        "|dtype:float32",
        "",
    ),
    PrecisionMode(
        "bfloat16",
        "dtype",
        ("bf16",),
        "casts every weight to bfloat16",
        ("cpu", "cuda", "mps"),
        "|dtype:bfloat16|device:<type>",
        "",
        "dtype='bfloat16' on the cpu {missing}; use float32 (the default) or quantize='int8'",
        over="bfloat16",
    ),
    PrecisionMode(
        "float16",
        "dtype",
        ("fp16", "half"),
        "casts every weight to float16",
        ("cuda", "mps"),
        "|dtype:float16|device:<type>",
        "dtype='float16' is not supported on the {device} (emulated there, slower than float32); "
        "use float32, or bfloat16 on a CPU with bf16 units",
        over="float16",
    ),
    PrecisionMode(
        "int8",
        "quantize",
        (),
        "replaces the Linear layers of the transformer blocks by dynamic int8 ones (per-token activations, "
        "per-channel weights), float32 between them",
        ("cpu",),
        "|dtype:float32|quantize:int8|device:cpu",
        "quantize={value!r} runs on the cpu only (dynamic int8 matmuls); on {device} use dtype='bfloat16' or "
        "'float16'",
        "quantize={value!r} cannot run here: {missing}; use float32 or dtype='bfloat16'",
        opt_in=True,
    ),
)
MODE = {mode.name: mode for mode in MODES}
"""Each mode by name."""
DTYPE_NAMES = tuple(mode.name for mode in MODES if mode.option == "dtype")
DTYPE_ALIASES = {alias: mode.name for mode in MODES if mode.option == "dtype" for alias in mode.aliases}
QUANTIZE_MODES = tuple(mode.name for mode in MODES if mode.option == "quantize")
"""What ``quantize`` takes (None, the default: no quantization)."""


@dataclass(frozen=True)
class Measured:
    """A family's word on an opt-in mode for one config key: allowed or refused, and the measurement why."""

    allowed: bool
    why: str


def allowed(why: str) -> Measured:
    """The mode is allowed: ``why`` is the measurement (speed-up, drift within the bound)."""
    return Measured(True, why)


def refused(why: str) -> Measured:
    """The mode is refused: ``why`` is the measurement (drift past the bound, no speed-up)."""
    return Measured(False, why)


def int8_unmeasured(weights: str, keeps: str = "correlations within 0.01 of float32's") -> Declared:
    """``ModuleSpec.precision`` for a family whose int8 drift on ``weights`` was never measured: refused for
    every config, as not known to keep ``keeps``.

    >>> int8_unmeasured("FactCG's released weights")["int8"][""].allowed
    False
    """
    return {
        "int8": {
            "": refused(
                f"its drift on {weights} has not been measured (benchmarks/cpu_precision.py does not cover "
                f"them), so it is not known to keep {keeps}"
            )
        }
    }


Declared = Mapping[str, Mapping[str, Measured]]
"""``ModuleSpec.precision``: opt-in mode name → key (a config, an aligner kind before the first "-" or ":",
or "" for every config) → :class:`Measured`."""


def by_config(table: Mapping[str, Any], config: str, default: Any = None) -> Any:
    """``table``'s entry for ``config`` (a config name, or ``"D:./folder"``): the config's own, else its
    kind's (before the first "-" or ":"), else the "" entry; ``default`` when none."""
    kind = re.split(r"[-:]", config, maxsplit=1)[0]
    return next((table[key] for key in (config, kind, "") if key in table), default)


def refusal(declared: Declared, mode: str | None, config: str, owner: str) -> str:
    """Why ``mode`` is refused for ``config`` of module ``owner`` under its declaration; "" where it runs (a
    mode that is not opt-in, or one declared allowed there)."""
    if mode is None or not MODE[mode].opt_in:
        return ""
    entry = by_config(declared.get(mode, {}), config)
    if entry is None:
        return (
            f"{owner} declares no measurement of {mode} (a family allows it in its ModuleSpec's precision "
            "where it measured it faster and within the drift bound)"
        )
    return "" if entry.allowed else entry.why


def refuse_undeclared(spec: Any, quantize: str | None, config: str | None) -> None:
    """``quantize`` where the module ``spec`` does not allow it for ``config`` (``spec.refusal``: a config,
    an aligner such as ``"D:./x"``, or the default) is one ValueError saying why: the scorer base checks it
    for every family before any weights load, ``nlgmetrics.reward`` when the reward is made, the Space
    before it loads."""
    why = spec.refusal(quantize, config)
    if why:
        raise ValueError(
            f"quantize={quantize!r} is refused for {spec.name} {config or spec.default_config}: {why}; "
            "use dtype='bfloat16' (on accelerators and CPUs with bf16 units) or float32"
        )
