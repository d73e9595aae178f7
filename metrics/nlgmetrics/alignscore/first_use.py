"""The first use of a registered AlignScore config: its released checkpoint downloaded at its registered
revision and converted once into a cache beside the Hub's, keyed on what it was made from. The scorer calls
:func:`converted_for`; the converter (:mod:`~nlgmetrics.alignscore.convert`: the checkpoint loader and the
command line) is imported only when a conversion runs, so scoring a converted folder imports none of it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from ..convert import read_metadata, recorded_files, sha256_of
from ..core.hub import from_pretrained
from ..core.registry import WeightSpec
from .layout import HEADS_FILE, METADATA
from .weights import CHECKPOINT_FILES


def converted_cache_root() -> Path:
    """Where first-use conversions of the registered checkpoints go: beside the Hub cache."""
    from huggingface_hub import constants

    return Path(constants.HF_HUB_CACHE) / "nlgmetrics-converted"


def converted_for(spec: WeightSpec) -> str:
    """The converted folder of registered checkpoint ``spec``: downloaded at its registered revision (or read
    from the cache) and converted once, keyed on what it was made from: the snapshot's commit and the
    checkpoint's sha256 (a copied cache without links has the same file name at every revision), both
    recorded in its ``alignscore.json``. A folder that does not record them, or misses a file it records, is
    converted again."""
    from huggingface_hub import hf_hub_download

    filename = CHECKPOINT_FILES[spec.name]

    def download(repo: str, revision: str | None = None, **kwargs: Any) -> str:
        return hf_hub_download(repo, filename, revision=revision, **kwargs)

    checkpoint = from_pretrained(download, spec.repo_id, spec.revision)
    made_from = {"commit": Path(checkpoint).parent.name, "checkpoint_sha256": sha256_of(checkpoint)}
    folder = (
        converted_cache_root()
        / spec.name
        / f"{made_from['commit'][:16]}-{made_from['checkpoint_sha256'][:16]}"
    )
    if not is_conversion_of(folder, made_from):
        from .convert import convert_checkpoint  # the converter (console, unpickler): only when one runs

        shutil.rmtree(folder, ignore_errors=True)  # damaged (or stale): ours to replace
        convert_checkpoint(checkpoint, folder, made_from=made_from)
    return str(folder)


def is_conversion_of(folder: Path, made_from: dict[str, str]) -> bool:
    """Whether ``folder`` is a whole conversion made from ``made_from``: its ``alignscore.json`` records the
    same values, and every file it records is there at its recorded size (the heads and config among them),
    each JSON file parses and each safetensors header reads (no tensor is loaded)."""
    meta, files = read_metadata(folder, METADATA), recorded_files(folder, METADATA)
    if meta is None or files is None or not {HEADS_FILE, "config.json"} <= files.keys():
        return False
    if any(meta.get(key) != value for key, value in made_from.items()):
        return False
    return all(_is_whole(folder / name, size) for name, size in files.items())


def _is_whole(path: Path, size: int) -> bool:
    """``path`` is a file of ``size`` bytes; a JSON file parses, a safetensors file's header reads."""
    from safetensors import safe_open

    try:
        if not path.is_file() or path.stat().st_size != size:
            return False
        if path.suffix == ".json":
            json.loads(path.read_text(encoding="utf-8"))
        elif path.suffix == ".safetensors":
            with safe_open(path, "pt") as opened:
                opened.keys()
    except Exception:  # unreadable, not JSON, a damaged safetensors header: converted again
        return False
    return True
