"""Make ``evaluate.load("ctc_consistency")`` work: every module's script in evaluate's modules cache.

``evaluate.load(name)`` with a bare name asks the Hub for ``evaluate-metric/<name>``; when that fails
(offline with ``HF_EVALUATE_OFFLINE=1``, or the Hub has no such module) it loads the newest cached
canonical module of that name, ``<HF_MODULES_CACHE>/evaluate_modules/metrics/evaluate-metric--<name>/
<hash>/<name>.py``. :func:`register` writes our script there, the same two lines as
``metrics/<name>/<name>.py`` in a checkout, so a training script that never imports nlgmetrics gets
exactly ``nlgmetrics.load(name, config)``'s module. evaluate then logs one warning, "Using the latest
cached version of the module ...": it means this registered script is the one loaded.

Each version folder carries a marker file naming nlgmetrics and its version: registering again is a
no-op, a new nlgmetrics version replaces the folders an older one wrote, and ``remove=True`` deletes
exactly what was written (other cached versions of the name are left alone). A version folder is written
beside its place under a temporary name and renamed into place, so several processes may register at once
(the last rename loses to an identical folder); a folder of ours that an interrupted older run left without
its marker (its name is our hash of the script it holds) is replaced or removed.

>>> script_text("ctc_consistency", "0.1.0").splitlines()[-1]
'from nlgmetrics.ctc.metric import CTCConsistency  # noqa: F401'
>>> len(version_hash("ctc_consistency", "0.1.0"))
64
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path

from .modules import FAMILIES, SPECS
from .modules.metric_files import metric_file, module_classes
from .version import __version__

MARKER = "nlgmetrics-register.json"
"""The file in every version folder :func:`register` writes (evaluate ignores it)."""

PREFIX = "evaluate-metric--"


def script_text(module: str, version: str) -> str:
    """The module script: imports the package's Metric class, as ``metrics/<name>/<name>.py`` does; where
    nlgmetrics is not installed it says in one line which version registered it and the two fixes."""
    where, name = metric_class(module)
    return f'''"""{module} (nlgmetrics {version}), registered by `nlgmetrics register`:
