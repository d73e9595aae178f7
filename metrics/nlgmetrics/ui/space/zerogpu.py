"""ZeroGPU, the shared GPUs of Gradio Spaces: there every function that runs a model is wrapped in
``spaces.GPU`` (PyPI ``spaces``), with a duration from the request's size. Models load in the main
process first (on ZeroGPU, ``spaces`` keeps "cuda" weights on the CPU side until a GPU is attached);
the wrapped call runs them on the GPU it is lent. Off ZeroGPU nothing is wrapped and ``spaces`` need not
be installed.

>>> gpu_seconds(1), gpu_seconds(256), gpu_seconds(10_000)
(20, 84, 120)
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from typing import Any

BASE_SECONDS = 20
"""GPU seconds asked for any request (moving the weights onto the GPU, warm-up)."""
SECONDS_PER_EXAMPLE = 0.25
"""And per example scored (a RoBERTa-large aligner scores several per second on ZeroGPU's GPUs)."""
MAX_SECONDS = 120
"""The most asked for one call (ZeroGPU charges a visitor's quota by the duration asked)."""


def on_zerogpu() -> bool:
    """Whether the Space runs on ZeroGPU: ``SPACES_ZERO_GPU`` true, as the ``spaces`` package reads it
    (``1``, ``t`` or ``true``), and ``spaces`` importable (imported here)."""
    if os.environ.get("SPACES_ZERO_GPU", "").lower() not in ("1", "t", "true"):
        return False
    try:
        importlib.import_module("spaces")  # on ZeroGPU it patches torch: before any model touches CUDA
    except ImportError:
        return False
    return True


def prepare() -> None:
    """On ZeroGPU, import ``spaces`` before any model loads (it patches torch when imported)."""
    on_zerogpu()


def gpu_seconds(examples: int) -> int:
    """The GPU time asked for a call scoring ``examples`` examples."""
    return min(MAX_SECONDS, round(BASE_SECONDS + SECONDS_PER_EXAMPLE * examples))


def on_gpu(run: Callable[..., Any]) -> Callable[..., Any]:
    """``run(module, config, fields, options, load)`` wrapped in ``spaces.GPU`` on ZeroGPU (the duration
    from the number of examples in ``fields``), else ``run`` itself. Its arguments and result are plain data
    (they cross to the GPU worker process)."""
    if not on_zerogpu():
        return run
    spaces = importlib.import_module("spaces")

    def duration(module: str, config: str, fields: dict, options: dict, load: tuple = ()) -> int:
        return gpu_seconds(len(fields["predictions"]))

    return spaces.GPU(run, duration=duration)
