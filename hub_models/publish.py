"""Create the Hub repos of converted CTC and USR checkpoints, record the commit each upload made, and tag it.

    python -m hub_models.publish out/ --dry-run     # list what would be uploaded where
    python -m hub_models.publish out/               # needs HF_TOKEN with write access to the org

``out/`` holds folders written by ``convert_ctc`` (each with ``ctc_conversion.json``) or
``convert_usr`` (``usr_conversion.json``; USR's release tag is ``USR_RELEASE``). The target
repo of each comes from the registry (``nlgmetrics.core.registry.WEIGHTS``), so the ids the metrics
load are exactly the ones published: ``create_repo`` (idempotent), ``upload_folder``, then
``create_tag`` (the release tag ``CTC_RELEASE``) on the commit the upload made. That commit id is
written into ``metrics/nlgmetrics/core/data/published_revisions.json`` (repo id → commit, sorted),
which the registry reads: from then on the metrics load that repo at the commit, which cannot move,
not at the tag, which can. Commit the JSON file. A repo already recorded there is skipped (its pin
stays); remove its entry to upload it again.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from nlgmetrics.core.registry import CTC_RELEASE, USR_RELEASE, WEIGHTS, read_published_revisions

REVISIONS_FILE = (
    Path(__file__).resolve().parent.parent
    / "metrics"
    / "nlgmetrics"
    / "core"
    / "data"
    / "published_revisions.json"
)
"""The checkout's table of published commits (the registry reads the installed copy of this file)."""
METADATA_FILES = {"ctc_conversion.json": CTC_RELEASE, "usr_conversion.json": USR_RELEASE}
"""The metadata file each converter writes → the release tag of that family."""


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
    files = sorted((str(p.relative_to(folder)), p.stat().st_size) for p in folder.rglob("*") if p.is_file())
    return spec.repo_id, tag, files


def write_revisions(path: Path, table: dict[str, str]) -> None:
    """The table as stable JSON: keys sorted, two-space indent, one trailing newline."""
    path.write_text(json.dumps(dict(sorted(table.items())), indent=2) + "\n", encoding="utf-8")


def publish(
    root: str | Path,
    dry_run: bool = False,
    token: str | None = None,
    *,
    api: Any = None,
    revisions_file: str | Path = REVISIONS_FILE,
) -> list[str]:
    """Upload every converted folder under ``root`` and record each new commit; returns the lines printed.

    ``api`` is a ``huggingface_hub.HfApi`` (default: one made with ``token``), or any object with its
    ``create_repo``, ``upload_folder`` (returning an object with the commit id as ``.oid``) and
    ``create_tag``. ``revisions_file`` is rewritten after each upload, so a failure midway keeps the
    commits already made.
    """
    revisions_file = Path(revisions_file)
    recorded = read_published_revisions(revisions_file) if revisions_file.is_file() else {}
    lines = []
    for folder in converted_folders(root):
        repo_id, tag, files = plan(folder)
        if repo_id in recorded:
            lines.append(
                f"skipping {folder}: {repo_id} is already published at {recorded[repo_id]} "
                f"(recorded in {revisions_file}; remove the entry to upload again)"
            )
            print(lines[-1])
            continue
        lines.append(
            f"{'would upload' if dry_run else 'uploading'} {folder} -> https://huggingface.co/{repo_id} (tag {tag})"
        )
        lines += [f"    {name}  {size:,} bytes" for name, size in files]
        print("\n".join(lines[-len(files) - 1 :]))
        if dry_run:
            continue
        if api is None:
            from huggingface_hub import HfApi

            api = HfApi(token=token)
        api.create_repo(repo_id, repo_type="model", exist_ok=True)
        metadata = json.loads(metadata_file(folder).read_text())
        commit = api.upload_folder(
            folder_path=str(folder), repo_id=repo_id, commit_message=commit_message(metadata)
        )
        oid = getattr(commit, "oid", None)
        if not isinstance(oid, str) or re.fullmatch(r"[0-9a-f]{40}", oid) is None:
            raise RuntimeError(f"upload_folder to {repo_id} returned no commit id (got {commit!r})")
        api.create_tag(
            repo_id, tag=tag, revision=oid, tag_message="nlgmetrics pinned revision", exist_ok=True
        )
        recorded[repo_id] = oid
        write_revisions(revisions_file, recorded)
        lines.append(f"    pinned {repo_id}@{oid} in {revisions_file}")
        print(lines[-1])
    if not lines:
        raise SystemExit(f"no converted folders (with {' or '.join(METADATA_FILES)}) under {root}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hub_models.publish", description=__doc__.split("\n")[0])
    parser.add_argument("root", help="a converted folder, or a folder of them")
    parser.add_argument("--dry-run", action="store_true", help="only list what would be uploaded where")
    parser.add_argument("--token", default=None, help="Hub token (default: HF_TOKEN / the saved login)")
    args = parser.parse_args(argv)
    publish(args.root, dry_run=args.dry_run, token=args.token)
    return 0


if __name__ == "__main__":
    sys.exit(main())
