"""Pinned revisions: the registry's table of published commits and the publish step that writes it.

``hub_models.publish`` runs here against a small in-process stand-in for ``huggingface_hub.HfApi``
that records the calls and returns a commit id, so nothing is uploaded.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from hub_models import publish
from nlgmetrics.core.registry import PUBLISHED_REVISIONS, WEIGHTS, read_published_revisions
from nlgmetrics.ctc.weights import CTC_CHECKPOINTS, CTC_RELEASE, ctc_checkpoint_weights, ctc_weight_name
from nlgmetrics.usr.weights import USR_CHECKPOINTS, USR_RELEASE, usr_weight_name

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "metrics" / "nlgmetrics"


class FakeHub:
    """The three ``HfApi`` methods publish uses; ``upload_folder`` returns a made-up commit id."""

    def __init__(self, fail_on: str | None = None, oid: str | None = None):
        self.calls: list[tuple] = []
        self.fail_on = fail_on
        self.oid = oid

    def create_repo(self, repo_id, repo_type=None, exist_ok=False, space_sdk=None):
        assert (space_sdk == "gradio") is (repo_type == "space")
        self.calls.append(("create_repo", repo_id, repo_type, exist_ok))

    def upload_folder(self, *, folder_path, repo_id, repo_type, commit_message):
        if repo_id == self.fail_on:
            raise ConnectionError("the Hub went away")
        oid = self.oid if self.oid is not None else hashlib.sha1(repo_id.encode()).hexdigest()
        self.calls.append(("upload_folder", repo_id, folder_path, oid))
        return SimpleNamespace(oid=oid, commit_url=f"https://huggingface.co/{repo_id}/commit/{oid}")

    def create_tag(self, repo_id, *, repo_type, tag, revision=None, tag_message=None, exist_ok=False):
        self.calls.append(("create_tag", repo_id, tag, revision, exist_ok))


def converted(root: Path, variant: str, direction: str, revision: str = CTC_RELEASE) -> Path:
    """A folder as ``convert_ctc`` leaves it, as far as publish reads it (metadata and some files)."""
    spec = WEIGHTS[ctc_weight_name(variant, direction)]
    folder = root / spec.name
    folder.mkdir(parents=True)
    metadata = {
        "registry_name": spec.name,
        "repo_id": spec.repo_id,
        "revision": revision,
        "variant": variant,
        "direction": direction,
    }
    (folder / "ctc_conversion.json").write_text(json.dumps(metadata))
    (folder / "config.json").write_text("{}")
    return folder


def test_publish_records_the_commit_of_each_upload_and_tags_it(tmp_path):
    out = tmp_path / "out"
    converted(out, "R-xsum", "doc_to_summ")
    converted(out, "D-cnndm", "summ_to_ref")
    table = tmp_path / "published_revisions.json"
    hub = FakeHub()
    lines = publish.publish(out, api=hub, revisions_file=table)

    expected = {
        repo: hashlib.sha1(repo.encode()).hexdigest()
        for repo in ("nlgmetrics/ctc-D-cnndm-summ_to_ref", "nlgmetrics/ctc-R-xsum-doc_to_summ")
    }
    assert json.loads(table.read_text()) == expected
    # stable formatting: sorted keys, two-space indent, one trailing newline
    assert table.read_text() == json.dumps(dict(sorted(expected.items())), indent=2) + "\n"
    assert list(json.loads(table.read_text())) == sorted(expected)
    for repo, oid in expected.items():
        assert ("create_repo", repo, "model", True) in hub.calls
        assert ("create_tag", repo, CTC_RELEASE, oid, True) in hub.calls  # the tag is on that very commit
        assert f"    pinned {repo}@{oid} in {table}" in lines
    kinds = [call[0] for call in hub.calls]
    assert kinds == ["create_repo", "upload_folder"] * 2 + ["create_tag"] * 2  # tags only once all uploaded


def test_after_publishing_the_registry_pins_the_repo_to_the_recorded_commit(tmp_path):
    converted(tmp_path / "out", "R-xsum", "doc_to_summ")
    table = tmp_path / "published_revisions.json"
    publish.publish(
        tmp_path / "out", api=FakeHub(oid="0123456789abcdef0123456789abcdef01234567"), revisions_file=table
    )

    specs = ctc_checkpoint_weights(read_published_revisions(table))
    spec = specs["ctc-R-xsum-doc_to_summ"]
    assert spec.revision == "0123456789abcdef0123456789abcdef01234567" and spec.pinned
    assert specs["ctc-R-cnndm-doc_to_summ"].revision == CTC_RELEASE
    assert not specs["ctc-R-cnndm-doc_to_summ"].pinned


def test_a_fresh_import_reads_the_recorded_commits(tmp_path):
    """A copy of the package with a recorded commit, imported in a new process, loads that commit."""
    copy = tmp_path / "site" / "nlgmetrics"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    repo, oid = "nlgmetrics/ctc-D-xsum-doc_to_summ", "fedcba9876543210fedcba9876543210fedcba98"
    publish.write_revisions(copy / "core" / "data" / "published_revisions.json", {repo: oid})
    code = (
        "import nlgmetrics.core.registry as r; s = r.WEIGHTS['ctc-D-xsum-doc_to_summ']; from "
        "nlgmetrics.core.resolve import resolve_weight; w = resolve_weight(s.name, "
        "role='token_classifier'); print(r.__file__, s.revision, s.pinned, w.describe(), "
        "r.WEIGHTS['ctc-D-cnndm-doc_to_summ'].revision)"
    )
    env = {**os.environ, "PYTHONPATH": str(copy.parent)}
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    path, revision, pinned, described, other = run.stdout.split()
    assert Path(path).is_relative_to(copy)
    assert (revision, pinned, described, other) == (oid, "True", f"{repo}@{oid}", CTC_RELEASE)


def test_a_dry_run_writes_nothing_and_calls_no_hub(tmp_path):
    converted(tmp_path / "out", "R-yelp", "sent_to_sent")
    table = tmp_path / "published_revisions.json"
    hub = FakeHub()
    lines = publish.publish(tmp_path / "out", dry_run=True, api=hub, revisions_file=table)
    assert lines[0].startswith("would upload") and lines[0].endswith("(tag v1.0)")
    assert not table.exists() and hub.calls == []


def test_an_already_published_repo_is_skipped(tmp_path):
    converted(tmp_path / "out", "R-yelp", "sent_to_sent")
    table = tmp_path / "published_revisions.json"
    publish.write_revisions(table, {"nlgmetrics/ctc-R-yelp-sent_to_sent": "a" * 40})
    hub = FakeHub()
    lines = publish.publish(tmp_path / "out", api=hub, revisions_file=table)
    assert hub.calls == [] and lines[0].startswith("skipping") and "a" * 40 in lines[0]
    assert json.loads(table.read_text()) == {"nlgmetrics/ctc-R-yelp-sent_to_sent": "a" * 40}


def test_a_failure_midway_tags_and_records_nothing(tmp_path, capsys):
    out = tmp_path / "out"
    converted(out, "D-cnndm", "doc_to_summ")
    converted(out, "R-cnndm", "doc_to_summ")
    table = tmp_path / "published_revisions.json"
    hub = FakeHub(fail_on="nlgmetrics/ctc-R-cnndm-doc_to_summ")
    with pytest.raises(ConnectionError):
        publish.publish(out, api=hub, revisions_file=table)
    assert not table.exists() and not [call for call in hub.calls if call[0] == "create_tag"]
    assert (
        "nothing was tagged or recorded (1 of 2 uploaded); run the same command again"
        in capsys.readouterr().err
    )


def test_an_upload_without_a_commit_id_is_an_error(tmp_path):
    converted(tmp_path / "out", "R-yelp", "sent_to_sent")
    table = tmp_path / "published_revisions.json"
    with pytest.raises(RuntimeError, match="no commit id"):
        publish.publish(tmp_path / "out", api=FakeHub(oid="v1.0"), revisions_file=table)
    assert not table.exists()


def test_a_folder_converted_after_publishing_is_accepted(tmp_path):
    """convert_ctc writes the registry's revision: after publishing, that is the recorded commit."""
    folder = converted(tmp_path / "out", "R-yelp", "sent_to_sent", revision="not-the-release")
    with pytest.raises(ValueError, match="convert again"):
        publish.plan(folder)
    spec = WEIGHTS["ctc-R-yelp-sent_to_sent"]
    assert publish.plan(converted(tmp_path / "ok", "R-yelp", "sent_to_sent", spec.revision))[1] == CTC_RELEASE


