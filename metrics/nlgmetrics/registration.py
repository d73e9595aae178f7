"""Make ``evaluate.load("ctc_consistency")`` work: the eight module scripts in evaluate's modules cache.

``evaluate.load(name)`` with a bare name asks the Hub for ``evaluate-metric/<name>``; when that fails
(offline with ``HF_EVALUATE_OFFLINE=1``, or the Hub has no such module) it loads the newest cached
canonical module of that name, ``<HF_MODULES_CACHE>/evaluate_modules/metrics/evaluate-metric--<name>/
<hash>/<name>.py``. :func:`register` writes our script there, the same two lines as
``metrics/<name>/<name>.py`` in a checkout, so a training script that never imports nlgmetrics gets
exactly ``nlgmetrics.load(name, config)``'s module. evaluate then logs one warning, "Using the latest
cached version of the module ...": it means this registered script is the one loaded.

Each version folder carries a marker file naming nlgmetrics and its version: registering again is a
no-op, a new nlgmetrics version replaces the folders an older one wrote, and ``remove=True`` deletes
exactly what was written (other cached versions of the name are left alone).

>>> script_text("ctc_consistency", "0.1.0").splitlines()[-1]
'from nlgmetrics.modules import CTCConsistency  # noqa: F401'
>>> len(version_hash("ctc_consistency", "0.1.0"))
64
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

MARKER = "nlgmetrics-register.json"
"""The file in every version folder :func:`register` writes (evaluate ignores it)."""

PREFIX = "evaluate-metric--"


def class_name(module: str) -> str:
    """The evaluate.Metric class of ``module`` (``ctc_consistency`` → ``CTCConsistency``)."""
    return "".join("CTC" if part == "ctc" else part.capitalize() for part in module.split("_"))


def script_text(module: str, version: str) -> str:
    """The module script: imports the package's Metric class, as ``metrics/<name>/<name>.py`` does; where
    nlgmetrics is not installed it says in one line which version registered it and the two fixes."""
    return f'''"""{module} (nlgmetrics {version}), registered by `nlgmetrics register`: evaluate.load("{module}") loads the
Metric class of the installed nlgmetrics package. Remove with `nlgmetrics register --remove`."""

import sys

try:
    import nlgmetrics  # noqa: F401
except ModuleNotFoundError as error:
    if error.name != "nlgmetrics":
        raise
    raise ModuleNotFoundError(
        "{module} was registered for evaluate.load by nlgmetrics {version} (`nlgmetrics register`), which is "
        f"not installed for {{sys.executable}}: install it here (pip install nlgmetrics=={version}) or run "
        "`nlgmetrics register --remove` where it was registered",
        name="nlgmetrics",
    ) from None

from nlgmetrics.modules import {class_name(module)}  # noqa: F401
'''


def version_hash(module: str, version: str) -> str:
    """The 64-hex folder name evaluate expects for one cached version (a hash of what is written)."""
    return hashlib.sha256(
        f"nlgmetrics-register\0{version}\0{script_text(module, version)}".encode()
    ).hexdigest()


def metrics_folder() -> Path:
    """``<HF_MODULES_CACHE>/evaluate_modules/metrics``: where evaluate looks (its own settings decide)."""
    from evaluate import config

    return Path(config.HF_MODULES_CACHE) / config.MODULE_NAME_FOR_DYNAMIC_MODULES / "metrics"


@dataclass(frozen=True)
class Change:
    module: str
    action: str
    """``registered``, ``already registered``, ``replaced <old versions>``, ``removed`` or ``not registered``."""
    path: Path

    def __str__(self) -> str:
        return f"{self.module}: {self.action} ({self.path})"


def _ours(folder: Path) -> dict | None:
    """The marker of a version folder written by :func:`register`, else None."""
    try:
        return json.loads((folder / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _write_init(folder: Path) -> None:
    init = folder / "__init__.py"
    if not init.exists():
        init.write_text("")


def _remove_parent_if_ours(parent: Path) -> None:
    """Remove a module folder that register created and that now holds nothing but its ``__init__.py``."""
    created = parent / f".{MARKER}"
    if created.exists() and {p.name for p in parent.iterdir()} <= {"__init__.py", created.name}:
        shutil.rmtree(parent)


def _write_version(root: Path, parent: Path, target: Path, name: str, version: str) -> None:
    """One version folder as evaluate's own loader lays it out, plus the marker."""
    if not parent.exists():
        parent.mkdir(parents=True)
        (parent / f".{MARKER}").write_text("created by nlgmetrics register\n")
    for folder in (root.parent, root, parent):
        _write_init(folder)
    target.mkdir()
    _write_init(target)
    script = target / f"{name}.py"
    script.write_text(script_text(name, version), encoding="utf-8")
    meta = {"original file path": f"nlgmetrics {version}", "local file path": str(script)}
    (target / f"{name}.json").write_text(json.dumps(meta))
    (target / MARKER).write_text(json.dumps({"module": name, "nlgmetrics": version}) + "\n")


def register(remove: bool = False, modules: list[str] | None = None) -> list[Change]:
    """Install (or with ``remove=True`` remove) the module scripts in evaluate's modules cache.

    Returns one :class:`Change` per module saying what was done. Idempotent; a newer nlgmetrics version
    replaces the folders an older one wrote.
    """
    from .modules import SPECS
    from .version import __version__

    names = list(SPECS) if modules is None else modules
    unknown = [name for name in names if name not in SPECS]
    if unknown:
        raise ValueError(f"unknown module(s) {', '.join(unknown)}; choose from {', '.join(SPECS)}")
    root = metrics_folder()
    changes = []
    for name in names:
        parent = root / f"{PREFIX}{name}"
        mine = [p for p in parent.iterdir() if p.is_dir() and _ours(p)] if parent.is_dir() else []
        if remove:
            for folder in mine:
                shutil.rmtree(folder)
            if parent.is_dir():
                _remove_parent_if_ours(parent)
            changes.append(Change(name, "removed" if mine else "not registered", parent))
            continue
        target = parent / version_hash(name, __version__)
        stale = [p for p in mine if p != target]
        versions = ", ".join(sorted({_ours(p).get("nlgmetrics", "?") for p in stale}))
        for folder in stale:
            shutil.rmtree(folder)
        existed = target in mine
        if not existed:
            _write_version(root, parent, target, name, __version__)
        # evaluate loads the newest script of a name: make it this one (also after another tool cached its own)
        os.utime(target / f"{name}.py")
        action = (
            f"replaced nlgmetrics {versions}" if stale else "already registered" if existed else "registered"
        )
        changes.append(Change(name, action, target))
    return changes
