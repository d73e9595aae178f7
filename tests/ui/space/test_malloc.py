"""The Space's malloc arenas (issue 40 §18): under eviction each Gradio worker thread's own glibc arena kept
freed pieces of models, and the served Space's memory grew (benchmarks/results/space_memory.md); the Space
keeps two arenas. Counted in fresh processes with glibc's ``malloc_info``, one ``<heap>`` per arena."""

from __future__ import annotations

import os
import subprocess
import sys

from nlgmetrics.ui.space import malloc
from tests.ui.space.helpers import REPO

THREADS = 8
COUNT_ARENAS = f"""
import ctypes, ctypes.util, sys, tempfile, threading
{{setup}}
barrier = threading.Barrier({THREADS})
kept = []

def allocate():
    barrier.wait()  # all at once: each thread's first allocations while the others allocate
    kept.append([bytearray(4096) for _ in range(200)])
    barrier.wait()

threads = [threading.Thread(target=allocate) for _ in range({THREADS})]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
libc = ctypes.CDLL(ctypes.util.find_library("c"))
libc.fdopen.restype = ctypes.c_void_p
with tempfile.NamedTemporaryFile("r") as out:
    handle = libc.fdopen(out.fileno(), b"w")
    libc.malloc_info(0, ctypes.c_void_p(handle))
    libc.fflush(ctypes.c_void_p(handle))
    print(open(out.name).read().count("<heap nr="))
"""


def last_word(code: str, *, unset: str, **env: str) -> str:
    """The last word ``code`` prints in a fresh Python process on this checkout, without ``$unset`` (``env``
    added)."""
    environ = {k: v for k, v in os.environ.items() if k != unset} | env
    environ["PYTHONPATH"] = os.pathsep.join([str(REPO / "metrics"), str(REPO)])
    run = subprocess.run(
        [sys.executable, "-c", code], env=environ, capture_output=True, text=True, timeout=300, check=True
    )
    return run.stdout.split()[-1]


def arenas(setup: str) -> int:
    """The malloc arenas of a fresh Python process after ``setup`` and {THREADS} threads allocating at
    once."""
    return int(last_word(COUNT_ARENAS.format(setup=setup), unset="MALLOC_ARENA_MAX"))


BUILT = "from nlgmetrics.ui.limits import Limits\nfrom nlgmetrics.ui.space import build_space\n"


def test_the_space_keeps_two_malloc_arenas_however_many_threads_allocate():
    assert malloc._glibc() is not None, "these tests run on glibc (Linux): the Space's image is Debian"
    assert arenas("") > malloc.ARENAS  # glibc's default: an arena per thread, up to 8 per core
    assert arenas(BUILT + "build_space(Limits(preload='none'))") <= malloc.ARENAS


ARROW_BACKEND = """
{setup}
import pyarrow
print(pyarrow.default_memory_pool().backend_name)
"""


def arrow_backend(setup: str, **env: str) -> str:
    """Arrow's default memory pool in a fresh Python process after ``setup`` (``env`` added)."""
    return last_word(ARROW_BACKEND.format(setup=setup), unset=malloc.ARROW_POOL, **env)


def test_the_spaces_arrow_buffers_use_the_system_allocator_not_pyarrows_mimalloc():
    """pyarrow's mimalloc kept a 1 GiB reservation whose resident pages grew with the served Space's requests
    (about 0.3 MB per burst, Arrow counting no bytes in use: benchmarks/results/space_memory.md)."""
    assert arrow_backend("") != "system"  # pyarrow's own default (mimalloc or jemalloc)
    assert arrow_backend(BUILT + "build_space(Limits(preload='none'))") == "system"
    # pyarrow imported, and its pool used, before the Space is built: the pool is replaced
    early = "import pyarrow\npyarrow.default_memory_pool()\n" + BUILT + "build_space(Limits(preload='none'))"
    assert arrow_backend(early) == "system"


def test_an_arrow_pool_the_operator_chose_is_kept(monkeypatch):
    monkeypatch.setenv(malloc.ARROW_POOL, "jemalloc")
    assert malloc.arrow_system_pool() is False and os.environ[malloc.ARROW_POOL] == "jemalloc"
    chosen = arrow_backend(
        BUILT + "build_space(Limits(preload='none'))", ARROW_DEFAULT_MEMORY_POOL="jemalloc"
    )
    assert chosen in ("jemalloc", "mimalloc")  # jemalloc, or Arrow's fallback where it was not built in
