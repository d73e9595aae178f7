"""``nlgmetrics register``: bare ``evaluate.load("ctc_consistency")`` in a process that never imports
nlgmetrics, offline and against a Hub that has no such module, gives ``nlgmetrics.load``'s results."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import nlgmetrics
from nlgmetrics import testing
from nlgmetrics.modules import SPECS
from nlgmetrics.registration import MARKER, PREFIX, version_hash
from nlgmetrics.testing import bare_evaluate_load, same_results
from tests.test_contract import config_of, examples

NAMES = sorted(SPECS)
pytestmark = pytest.mark.filterwarnings("ignore::nlgmetrics.core.runtime.NLGMetricsWarning")


def run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True, timeout=600)


@pytest.fixture
def modules_cache(tmp_path) -> dict[str, str]:
    """The environment of a user's process: its own evaluate modules cache, the tiny Hub cache."""
    return {**os.environ, "HF_MODULES_CACHE": str(tmp_path / "modules")}


def register(env: dict[str, str], cwd: Path, *more: str) -> str:
    done = run([sys.executable, "-m", "nlgmetrics", "register", *more], env, cwd)
    assert done.returncode == 0, done.stderr
    return done.stdout


def expected(cases: list) -> dict:
    return {name: nlgmetrics.load(name, config).compute(**inputs) for name, config, inputs in cases}


def cases_for(names: list[str]) -> list:
    return [[name, config_of(name), examples(name, 3)] for name in names]


def assert_same(got: dict, want: dict) -> None:
    assert set(got) == set(want) and same_results(got, want) == []


def test_register_then_bare_evaluate_load_offline_equals_nlgmetrics_load(modules_cache, tmp_path):
    out = register(modules_cache, tmp_path)
    assert out.count(": registered (") == len(NAMES)
    env = {**modules_cache, "HF_EVALUATE_OFFLINE": "1"}
    cases = cases_for(NAMES)
    assert_same(bare_evaluate_load(cases, env, tmp_path), expected(cases))


@pytest.fixture
def hub_without_modules():
    with testing.hub_without_modules() as url:
        yield url


def test_bare_evaluate_load_online_where_the_hub_has_no_such_module(
    modules_cache, tmp_path, hub_without_modules
):
    register(modules_cache, tmp_path)
    env = {**modules_cache, "HF_ENDPOINT": hub_without_modules}
    env.pop("HF_EVALUATE_OFFLINE")  # evaluate asks the (local) Hub first; weights stay in the offline cache
    cases = cases_for(["ctc_consistency", "infolm", "unieval", "usr"])
    assert_same(bare_evaluate_load(cases, env, tmp_path), expected(cases))


def test_register_is_idempotent_replaces_older_versions_and_removes_only_its_own(modules_cache, tmp_path):
    root = Path(modules_cache["HF_MODULES_CACHE"]) / "evaluate_modules" / "metrics"
    register(modules_cache, tmp_path)
    first = sorted(p.relative_to(root) for p in root.rglob("*"))
    assert register(modules_cache, tmp_path).count(": already registered (") == len(NAMES)
    assert sorted(p.relative_to(root) for p in root.rglob("*")) == first

    # an older nlgmetrics wrote a version folder, and another tool cached its own version of a name
    parent = root / f"{PREFIX}ctc_consistency"
    old = parent / version_hash("ctc_consistency", "0.0.1")
    old.mkdir()
    (old / MARKER).write_text(json.dumps({"module": "ctc_consistency", "nlgmetrics": "0.0.1"}))
    foreign = parent / ("f" * 64)
    foreign.mkdir()
    (foreign / "ctc_consistency.py").write_text("# someone else's\n")
    out = register(modules_cache, tmp_path)
    assert "ctc_consistency: replaced nlgmetrics 0.0.1" in out and not old.exists() and foreign.exists()
    ours = parent / version_hash("ctc_consistency", nlgmetrics.__version__) / "ctc_consistency.py"
    assert ours.stat().st_mtime >= (foreign / "ctc_consistency.py").stat().st_mtime  # evaluate picks ours

    out = register(modules_cache, tmp_path, "--remove")
    assert out.count(": removed (") == len(NAMES)
    left = {p.name for p in parent.iterdir()}
    assert foreign.exists() and left == {"__init__.py", f".{MARKER}", "f" * 64}
    assert [p.name for p in root.iterdir() if p.is_dir()] == [parent.name]  # the other seven were all ours
    assert register(modules_cache, tmp_path, "--remove").count(": not registered (") == len(NAMES)
