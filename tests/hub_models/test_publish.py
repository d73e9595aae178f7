"""``python -m hub_models.publish``: weights, then the 8 module Spaces, then the app Space, each Space
self-contained (the wheel inside, requirements that install it); nothing tagged or recorded unless every
upload succeeded. Runs against the in-process ``HfApi`` stand-in of tests/hub_models/test_registry.py; the
release check (scripts/release.sh) serves a written app Space from its own folder in a fresh environment."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import yaml

from hub_models import publish
from nlgmetrics import __version__
from nlgmetrics.modules import SPECS
from tests.hub_models.test_registry import ROOT, FakeHub, converted

SPACES = [f"nlgmetrics/{name}" for name in sorted(SPECS)] + ["nlgmetrics/nlgmetrics"]
WEIGHT_REPO = "nlgmetrics/ctc-R-xsum-doc_to_summ"


@pytest.fixture
def wheel(tmp_path):
    """A stand-in for the built wheel (its content does not matter to publishing; the release check
    installs the real one)."""
    path = tmp_path / "dist" / f"nlgmetrics-{__version__}-py3-none-any.whl"
    path.parent.mkdir()
    path.write_bytes(b"PK\x05\x06" + bytes(18))
    return path


@pytest.fixture
def weights(tmp_path):
    converted(tmp_path / "converted", "R-xsum", "doc_to_summ")
    return tmp_path / "converted"


def front_matter(card: str) -> dict:
    assert card.startswith("---\n")
    return yaml.safe_load(card.split("---\n")[1])


def test_a_dry_run_writes_exactly_the_folders_to_upload(tmp_path, wheel, weights):
    out = tmp_path / "staged"
    table = tmp_path / "published_revisions.json"
    hub = FakeHub()
    lines = publish.publish(weights, wheel=wheel, out=out, dry_run=True, api=hub, revisions_file=table)
    assert hub.calls == [] and not table.exists()
    targets = [line.split(" -> ")[1] for line in lines if line.startswith("would upload")]
    assert targets == [f"https://huggingface.co/{WEIGHT_REPO} (tag v1.0)"] + [
        f"https://huggingface.co/spaces/{repo} (tag v{__version__})" for repo in SPACES
    ]
    assert {p.name for p in (out / "models" / WEIGHT_REPO).iterdir()} == {
        "ctc_conversion.json",
        "config.json",
    }
    for repo in SPACES:
        folder = out / "spaces" / repo
        name = repo.split("/")[1]
        source = ROOT / ("space" if name == "nlgmetrics" else f"metrics/{name}")
        expected = {"README.md", "app.py", "requirements.txt", wheel.name} | (
            {f"{name}.py"} if name in SPECS else set()
        )
        assert {p.name for p in folder.iterdir()} == expected, repo
        assert (folder / wheel.name).read_bytes() == wheel.read_bytes()
        requirements = [
            line
            for line in (folder / "requirements.txt").read_text().splitlines()
            if not line.startswith("#")
        ]
        assert requirements == [f"./{wheel.name}[space,embedded,usr]"], repo  # nothing from PyPI's nlgmetrics
        assert (folder / "README.md").read_text() == (source / "README.md").read_text()
        meta = front_matter((folder / "README.md").read_text())
        assert meta["sdk"] == "gradio" and meta["app_file"] == "app.py", repo
        if name in SPECS:
            assert (folder / f"{name}.py").read_text() == (source / f"{name}.py").read_text()
            assert "evaluate" in meta["tags"] and "metric" in meta["tags"], repo


def test_publishing_uploads_in_order_then_tags_and_records(tmp_path, wheel, weights):
    table = tmp_path / "published_revisions.json"
    hub = FakeHub()
    lines = publish.publish(weights, wheel=wheel, api=hub, revisions_file=table)
    uploads = [call[1] for call in hub.calls if call[0] == "upload_folder"]
    assert uploads == [WEIGHT_REPO, *SPACES]
    kinds = [call[0] for call in hub.calls]
    repos = len(SPACES) + 1  # the weights' repo and a Space per module and the app's
    assert kinds == ["create_repo", "upload_folder"] * repos + ["create_tag"] * repos
    repo_types = {call[1]: call[2] for call in hub.calls if call[0] == "create_repo"}
    assert repo_types == {WEIGHT_REPO: "model", **{repo: "space" for repo in SPACES}}
    tags = {call[1]: (call[2], call[3]) for call in hub.calls if call[0] == "create_tag"}
    assert tags[WEIGHT_REPO][0] == "v1.0" and all(tags[r][0] == f"v{__version__}" for r in SPACES)
    oids = {call[1]: call[3] for call in hub.calls if call[0] == "upload_folder"}
    assert all(tags[repo][1] == oids[repo] for repo in oids)  # each tag on the commit its upload made
    assert json.loads(table.read_text()) == {WEIGHT_REPO: oids[WEIGHT_REPO]}  # Spaces are not pinned
    assert f"    pinned {WEIGHT_REPO}@{oids[WEIGHT_REPO]} in {table}" in lines


def test_a_space_failing_halfway_leaves_nothing_tagged_or_recorded(tmp_path, wheel, weights, capsys):
    table = tmp_path / "published_revisions.json"
    hub = FakeHub(fail_on="nlgmetrics/infolm")
    with pytest.raises(ConnectionError):
        publish.publish(weights, wheel=wheel, api=hub, revisions_file=table)
    failed = SPACES.index("nlgmetrics/infolm")
    assert [call[1] for call in hub.calls if call[0] == "upload_folder"] == [WEIGHT_REPO, *SPACES[:failed]]
    assert not [call for call in hub.calls if call[0] == "create_tag"] and not table.exists()
    err = capsys.readouterr().err
    assert "publishing stopped at nlgmetrics/infolm (ConnectionError: the Hub went away)" in err
    assert f"nothing was tagged or recorded ({failed + 1} of {len(SPACES) + 1} uploaded)" in err


def test_bad_wheels_and_used_folders_are_refused_before_any_upload(tmp_path, wheel, weights):
    hub = FakeHub()
    other = wheel.with_name("nlgmetrics-0.0.1-py3-none-any.whl")
    other.write_bytes(wheel.read_bytes())
    with pytest.raises(ValueError, match=f"is not the wheel of nlgmetrics {__version__}"):
        publish.publish(weights, wheel=other, api=hub)
    with pytest.raises(ValueError, match="no wheel at .*bash scripts/release.sh"):
        publish.publish(weights, wheel=tmp_path / "missing.whl", api=hub)
    (tmp_path / "used" / "x").mkdir(parents=True)
    with pytest.raises(ValueError, match="is not empty"):
        publish.publish(weights, wheel=wheel, out=tmp_path / "used", dry_run=True, api=hub)
    assert hub.calls == []


def test_the_command_line_dry_run_and_its_errors(tmp_path, wheel, weights):
    def run(*args: str) -> subprocess.CompletedProcess:
        command = [sys.executable, "-m", "hub_models.publish", *args]
        return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)

    done = run(str(weights), "--wheel", str(wheel), "--dry-run", "--out", str(tmp_path / "staged"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("would upload") == len(SPACES) + 1
    assert (tmp_path / "staged" / "spaces" / "nlgmetrics" / "nlgmetrics" / "app.py").is_file()
    missing = run("--wheel", str(tmp_path / "missing.whl"), "--dry-run")
    assert missing.returncode == 2 and missing.stderr.strip().splitlines()[-1].startswith(
        "python -m hub_models.publish: error: no wheel at"
    )


def test_a_dry_run_that_fails_halfway_leaves_no_half_staged_out_folder(tmp_path, wheel, weights):
    """The weights are staged before the wheel is checked: the failure leaves no --out folder (issue 33
    §8)."""
    other = wheel.with_name("nlgmetrics-0.0.1-py3-none-any.whl")
    other.write_bytes(wheel.read_bytes())
    out = tmp_path / "staged"
    with pytest.raises(ValueError, match=f"is not the wheel of nlgmetrics {__version__}"):
        publish.publish(weights, wheel=other, out=out, dry_run=True, api=FakeHub())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["converted", "dist"]
