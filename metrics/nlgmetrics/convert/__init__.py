"""What the converters share: each family that converts the authors' original checkpoints to standard
transformers folders has its own ``convert.py`` (``nlgmetrics convert <family>``:
:mod:`nlgmetrics.ctc.convert` turns a ctc_score ``.ckpt`` into a D or R aligner folder,
:mod:`nlgmetrics.usr.convert` the three released USR folders into ``mlm``, ``dr_c`` and ``dr_f``); each output
loads through the folder options and is what ``python -m hub_models.publish`` uploads. Here: the one-line
errors, the output-folder check and the model cards' YAML header. Each converted folder is written whole (to a
temporary folder beside it, renamed into
place when complete: :func:`nlgmetrics.core.files.replaced_when_complete`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
from collections.abc import Iterator
from pathlib import Path

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
    must then be empty or an earlier conversion (holding ``replaces``), never a folder of other files.
    Raises ValueError."""
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
    if (
        replaces is not None
        and output.is_dir()
        and any(output.iterdir())
        and not (output / replaces).is_file()
    ):
        raise ValueError(
            f"{option} {output} holds other files (and no {replaces} of an earlier conversion), which the "
            "converted folder would replace: give a new or empty folder"
        )
    return output


@contextlib.contextmanager
def written_folder(output: Path) -> Iterator[Path]:
    """A new folder to write the converted files into, renamed to ``output`` once the block ends without
    an error (:func:`~nlgmetrics.core.files.replaced_when_complete`): an interrupted or failed conversion
    leaves the earlier folder, or none. A failed write (a full disk; safetensors raises its own error type
    for it) is an OSError naming ``output``."""
    from safetensors import SafetensorError

    try:
        with replaced_when_complete(output) as folder:
            folder.mkdir(parents=True)
            yield folder
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
