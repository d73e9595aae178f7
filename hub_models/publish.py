"""Create or update the Hub repos of converted CTC checkpoints, and tag the pinned revision.

    python -m hub_models.publish out/ --dry-run     # list what would be uploaded where
    python -m hub_models.publish out/               # needs HF_TOKEN with write access to the org

``out/`` holds folders written by ``convert_ctc`` (each with ``ctc_conversion.json``). The target
repo and tag of each come from the registry (``nlgmetrics.core.registry.WEIGHTS``), so the ids the
metrics load are exactly the ones published: ``create_repo`` (idempotent), ``upload_folder``,
then ``create_tag`` with the registry's pinned revision.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from nlgmetrics.core.registry import WEIGHTS


def converted_folders(root: str | Path) -> list[Path]:
    """Every converted folder under ``root`` (or ``root`` itself)."""
    root = Path(root)
    if (root / "ctc_conversion.json").is_file():
        return [root]
    return sorted(p.parent for p in root.glob("*/ctc_conversion.json"))


def plan(folder: Path) -> tuple[str, str, list[tuple[str, int]]]:
    """(repo id, tag, [(file, bytes)]) for one folder; the metadata must match the registry."""
    metadata = json.loads((folder / "ctc_conversion.json").read_text())
    spec = WEIGHTS[metadata["registry_name"]]
    if (metadata["repo_id"], metadata["revision"]) != (spec.repo_id, spec.revision):
        raise ValueError(
            f"{folder}: converted for {metadata['repo_id']}@{metadata['revision']}, "
            f"but the registry now says {spec.repo_id}@{spec.revision}; convert again"
        )
    files = sorted((str(p.relative_to(folder)), p.stat().st_size) for p in folder.rglob("*") if p.is_file())
    return spec.repo_id, spec.revision, files


def publish(root: str | Path, dry_run: bool = False, token: str | None = None) -> list[str]:
    """Upload every converted folder under ``root``; returns the lines it printed."""
    lines = []
    api = None
    for folder in converted_folders(root):
        repo_id, tag, files = plan(folder)
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
        metadata = json.loads((folder / "ctc_conversion.json").read_text())
        api.upload_folder(
            folder_path=str(folder),
            repo_id=repo_id,
            commit_message=f"CTC {metadata['variant']} {metadata['direction']} aligner, converted by nlgmetrics",
        )
        api.create_tag(repo_id, tag=tag, tag_message="nlgmetrics pinned revision", exist_ok=True)
    if not lines:
        raise SystemExit(f"no converted folders (with ctc_conversion.json) under {root}")
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
