"""Writing files whole: every file or folder a command writes (scores, meta-eval results and plots, shards,
converted checkpoints, publish's staging folder) goes to a temporary name beside its target and is renamed
onto it only once complete, so an interrupted run (Ctrl-C) or a failed write (a full disk) leaves the earlier
file, or none, never a short one under the final name, and no temporary file behind.

>>> import tempfile
>>> target = Path(tempfile.mkdtemp()) / "scores.jsonl"
>>> with replaced_when_complete(target) as temporary:
...     _ = temporary.write_text("complete\\n")
...     target.exists()
False
>>> target.read_text(), sorted(p.name for p in target.parent.iterdir())
('complete\\n', ['scores.jsonl'])
>>> with replaced_when_complete(target) as temporary:
...     _ = temporary.write_text("half a ")
...     raise OSError(28, "No space left on device")
Traceback (most recent call last):
...
OSError: [Errno 28] No space left on device
>>> target.read_text(), sorted(p.name for p in target.parent.iterdir())
('complete\\n', ['scores.jsonl'])

SIGTERM (``timeout``, ``docker stop``, Slurm) cleans up as Ctrl-C does, then still ends the process; what a
write killed outright left (SIGKILL, a power cut) is removed by the next complete write of the same target.
A target that is neither a file nor a folder (a named pipe, ``/dev/null``, ``/dev/stdout``) is written
through, never replaced.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import threading
from collections.abc import Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no folder locks, so nothing stale is removed (it might be another write's)
    fcntl = None

PARTIAL = ".partial"
"""The end of a temporary name (``.<name>.<random>.partial``): hidden, beside its target, never the target."""
PROBE_BYTES = 4096
"""What :func:`check_writable_folder` writes: one block, so that a full file system refuses it."""


def beside(target: Path, ending: str) -> Path:
    """A new hidden name in ``target``'s folder (same file system: the rename is atomic)."""
    # os.urandom, not the secrets module: importing that loads OpenSSL's hashlib, 4 ms of the CLI's start
    return target.with_name(f".{target.name}.{os.urandom(6).hex()}{ending}")


class Terminated(BaseException):
    """SIGTERM arrived while a file was written: raised to remove the temporary name, after which the signal
    is delivered again to end the process as SIGTERM does (a BaseException, as KeyboardInterrupt is)."""


@contextlib.contextmanager
def replaced_when_complete(target: str | os.PathLike) -> Iterator[Path]:
    """A path to write instead of ``target`` (a file, or a folder the writer creates), renamed onto
    ``target`` when the block ends without an error and removed otherwise (KeyboardInterrupt and SIGTERM
    included); once in place, the temporary names of ``target`` that a killed write left are removed.

    A symbolic link is written through (its file is replaced, the link stays); a file replaced keeps its
    permissions; a folder replaced is swapped whole; a target that is neither (a named pipe, a device) is
    given as it is, to write into. The data is flushed to disk before the rename: some file systems
    report a full disk only then."""
    final = Path(target)
    if written_through(final):
        yield final  # a pipe's reader or a device takes the data as written: no rename can replace it
        return
    if final.is_symlink():
        final = Path(os.path.realpath(final))
    temporary = beside(final, PARTIAL)
    with _folder_in_use(final.parent), _cleaned_up_on_sigterm():
        try:
            yield temporary
            _flush(temporary)
            if final.is_file() and temporary.is_file():
                shutil.copymode(final, temporary)
            _put_in_place(temporary, final)
        finally:
            _remove(temporary)  # only there after a failure: a successful rename took it
    _remove_stale(final)


def written_through(target: str | os.PathLike) -> bool:
    """``target`` is neither a file nor a folder (links followed: a named pipe, ``/dev/null``,
    ``/dev/stdout`` on a terminal or a pipe), or a name under ``/dev`` (``/dev/stdout`` redirected to a file:
    the shell's file is written, not replaced by a rename): it is written into as it is."""
    target = Path(target)
    if not target.exists():
        return False
    return not (target.is_file() or target.is_dir()) or target.absolute().parts[:2] == ("/", "dev")


def write_text_whole(target: str | os.PathLike, text: str) -> None:
    """``Path.write_text`` (UTF-8) through :func:`replaced_when_complete`."""
    with replaced_when_complete(target) as temporary:
        temporary.write_text(text, encoding="utf-8")


