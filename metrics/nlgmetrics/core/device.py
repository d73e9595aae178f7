"""Which device the models run on: the one asked for (``device``, ``$NLGMETRICS_DEVICE``), a launcher's
rank's own GPU, else cuda, then mps, then cpu; and the batch size by device.

>>> str(select_device("cpu"))
'cpu'
>>> default_batch_size(select_device("cpu"))
16
"""

from __future__ import annotations

import os

import torch

_RUNNABLE = ("cpu", "cuda", "mps")
"""Device types the models run on (``meta`` and the other torch types are refused at load)."""


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
    """This process's accelerator under a launcher (``torchrun``, ``accelerate launch``):
    ``cuda:<LOCAL_RANK>``, so that every rank loads its models on its own GPU, not all on ``cuda:0``; the
    device asked for (:func:`requested_device`) when it is not plain ``cuda``; None where there is no GPU (the
    default choice). ``for_trainer`` and ``reward`` load with it."""
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


def default_batch_size(device: torch.device) -> int:
    """Texts per forward pass when the user gives none: small on cpu, larger on accelerators."""
    return 16 if device.type == "cpu" else 64
