"""``nlgmetrics register``: bare ``evaluate.load("ctc_consistency")`` in a process that never imports
nlgmetrics, offline and against a Hub that has no such module, gives ``nlgmetrics.load``'s results."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import nlgmetrics
from nlgmetrics import testing
from nlgmetrics.modules import SPECS
from nlgmetrics.registration import MARKER, PREFIX, modules_cache_from_environment, version_hash
from nlgmetrics.testing import bare_evaluate_load, same_results
from references.examples import examples
from tests.helpers import config_of

NAMES = sorted(SPECS)
pytestmark = pytest.mark.filterwarnings("ignore::nlgmetrics.core.warnings.NLGMetricsWarning")


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


REGISTER_ALONE = """import runpy, sys
sys.argv = ["nlgmetrics", "register"]
try:
    runpy.run_module("nlgmetrics", run_name="__main__")  # exactly `python -m nlgmetrics register`
except SystemExit as done:
    assert not done.code, done.code
print(sorted({name.split(".")[0] for name in sys.modules} & {"evaluate", "torch", "transformers"}))
"""


def test_register_imports_no_model_library(modules_cache, tmp_path):
    """Registering writes files: it imports neither evaluate nor torch (seconds per run, most of it
    transformers' pipelines, which evaluate imports)."""
    done = run([sys.executable, "-c", REGISTER_ALONE], modules_cache, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count(": registered (") == len(NAMES)
    assert done.stdout.splitlines()[-1] == "[]"


@pytest.mark.parametrize(
    "variables",
    [{"HF_MODULES_CACHE": "/x/modules"}, {"HF_HOME": "~/hf"}, {"XDG_CACHE_HOME": "/x/xdg"}, {}],
)
def test_the_modules_cache_is_read_from_the_environment_as_evaluate_reads_it(monkeypatch, variables):
    """Without importing evaluate, register finds evaluate's modules cache as evaluate's config does."""
    import importlib

    from evaluate import config

    for name in ("HF_MODULES_CACHE", "HF_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    try:
        importlib.reload(config)
        assert modules_cache_from_environment() == config.HF_MODULES_CACHE
    finally:
        monkeypatch.undo()
        importlib.reload(config)


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


# ---- issue 26 §11: concurrent runs, a half-written folder, a cache path that is a file -----------------


AT_ONCE = """import os, pathlib, runpy, sys, time
import nlgmetrics.cli, nlgmetrics.registration  # imported first, so that all start together
from nlgmetrics.modules import SPECS
list(SPECS)
ready, go = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
(ready / str(os.getpid())).touch()
while not go.exists():
    time.sleep(0.001)
sys.argv = ["nlgmetrics", "register"]
runpy.run_module("nlgmetrics", run_name="__main__")  # exactly `python -m nlgmetrics register`
"""


def register_at_once(env: dict[str, str], cwd: Path, n: int) -> list[tuple[int, str, str]]:
    """``n`` processes running ``nlgmetrics register``, released together once all have imported."""
    ready, go = cwd / "ready", cwd / "go"
    ready.mkdir()
    command = [sys.executable, "-c", AT_ONCE, str(ready), str(go)]
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True}
    processes = [subprocess.Popen(command, env=env, cwd=cwd, **pipes) for _ in range(n)]
    deadline = time.monotonic() + 600
    while len(list(ready.iterdir())) < n and time.monotonic() < deadline:
        if any(p.poll() is not None for p in processes):
            break  # one failed before the start: its output says why
        time.sleep(0.05)
    go.touch()
    return [(p.wait(timeout=600), *p.communicate()) for p in processes]


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (bytecode caches aside) with its bytes."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def test_eight_concurrent_registers_into_an_empty_cache_all_succeed_with_one_result(modules_cache, tmp_path):
    done = register_at_once(modules_cache, tmp_path, 8)
    assert [(code, err) for code, _, err in done] == [(0, "")] * 8
    for _, out, _ in done:
        assert sum(
            f"{name}: registered (" in out or f"{name}: already registered (" in out for name in NAMES
        ) == len(NAMES)
    root = Path(modules_cache["HF_MODULES_CACHE"]) / "evaluate_modules" / "metrics"
    concurrent = tree(root)
    alone = tmp_path / "alone"
    register({**modules_cache, "HF_MODULES_CACHE": str(alone)}, tmp_path)
    # the same files, byte for byte, as one run writes alone (each script's json names its own path)
    cache = modules_cache["HF_MODULES_CACHE"].encode()
    written_alone = tree(alone / "evaluate_modules" / "metrics")
    assert concurrent == {
        path: data.replace(str(alone).encode(), cache) for path, data in written_alone.items()
    }
    for name in NAMES:
        parent = root / f"{PREFIX}{name}"
        assert sorted(p.name for p in parent.iterdir()) == sorted(
            ["__init__.py", f".{MARKER}", version_hash(name, nlgmetrics.__version__)]
        )
    env = {**modules_cache, "HF_EVALUATE_OFFLINE": "1"}
    cases = cases_for(["ctc_consistency", "unieval"])
    assert_same(bare_evaluate_load(cases, env, tmp_path), expected(cases))


def test_a_version_folder_left_half_written_is_replaced_and_removed(modules_cache, tmp_path):
    root = Path(modules_cache["HF_MODULES_CACHE"]) / "evaluate_modules" / "metrics"
    register(modules_cache, tmp_path)
    parent = root / f"{PREFIX}ctc_consistency"
    target = parent / version_hash("ctc_consistency", nlgmetrics.__version__)
    (target / MARKER).unlink()  # an interrupted run: the script is there, the marker not yet
    (target / "ctc_consistency.json").unlink()
    assert "ctc_consistency: registered (" in register(modules_cache, tmp_path)
    assert (target / MARKER).is_file() and (target / "ctc_consistency.json").is_file()

    (target / MARKER).unlink()
    out = register(modules_cache, tmp_path, "--remove")
    assert "ctc_consistency: removed (" in out and not parent.exists()

    # a half-written folder of an older version (its script names the version it was written for)
    register(modules_cache, tmp_path)
    old = parent / version_hash("ctc_consistency", "0.0.1")
    old.mkdir()
    from nlgmetrics.registration import script_text

    (old / "ctc_consistency.py").write_text(script_text("ctc_consistency", "0.0.1"), encoding="utf-8")
    foreign = parent / ("e" * 64)  # another tool's folder with the same files, not named by our hash
    foreign.mkdir()
    (foreign / "ctc_consistency.py").write_text(script_text("ctc_consistency", "0.0.1"), encoding="utf-8")
    assert "ctc_consistency: replaced nlgmetrics 0.0.1" in register(modules_cache, tmp_path)
    assert not old.exists() and foreign.exists()


@pytest.mark.parametrize("under", [False, True])
def test_a_modules_cache_that_is_a_file_is_one_line_exit_2(modules_cache, tmp_path, under):
    cache = tmp_path / "cache-file"
    cache.write_text("not a folder\n")
    env = {**modules_cache, "HF_MODULES_CACHE": str(cache / "sub" if under else cache)}
    for more in ([], ["--remove"]):
        done = run([sys.executable, "-m", "nlgmetrics", "register", *more], env, tmp_path)
        if more:  # nothing of ours can be there: nothing to remove
            assert done.returncode == 0 and done.stdout.count(": not registered (") == len(NAMES)
            continue
        assert done.returncode == 2, done.stderr
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
        assert done.stderr.startswith("nlgmetrics: error: ") and f"{cache}" in done.stderr
        assert "HF_MODULES_CACHE" in done.stderr and "not a folder" in done.stderr
    assert cache.read_text() == "not a folder\n"