def _flush(path: Path) -> None:
    """fsync every file written under ``path`` (a file, or a folder's files)."""
    files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
    for file in files:
        handle = os.open(file, os.O_RDONLY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)


def _put_in_place(temporary: Path, final: Path) -> None:
    """Rename ``temporary`` onto ``final``; a folder that holds files is first moved aside, then removed
    (a rename cannot replace it), and moved back if the new one cannot take its place."""
    if not (temporary.is_dir() and final.is_dir() and any(final.iterdir())):
        os.replace(temporary, final)
        return
    earlier = beside(final, ".old")
    os.replace(final, earlier)
    try:
        os.replace(temporary, final)
    except BaseException:
        os.replace(earlier, final)
        raise
    shutil.rmtree(earlier, ignore_errors=True)


def _remove(path: Path) -> None:
    """Remove ``path`` (a file or a folder) if it is there. A name never created is no error, even where
    the file system refuses any change: unlinking it on a read-only one fails with EROFS, not ENOENT."""
    if not os.path.lexists(path):
        return
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


@contextlib.contextmanager
def _cleaned_up_on_sigterm() -> Iterator[None]:
    """While the block runs, SIGTERM raises :class:`Terminated` (so the ``finally`` blocks remove the
    temporary names), then the previous handler is restored and the signal delivered again, which ends the
    process as SIGTERM does. Only in the main thread (signal handlers are set there) and where SIGTERM has
    its default action: a handler someone else installed, or SIGTERM ignored, stays as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield
        return
    signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    except Terminated:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.raise_signal(signal.SIGTERM)
        raise  # only if SIGTERM is blocked: it ends the process once unblocked
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _raise_terminated(signum: int, frame: object) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second SIGTERM must not interrupt the clean-up
    raise Terminated(f"signal {signum} (SIGTERM) while a file was written")


def _locked(folder: Path, exclusive: bool) -> int | None:
    """An open handle of ``folder`` holding a shared flock (waited for), or an exclusive one if free at once;
    the caller closes it. None where it cannot be had: no such folder, no flock on its file system (or
    Windows), or the exclusive lock is taken."""
    if fcntl is None:
        return None
    try:
        handle = os.open(folder, os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB if exclusive else fcntl.LOCK_SH)
    except OSError:
        os.close(handle)
        return None
    return handle


@contextlib.contextmanager
def _folder_in_use(folder: Path) -> Iterator[None]:
    """A shared lock on ``folder`` while a temporary name in it is written, so that another write's
    :func:`_remove_stale` leaves that name alone."""
    handle = _locked(folder, exclusive=False)
    try:
        yield
    finally:
        if handle is not None:
            os.close(handle)


def _remove_stale(final: Path) -> None:
    """Remove the temporary names of ``final`` (``.<name>.<12 hex>.partial`` and ``.old``, nothing else)
    that a write killed outright (SIGKILL, a power cut) left beside it, and only while no other write into
    its folder is under way (an exclusive lock on the folder is free at once; else they stay for later)."""
    handle = _locked(final.parent, exclusive=True)
    if handle is None:
        return
    try:
        ours = re.compile(rf"\.{re.escape(final.name)}\.[0-9a-f]{{12}}(\.partial|\.old)")
        for path in final.parent.iterdir():
            if ours.fullmatch(path.name):
                _remove(path)
    finally:
        os.close(handle)


def check_writable_folder(folder: str | os.PathLike, flag: str) -> Path:
    """``folder`` if files can be written into it (it may not exist yet): a ValueError naming ``flag``
    when it or a folder above it is a file, or when writing there fails (read-only, permission denied,
    full). The test writes and removes one block in the nearest existing folder: permissions do not stop
    root, and a full disk says so only when written to."""
    folder = Path(folder)
    existing = next(p for p in (folder, *folder.parents, Path(".")) if p.exists() or p.is_symlink())
    if not existing.is_dir():
        what = "is a file" if existing == folder else f"is under {existing}, which is a file"
        raise ValueError(f"{flag} {folder} {what}: give a folder")
    probe = beside(existing / "nlgmetrics-probe", ".probe")
    try:
        with open(probe, "wb") as handle:
            handle.write(bytes(PROBE_BYTES))
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as err:
        raise ValueError(f"{flag} {folder}: cannot write into {existing} ({err.strerror or err})") from None
    finally:
        _remove(probe)
    return folder
