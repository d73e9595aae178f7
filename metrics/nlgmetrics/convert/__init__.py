"""What the converters share: each family that converts the authors' original checkpoints to standard
transformers folders has its own ``convert.py`` (``nlgmetrics convert <family>``: :mod:`nlgmetrics.ctc.convert`
turns a ctc_score ``.ckpt`` into a D or R aligner folder, :mod:`nlgmetrics.usr.convert` the three released USR
folders into ``mlm``, ``dr_c`` and ``dr_f``); each output loads through the folder options and is what
``python -m hub_models.publish`` uploads. Here: the one-line errors, the output-folder check and the model
cards' YAML header.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def error_line(message: str) -> int:
    """Print ``message`` as the command line's one error line; returns its exit status, 2."""
    print(f"nlgmetrics: error: {' '.join(str(message).split())}", file=sys.stderr)
    return 2


def os_error_line(err: OSError) -> str:
    """An OSError as one line naming its file (``out/x/config.json: No space left on device``)."""
    return f"{err.filename or 'a file'}: {err.strerror or err}"


def check_output_folder(output: str | Path, inputs: list[str | Path], option: str = "--output") -> Path:
    """``output`` can be written as a folder of converted files, before anything loads: it is not a file
    nor under one, and it is none of the ``inputs`` (their files would be overwritten). Raises ValueError."""
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
    return output


def card_header(spec, pipeline: str, tags: tuple[str, ...]) -> str:
    """The YAML header of a converted checkpoint's model card (``spec`` a ``WeightSpec``), up to its closing ``---``.

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