evaluate.load("{module}") loads the Metric class of the installed nlgmetrics package. Remove with
`nlgmetrics register --remove`."""

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

from {where} import {name}  # noqa: F401
'''


def metric_class(module: str) -> tuple[str, str]:
    """(the file to import, the class) of ``module``'s evaluate class, read from its family's ``metric.py``
    without importing it (that would import evaluate, which registering does not need).

    >>> metric_class("infolm")
    ('nlgmetrics.infolm.metric', 'Infolm')
    """
    family = SPECS[module].family
    where = f"{FAMILIES[family]}.metric"
    for node, name in module_classes(metric_file(family).read_text(encoding="utf-8")):
        if name == module:
            return where, node.name
    raise LookupError(f"{where} writes no class with spec = SPECS[{module!r}]")


def version_hash(module: str, version: str) -> str:
    """The 64-hex folder name evaluate expects for one cached version (a hash of what is written)."""
    return hashlib.sha256(
        f"nlgmetrics-register\0{version}\0{script_text(module, version)}".encode()
    ).hexdigest()


def metrics_folder() -> Path:
    """``<HF_MODULES_CACHE>/evaluate_modules/metrics``: where evaluate looks (its own settings decide: its
    config where evaluate is imported, else :func:`modules_cache_from_environment`)."""
    config = sys.modules.get("evaluate.config")
    if config is not None:
        return Path(config.HF_MODULES_CACHE) / config.MODULE_NAME_FOR_DYNAMIC_MODULES / "metrics"
    return modules_cache_from_environment() / "evaluate_modules" / "metrics"


def modules_cache_from_environment() -> Path:
    """evaluate's ``HF_MODULES_CACHE`` as its config reads the environment (``$HF_MODULES_CACHE``, else
    ``$HF_HOME/modules``, else ``$XDG_CACHE_HOME/huggingface/modules``, else
    ``~/.cache/huggingface/modules``): ``nlgmetrics register`` never imports evaluate, which takes seconds (it
    imports transformers' pipelines)."""
    cache_home = os.getenv("XDG_CACHE_HOME", "~/.cache")
    hf_home = os.path.expanduser(os.getenv("HF_HOME", os.path.join(cache_home, "huggingface")))
    return Path(os.getenv("HF_MODULES_CACHE", os.path.join(hf_home, "modules")))


@dataclass(frozen=True)
class Change:
    module: str
    action: str
    """``registered``, ``already registered``, ``replaced <old versions>``, ``removed`` or
``not registered``."""
    path: Path

    def __str__(self) -> str:
        return f"{self.module}: {self.action} ({self.path})"


class RegistrationError(ValueError):
    """register cannot write where evaluate looks (one line, saying what to do)."""


FILES = ("__init__.py", "{name}.py", "{name}.json", MARKER)
"""What a version folder of ours holds (plus Python's ``__pycache__``)."""
TEMPORARY = ".nlgmetrics-tmp-"
"""Prefix of the folders a version is written in before it is renamed into place (evaluate reads only
64-character names, so it never sees them)."""


def _ours(folder: Path) -> dict | None:
    """The marker of a version folder written by :func:`register`, else None."""
    try:
        return json.loads((folder / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _unfinished(folder: Path, name: str, version: str) -> str | None:
    """The version of a folder of ours that an interrupted run left without its marker, else None: it holds
    only files we write, and its name is our hash for this version or for the one its script names."""
    try:
        entries = {p.name for p in folder.iterdir()}
        script = (folder / f"{name}.py").read_text(encoding="utf-8") if f"{name}.py" in entries else ""
    except (OSError, UnicodeDecodeError):
        return None
    if MARKER in entries or not entries <= {f.format(name=name) for f in FILES} | {"__pycache__"}:
        return None
    for candidate in (version, *re.findall(r"\(nlgmetrics ([^\s)]+)\)", script)):
        written = hashlib.sha256(f"nlgmetrics-register\0{candidate}\0{script}".encode()).hexdigest()
        if folder.name in (version_hash(name, candidate), written):
            return candidate
    return None


def _version_folders(parent: Path, name: str, version: str) -> dict[Path, tuple[str, bool]]:
    """Our version folders under ``parent`` → (the nlgmetrics version that wrote them, finished)."""
    found = {}
    for folder in sorted(parent.iterdir()) if parent.is_dir() else []:
        if len(folder.name) != 64 or not folder.is_dir():
            continue
        marker = _ours(folder)
        if marker is not None:
            found[folder] = (str(marker.get("nlgmetrics", "?")), True)
        elif (unfinished := _unfinished(folder, name, version)) is not None:
            found[folder] = (unfinished, False)
    return found


def _done(target: Path, version: str) -> bool:
    """``target`` is our finished folder of ``version``."""
    return (_ours(target) or {}).get("nlgmetrics") == version


def _discard(folder: Path) -> None:
    """Remove ``folder``; renamed aside first, so that of several processes exactly one removes it."""
    aside = folder.with_name(f"{TEMPORARY}{uuid.uuid4().hex}")
    try:
        folder.rename(aside)
    except FileNotFoundError:  # another process got there first
        return
    shutil.rmtree(aside)


def _create(path: Path, text: str) -> None:
    """Write ``path`` unless it exists (several processes may race to)."""
    try:
        with open(path, "x", encoding="utf-8") as file:
            file.write(text)
    except FileExistsError:
        pass


def _remove_parent_if_ours(parent: Path) -> None:
    """Remove a module folder that register created and that now holds nothing but its ``__init__.py``."""
    created = parent / f".{MARKER}"
    if created.exists() and {p.name for p in parent.iterdir()} <= {"__init__.py", created.name}:
        _discard(parent)


def _check_root(root: Path) -> None:
    """``root`` (``<HF_MODULES_CACHE>/evaluate_modules/metrics``) can be a folder: no part of it is a file."""
    for folder in (root, *root.parents):
        if folder.exists() or folder.is_symlink():
            if not folder.is_dir():
                raise RegistrationError(
                    f"cannot register into {root}: {folder} is not a folder (HF_MODULES_CACHE="
                    f"{root.parents[1]}); point HF_MODULES_CACHE at a folder, or unset it"
                )
            return


def _write_version(parent: Path, target: Path, name: str, version: str) -> bool:
    """Write one version folder as evaluate's own loader lays it out, plus the marker, into a temporary
    folder beside ``target`` that is then renamed into place. False if another process placed it first."""
    if not parent.is_dir():
        parent.mkdir(parents=True, exist_ok=True)
        _create(parent / f".{MARKER}", "created by nlgmetrics register\n")
    for folder in (parent.parent.parent, parent.parent, parent):
        _create(folder / "__init__.py", "")
    temporary = Path(tempfile.mkdtemp(prefix=TEMPORARY, dir=parent))
    try:
        (temporary / "__init__.py").write_text("")
        (temporary / f"{name}.py").write_text(script_text(name, version), encoding="utf-8")
        meta = {"original file path": f"nlgmetrics {version}", "local file path": str(target / f"{name}.py")}
        (temporary / f"{name}.json").write_text(json.dumps(meta))
        (temporary / MARKER).write_text(json.dumps({"module": name, "nlgmetrics": version}) + "\n")
        os.replace(temporary, target)
        return True
    except OSError:
        if _done(target, version):  # another process placed the same folder first
            return False
        raise
    finally:
        if temporary.exists():
            shutil.rmtree(temporary)


def _register_one(root: Path, name: str, version: str, remove: bool) -> Change:
    """Register (or remove) one module; see :func:`register`."""
    parent = root / f"{PREFIX}{name}"
    mine = _version_folders(parent, name, version)
    if remove:
        for folder in mine:
            _discard(folder)
        if parent.is_dir():
            for leftover in parent.glob(f"{TEMPORARY}*"):  # an interrupted run's temporary folder
                shutil.rmtree(leftover, ignore_errors=True)
            _remove_parent_if_ours(parent)
        return Change(name, "removed" if mine else "not registered", parent)
    target = parent / version_hash(name, version)
    stale = {folder: v for folder, (v, finished) in mine.items() if folder != target or not finished}
    for folder in stale:
        _discard(folder)
    if target.exists() and not _done(target, version):
        raise RegistrationError(
            f"{target} exists but was not written by nlgmetrics register: move it away and run again"
        )
    wrote = not _done(target, version) and _write_version(parent, target, name, version)
    # evaluate loads the newest script of a name: make it this one (also after another tool cached its own)
    os.utime(target / f"{name}.py")
    replaced = sorted({v for folder, v in stale.items() if v != version})
    if replaced:
        return Change(name, f"replaced nlgmetrics {', '.join(replaced)}", target)
    return Change(name, "registered" if wrote else "already registered", target)


def register(remove: bool = False, modules: list[str] | None = None) -> list[Change]:
    """Install (or with ``remove=True`` remove) the module scripts in evaluate's modules cache.

    Returns one :class:`Change` per module saying what was done. Idempotent and safe to run in several
    processes at once (each version folder is written aside and renamed into place); a newer nlgmetrics
    version replaces the folders an older one wrote, and a folder of ours that an interrupted run left
    half-written is replaced. A :class:`RegistrationError` (one line) says why it cannot write.
    """

    names = list(SPECS) if modules is None else modules
    unknown = [name for name in names if name not in SPECS]
    if unknown:
        raise ValueError(f"unknown module(s) {', '.join(unknown)}; choose from {', '.join(SPECS)}")
    root = metrics_folder()
    if not remove:
        _check_root(root)
    try:
        return [_register_one(root, name, __version__, remove) for name in names]
    except OSError as err:
        where = f" {err.filename}" if err.filename else ""
        raise RegistrationError(
            f"cannot {'remove from' if remove else 'register into'} {root}:{where}: {err.strerror or err}"
        ) from err
