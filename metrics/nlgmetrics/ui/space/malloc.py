"""The C allocator of a long-running Space: with glibc, each thread that allocates gets a malloc arena of its
own (up to 8 per core), and memory freed there stays in that arena. Gradio serves requests on long-lived
worker threads, and a model loads on the thread whose request needs it, so under eviction every worker's
arena ends up holding freed pieces of models (``benchmarks/results/space_memory.md``: 727 MB to 1,453 MB
over 300 bursts, still growing, where the pool alone, on fresh threads, stayed near 750 MB). Two arenas keep
the freed memory where the next load reuses it, and a trim after an eviction gives what is left back to
the system. Elsewhere than glibc (macOS, musl) both do nothing.

Arrow's buffers (pyarrow, which ``evaluate`` uses for every compute()) go to the system allocator too
(:func:`arrow_system_pool`): pyarrow's default pool, mimalloc, keeps a 1 GiB reservation of its own whose
resident pages grew by about 0.3 MB per burst of requests in the served Space while Arrow counted no bytes
in use (``benchmarks/results/space_memory.md``).

>>> isinstance(limit_arenas(), bool)
True
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys
from functools import cache

ARENAS = 2
"""Malloc arenas a Space process keeps (glibc's ``M_ARENA_MAX``); the measured choice of
``benchmarks/space_memory.py``. ``MALLOC_ARENA_MAX`` in the environment, read by glibc at startup, wins."""
M_ARENA_MAX = -8
"""glibc's ``mallopt`` parameter number for the arena limit (malloc.h)."""
ARROW_POOL = "ARROW_DEFAULT_MEMORY_POOL"
"""Arrow's documented choice of its default memory pool (``system``, ``jemalloc``, ``mimalloc``), read when
the pool is first used; one the operator sets wins."""


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


def arrow_system_pool() -> bool:
    """Arrow's default memory pool is the system allocator (glibc's malloc: the arenas limited above, trimmed
    after an eviction) from now on, unless the operator chose one (``ARROW_DEFAULT_MEMORY_POOL``); whether it
    was set here."""
    if os.environ.get(ARROW_POOL):
        return False
    os.environ[ARROW_POOL] = "system"  # for a pyarrow not imported yet: read at its pool's first use
    if "pyarrow" in sys.modules:  # imported already: its pool may exist
        import pyarrow

        pyarrow.set_memory_pool(pyarrow.system_memory_pool())
    return True
