"""The C allocator of a long-running Space: with glibc, each thread that allocates gets a malloc arena of its
own (up to 8 per core), and memory freed there stays in that arena. Gradio serves requests on long-lived
worker threads, and a model loads on the thread whose request needs it, so under eviction every worker's
arena ends up holding freed pieces of models (``benchmarks/results/space_memory.md``: 727 MB to 1,453 MB
over 300 bursts, still growing, where the pool alone, on fresh threads, stayed near 750 MB). Two arenas keep
the freed memory where the next load reuses it, and a trim after an eviction gives what is left back to
the system. Elsewhere than glibc (macOS, musl) both do nothing.

>>> isinstance(limit_arenas(), bool)
True
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from functools import cache

ARENAS = 2
"""Malloc arenas a Space process keeps (glibc's ``M_ARENA_MAX``); the measured choice of
``benchmarks/space_memory.py``. ``MALLOC_ARENA_MAX`` in the environment, read by glibc at startup, wins."""
M_ARENA_MAX = -8
"""glibc's ``mallopt`` parameter number for the arena limit (malloc.h)."""


@cache
def _glibc() -> ctypes.CDLL | None:
    """The C library when it is glibc (it has ``mallopt`` and ``malloc_trim``), else None."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name or "libc.so.6")
    except OSError:
        return None
    return libc if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None


def limit_arenas(arenas: int = ARENAS) -> bool:
    """At most ``arenas`` malloc arenas for the threads made from now on (call it before the server's threads
    start); whether the limit is set (False: not glibc, or ``MALLOC_ARENA_MAX`` set by the operator)."""
    libc = _glibc()
    if libc is None or os.environ.get("MALLOC_ARENA_MAX"):
        return False
    return bool(libc.mallopt(M_ARENA_MAX, arenas))


def trim() -> None:
    """Give the free memory at the top of each arena back to the system (glibc's ``malloc_trim(0)``)."""
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)
