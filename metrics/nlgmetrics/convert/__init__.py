"""What the converters share: each family that converts the authors' original checkpoints to standard
transformers folders has its own ``convert.py`` (``nlgmetrics convert <family>``:
:mod:`nlgmetrics.ctc.convert` turns a ctc_score ``.ckpt`` into a D or R aligner folder,
:mod:`nlgmetrics.usr.convert` the three released USR folders into ``mlm``, ``dr_c`` and ``dr_f``); each output
loads through the folder options and is what ``python -m hub_models.publish`` uploads. Here: the one-line
errors, the output-folder check and the model cards' YAML header. Each converted folder is written whole (to a
temporary folder beside it, renamed into
place when complete: :func:`nlgmetrics.core.files.replaced_when_complete`), and its metadata file records the
files the converter wrote (``"files"``: name → size): a folder holding anything else, or an input, is never
replaced.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..core.files import replaced_when_complete


def error_line(message: str) -> int:
    """Print ``message`` as the command line's one error line; returns its exit status, 2."""
    print(f"nlgmetrics: error: {' '.join(str(message).split())}", file=sys.stderr)
    return 2


def os_error_line(err: OSError) -> str:
    """An OSError as one line naming its file (``out/x/config.json: No space left on device``)."""
    return f"{err.filename or 'a file'}: {err.strerror or err}"


def check_output_folder(
    output: str | Path, inputs: list[str | Path], option: str = "--output", replaces: str | None = None
) -> Path:
    """``output`` can be written as a folder of converted files, before anything loads: it is not a file
    nor under one, and it is none of the ``inputs`` (their files would be overwritten). With ``replaces``
    (the metadata file a converter writes) the folder is written whole and swapped in: an existing one
    must then be empty or an earlier conversion holding only the files its ``replaces`` records, and no
    input. Raises ValueError."""
    output = Path(output)
    for folder in (output, *output.parents):
        if folder.exists() or folder.is_symlink():
            if not folder.is_dir():
                what = "is a file" if folder == output else f"is under {folder}, which is a file"
                raise ValueError(f"{option} {output} {what}: give a folder")
            if not os.access(folder, os.W_OK):
                raise ValueError(f"{option} {output}: cannot write into {folder} (permission denied)")
            break
    for given in inputs:
        if output.is_dir() and Path(given).exists() and os.path.samefile(output, given):
            raise ValueError(f"{option} {output} is the input folder {given}: its files would be overwritten")
    if replaces is not None and output.is_dir() and any(output.iterdir()):
        for given in inputs:
            if _is_under(given, output):
                raise ValueError(
                    f"{option} {output} holds the input {given}, which the converted folder would replace: "
                    "give another folder"
                )
        if (foreign := files_not_written(output, replaces)) is not None:
            raise ValueError(
                f"{option} {output} {foreign}, which the converted folder would replace: "
                "give a new or empty folder"
            )
    return output


def _is_under(path: str | Path, folder: Path) -> bool:
    """Whether ``path`` (its folder entry: a link is not followed) lies in ``folder``."""
    entry = os.path.join(os.path.realpath(os.path.dirname(os.path.abspath(path))), os.path.basename(path))
    return Path(entry).is_relative_to(os.path.realpath(folder))


def files_not_written(folder: Path, metadata: str) -> str | None:
    """None when ``folder`` holds only the files its ``metadata`` records that a converter wrote; else what
    it holds besides (the first such file), as words after the folder's name."""
    if not (folder / metadata).is_file():
        return f"holds other files (and no {metadata} of an earlier conversion)"
    recorded = recorded_files(folder, metadata)
    if recorded is None:
        return f"holds a {metadata} that records no files (unreadable, or written by an earlier nlgmetrics)"
    for path in sorted(folder.rglob("*")):
        name = path.relative_to(folder).as_posix()
        if not path.is_dir() and name != metadata and name not in recorded:
            return f"holds {name}, which no conversion wrote (its {metadata} does not list it)"
    return None


def read_metadata(folder: Path, metadata: str) -> dict[str, Any] | None:
    """``folder``'s ``metadata`` file (what a converter recorded there), or None when it is missing or is
    not a JSON object."""
    try:
        read = json.loads((folder / metadata).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return read if isinstance(read, dict) else None


def recorded_files(folder: Path, metadata: str) -> dict[str, int] | None:
    """The files (name → size in bytes) that ``folder``'s ``metadata`` records a converter wrote there; None
    when it records none (missing or unreadable, or written before nlgmetrics recorded them)."""
    files = (read_metadata(folder, metadata) or {}).get("files")
    if not isinstance(files, dict) or not all(type(size) is int for size in files.values()):
        return None
    return files


def sha256_of(path: str | Path) -> str:
    """The sha256 of a file, read in 1 MiB chunks (a checkpoint can be larger than the memory to spare)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


@contextlib.contextmanager
def written_folder(output: Path, metadata: str) -> Iterator[Path]:
    """A new folder to write the converted files into, renamed to ``output`` once the block ends without
    an error (:func:`~nlgmetrics.core.files.replaced_when_complete`): an interrupted or failed conversion
    leaves the earlier folder, or none. The block writes ``metadata`` (a JSON object); the files written
    are then recorded in it (``"files"``, name → size), so that a later conversion replaces only a folder
    of these (:func:`check_output_folder`). A failed write (a full disk; safetensors raises its own error
    type for it) is an OSError naming ``output``."""
    from safetensors import SafetensorError

    try:
        with replaced_when_complete(output) as folder:
            folder.mkdir(parents=True)
            yield folder
            record = folder / metadata
            written = json.loads(record.read_text(encoding="utf-8"))
            written["files"] = {
                p.relative_to(folder).as_posix(): p.stat().st_size
                for p in sorted(folder.rglob("*"))
                if p.is_file() and p != record
            }
            record.write_text(json.dumps(written, indent=2) + "\n", encoding="utf-8")
    except OSError as err:
        raise OSError(err.errno, err.strerror or str(err), str(output)) from err
    except SafetensorError as err:
        raise OSError(errno.EIO, str(err), str(output)) from err


def card_header(spec, pipeline: str, tags: tuple[str, ...]) -> str:
    """The YAML header of a converted checkpoint's model card (``spec`` a ``WeightSpec``), up to its closing
    ``---``.

        >>> from types import SimpleNamespace
        >>> print(card_header(SimpleNamespace(license="mit", base="roberta-base"), "fill-mask", ("usr",)))
        ---
        license: mit
        language: en
        library_name: transformers
        pipeline_tag: fill-mask
        base_model: roberta-base
        tags:
        - nlg-evaluation
        - usr
        ---
    """
    lines = [
        f"license: {spec.license}",
        "language: en",
        "library_name: transformers",
        f"pipeline_tag: {pipeline}",
    ]
    lines += [f"base_model: {spec.base}", "tags:", *(f"- {tag}" for tag in ("nlg-evaluation", *tags))]
    return "\n".join(["---", *lines, "---"])
