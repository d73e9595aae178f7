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
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

PARTIAL = ".partial"
"""The end of a temporary name (``.<name>.<random>.partial``): hidden, beside its target, never the target."""
PROBE_BYTES = 4096
"""What :func:`check_writable_folder` writes: one block, so that a full file system refuses it."""


def beside(target: Path, ending: str) -> Path:
    """A new hidden name in ``target``'s folder (same file system: the rename is atomic)."""
    # os.urandom, not the secrets module: importing that loads OpenSSL's hashlib, 4 ms of the CLI's start
    return target.with_name(f".{target.name}.{os.urandom(6).hex()}{ending}")


@contextlib.contextmanager
def replaced_when_complete(target: str | os.PathLike) -> Iterator[Path]:
    """A path to write instead of ``target`` (a file, or a folder the writer creates), renamed onto
    ``target`` when the block ends without an error and removed otherwise (KeyboardInterrupt included).

    A symbolic link is written through (its file is replaced, the link stays); a file replaced keeps its
    permissions; a folder replaced is swapped whole. The data is flushed to disk before the rename: some
    file systems report a full disk only then."""
    final = Path(target)
    if final.is_symlink():
        final = Path(os.path.realpath(final))
    temporary = beside(final, PARTIAL)
    try:
        yield temporary
        _flush(temporary)
        if final.is_file() and temporary.is_file():
            shutil.copymode(final, temporary)
        _put_in_place(temporary, final)
    finally:
        _remove(temporary)  # only there after a failure: a successful rename took it


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
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


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