def test_the_recorded_table_holds_only_commit_ids(tmp_path):
    bad = tmp_path / "published.json"
    bad.write_text(json.dumps({"nlgmetrics/ctc-R-xsum-doc_to_summ": "v1.0"}))
    with pytest.raises(ValueError, match="not a 40-hex commit id"):
        read_published_revisions(bad)


def test_every_registered_weight_is_pinned_or_waits_for_publishing():
    ctc = {f"nlgmetrics/ctc-{v}-{d}" for v, dirs in CTC_CHECKPOINTS.items() for d in dirs}
    usr = {f"nlgmetrics/{usr_weight_name(part)}" for part in USR_CHECKPOINTS}
    checkpoints = ctc | usr
    assert set(PUBLISHED_REVISIONS) <= checkpoints  # the shipped table names only our repos
    assert read_published_revisions() == PUBLISHED_REVISIONS
    for spec in WEIGHTS.values():
        if spec.awaiting_pin:  # registered without network: unpinned, and saying so
            assert spec.revision == "main" and not spec.pinned and "NOT YET PINNED" in spec.notes, spec
        elif spec.repo_id in PUBLISHED_REVISIONS or spec.repo_id not in checkpoints:
            assert spec.pinned, spec
        else:
            tag = CTC_RELEASE if spec.repo_id in ctc else USR_RELEASE
            assert spec.revision == tag and not spec.pinned, spec
    assert publish.REVISIONS_FILE == PACKAGE / "core" / "data" / "published_revisions.json"
    stable = json.dumps(dict(sorted(PUBLISHED_REVISIONS.items())), indent=2) + "\n"
    assert publish.REVISIONS_FILE.read_text() == stable  # as publish writes it


@pytest.mark.parametrize("revision", ["0123456789abcdef0123456789abcdef01234567", CTC_RELEASE])
def test_the_tiny_test_cache_serves_a_commit_or_a_tag(tmp_path, revision):
    """nlgmetrics.testing installs a snapshot under a sha or a tag; transformers finds it offline."""
    from transformers import AutoConfig

    from nlgmetrics.testing import install_in_cache

    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model_type": "bert", "hidden_size": 32}))
    cache = tmp_path / "hub"
    install_in_cache(folder, cache, "nlgmetrics/ctc-R-xsum-doc_to_summ", revision)
    assert os.environ["HF_HUB_OFFLINE"] == "1"
    config = AutoConfig.from_pretrained(
        "nlgmetrics/ctc-R-xsum-doc_to_summ", revision=revision, cache_dir=cache
    )
    assert config.hidden_size == 32
